package workflows

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// scriptedProvider answers the n-th search with the n-th scripted batch, and records every
// query it receives.
type scriptedProvider struct {
	mu      sync.Mutex
	batches [][]search.Result
	queries []string
	fail    error
}

func (p *scriptedProvider) Name() string { return "corpus" }

func (p *scriptedProvider) Search(_ context.Context, q string, limit int) ([]search.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queries = append(p.queries, q)
	if p.fail != nil {
		return nil, p.fail
	}
	i := len(p.queries) - 1
	if i >= len(p.batches) {
		i = len(p.batches) - 1
	}
	return p.batches[i], nil
}

// novel makes a batch whose words are all new (tag makes them unique), long enough to pass the
// quality floor.
func novel(tag string) []search.Result {
	var rs []search.Result
	for i := 0; i < 3; i++ {
		var words []string
		for j := 0; j < 20; j++ {
			words = append(words, fmt.Sprintf("%s%dw%d", tag, i, j))
		}
		rs = append(rs, search.Result{URL: fmt.Sprintf("https://example.org/%s/%d", tag, i), Title: tag + " doc",
			Snippet: strings.Join(words, " ")})
	}
	return rs
}

// stale makes new URLs whose text repeats an earlier batch: nothing novel.
func stale(of []search.Result, tag string) []search.Result {
	out := make([]search.Result, len(of))
	for i, r := range of {
		r.URL = fmt.Sprintf("https://example.org/stale-%s/%d", tag, i)
		out[i] = r
	}
	return out
}

type researchEnv struct {
	testsuite.WorkflowTestSuite
	env      *testsuite.TestWorkflowEnvironment
	provider *scriptedProvider
	started  map[string]int
	// onStart, when set, hears each activity start with how many of its kind have started
	onStart func(name string, n int)
}

func newResearchEnv(t *testing.T, batches ...[]search.Result) *researchEnv {
	sp := &scriptedProvider{batches: batches}
	return newResearchEnvWith(t, sp, sp)
}

// newResearchEnvWith serves the corpus provider p, which answers searches from sp's batches.
func newResearchEnvWith(t *testing.T, sp *scriptedProvider, p search.Provider) *researchEnv {
	h := &researchEnv{provider: sp, started: map[string]int{}}
	h.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	h.env = h.NewTestWorkflowEnvironment()
	acts := activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": p},
		ReportDir: t.TempDir(),
	})
	h.env.RegisterWorkflow(ResearchWorkflow)
	h.env.RegisterActivity(acts)
	var mu sync.Mutex
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		mu.Lock()
		h.started[info.ActivityType.Name]++
		n := h.started[info.ActivityType.Name]
		mu.Unlock()
		if h.onStart != nil {
			h.onStart(info.ActivityType.Name, n)
		}
	})
	return h
}

func f(v float64) *float64 { return &v }

// run executes a request; batches are small (so that a whole round fits the knowledge cap), so
// the quality floor is lowered unless the test sets it.
func (h *researchEnv) run(t *testing.T, req ResearchRequest) ResearchReport {
	t.Helper()
	if req.Config.QualityFloor == 0 {
		req.Config.QualityFloor = 200
	}
	h.env.ExecuteWorkflow(ResearchWorkflow, req)
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	var rep ResearchReport
	require.NoError(t, h.env.GetWorkflowResult(&rep))
	return rep
}

func decisions(rep ResearchReport) []string {
	var out []string
	for _, r := range rep.Rounds {
		out = append(out, r.Decision)
	}
	return out
}

const question = "How does the Go garbage collector decide when to run, and how can GOGC tune it?"

func TestStopsAtFirstSubThresholdRoundAfterMinimum(t *testing.T) {
	r1 := novel("a")
	h := newResearchEnv(t, r1, novel("b"), stale(r1, "c"), novel("d"), novel("e"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), Novelty: config.NoveltyHeuristic}})
	require.Equal(t, []string{DecisionAccepted, DecisionAccepted, DecisionDiscarded}, decisions(rep))
	require.Contains(t, rep.StopReason, "saturated")
	require.Equal(t, 3, len(h.provider.queries))
	require.Len(t, rep.Sources, 6, "the discarded round's results are not merged")
}

