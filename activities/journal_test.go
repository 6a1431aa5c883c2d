package activities

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/sated-dev/sated/internal/search"
)

type memJournal struct {
	mu      sync.Mutex
	entries []string
	started []string
}

func (j *memJournal) Started(_ context.Context, activity string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.started = append(j.started, activity)
}

func (j *memJournal) Completed(_ context.Context, activity, detail string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, activity+" "+detail)
}

func TestJournalInterceptorRecordsStartsAndCompletions(t *testing.T) {
	j := &memJournal{}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": &countingProvider{
		res: []search.Result{{URL: "https://example.org/a", Title: "A"}}}}})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{NewJournalInterceptor(j, nil)}})
	env.RegisterActivity(acts)

	_, err := env.ExecuteActivity(acts.Search, SearchInput{Provider: "searxng", Query: "  go memory model ", Limit: 5})
	require.NoError(t, err)
	_, err = env.ExecuteActivity(acts.Search, SearchInput{Provider: "searxng", Query: " ", Limit: 5})
	require.Error(t, err, "a failed search is not journaled")
	_, err = env.ExecuteActivity(acts.WriteInvestigationReport, InvestigationReportInput{})
	require.Error(t, err)
	_, err = env.ExecuteActivity(acts.PlanResearch, PlanInput{Question: "How does the Go memory model order channel sends?"})
	require.NoError(t, err)

	require.Equal(t, []string{"Search go memory model", "PlanResearch "}, j.entries, "failed activities are not journaled as completed")
	require.Equal(t, []string{"Search", "Search", "WriteInvestigationReport", "PlanResearch"}, j.started)
}

func TestJournalDetail(t *testing.T) {
	for _, c := range []struct {
		arg, result any
		want        string
		ok          bool
	}{
		{SearchInput{Query: " q "}, SearchOutput{}, "q", true},
		{FetchInput{URL: "https://x.example"}, FetchOutput{}, "https://x.example", true},
		{SynthesizeInput{WorkflowID: "research-x"}, SynthesizeOutput{}, "research-x", true},
		{InvestigationReportInput{}, InvestigationReportOutput{MarkdownPath: "/r/x.md"}, "", true},
		{InvestigationReportInput{}, InvestigationReportOutput{}, "", false},
		{PlanInput{}, PlanOutput{}, "", true},
	} {
		got, ok := journalDetail(c.arg, c.result)
		require.Equal(t, c.ok, ok, "%T", c.arg)
		require.Equal(t, c.want, got, "%T", c.arg)
	}
}

func TestParseHolds(t *testing.T) {
	h, err := ParseHolds(" Search=after:4s, FetchPage=2s,Search=1s ")
	require.NoError(t, err)
	require.Equal(t, map[string]Hold{"Search": {Before: time.Second, After: 4 * time.Second}, "FetchPage": {Before: 2 * time.Second}}, h)
	h, err = ParseHolds("")
	require.NoError(t, err)
	require.Empty(t, h)
	for _, bad := range []string{"Search", "=4s", "Search=soon", "Search=after:-1s", "Search=0s"} {
		_, err := ParseHolds(bad)
		require.Error(t, err, bad)
	}
}

// A hold after the work keeps the completion unreported: the journal records it only after.
func TestJournalHoldsAfterTheWork(t *testing.T) {
	j := &memJournal{}
	p := &countingProvider{res: []search.Result{{URL: "https://example.org/a"}}}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": p}})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{
		NewJournalInterceptor(j, map[string]Hold{"Search": {After: 300 * time.Millisecond}})}})
	env.RegisterActivity(acts)
	start := time.Now()
	_, err := env.ExecuteActivity(acts.Search, SearchInput{Provider: "searxng", Query: "q", Limit: 5})
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	require.Equal(t, 1, p.calls)
	require.Equal(t, []string{"Search q"}, j.entries)
}
