package activities

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/report"
)

// SynthesizeInput is everything the report is written from.
type SynthesizeInput struct {
	WorkflowID  string        `json:"workflow_id"`
	Question    string        `json:"question"`
	Strategy    string        `json:"strategy"`
	Threshold   float64       `json:"threshold"`
	Seed        int64         `json:"seed"`
	Plan        Plan          `json:"plan"`
	Rounds      []RoundRecord `json:"rounds"`
	StopReason  string        `json:"stop_reason"`
	Sources     []Source      `json:"sources"`
	Knowledge   string        `json:"knowledge"`
	Prior       []PriorFact   `json:"prior,omitempty"`
	Fallbacks   []string      `json:"fallbacks,omitempty"`
	Notes       []string      `json:"notes,omitempty"`
	SearchCalls int           `json:"search_calls"`
	UseModel    bool          `json:"use_model"`
	Eval        bool          `json:"eval,omitempty"`
	Usage       Usage         `json:"usage"`
}

// SynthesizeOutput is the written report and where it was saved.
type SynthesizeOutput struct {
	Markdown         string `json:"markdown"`
	Extractive       bool   `json:"extractive"`
	RemovedCitations int    `json:"removed_citations"`
	MarkdownPath     string `json:"markdown_path"`
	JSONPath         string `json:"json_path"`
	SVGPath          string `json:"svg_path"`
	Fallback         string `json:"fallback,omitempty"`
	Evidence         string `json:"evidence,omitempty"`
	Usage            Usage  `json:"usage"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Synthesize writes the report (with the model when asked, else extractively), removes any
// citation that does not point at a retrieved source, and saves Markdown, JSON and SVG.
func (a *Activities) Synthesize(ctx context.Context, in SynthesizeInput) (SynthesizeOutput, error) {
	if strings.TrimSpace(in.Question) == "" {
		return SynthesizeOutput{}, badInput(nil, "synthesize: empty question")
	}
	d := report.Data{
		Question: in.Question, Extractive: true, Threshold: in.Threshold, StopReason: in.StopReason,
		Fallbacks: in.Fallbacks, Notes: in.Notes, GeneratedAt: time.Now().UTC(), WorkflowID: in.WorkflowID,
		Strategy: in.Strategy, SearchCalls: in.SearchCalls,
		Plan: &in.Plan, PriorKnowledge: in.Prior, Rounds: in.Rounds, Sources: in.Sources,
	}
	var prior []string
	for _, p := range in.Prior {
		prior = append(prior, p.Fact)
	}

	out := SynthesizeOutput{Extractive: true}
	if in.UseModel && a.model != nil && a.model.Configured(llm.Producer) && len(d.Sources) > 0 {
		ps := make([]llm.PromptSource, len(d.Sources))
		for i, s := range d.Sources {
			text := s.Text
			if text == "" {
				text = s.Snippet
			}
			ps[i] = llm.PromptSource{Title: s.Title, URL: s.URL, Text: text}
		}
		activity.RecordHeartbeat(ctx, "writing")
		body, u, used, err := a.model.GenerateFitted(ctx, llm.Producer, llm.SynthesisSystem, llm.SynthesisQuestion(in.Question),
			llm.SourceEvidence(ps), llm.SynthesisRender(in.Knowledge, prior))
		out.Usage.Add(u)
		switch {
		case err != nil:
			reason, ok := lastAttemptDown(ctx, err)
			if !ok {
				return SynthesizeOutput{}, err // let Temporal retry first
			}
			// keep the run's evidence: an extractive report instead of a lost run
			out.Fallback = "extractive report written instead: " + reason
		case strings.TrimSpace(body) == "":
			out.Fallback = "model returned an empty report; extractive report written instead"
		default:
			d.Extractive = false
			d.Body = body
			if used < len(ps) {
				d.Notes = append(d.Notes, fmt.Sprintf("the prompt held %d of %d sources to fit the model's context", used, len(ps)))
			}
			if u.Truncated {
				d.Notes = append(d.Notes, "the model's context was exceeded; the evidence was shrunk to keep the question")
			}
		}
	}
	if d.Extractive {
		d.Body = report.ExtractiveBody(in.Question, d.Sources, 3)
	}
	n := len(d.Sources)
	d.Body, d.RemovedCitations = report.SanitizeCitations(d.Body, func(k int) bool { return k >= 1 && k <= n })
	out.Extractive, out.RemovedCitations = d.Extractive, d.RemovedCitations

	if in.Eval {
		var b strings.Builder
		b.WriteString(in.Knowledge + "\n")
		for _, s := range d.Sources {
			b.WriteString(s.Title + ". " + s.Snippet + "\n" + s.Text + "\n")
		}
		out.Evidence = b.String()
	}
	base := unsafeName.ReplaceAllString(in.WorkflowID, "_")
	if base == "" {
		base = "report"
	}
	d.SVGFile = base + ".svg"
	paths, err := report.Save(a.reportDir, base, d, struct {
		Input  SynthesizeInput  `json:"input"`
		Output SynthesizeOutput `json:"output"`
	}{in, out})
	if err != nil {
		return SynthesizeOutput{}, fmt.Errorf("save report: %w", err)
	}
	out.MarkdownPath, out.JSONPath, out.SVGPath = paths.Markdown, paths.JSON, paths.SVG
	out.Markdown = report.Markdown(d)
	return out, nil
}