// Rounds 1..min_rounds are always accepted, however little they add: a low round within the
// minimum neither is discarded nor ends the search; the last of them, scored low, is kept and
// ends it (saturate-at-minimum).
func TestNeverStopsBeforeTheMinimum(t *testing.T) {
	r1 := novel("a")
	h := newResearchEnv(t, r1, stale(r1, "b"), stale(r1, "c"), stale(r1, "d"), novel("e"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{MinRounds: 3, Epsilon: f(0),
		Novelty: config.NoveltyHeuristic}})
	require.Equal(t, []string{DecisionAccepted, DecisionAccepted, DecisionAccepted}, decisions(rep))
	require.Len(t, h.provider.queries, 3)
	require.Zero(t, rep.Rounds[1].Novelty, "accepted below the threshold: round 2 is within the minimum")
	require.Contains(t, rep.StopReason, "saturated: novelty 0.00 below threshold 3.00 at round 3, the last of the 3 always kept")
	require.Contains(t, rep.Rounds[2].Note, "kept: rounds up to 3 are always kept; below the threshold, it ends the search")
	require.Equal(t, 2, h.started["CompressKnowledge"], "rounds 2 and 3 are kept and compressed")
}

// With the default minimum of two, a second round that teaches the run little ends it: kept
// (its results are sources), and no third search runs to confirm it.
func TestLastKeptRoundEndsASaturatedRun(t *testing.T) {
	r1 := novel("a")
	h := newResearchEnv(t, r1, stale(r1, "b"), novel("c"), novel("d"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), Novelty: config.NoveltyHeuristic}})
	require.Equal(t, []string{DecisionAccepted, DecisionAccepted}, decisions(rep))
	require.Len(t, h.provider.queries, 2)
	require.Contains(t, rep.StopReason, "saturated: novelty 0.00 below threshold 3.00 at round 2, the last of the 2 always kept")
	require.Len(t, rep.Sources, 6, "the kept round's results are merged")
	require.Equal(t, 1, h.started["CompressKnowledge"], "the kept round is compressed")

	// the epsilon draw lets a low last kept round go on, as it lets a gated round through
	seed := int64(1)
	for !noveltyPass(seed, 2, 0.5) {
		seed++
	}
	h = newResearchEnv(t, r1, stale(r1, "b"), novel("c"), stale(r1, "d"))
	rep = h.run(t, ResearchRequest{Question: question, Seed: seed, Config: config.Research{Epsilon: f(0.5), Novelty: config.NoveltyHeuristic}})
	require.Equal(t, DecisionEpsilon, rep.Rounds[1].Decision)
	require.Greater(t, len(h.provider.queries), 2)
}

// Runs started before saturate-at-minimum replay as they ran: round 2 kept without a say on
// the search, round 3 gated.
func TestBeforeSaturateAtMinimumTheRoundAfterIsGated(t *testing.T) {
	r1 := novel("a")
	h := newResearchEnv(t, r1, stale(r1, "b"), stale(r1, "c"), novel("d"))
	h.env.OnGetVersion(saturateAtMinimumChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), Novelty: config.NoveltyHeuristic}})
	require.Equal(t, []string{DecisionAccepted, DecisionAccepted, DecisionDiscarded}, decisions(rep))
	require.Len(t, h.provider.queries, 3)
	require.Contains(t, rep.StopReason, "saturated: novelty 0.00 below threshold 3.00 at round 3")
}

func TestMaxRoundsCapHolds(t *testing.T) {
	h := newResearchEnv(t, novel("a"), novel("b"), novel("c"), novel("d"), novel("e"), novel("f"), novel("g"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{MaxRounds: 4, Novelty: config.NoveltyHeuristic}})
	require.Len(t, rep.Rounds, 4)
	require.Equal(t, "maximum rounds reached", rep.StopReason)
	require.Equal(t, 3, h.started["CompressKnowledge"], "every accepted round after the first is compressed")
}

// passages makes a batch of corpus passages about the question with facts no other batch states.
func passages(tag string, facts ...string) []search.Result {
	var rs []search.Result
	for i, f := range facts {
		rs = append(rs, search.Result{URL: fmt.Sprintf("https://example.org/%s/%d", tag, i), Title: "Garbage collector " + tag,
			Snippet: f, DocID: fmt.Sprintf("%s:%d", tag, i), Provider: "corpus"})
	}
	return rs
}

// retitle gives the passages rs a page title of their own: an off-topic page is not titled
// after the question's subject.
func retitle(rs []search.Result, title string) []search.Result {
	for i := range rs {
		rs[i].Title = title
	}
	return rs
}

// gcRounds are three rounds of passages about the question, each with facts the others lack.
func gcRounds() (r1, r2, r3 []search.Result) {
	r1 = passages("a", "The garbage collector runs when the heap reaches a target size set by GOGC.",
		"GOGC=100 means the heap may grow by 100% of the live heap before the next collection.")
	r2 = passages("b", "Setting GOGC=off disables the garbage collector entirely.",
		"The GOMEMLIMIT setting gives the collector a soft memory limit to decide when to run.")
	r3 = passages("c", "The garbage collector also runs when the memory limit is approached, whatever GOGC says.",
		"Doubling GOGC roughly halves the CPU cost of the garbage collector and doubles heap overhead.")
	return r1, r2, r3
}

