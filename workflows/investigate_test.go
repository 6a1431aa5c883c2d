package workflows

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/search"
)

// invProvider is a fake source: a rich one answers each distinct query with mostly unseen
// results from a large pool; a shallow one always answers with the same few.
type invProvider struct {
	name    string
	pool    int // distinct documents
	per     int // results per answer
	fail    error
	mu      sync.Mutex
	queries []string
}

func (p *invProvider) Name() string { return p.name }

func (p *invProvider) Search(_ context.Context, q string, limit int) ([]search.Result, error) {
	p.mu.Lock()
	p.queries = append(p.queries, q)
	p.mu.Unlock()
	if p.fail != nil {
		return nil, p.fail
	}
	h := fnv.New32a()
	h.Write([]byte(q))
	start := 0
	if p.pool > p.per {
		start = int(h.Sum32()) % (p.pool - p.per)
	}
	var out []search.Result
	for i := start; i < start+min(p.per, limit); i++ {
		out = append(out, search.Result{URL: fmt.Sprintf("https://%s.example.org/doc/%d", p.name, i),
			Title:   fmt.Sprintf("Garbage collector note %d from %s", i, p.name),
			Snippet: fmt.Sprintf("The garbage collector pacing note %d: GOGC tunes the heap goal; Rob Pike wrote about it in Oct 2023.", i)})
	}
	return out, nil
}

func (p *invProvider) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queries)
}

type invHarness struct {
	testsuite.WorkflowTestSuite
	env       *testsuite.TestWorkflowEnvironment
	acts      *activities.Activities
	providers map[string]*invProvider
	order     []string
	mu        sync.Mutex
}

func newInvHarness(t *testing.T, ps ...*invProvider) *invHarness {
	h := &invHarness{providers: map[string]*invProvider{}}
	h.env = h.NewTestWorkflowEnvironment()
	h.env.SetTestTimeout(time.Minute)
	m := map[string]search.Provider{}
	for _, p := range ps {
		m[p.name] = p
		h.providers[p.name] = p
	}
	h.acts = activities.NewActivities(activities.Deps{Providers: m, ReportDir: t.TempDir()})
	h.env.RegisterWorkflow(InvestigationWorkflow)
	h.env.RegisterWorkflow(SourceLoopWorkflow)
	h.env.RegisterActivity(h.acts)
	h.env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, _ converter.EncodedValues) {
		h.mu.Lock()
		h.order = append(h.order, "start "+info.WorkflowExecution.ID)
		h.mu.Unlock()
	})
	h.env.SetOnChildWorkflowCompletedListener(func(info *workflow.Info, _ converter.EncodedValue, _ error) {
		h.mu.Lock()
		h.order = append(h.order, "done "+info.WorkflowExecution.ID)
		h.mu.Unlock()
	})
	return h
}

func (h *invHarness) run(t *testing.T, req InvestigationRequest) InvestigationReport {
	t.Helper()
	h.env.ExecuteWorkflow(InvestigationWorkflow, req)
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	var rep InvestigationReport
	require.NoError(t, h.env.GetWorkflowResult(&rep))
	return rep
}

const invQuestion = "How does the Go garbage collector decide when to run, and how can GOGC tune it?"

func intp(v int) *int { return &v }

func loopsOf(rep InvestigationReport, source string) []investigate.LoopSummary {
	var out []investigate.LoopSummary
	for _, l := range rep.Loops {
		if l.Source == source {
			out = append(out, l)
		}
	}
	return out
}

