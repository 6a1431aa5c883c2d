package activities

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/sated-dev/sated/internal/search"
)

type memJournal struct {
	mu      sync.Mutex
	entries []string
}

func (j *memJournal) Completed(_ context.Context, activity, detail string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, activity+" "+detail)
}

func TestJournalInterceptorRecordsCompletedSearchesOnly(t *testing.T) {
	j := &memJournal{}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": &countingProvider{
		res: []search.Result{{URL: "https://example.org/a", Title: "A"}}}}})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{NewJournalInterceptor(j)}})
	env.RegisterActivity(acts)

	_, err := env.ExecuteActivity(acts.Search, SearchInput{Provider: "searxng", Query: "  go memory model ", Limit: 5})
	require.NoError(t, err)
	_, err = env.ExecuteActivity(acts.Search, SearchInput{Provider: "searxng", Query: " ", Limit: 5})
	require.Error(t, err, "a failed search is not journaled")
	_, err = env.ExecuteActivity(acts.WriteInvestigationReport, InvestigationReportInput{})
	require.Error(t, err)
	_, err = env.ExecuteActivity(acts.PlanResearch, PlanInput{Question: "How does the Go memory model order channel sends?"})
	require.NoError(t, err, "other activities pass through unjournaled")

	require.Equal(t, []string{"Search go memory model"}, j.entries)
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
		{PlanInput{}, PlanOutput{}, "", false},
	} {
		got, ok := journalDetail(c.arg, c.result)
		require.Equal(t, c.ok, ok, "%T", c.arg)
		require.Equal(t, c.want, got, "%T", c.arg)
	}
}