// The learning gate measures what a round teaches about the question against all
// evidence so far: new passages that restate known facts, or that are off the question, stop
// the search; new facts keep it going.
func TestLearningGateStopsWhenNewPagesRepeatKnownFacts(t *testing.T) {
	r1, r2, r3 := gcRounds()
	r4 := passages("d", "The garbage collector runs when the heap reaches a target size set by GOGC!",
		"GOGC=100 means the heap may grow by 100% of the live heap before the next collection!")
	h := newResearchEnv(t, r1, r2, r3, r4, passages("e", "Gardening tips for tomatoes."))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), QualityFloor: 1,
		Novelty: config.NoveltyLearning}})
	require.Equal(t, []string{DecisionAccepted, DecisionAccepted, DecisionAccepted, DecisionDiscarded}, decisions(rep))
	require.Equal(t, config.NoveltyLearning, rep.Rounds[2].Method)
	require.Greater(t, rep.Rounds[2].Novelty, 3.0, "round 3 states new facts about the question")
	require.Less(t, rep.Rounds[3].Novelty, 3.0, "round 4 restates round 1 from new pages")
	require.Len(t, rep.Sources, 6, "passages are sources by id; the rejected round's are not merged")
}

// The answer gate (the default) scores a round by the share of the findings its new passages
// write: a round with a new fact about the question is quoted and accepted; one of repeats and off-topic pages
// writes nothing of the report and ends the search. The activity reads every accepted source
// and the accepted rounds' rankings.
func TestAnswerGateStopsWhenTheReportWouldNotChange(t *testing.T) {
	r1, r2, _ := gcRounds()
	// round 3: one new fact about the question, one page off it
	r3 := passages("c", "Doubling GOGC roughly halves the CPU cost of the garbage collector and doubles heap overhead.",
		"Sourdough starter needs feeding twice a day in a warm kitchen.")
	r3[1].Title = "Baking bread"
	r4 := retitle(passages("d", "Gardening tips for tomatoes in a small greenhouse.", "Tomato plants need six hours of sun a day."), "Greenhouse tomatoes")
	h := newResearchEnv(t, r1, r2, r3, r4, retitle(passages("e", "Sourdough starter needs feeding daily."), "Baking bread"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), QualityFloor: 1}})
	require.Equal(t, []string{DecisionAccepted, DecisionAccepted, DecisionAccepted, DecisionDiscarded}, decisions(rep))
	require.Equal(t, config.NoveltyAnswer, rep.Rounds[2].Method, "the answer gate is the default")
	require.Greater(t, rep.Rounds[2].Novelty, 3.0, "round 3's new fact writes more than a tenth of the findings")
	require.Less(t, rep.Rounds[2].Novelty, 9.0, "rounds 1 and 2's passages write the rest: the activity reads every accepted source")
	require.Zero(t, rep.Rounds[3].Novelty, "round 4's pages are off the question: the findings quote none of them")
	require.Contains(t, rep.StopReason, "saturated")
	require.Len(t, rep.Sources, 6)
}

// A run started before the answer gate (no answer-gate marker in its history) keeps the
// learning default it started with; a method the request names is kept either way.
func TestRunsBeforeTheAnswerGateKeepLearning(t *testing.T) {
	r1, r2, r3 := gcRounds()
	for _, tc := range []struct {
		asked, want string
	}{
		{"", config.NoveltyLearning},
		{config.NoveltyAnswer, config.NoveltyAnswer},
	} {
		h := newResearchEnv(t, r1, r2, r3)
		h.env.OnGetVersion(answerGateChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
		rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), QualityFloor: 1,
			MaxRounds: 3, Novelty: tc.asked}})
		require.Equal(t, tc.want, rep.Rounds[2].Method, "asked %q", tc.asked)
	}
}

