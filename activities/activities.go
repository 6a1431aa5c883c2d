// Package activities holds every side effect of sated: search, novelty, compression, planning,
// fetching, synthesis, memory, investigation and the harness. Activities are methods on structs
// holding narrow interfaces; each stage's types and all its paths (deterministic, model,
// embedding) live in the stage's file.
package activities

import (
	"context"
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// Activities holds the clients every research activity needs.
type Activities struct {
	providers   map[string]search.Provider
	cache       SearchCache
	record      SearchRecord
	docs        DocumentReader
	fetcher     PageFetcher
	model       Model
	reportDir   string
	memoryQueue string // the task queue memory activities are served on; empty: no memory
	chunkBudget int    // characters of an enriched page kept; 0: the chunker's default
	// searchAttributes: the namespace has sated's search attributes; workflows may set them
	searchAttributes bool
}

// Deps are the clients NewActivities wires in; nil fields mean "not configured".
type Deps struct {
	Providers map[string]search.Provider
	Cache     SearchCache
	// Record keeps each run's completed searches (see SearchRecord); nil: retries ask again.
	Record    SearchRecord
	Docs      DocumentReader
	Fetcher   PageFetcher
	Model     Model
	ReportDir string
	// MemoryQueue is the memory task queue; empty disables memory for research runs.
	MemoryQueue string
	// ChunkBudget is how many characters of an enriched page are kept (SATED_CHUNK_BUDGET);
	// 0 means the chunker's default.
	ChunkBudget int
	// SearchAttributes says the namespace has SatedStrategy and SatedState registered.
	SearchAttributes bool
}

// NewActivities builds the research activities.
func NewActivities(d Deps) *Activities {
	return &Activities{providers: d.Providers, cache: d.Cache, record: d.Record, docs: d.Docs, fetcher: d.Fetcher,
		model: d.Model, reportDir: d.ReportDir, memoryQueue: d.MemoryQueue, chunkBudget: d.ChunkBudget, searchAttributes: d.SearchAttributes}
}

// Model is the narrow view of the Ollama client the activities use; *llm.Client satisfies it.
type Model interface {
	Configured(s llm.Stage) bool
	Generate(ctx context.Context, stage llm.Stage, system, prompt string) (string, llm.Usage, error)
	GenerateJSON(ctx context.Context, stage llm.Stage, system, prompt string, schema json.RawMessage, out any, validate func() error) (llm.Outcome, llm.Usage, error)
	GenerateFitted(ctx context.Context, stage llm.Stage, system, question string, evidence []string, render func(evidence []string) string) (string, llm.Usage, int, error)
	Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error)
	Describe(ctx context.Context, imagePath string) (string, llm.Usage, error)
}

// The run's data model is defined once, in internal/research; inside this package its types go
// by their short names.
type (
	Plan        = research.Plan
	RoundRecord = research.Round
	Source      = research.Source
	Usage       = research.Usage
	PriorFact   = research.PriorFact
)

// promptSources shows results to a model by title, URL and snippet.
func promptSources(rs []search.Result) []llm.PromptSource {
	out := make([]llm.PromptSource, len(rs))
	for i, r := range rs {
		out[i] = llm.PromptSource{Title: r.Title, URL: r.URL, Text: r.Snippet}
	}
	return out
}

// ModelAttempts is how many times a model stage is tried before it falls back: the workflow's
// retry policy for model activities allows exactly this many.
const ModelAttempts = 3

// lastAttemptDown is the one policy every model stage follows when its model call fails
// (unreachable, missing model, timeout, error): return the error while Temporal has retries left,
// and on the last attempt (ModelAttempts, which every model stage's retry policy allows) fall
// back to the stage's deterministic path with this reason recorded, so a run never fails because
// of its model. A model that answers but unusably (after repair) falls back at once: retrying
// the same prompt rarely mends it. The reason names host and model (the llm errors carry both).
func lastAttemptDown(ctx context.Context, err error) (string, bool) {
	if ctx.Err() != nil || activity.GetInfo(ctx).Attempt < ModelAttempts {
		return "", false
	}
	what := "failed"
	if llm.IsUnavailable(err) || llm.IsModelMissing(err) {
		what = "unavailable"
	}
	return fmt.Sprintf("model %s after %d attempts, deterministic fallback: %v", what, ModelAttempts, err), true
}
