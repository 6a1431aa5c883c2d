package activities

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/chunk"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/fetch"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/report"
)

// DocumentReader reads a stored corpus document, so corpus results are enriched from the
// document itself rather than fetched.
type DocumentReader interface {
	Document(ctx context.Context, id string) (corpus.Document, error)
}

// PageFetcher fetches web pages safely (schemes, private addresses, size and time bounds).
type PageFetcher interface {
	Fetch(ctx context.Context, rawURL string) (fetch.Page, error)
}

// FetchPage reads one result in full and keeps the parts that matter for the task, within the
// chunker's budget.
func (a *Activities) FetchPage(ctx context.Context, in FetchInput) (FetchOutput, error) {
	var title, text, from string
	var truncated bool
	activity.RecordHeartbeat(ctx, "fetching "+in.URL)
	docID := in.DocID
	if in.Provider == "meilisearch" {
		// Meilisearch mirrors the embedded corpus: the stored document is read from it
		docID = corpus.DocID(in.URL)
	}
	switch {
	case docID != "":
		if a.docs == nil {
			return FetchOutput{}, badInput("fetch: result %s comes from a corpus this worker does not have", in.URL)
		}
		d, err := a.docs.Document(ctx, docID)
		if err != nil {
			if errors.Is(err, corpus.ErrNotFound) {
				return FetchOutput{}, badInput("fetch: corpus document %s (%s) is gone: %v", docID, in.URL, err)
			}
			return FetchOutput{}, fmt.Errorf("fetch: corpus document %s: %w", docID, err)
		}
		title, text, from = d.Title, d.Body, "corpus"
	default:
		if a.fetcher == nil {
			return FetchOutput{}, badInput("fetch: no page fetcher configured")
		}
		p, err := a.fetcher.Fetch(ctx, in.URL)
		if err != nil {
			return FetchOutput{}, classify("fetch "+in.URL, err)
		}
		title, text, from, truncated = p.Title, p.Text, "web", p.Truncated
	}
	activity.RecordHeartbeat(ctx, "chunking "+in.URL)
	var usage Usage
	res, err := chunk.Extract(ctx, text, in.Question, chunk.Options{Similarity: a.similarity(in.UseModel, &usage)})
	if err != nil {
		return FetchOutput{}, fmt.Errorf("chunk %s: %w", in.URL, err)
	}
	a.record(ctx, "FetchPage", in.URL)
	return FetchOutput{Title: title, Text: res.Text, From: from, Truncated: truncated || res.Mode != chunk.ModeWhole,
		Chars: len(text), Mode: res.Mode, Usage: usage}, nil
}

// similarity uses the embedding model when allowed, else the lexical fallback; the embedding
// calls are counted into usage for the run's budget.
func (a *Activities) similarity(useModel bool, usage *Usage) chunk.Similarity {
	if useModel && a.model != nil && a.model.Configured(llm.Embedder) {
		return chunk.EmbeddingSimilarity(func(ctx context.Context, texts []string) ([][]float32, error) {
			v, u, err := a.model.Embed(ctx, texts)
			usage.Add(u)
			return v, err
		})
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Synthesize writes the report (with the model when asked, else extractively), removes any
// citation that does not point at a retrieved source, and saves Markdown, JSON and SVG.
func (a *Activities) Synthesize(ctx context.Context, in SynthesizeInput) (SynthesizeOutput, error) {
	if strings.TrimSpace(in.Question) == "" {
		return SynthesizeOutput{}, badInput("synthesize: empty question")
	}
	d := report.Data{
		Question: in.Question, Extractive: true, Threshold: in.Threshold, StopReason: in.StopReason,
		Fallbacks: in.Fallbacks, Notes: in.Notes, GeneratedAt: time.Now().UTC(), WorkflowID: in.WorkflowID,
		Strategy: in.Strategy, SearchCalls: in.SearchCalls,
		Plan: &in.Plan, PriorKnowledge: in.Prior,
	}
	for _, r := range in.Rounds {
		d.Rounds = append(d.Rounds, report.Round{N: r.Round, Query: r.Query, QuerySource: r.QuerySource,
			Novelty: r.Novelty, Scored: r.Scored, Decision: r.Decision, NewResults: r.NewResults, Results: r.Results})
	}
	for _, s := range in.Sources {
		d.Sources = append(d.Sources, report.Source{N: s.N, URL: s.URL, Title: s.Title, Snippet: s.Snippet,
			Text: s.Text, Provider: s.Provider, Enriched: s.Enriched})
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
	a.record(ctx, "Synthesize", in.WorkflowID)
	return out, nil
}