// A thin first round is searched again with the jargon stripped ("Go garbage collector decide
// GOGC tune" -> "garbage collector decide"), and the better results replace the thin ones.
func TestQualityFloorFallbackReplacesThinResults(t *testing.T) {
	thin := []search.Result{{URL: "https://example.org/thin", Title: "thin", Snippet: "short"}}
	h := newResearchEnv(t, thin, novel("fb"), novel("b"), novel("c"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 2}})
	require.Equal(t, DecisionFallback, rep.Rounds[0].Decision)
	require.Contains(t, rep.Rounds[0].Note, "replaced them")
	require.Len(t, h.provider.queries, 3, "round 1 searched twice, round 2 once")
	require.Equal(t, "garbage collector decide", h.provider.queries[1], "jargon stripped: the first words of the core concept")
	require.Equal(t, "garbage collector decide", rep.Rounds[0].FallbackQuery)
	require.NotEmpty(t, rep.Fallbacks)
	require.Len(t, rep.Sources, 3+3, "the thin result is replaced, not merged")
	for _, s := range rep.Sources {
		require.NotEqual(t, "https://example.org/thin", s.URL)
	}
	require.Equal(t, 3, rep.Rounds[0].Results)
}

// A fallback that is no better than the thin results leaves them in place.
func TestQualityFloorKeepsThinResultsWhenTheFallbackIsNoBetter(t *testing.T) {
	thin := []search.Result{{URL: "https://example.org/thin", Title: "thin", Snippet: "short but something"}}
	thinner := []search.Result{{URL: "https://example.org/thinner", Title: "x", Snippet: "y"}}
	h := newResearchEnv(t, thin, thinner, novel("b"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 2}})
	require.Len(t, h.provider.queries, 3)
	require.Contains(t, rep.Rounds[0].Note, "no better; the first results are kept")
	require.Equal(t, "https://example.org/thin", rep.Sources[0].URL)
	require.Len(t, rep.Sources, 1+3)
}

// A short query (two terms) gets a fallback when a simplification exists.
func TestQualityFloorSimplifiesShortQueries(t *testing.T) {
	thin := []search.Result{{URL: "https://example.org/thin", Title: "thin", Snippet: "short"}}
	h := newResearchEnv(t, thin, novel("fb"), novel("b"))
	rep := h.run(t, ResearchRequest{Question: "What is GOGC tuning?", Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 2}})
	require.Equal(t, []string{"GOGC tuning", "tuning"}, h.provider.queries[:2])
	require.Equal(t, DecisionFallback, rep.Rounds[0].Decision)
}

func TestCompressionNeverRunsForARejectedRound(t *testing.T) {
	r1 := novel("a")
	h := newResearchEnv(t, r1, novel("b"), stale(r1, "c"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), Novelty: config.NoveltyHeuristic}})
	require.Equal(t, []string{DecisionAccepted, DecisionAccepted, DecisionDiscarded}, decisions(rep))
	require.Equal(t, 1, h.started["CompressKnowledge"], "only round 2 is compressed")
	require.Equal(t, 2, h.started["AssessNovelty"])
}

func TestFixedRunsExactlyN(t *testing.T) {
	for _, n := range []int{2, 5} {
		r1 := novel("a")
		h := newResearchEnv(t, r1, stale(r1, "b"), stale(r1, "c"), stale(r1, "d"), stale(r1, "e"), stale(r1, "f"))
		rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: n}})
		require.Len(t, rep.Rounds, n)
		require.Len(t, h.provider.queries, n)
		for _, r := range rep.Rounds[1:] {
			require.Equal(t, DecisionFixed, r.Decision)
		}
	}
}

// seedFor finds a seed whose draw for round 3 passes (or not) at the given epsilon.
func seedFor(t *testing.T, pass bool, eps float64) int64 {
	for s := int64(1); s < 10000; s++ {
		if novelty3(s, eps) == pass {
			return s
		}
	}
	t.Fatal("no seed found")
	return 0
}

func TestEpsilonPassThroughIsReproducible(t *testing.T) {
	r1 := novel("a")
	seed := seedFor(t, true, 0.5)
	var first []string
	for i := 0; i < 2; i++ {
		h := newResearchEnv(t, r1, novel("b"), stale(r1, "c"), stale(r1, "d"), stale(r1, "e"), stale(r1, "f"))
		rep := h.run(t, ResearchRequest{Question: question, Seed: seed, Config: config.Research{Epsilon: f(0.5), Novelty: config.NoveltyHeuristic}})
		require.Equal(t, DecisionEpsilon, rep.Rounds[2].Decision)
		if i == 0 {
			first = decisions(rep)
		} else {
			require.Equal(t, first, decisions(rep), "the same seed takes the same decisions")
		}
		require.Equal(t, seed, rep.Seed)
	}
}

func TestRawQuestionNeverReachesAProvider(t *testing.T) {
	h := newResearchEnv(t, novel("a"), novel("b"), novel("c"), novel("d"), novel("e"))
	h.run(t, ResearchRequest{Question: "garbage collector", Seed: 3})
	require.NotEmpty(t, h.provider.queries)
	for _, q := range h.provider.queries {
		require.False(t, plan.SameAsQuestion(q, "garbage collector"), "provider got the raw question: %q", q)
	}
}