func TestInvestigationRunsSourcesInParallelAndRichSourcesGoDeeper(t *testing.T) {
	h := newInvHarness(t, &invProvider{name: "corpus", pool: 400, per: 8}, &invProvider{name: "duckduckgo", pool: 5, per: 5})
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus", "duckduckgo"}, Breadcrumbs: intp(0), Entities: intp(0)})

	require.NotEmpty(t, rep.Hypotheses)
	ran := 0
	for _, hs := range rep.Hypotheses {
		if hs.Skipped == "" {
			ran++
		}
	}
	require.Len(t, loopsOf(rep, "corpus"), ran, "one corpus loop per hypothesis run")
	require.Len(t, loopsOf(rep, "duckduckgo"), ran)

	// both loops of the first hypothesis started before either finished
	h.mu.Lock()
	first := h.order[:2]
	h.mu.Unlock()
	require.True(t, strings.HasPrefix(first[0], "start ") && strings.HasPrefix(first[1], "start "), "%v", h.order)

	for _, l := range loopsOf(rep, "duckduckgo") {
		require.LessOrEqual(t, l.Queries, 2, "the shallow source repeats itself: it stops after the duplicate answer")
		require.Contains(t, l.StopReason, "saturated")
	}
	c := loopsOf(rep, "corpus")[0]
	d := loopsOf(rep, "duckduckgo")[0]
	require.Greater(t, c.Queries, d.Queries, "the rich source gets more queries")
	require.LessOrEqual(t, c.Queries, investigate.Sources["corpus"].Ceiling)

	// the events hold every query of every loop, with its numbers
	total := 0
	for _, l := range rep.Loops {
		total += l.Queries
	}
	require.Len(t, rep.Events, total)
	require.Equal(t, h.providers["corpus"].calls()+h.providers["duckduckgo"].calls(), total)
	require.Equal(t, total, rep.Spend.SearchCalls)
	for _, e := range rep.Events {
		require.NotEmpty(t, e.Query)
		require.Equal(t, investigate.DeciderHeuristic, e.Decider)
		require.Equal(t, e.Results, e.New+e.Duplicates)
	}
	require.Contains(t, rep.Markdown, "## Appendix: query events")
	require.Contains(t, rep.Markdown, "```json")
	require.FileExists(t, rep.MarkdownPath)
	require.FileExists(t, rep.JSONPath)

	v, err := h.env.QueryWorkflow(ProgressQuery)
	require.NoError(t, err)
	var p InvestigationProgress
	require.NoError(t, v.Get(&p))
	require.Equal(t, PhaseDone, p.Phase)
	require.Equal(t, rep.Events, p.Events)
	require.Empty(t, p.Running)
}

func TestHeuristicStopsAtDuplicatesAndDedupesAcrossSources(t *testing.T) {
	// two shallow sources returning the same URLs: the second query is all duplicates
	same := func(name string) *invProvider { return &invProvider{name: name, pool: 5, per: 5} }
	a, b := same("corpus"), same("searxng")
	b.name = "searxng"
	h := newInvHarness(t, a, b)
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus", "searxng"}, Breadcrumbs: intp(0), Entities: intp(0)})
	l := loopsOf(rep, "corpus")[0]
	require.Equal(t, 2, l.Queries)
	ev := rep.Events[1]
	require.Equal(t, 5, ev.Duplicates)
	require.Zero(t, ev.New)
	require.Len(t, rep.Findings, 10, "5 per source, different hosts")
	// later hypotheses find nothing new: the sources remember what they found
	for _, l := range rep.Loops[2:] {
		require.Zero(t, l.Unique)
	}
}

func TestCeilingsHold(t *testing.T) {
	h := newInvHarness(t, &invProvider{name: "corpus", pool: 100000, per: 8})
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}, Ceilings: map[string]int{"corpus": 3},
		Breadcrumbs: intp(0), Entities: intp(0)})
	for _, l := range rep.Loops {
		require.Equal(t, 3, l.Queries)
		require.Contains(t, l.StopReason, "ceiling of 3")
	}
}

func TestFailingSourceIsIsolatedAndReported(t *testing.T) {
	h := newInvHarness(t, &invProvider{name: "corpus", pool: 400, per: 8},
		&invProvider{name: "searxng", fail: errors.New("upstream 503")},
		&invProvider{name: "duckduckgo", fail: fmt.Errorf("403: %w", search.ErrBadInput)})
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus", "searxng", "duckduckgo"}, Entities: intp(0)})
	require.NotEmpty(t, rep.Findings)
	for _, f := range rep.Findings {
		require.Equal(t, []string{"corpus"}, f.SourcesOf())
	}
	s := loopsOf(rep, "searxng")[0]
	require.Contains(t, s.StopReason, "provider failing")
	require.Contains(t, s.Error, "upstream 503")
	d := loopsOf(rep, "duckduckgo")[0]
	require.Contains(t, d.StopReason, "provider rejected")
	require.Equal(t, 1, d.Queries)
	health := map[string]investigate.Health{}
	for _, hl := range rep.Health {
		health[hl.Source] = hl
	}
	require.Zero(t, health["corpus"].Failures)
	require.Positive(t, health["searxng"].Failures)
	require.Equal(t, health["searxng"].Queries, health["searxng"].Failures)
	require.Contains(t, rep.Markdown, "upstream 503")
	// breadcrumbs go to the healthy source, never silently to a failing one
	for _, l := range rep.Leads {
		require.Equal(t, "corpus", l.Source)
	}
	require.NotEmpty(t, rep.Leads)
}

