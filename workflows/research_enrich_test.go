package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/fetch"
	"github.com/sated-dev/sated/internal/memory"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// pageFetcher serves every page except those in fail, and records what was fetched.
type pageFetcher struct {
	mu      sync.Mutex
	fail    map[string]bool
	fetched []string
}

func (f *pageFetcher) Fetch(_ context.Context, u string) (fetch.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fetched = append(f.fetched, u)
	if f.fail[u] {
		return fetch.Page{}, errors.New("connection reset by peer")
	}
	return fetch.Page{URL: u, Title: "page", Text: "The full page of " + u + " says more about the heap."}, nil
}

// enrichBatch is one round: page 0 becomes the knowledge state, page 1 repeats it (skipped),
// page 2 has an empty snippet and a title the knowledge holds (unknown content), pages 3-5 are
// new. Their titles are known words, so only the snippet tells them apart.
func enrichBatch() []search.Result {
	known := "Collector notes: pacing heap goal concurrent sweeping marking assists write barrier."
	rs := []search.Result{
		{Title: "collector notes", Snippet: known},
		{Title: "collector notes", Snippet: known},
		{Title: "collector notes", Snippet: ""},
	}
	for i := 3; i < 6; i++ {
		rs = append(rs, search.Result{Title: "collector notes", Snippet: strings.Repeat(fmt.Sprintf("zeta%d omega%d ", i, i), 20)})
	}
	for i := range rs {
		rs[i].URL = fmt.Sprintf("https://example.org/page%d", i)
	}
	return rs
}

func enrichEnv(t *testing.T, f *pageFetcher) *researchEnv {
	h := newResearchEnv(t, enrichBatch())
	h.env = h.NewTestWorkflowEnvironment()
	h.env.RegisterWorkflow(ResearchWorkflow)
	h.env.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": h.provider}, Fetcher: f, ReportDir: t.TempDir()}))
	return h
}

// A failed fetch is replaced by the next candidate, a page with an empty snippet is fetched,
// and every decision (skips with their overlap) is in the report.
func TestEnrichmentReplacesFailedFetchesAndRecordsSkips(t *testing.T) {
	pf := &pageFetcher{fail: map[string]bool{"https://example.org/page3": true}}
	h := enrichEnv(t, pf)
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 1,
		KnowledgeCap: 100, EnrichCount: ip(3), EnrichOverlapCut: f(0.6)}})

	var enriched []string
	for _, s := range rep.Sources {
		if s.Enriched {
			enriched = append(enriched, s.URL)
		}
	}
	require.ElementsMatch(t, []string{"https://example.org/page2", "https://example.org/page4", "https://example.org/page5"}, enriched,
		"three pages read: the empty snippet, and page 5 in place of the failed page 3")

	decisions := map[string]string{}
	for _, e := range rep.Enrichment {
		decisions[strings.TrimPrefix(e.URL, "https://example.org/")] = e.Decision
	}
	require.Equal(t, map[string]string{
		"page0": research.EnrichSkipped, "page1": research.EnrichSkipped, "page2": research.EnrichFetched,
		"page3": research.EnrichFailed, "page4": research.EnrichFetched, "page5": research.EnrichReplaced,
	}, decisions)
	require.Contains(t, rep.Markdown, "- Enrichment:")
	require.Contains(t, rep.Markdown, "skipped [")
	require.Contains(t, rep.Markdown, "https://example.org/page1: 91% overlap with the knowledge state")
	require.Contains(t, rep.Markdown, "failed [")
	require.Contains(t, strings.Join(rep.Fallbacks, "\n"), "enrichment of https://example.org/page3 failed: ")
	require.Contains(t, strings.Join(rep.Fallbacks, "\n"), "; replaced by https://example.org/page5")
	for _, e := range rep.Enrichment {
		require.Equal(t, e.URL, rep.Sources[e.N-1].URL, "records are numbered as the report's sources")
	}
}

func ip(n int) *int { return &n }

