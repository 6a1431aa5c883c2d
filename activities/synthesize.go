package activities

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/research"
)

// SynthesizeInput is everything the report is written from.
type SynthesizeInput struct {
	WorkflowID string `json:"workflow_id"`
	Question   string `json:"question"`
	// Task is the question as the run researched it: local images replaced by the vision
	// model's "[Image: ...]" descriptions. Empty means the question itself.
	Task        string        `json:"task,omitempty"`
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
	// FindingsBudget bounds the findings in characters; 0 means the default.
	FindingsBudget int `json:"findings_budget,omitempty"`
	// Enrichment is every enrichment decision, numbered as Sources.
	Enrichment []research.Enrichment `json:"enrichment,omitempty"`
}

// asked is what the report answers: the task with its image descriptions, else the question.
func (in SynthesizeInput) asked() string {
	if strings.TrimSpace(in.Task) != "" {
		return in.Task
	}
	return in.Question
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
	// SourceOrder lists the input's source numbers in the report's order (first citation
	// first): the report's source i+1 is the input's SourceOrder[i].
	SourceOrder []int                   `json:"source_order,omitempty"`
	Coverage    []report.AspectCoverage `json:"coverage,omitempty"`
	// Findings are the sentences the findings quote, per source by its number in the report
	// (the evidence a model's report was written from): what the run established, for memory.
	Findings []research.SourceFindings `json:"findings,omitempty"`
}