func TestBadRequestIsNonRetryable(t *testing.T) {
	for _, req := range []ResearchRequest{
		{Question: ""},
		{Question: strings.Repeat("x", 5000)},
		{Question: question, Config: config.Research{MinRounds: 6, MaxRounds: 3}},
		{Question: question, Config: config.Research{Epsilon: f(1.5)}},
		{Question: question, Config: config.Research{NoveltyThreshold: f(11)}},
		{Question: question, Config: config.Research{Provider: "altavista"}},
		{Question: question, Config: config.Research{Strategy: "forever"}},
	} {
		h := newResearchEnv(t, novel("a"))
		h.env.ExecuteWorkflow(ResearchWorkflow, req)
		err := h.env.GetWorkflowError()
		require.Error(t, err)
		var appErr *temporal.ApplicationError
		require.True(t, errors.As(err, &appErr), "%v", err)
		require.True(t, appErr.NonRetryable())
		require.Equal(t, "BadInput", appErr.Type())
		require.Empty(t, h.provider.queries)
	}
}

func TestStopSignalEndsSearchAndStillReports(t *testing.T) {
	h := newResearchEnv(t, novel("a"), novel("b"), novel("c"), novel("d"), novel("e"))
	// the stop arrives while the second search runs, whatever the machine's speed
	h.onStart = func(name string, n int) {
		if name == "Search" && n == 2 {
			h.env.SignalWorkflow(StopSignal, struct{}{})
		}
	}
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{MaxRounds: 5, Epsilon: f(0), Novelty: config.NoveltyHeuristic}})
	require.Less(t, len(rep.Rounds), 5)
	require.Contains(t, rep.StopReason, "stopped by request")
	require.NotEmpty(t, rep.Markdown)
}

func TestFailingProviderIsReportedNotSwapped(t *testing.T) {
	h := newResearchEnv(t, novel("a"))
	h.provider.fail = errors.New("upstream 503")
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7})
	require.Equal(t, DecisionSearchError, rep.Rounds[0].Decision)
	require.Contains(t, rep.StopReason, "failed")
	require.Empty(t, rep.Sources)
	require.Contains(t, strings.Join(rep.Fallbacks, " "), "upstream 503")
	require.NotEmpty(t, rep.Markdown)
}

func TestProgressQueryShowsRounds(t *testing.T) {
	r1 := novel("a")
	h := newResearchEnv(t, r1, novel("b"), stale(r1, "c"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), Novelty: config.NoveltyHeuristic}})
	v, err := h.env.QueryWorkflow(ProgressQuery)
	require.NoError(t, err)
	var p Progress
	require.NoError(t, v.Get(&p))
	require.Equal(t, PhaseDone, p.Phase)
	require.Len(t, p.Rounds, 3)
	require.Equal(t, rep.Rounds, p.Rounds)
	require.NotNil(t, p.Plan)
	require.Equal(t, 3.0, p.Threshold)
}

func novelty3(seed int64, eps float64) bool { return noveltyPass(seed, 3, eps) }

func TestResultsAreDeduplicatedByNormalizedURLAcrossRounds(t *testing.T) {
	r1 := novel("a")
	r2 := novel("b")
	// round 2 repeats round 1's pages under other spellings of the same URL
	r2[0].URL = strings.Replace(r1[0].URL, "https://", "https://www.", 1) + "/"
	r2[1].URL = r1[1].URL + "?utm_source=feed#section"
	h := newResearchEnv(t, r1, r2, novel("c"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 3}})
	require.Equal(t, 1, rep.Rounds[1].NewResults)
	require.Len(t, rep.Sources, 3+1+3)
	seen := map[string]bool{}
	for i, s := range rep.Sources {
		require.Equal(t, i+1, s.N, "sources are numbered in order for citation")
		k := search.NormalizeURL(s.URL)
		require.False(t, seen[k], "duplicate source %s", s.URL)
		seen[k] = true
	}
	require.LessOrEqual(t, len(rep.Knowledge), config.DefaultKnowledgeCap)
}

func TestUnusableProviderStopsAtOnceWithTheReason(t *testing.T) {
	h := newResearchEnv(t, novel("a"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Provider: "searxng"}})
	require.Len(t, rep.Rounds, 1)
	require.Equal(t, DecisionSearchError, rep.Rounds[0].Decision)
	require.Contains(t, rep.StopReason, `provider "searxng" is not configured on this worker`)
	require.Empty(t, h.provider.queries)
	require.NotEmpty(t, rep.Markdown)
}
