package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/knowledge"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// SearchCache is the 24-hour search cache keyed by provider and normalized query.
type SearchCache interface {
	Get(ctx context.Context, provider, query string) ([]search.Result, bool, error)
	Put(ctx context.Context, provider, query string, results []search.Result) error
}

// Journal records completed activity executions; the crash test reads it to prove that no
// completed search ran twice. Nil means no journal.
type Journal interface {
	Completed(ctx context.Context, activity, detail string)
}

// Activities holds the clients every research activity needs.
type Activities struct {
	providers   map[string]search.Provider
	cache       SearchCache
	docs        DocumentReader
	fetcher     PageFetcher
	model       Model
	reportDir   string
	journal     Journal
	memoryQueue string // the task queue memory activities are served on; empty: no memory
}

// Deps are the clients NewActivities wires in; nil fields mean "not configured".
type Deps struct {
	Providers map[string]search.Provider
	Cache     SearchCache
	Docs      DocumentReader
	Fetcher   PageFetcher
	Model     Model
	ReportDir string
	Journal   Journal
	// MemoryQueue is the memory task queue; empty disables memory for research runs.
	MemoryQueue string
}

// NewActivities builds the research activities.
func NewActivities(d Deps) *Activities {
	return &Activities{providers: d.Providers, cache: d.Cache, docs: d.Docs, fetcher: d.Fetcher,
		model: d.Model, reportDir: d.ReportDir, journal: d.Journal, memoryQueue: d.MemoryQueue}
}

func badInput(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	return temporal.NewNonRetryableApplicationError(msg, "BadInput", nil)
}

// ProviderUnusable marks a search error no other query can avoid (an empty corpus, a provider
// this worker lacks): the run stops searching at once and says why.
const ProviderUnusable = "ProviderUnusable"

func unusable(format string, a ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, a...), ProviderUnusable, nil)
}

// classify turns bad-input errors from the libraries into non-retryable errors and leaves the
// rest to Temporal's retry policy.
func classify(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, search.ErrBadInput) {
		return temporal.NewNonRetryableApplicationError(what+": "+err.Error(), "BadInput", err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (a *Activities) record(ctx context.Context, name, detail string) {
	if a.journal != nil {
		a.journal.Completed(ctx, name, detail)
	}
}

// Search runs one query against one provider through the cache.
func (a *Activities) Search(ctx context.Context, in SearchInput) (SearchOutput, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return SearchOutput{}, badInput("search: empty query")
	}
	if in.Question != "" && plan.SameAsQuestion(q, in.Question) {
		return SearchOutput{}, badInput("search: refusing to send the raw question to a provider")
	}
	if in.Limit < 1 || in.Limit > 50 {
		return SearchOutput{}, badInput("search: limit %d out of range [1,50]", in.Limit)
	}
	p, ok := a.providers[in.Provider]
	if !ok {
		if config.KnownProvider(in.Provider) {
			return SearchOutput{}, unusable("search: provider %q is not configured on this worker (see the README's configuration)", in.Provider)
		}
		return SearchOutput{}, unusable("search: unknown provider %q", in.Provider)
	}
	if a.cache != nil && !in.NoCache {
		if rs, ok, err := a.cache.Get(ctx, in.Provider, q); err == nil && ok {
			if len(rs) > in.Limit {
				rs = rs[:in.Limit]
			}
			out := SearchOutput{Results: rs, Chars: chars(rs), Cached: true}
			a.record(ctx, "Search", q)
			return out, nil
		} else if err != nil {
			activity.GetLogger(ctx).Warn("search cache read failed", "error", err)
		}
	}
	rs, err := p.Search(ctx, q, in.Limit)
	if err != nil {
		return SearchOutput{}, classify("search "+in.Provider, err)
	}
	if len(rs) == 0 {
		// nothing found: say so plainly when the reason is an index with nothing in it
		if c, ok := p.(interface {
			Count(context.Context) (int, error)
		}); ok {
			if n, err := c.Count(ctx); err == nil && n == 0 {
				return SearchOutput{}, unusable("search: the %s index is empty: index documents with 'starter corpus index PATH...'", in.Provider)
			}
		}
	}
	for i := range rs {
		rs[i].Snippet = search.Truncate(rs[i].Snippet, search.MaxSnippetChars)
		if rs[i].Provider == "" {
			rs[i].Provider = in.Provider
		}
	}
	if a.cache != nil {
		if err := a.cache.Put(ctx, in.Provider, q, rs); err != nil {
			activity.GetLogger(ctx).Warn("search cache write failed", "error", err)
		}
	}
	a.record(ctx, "Search", q)
	return SearchOutput{Results: rs, Chars: chars(rs)}, nil
}

func chars(rs []search.Result) int {
	n := 0
	for _, r := range rs {
		n += len(r.Title) + len(r.Snippet)
	}
	return n
}

// ResultsText is the text novelty and compression look at: titles and snippets.
func ResultsText(rs []search.Result) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Title)
		b.WriteString(". ")
		b.WriteString(r.Snippet)
		b.WriteString("\n")
	}
	return b.String()
}