// Rounds that keep returning what round 1 said are diagnosed in the progress, the report and
// its notes; their queries are not all repeats (the plan's aspects differ), so the diagnosis
// says the rounds found little new, not that the queries repeat: novelty measures what a round
// teaches.
func TestStaleRoundsAreDiagnosed(t *testing.T) {
	r1 := novel("a")
	h := newResearchEnv(t, r1, stale(r1, "b"), stale(r1, "c"), stale(r1, "d"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 4}})
	require.Len(t, rep.Diagnosis, 1, "novelty %v", []float64{rep.Rounds[1].Novelty, rep.Rounds[2].Novelty, rep.Rounds[3].Novelty})
	distinct := 0 // rounds whose query does not repeat an earlier round's
	for i := 1; i < len(rep.Rounds); i++ {
		var earlier []string
		for _, r := range rep.Rounds[:i] {
			earlier = append(earlier, r.Query)
		}
		if !plan.NearDuplicate(rep.Rounds[i].Query, earlier) {
			distinct++
		}
	}
	require.Positive(t, distinct, "the plan's aspect queries differ")
	require.Contains(t, rep.Diagnosis[0], "rounds 2-4 all had novelty below 3.5 although their queries differ")
	require.NotContains(t, rep.Diagnosis[0], "near-duplicates")
	require.Contains(t, rep.Markdown, "queries: rounds 2-4 all had novelty below 3.5")
	require.Contains(t, rep.Notes, "queries: "+rep.Diagnosis[0])
}

// Memory shapes the search: a page a recalled fact came from is not fetched again (the skip is
// recorded), and the recalled facts head the knowledge state.
func TestMemorySkipsPagesItAlreadyHolds(t *testing.T) {
	store, err := memory.Open(context.Background(), memory.Options{Dir: t.TempDir(), Create: true})
	require.NoError(t, err)
	defer store.Close()
	_, err = store.Remember(context.Background(), []memory.Observation{{Task: question,
		Fact: "The Go garbage collector decides when to run from GOGC, which tunes the heap goal (zeta4 omega4).", Sources: []string{"https://example.org/page4"}}})
	require.NoError(t, err)

	pf := &pageFetcher{}
	h := newResearchEnv(t, enrichBatch())
	h.env = h.NewTestWorkflowEnvironment()
	h.env.RegisterWorkflow(ResearchWorkflow)
	h.env.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": h.provider}, Fetcher: pf, ReportDir: t.TempDir(), MemoryQueue: "memory"}))
	h.env.RegisterActivity(activities.NewMemoryActivities(store))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 1,
		KnowledgeCap: 600, EnrichCount: ip(3), EnrichOverlapCut: f(0.6)}})
	require.NotEmpty(t, rep.Plan.KnownFacts, "the fact was recalled")
	for _, u := range pf.fetched {
		require.NotEqual(t, "https://example.org/page4", u, "the page memory holds was fetched again")
	}
	var skipped bool
	for _, e := range rep.Enrichment {
		if e.URL == "https://example.org/page4" && e.Decision == research.EnrichSkipped && strings.Contains(e.Note, "memory already holds") {
			skipped = true
		}
	}
	require.True(t, skipped, "the skip is recorded: %+v", rep.Enrichment)
}

// Memory keeps what the report established: per source the findings cite, its title and the
// sentences they quote from it; a result the findings do not quote is not remembered, though
// the knowledge state holds its snippet.
func TestMemoryRemembersTheFindings(t *testing.T) {
	store, err := memory.Open(context.Background(), memory.Options{Dir: t.TempDir(), Create: true})
	require.NoError(t, err)
	defer store.Close()
	r1 := passages("a", "The garbage collector runs when the heap reaches a target size set by GOGC.",
		"GOGC=100 means the heap may grow by 100% of the live heap before the next collection.")
	r1 = append(r1, search.Result{URL: "https://example.org/unrelated", Title: "Release notes", Provider: "corpus", DocID: "z:0",
		Snippet: "The tarball now ships with signed checksums for every archive."})
	h := newResearchEnv(t, r1)
	h.env = h.NewTestWorkflowEnvironment()
	h.env.RegisterWorkflow(ResearchWorkflow)
	h.env.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": h.provider}, ReportDir: t.TempDir(), MemoryQueue: "memory"}))
	h.env.RegisterActivity(activities.NewMemoryActivities(store))
	var remembered activities.MemoryRememberInput
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		if info.ActivityType.Name == "RememberRun" {
			require.NoError(t, args.Get(&remembered))
		}
	})
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 1}})
	require.NotEmpty(t, rep.Findings)
	require.Contains(t, rep.Knowledge, "signed checksums", "the knowledge state holds every result's snippet")
	require.Len(t, remembered.Facts, len(rep.Findings))
	for i, f := range remembered.Facts {
		src := rep.Sources[rep.Findings[i].N-1]
		require.Equal(t, []string{src.URL}, f.Sources)
		require.True(t, strings.HasPrefix(f.Fact, src.Title+": "), f.Fact)
		for _, q := range rep.Findings[i].Quotes {
			require.Contains(t, rep.Markdown, q, "a remembered sentence is one the findings quote")
			require.Contains(t, f.Fact, q)
		}
		require.NotContains(t, f.Fact, "signed checksums")
	}
	hits, err := store.Search(context.Background(), "GOGC heap target", 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits.Hits, "the facts are in the store")
}
