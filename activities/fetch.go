package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/chunk"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/fetch"
	"github.com/sated-dev/sated/internal/llm"
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

// FetchInput names a result to read in full.
type FetchInput struct {
	URL      string `json:"url"`
	DocID    string `json:"doc_id,omitempty"`
	Provider string `json:"provider"`
	Question string `json:"question"`
	UseModel bool   `json:"use_model,omitempty"` // rank chunks with the embedding model
}

// FetchOutput is the page's text, bounded to the chunker's budget.
type FetchOutput struct {
	Title     string `json:"title"`
	Text      string `json:"text"`
	From      string `json:"from"` // corpus or web
	Truncated bool   `json:"truncated"`
	Chars     int    `json:"chars"` // characters of the whole page before bounding
	Mode      string `json:"mode"`  // how the chunker chose the text: whole, sections or chunks
	Usage     Usage  `json:"usage"`
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
			return FetchOutput{}, badInput(nil, "fetch: result %s comes from a corpus this worker does not have", in.URL)
		}
		d, err := a.docs.Document(ctx, docID)
		if err != nil {
			if errors.Is(err, corpus.ErrNotFound) {
				return FetchOutput{}, badInput(nil, "fetch: corpus document %s (%s) is gone: %v", docID, in.URL, err)
			}
			return FetchOutput{}, fmt.Errorf("fetch: corpus document %s: %w", docID, err)
		}
		title, text, from = d.Title, d.Body, "corpus"
	default:
		if a.fetcher == nil {
			return FetchOutput{}, badInput(nil, "fetch: no page fetcher configured")
		}
		p, err := a.fetcher.Fetch(ctx, in.URL)
		if err != nil {
			return FetchOutput{}, classify("fetch "+in.URL, err)
		}
		title, text, from, truncated = p.Title, p.Text, "web", p.Truncated
	}
	activity.RecordHeartbeat(ctx, "chunking "+in.URL)
	var usage Usage
	res, err := chunk.Extract(ctx, text, in.Question, chunk.Options{Budget: a.chunkBudget, Similarity: a.similarity(in.UseModel, &usage)})
	if err != nil {
		return FetchOutput{}, fmt.Errorf("chunk %s: %w", in.URL, err)
	}
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