// AssessNovelty scores a round's unseen results against the knowledge state (0-10).
func (a *Activities) AssessNovelty(ctx context.Context, in NoveltyInput) (NoveltyOutput, error) {
	text := ResultsText(in.Results)
	heuristic := func(reason string) (NoveltyOutput, error) {
		return NoveltyOutput{Score: novelty.Heuristic(text, in.Knowledge), Method: config.NoveltyHeuristic, Fallback: reason}, nil
	}
	switch in.Method {
	case config.NoveltyHeuristic, "":
		return heuristic("")
	case config.NoveltyModel:
		if a.model == nil || !a.model.Configured(llm.Evaluator) {
			return heuristic("no evaluator model configured")
		}
		return a.modelNovelty(ctx, in, text)
	case config.NoveltyEmbedding:
		if a.model == nil || !a.model.Configured(llm.Embedder) {
			return heuristic("no embedding model configured")
		}
		return a.embeddingNovelty(ctx, in)
	default:
		return NoveltyOutput{}, badInput("novelty: unknown method %q", in.Method)
	}
}

// CompressKnowledge merges an accepted round into the knowledge state, always within the cap.
func (a *Activities) CompressKnowledge(ctx context.Context, in CompressInput) (CompressOutput, error) {
	if in.Cap < 1 {
		return CompressOutput{}, badInput("compress: cap %d must be positive", in.Cap)
	}
	if in.UseModel && a.model != nil && a.model.Configured(llm.Producer) {
		return a.modelCompress(ctx, in)
	}
	out := CompressOutput{Knowledge: knowledge.Compress(in.Knowledge, in.Results, in.Cap), Compressor: "deterministic"}
	if in.UseModel {
		out.Fallback = "no producer model configured"
	}
	return out, nil
}

// PlanResearch makes the plan before any search: targeted queries, never the raw question.
func (a *Activities) PlanResearch(ctx context.Context, in PlanInput) (PlanOutput, error) {
	if err := config.ValidateQuestion(in.Question); err != nil {
		return PlanOutput{}, badInput("plan: %v", err)
	}
	if in.UseModel && a.model != nil && a.model.Configured(llm.Planner) {
		return a.modelPlan(ctx, in)
	}
	p := deterministicPlan(in.Question, in.KnownFacts)
	if in.UseModel {
		p.FallbackReason = "no planner model configured"
	}
	return PlanOutput{Plan: p}, nil
}

func deterministicPlan(question string, known []string) Plan {
	qs := plan.Queries(question)
	p := Plan{SearchQueries: qs, KnownFacts: known, Planner: "deterministic"}
	terms := plan.Terms(question)
	for _, t := range terms {
		p.KnowledgeGaps = append(p.KnowledgeGaps, "what the sources say about "+t)
		if len(p.KnowledgeGaps) == 3 {
			break
		}
	}
	for _, q := range qs {
		p.Subtasks = append(p.Subtasks, "search: "+q)
	}
	return p
}

// PlanQuery plans a gap-filling query for rounds past the planned ones.
func (a *Activities) PlanQuery(ctx context.Context, in GapQueryInput) (GapQueryOutput, error) {
	if in.UseModel && a.model != nil && a.model.Configured(llm.Planner) {
		return a.modelGapQuery(ctx, in)
	}
	out := GapQueryOutput{Query: plan.GapQuery(in.Question, in.Knowledge, in.Previous), Planner: "deterministic"}
	if in.UseModel {
		out.Fallback = "no planner model configured"
	}
	return out, nil
}