// findingsOf lists each source's quotes, in source order, without the inner headings the
// answer puts before a section's quotes.
func findingsOf(quotes map[int][]string, sources int) []research.SourceFindings {
	var out []research.SourceFindings
	for n := 1; n <= sources; n++ {
		var qs []string
		for _, q := range quotes[n] {
			if !strings.HasPrefix(q, "### ") {
				qs = append(qs, q)
			}
		}
		if len(qs) > 0 {
			out = append(out, research.SourceFindings{N: n, Quotes: qs})
		}
	}
	return out
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
	a.readPassages(ctx, d.Sources)
	answer := report.Answer(report.AnswerInput{Question: in.asked(), Aspects: aspectTexts(in.Plan),
		Sources: d.Sources, Budget: in.FindingsBudget, Prior: searchPrior(in.Rounds, d.Sources), Topical: a.topical(ctx, d.Sources)})
	d.Sources = research.Renumber(d.Sources, answer.Order)
	d.Enrichment = research.RenumberEnrichment(in.Enrichment, answer.Order)
	d.Coverage = answer.Coverage
	out := SynthesizeOutput{Extractive: true, SourceOrder: answer.Order, Coverage: answer.Coverage,
		Findings: findingsOf(answer.Quotes, len(d.Sources))}
	if in.UseModel && a.model != nil && a.model.Configured(llm.Producer) && len(d.Sources) > 0 {
		if err := a.modelSynthesis(ctx, in, &d, answer.Quotes, &out); err != nil {
			return SynthesizeOutput{}, err // let Temporal retry first
		}
	}
	if d.Extractive {
		d.Body = answer.Body
	}
	n := len(d.Sources)
	d.Body, d.RemovedCitations = report.SanitizeCitations(d.Body, func(k int) bool { return k >= 1 && k <= n })
	out.Extractive, out.RemovedCitations = d.Extractive, d.RemovedCitations

	if in.Eval {
		out.Evidence = evidenceText(in.Knowledge, d.Sources)
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

// topical reads which stems the titles and headings of the corpus the sources came from use,
// for the answer to weigh a question's everyday words less; nil when no source's provider
// keeps such a vocabulary (web results), or when reading it fails (logged: the answer then
// weighs every word alike).
func (a *Activities) topical(ctx context.Context, sources []research.Source) func([]string) map[string]bool {
	for _, s := range sources {
		h, ok := a.providers[s.Provider].(headingFreqs)
		if !ok {
			continue
		}
		return func(stems []string) map[string]bool {
			hf, err := h.HeadingFreq(ctx, stems)
			if err != nil {
				activity.GetLogger(ctx).Warn("heading vocabulary unreadable; every question word weighs alike", "error", err)
				return nil
			}
			out := make(map[string]bool, len(hf))
			for stem, n := range hf {
				if n > 0 {
					out[stem] = true
				}
			}
			return out
		}
	}
	return nil
}

// modelSynthesis asks the producer for the report from the evidence the extractive answer
// selected (its quotes, grouped per source in the report's numbering); a failure or an empty
// answer leaves the extractive report in place with the reason. An error is returned only while
// Temporal still has attempts left.
func (a *Activities) modelSynthesis(ctx context.Context, in SynthesizeInput, d *report.Data, quotes map[int][]string, out *SynthesizeOutput) error {
	ps := make([]llm.PromptSource, len(d.Sources))
	for i, s := range d.Sources {
		// one line per quote, a merged section's quotes under its heading line
		text := strings.Join(quotes[s.N], "\n")
		if text == "" {
			text = s.Snippet
		}
		ps[i] = llm.PromptSource{Title: s.Title, URL: s.URL, Text: text}
	}
	var prior []string
	for _, p := range in.Prior {
		prior = append(prior, p.Fact)
	}
	activity.RecordHeartbeat(ctx, "writing")
	body, u, used, err := a.model.GenerateFitted(ctx, llm.Producer, llm.SynthesisSystem, llm.SynthesisQuestion(in.asked()),
		llm.SourceEvidence(ps), llm.SynthesisRender(in.Knowledge, prior))
	out.Usage.Add(u)
	switch {
	case err != nil:
		reason, ok := lastAttemptDown(ctx, err)
		if !ok {
			return err
		}
		// keep the run's evidence: an extractive report instead of a lost run
		out.Fallback = "extractive report written instead: " + reason
	case strings.TrimSpace(body) == "":
		out.Fallback = "model returned an empty report; extractive report written instead"
	default:
		n := len(ps)
		g := report.Ground(body, used, n, func(k int) bool { return k >= 1 && k <= used })
		if why := g.Refusal(); why != "" {
			// an answer the sources do not carry is the model talking: keep the extractive one
			out.Fallback = "model report refused, extractive report written instead: " + why
			break
		}
		d.Extractive = false
		d.Body = body
		if used < n {
			d.Notes = append(d.Notes, fmt.Sprintf("the prompt held %d of %d sources to fit the model's context", used, n))
		}
		if u.Truncated {
			d.Notes = append(d.Notes, "the model's context was exceeded; the evidence was shrunk to keep the question")
		}
	}
	if out.Fallback != "" {
		// the saved report says why it is extractive (the workflow records the same fallback)
		d.Fallbacks = append(slices.Clone(d.Fallbacks), "synthesis: "+out.Fallback)
		d.ExtractiveWhy = out.Fallback
	}
	return nil
}

// readPassages gives every corpus source that was not read in full its whole passage from the
// index: the corpus is local, so the answer can quote all of it, not only the snippet.
func (a *Activities) readPassages(ctx context.Context, sources []Source) {
	if a.docs == nil {
		return
	}
	for i := range sources {
		s := &sources[i]
		if s.Text != "" || !s.Indexed() {
			continue
		}
		if d, err := a.docs.Document(ctx, s.DocID); err == nil {
			s.Text = d.Body
		}
	}
}

// searchPrior is, per source, how highly the rounds' searches ranked it, fused over the rounds
// (nil when the rounds did not record their rankings: the answer then ranks by itself).
func searchPrior(rounds []RoundRecord, sources []Source) []float64 {
	var ranks [][]string
	for _, r := range rounds {
		// a round the gate discarded added nothing to the evidence; its ranking would lift
		// the known passages it found again (dev sets: python saturation 0.269 -> 0.312)
		if len(r.Ranked) > 0 && r.Decision != research.DecisionDiscarded {
			ranks = append(ranks, r.Ranked)
		}
	}
	if len(ranks) == 0 {
		return nil
	}
	fused := report.FusedRanks(ranks, report.RoundWeights(len(ranks)))
	out := make([]float64, len(sources))
	for i, s := range sources {
		out[i] = fused[research.SourceKey(s.Result)]
	}
	return out
}

// aspectTexts are the plan's aspects as the answer groups findings under them.
func aspectTexts(p Plan) []string {
	out := make([]string, len(p.Aspects))
	for i, a := range p.Aspects {
		out[i] = a.Text
	}
	return out
}

// evidenceText is everything the report could have been written from, for eval scoring.
func evidenceText(knowledge string, sources []Source) string {
	var b strings.Builder
	b.WriteString(knowledge + "\n")
	for _, s := range sources {
		b.WriteString(s.Title + ". " + s.Snippet + "\n" + s.Text + "\n")
	}
	return b.String()
}