func TestSourceTimeLimitEndsTheLoopWithWhatItHas(t *testing.T) {
	h := newInvHarness(t, &invProvider{name: "corpus", pool: 400, per: 8})
	calls := 0
	h.env.OnActivity(h.acts.Search, mock.Anything, mock.Anything).After(10 * time.Minute).Return(
		func(_ context.Context, in activities.SearchInput) (activities.SearchOutput, error) {
			calls++
			rs, _ := h.providers["corpus"].Search(context.Background(), in.Query, in.Limit)
			return activities.SearchOutput{Results: rs}, nil
		})
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}, TimeLimit: 25 * time.Minute,
		Breadcrumbs: intp(0), Entities: intp(0)})
	l := rep.Loops[0]
	require.True(t, l.TimedOut)
	require.Contains(t, l.StopReason, "time limit")
	require.Equal(t, 3, l.Queries, "queries at 0, 10 and 20 minutes; the third is cut at 25")
	// the two finished queries' results are kept: every distinct one they returned, told apart
	// as the loop tells them
	kept := map[string]bool{}
	for _, e := range rep.Events[:2] {
		require.Empty(t, e.Error)
		rs, _ := h.providers["corpus"].Search(context.Background(), e.Query, 8)
		for _, r := range rs {
			kept[investigate.PassageKey(r)] = true
		}
	}
	require.Equal(t, len(kept), l.Unique, "the two finished queries' results are kept")
	require.Positive(t, l.Unique)
	require.Contains(t, rep.Events[2].Error, "time limit")
}

func TestBudgetBreakerHoldsForTheWholeInvestigation(t *testing.T) {
	h := newInvHarness(t, &invProvider{name: "corpus", pool: 100000, per: 8}, &invProvider{name: "searxng", pool: 100000, per: 8})
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus", "searxng"}, MaxSearchCalls: 7})
	calls := h.providers["corpus"].calls() + h.providers["searxng"].calls()
	require.Equal(t, 7, calls, "the budget is spent, never exceeded")
	require.Equal(t, 7, rep.Spend.SearchCalls)
	require.Contains(t, rep.StopReason, "search budget reached: 7/7")
	skipped := 0
	for _, hs := range rep.Hypotheses {
		if hs.Skipped != "" {
			skipped++
		}
	}
	require.Positive(t, skipped, "no hypothesis starts once the breaker trips")
}

func TestBadInvestigationIsNonRetryable(t *testing.T) {
	for _, req := range []InvestigationRequest{
		{Question: invQuestion},
		{Question: invQuestion, Sources: []string{"altavista"}},
		{Question: invQuestion, Sources: []string{"corpus"}, Ceilings: map[string]int{"corpus": 0}},
		{Question: invQuestion, Sources: []string{"corpus", "corpus"}},
		{Question: "", Sources: []string{"corpus"}},
		{Question: invQuestion, Sources: []string{"corpus"}, Breadcrumbs: intp(-1)},
		{Question: invQuestion, Sources: []string{"corpus", "brave"}}, // the worker has no Brave key
	} {
		h := newInvHarness(t, &invProvider{name: "corpus", pool: 10, per: 5})
		h.env.ExecuteWorkflow(InvestigationWorkflow, req)
		err := h.env.GetWorkflowError()
		require.Error(t, err, "%+v", req)
		var appErr *temporal.ApplicationError
		require.True(t, errors.As(err, &appErr), "%v", err)
		require.True(t, appErr.NonRetryable())
		require.Equal(t, "BadInput", appErr.Type())
		require.Zero(t, h.providers["corpus"].calls())
	}
}

// The model policy holds in investigation mode as in research: a model that is down is retried
// as often as the stage allows, then the deterministic planner and the heuristic take over and
// the investigation completes, with the reason recorded.
func TestInvestigationWithItsModelDownFallsBackAfterRetries(t *testing.T) {
	model := &downModel{}
	p := &invProvider{name: "corpus", pool: 40, per: 5}
	h := newInvHarness(t, p)
	h.env = h.NewTestWorkflowEnvironment()
	h.env.SetTestTimeout(time.Minute)
	h.env.RegisterWorkflow(InvestigationWorkflow)
	h.env.RegisterWorkflow(SourceLoopWorkflow)
	h.env.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": p}, Model: model, ReportDir: t.TempDir()}))
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}, Breadcrumbs: intp(0), Entities: intp(0)})
	all := strings.Join(rep.Fallbacks, "\n")
	require.Contains(t, all, "investigation plan: model unavailable after 3 attempts")
	require.NotEmpty(t, rep.Findings)
	require.GreaterOrEqual(t, model.attempts, 3, "the plan was retried before falling back")
}

// stoppingProvider answers as invProvider and sends the investigation the stop signal during
// its stopAt-th search, as 'starter stop' would.
type stoppingProvider struct {
	*invProvider
	stopAt int
	signal func()
}

func (p *stoppingProvider) Search(ctx context.Context, q string, limit int) ([]search.Result, error) {
	if p.calls()+1 == p.stopAt {
		p.signal()
	}
	return p.invProvider.Search(ctx, q, limit)
}

func TestInvestigationStopsOnRequestAndReportsWhatItFound(t *testing.T) {
	rich := &invProvider{name: "corpus", pool: 400, per: 8}
	h := newInvHarness(t, rich)
	sp := &stoppingProvider{invProvider: rich, stopAt: 3}
	sp.signal = func() { h.env.SignalWorkflow(StopSignal, struct{}{}) }
	h.acts = activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"corpus": sp}, ReportDir: t.TempDir()})
	h.env.RegisterActivity(h.acts)
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}})

	require.Equal(t, stoppedReason, rep.StopReason)
	// the running loop ended at its next query: the signal reaches it through the investigation,
	// so a query may start before it arrives (here the 4th), then nothing more is searched
	require.LessOrEqual(t, rich.calls(), 4, "searches: %q", rich.queries)
	require.Len(t, rep.Events, rich.calls())
	loops := loopsOf(rep, "corpus")
	require.Len(t, loops, 1)
	require.Equal(t, stoppedReason, loops[0].StopReason)
	require.Greater(t, len(rep.Hypotheses), 1, "the plan has more hypotheses to skip")
	for _, hs := range rep.Hypotheses[1:] {
		require.Equal(t, stoppedReason, hs.Skipped)
	}
	for _, e := range rep.Events {
		require.NotContains(t, []string{"breadcrumb", "entity"}, e.Decider, "no lead or actor is searched after the stop")
	}
	// the report is written from the findings of those searches
	require.NotEmpty(t, rep.Findings)
	require.Contains(t, rep.Rendered(), stoppedReason)
}

func TestInvestigationWithoutStopRunsToItsCeiling(t *testing.T) {
	// the same investigation unstopped: what the stop saved
	rich := &invProvider{name: "corpus", pool: 400, per: 8}
	h := newInvHarness(t, rich)
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}})
	require.Empty(t, rep.StopReason)
	require.Greater(t, rich.calls(), 6)
}

func TestInvestigationKeepsAtMostMaxFindingsAndThenStopsSearching(t *testing.T) {
	defer func(n int) { maxFindings = n }(maxFindings)
	maxFindings = 30
	rich := &invProvider{name: "corpus", pool: 400, per: 8}
	h := newInvHarness(t, rich)
	rep := h.run(t, InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}})

	require.Len(t, rep.Findings, 30)
	for i, f := range rep.Findings {
		require.Equal(t, i+1, f.N, "findings stay numbered in order")
	}
	require.Equal(t, "30 findings kept, the most one report carries", rep.StopReason)
	require.True(t, slices.ContainsFunc(rep.Fallbacks, func(s string) bool { return strings.Contains(s, "the findings stop at 30") }), "fallbacks: %q", rep.Fallbacks)
	// the first loop filled them; nothing was searched after it
	loops := loopsOf(rep, "corpus")
	require.Len(t, loops, 1)
	require.Len(t, rep.Events, loops[0].Queries)
	require.Greater(t, len(rep.Hypotheses), 1)
	for _, hs := range rep.Hypotheses[1:] {
		require.Equal(t, rep.StopReason, hs.Skipped)
	}
}
