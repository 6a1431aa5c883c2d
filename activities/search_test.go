package activities

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/search"
)

type countingProvider struct {
	calls int
	res   []search.Result
}

func (p *countingProvider) Name() string { return "searxng" }
func (p *countingProvider) Search(context.Context, string, int) ([]search.Result, error) {
	p.calls++
	return p.res, nil
}

func runSearch(t *testing.T, acts *Activities, in SearchInput) (SearchOutput, error) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	v, err := env.ExecuteActivity(acts.Search, in)
	if err != nil {
		return SearchOutput{}, err
	}
	var out SearchOutput
	require.NoError(t, v.Get(&out))
	return out, nil
}

func appErrType(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Type()
	}
	return ""
}

func TestSearchGoesThroughTheCacheAndBoundsSnippets(t *testing.T) {
	cache, err := search.OpenCache(filepath.Join(t.TempDir(), "cache.db"), search.CacheTTL)
	require.NoError(t, err)
	defer cache.Close()
	p := &countingProvider{res: []search.Result{{URL: "https://example.org/a", Title: "A", Snippet: strings.Repeat("word ", 400)}}}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": p}, Cache: cache})
	in := SearchInput{Provider: "searxng", Query: "go memory model", Question: "What is the Go memory model?", Limit: 5}

	first, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.False(t, first.Cached)
	require.LessOrEqual(t, len(first.Results[0].Snippet), search.MaxSnippetChars+len("…"))
	require.Equal(t, "searxng", first.Results[0].Provider)

	second, err := runSearch(t, acts, SearchInput{Provider: "searxng", Query: "  Go Memory   model ", Question: in.Question, Limit: 5})
	require.NoError(t, err)
	require.True(t, second.Cached, "the normalized query hits the cache")
	require.Equal(t, 1, p.calls)

	in.NoCache = true
	third, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.False(t, third.Cached)
	require.Equal(t, 2, p.calls, "--no-cache bypasses the cache")
}

func TestSearchRefusesBadInput(t *testing.T) {
	p := &countingProvider{}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": p}})
	for _, c := range []struct {
		in   SearchInput
		kind string
	}{
		{SearchInput{Provider: "searxng", Query: "What is the Go memory model?", Question: "what is the go memory model", Limit: 5}, ErrBadInput},
		{SearchInput{Provider: "searxng", Query: "  ", Limit: 5}, ErrBadInput},
		{SearchInput{Provider: "searxng", Query: "q", Limit: 0}, ErrBadInput},
		{SearchInput{Provider: "duckduckgo", Query: "q", Limit: 5}, ProviderUnusable},
		{SearchInput{Provider: "altavista", Query: "q", Limit: 5}, ProviderUnusable},
	} {
		_, err := runSearch(t, acts, c.in)
		require.Error(t, err)
		require.Equal(t, c.kind, appErrType(err), "%+v: %v", c.in, err)
	}
	require.Zero(t, p.calls, "nothing bad reached the provider")
}

func TestSearchOnAnEmptyCorpusSaysHowToFillIt(t *testing.T) {
	idx, err := corpus.Open(filepath.Join(t.TempDir(), "corpus.db"))
	require.NoError(t, err)
	defer idx.Close()
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"corpus": idx}})
	_, err = runSearch(t, acts, SearchInput{Provider: "corpus", Query: "memory model", Limit: 5})
	require.Equal(t, ProviderUnusable, appErrType(err))
	require.Contains(t, err.Error(), "starter corpus index")

	require.NoError(t, idx.Add(context.Background(), corpus.Document{URL: "https://example.org/m", Title: "Memory model", Body: "The memory model defines happens before.", Format: corpus.FormatText}))
	out, err := runSearch(t, acts, SearchInput{Provider: "corpus", Query: "memory model", Limit: 5})
	require.NoError(t, err)
	require.Len(t, out.Results, 1)
	require.NotEmpty(t, out.Results[0].DocID)
}

// A real corpus behind the cache: re-indexing it changes its version, so the next search
// reads the new index instead of the cached answer; a larger limit is not served from a
// smaller cached one.
func TestSearchCacheFollowsTheCorpusVersionAndLimit(t *testing.T) {
	dir := t.TempDir()
	x, err := corpus.Open(filepath.Join(dir, "corpus.db"))
	require.NoError(t, err)
	defer x.Close()
	cache, err := search.OpenCache(filepath.Join(dir, "cache.db"), search.CacheTTL)
	require.NoError(t, err)
	defer cache.Close()
	ctx := context.Background()
	require.NoError(t, x.Add(ctx, corpus.Document{URL: "file:///a.md", Title: "Checkpoints", Body: "A checkpoint copies the log into the database.", Format: corpus.FormatMarkdown}))
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"corpus": x}, Cache: cache})
	in := SearchInput{Provider: "corpus", Query: "checkpoint log", Limit: 1}

	first, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.False(t, first.Cached)
	again, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.True(t, again.Cached)

	require.NoError(t, x.Add(ctx, corpus.Document{URL: "file:///b.md", Title: "Log checkpoints", Body: "The checkpoint log grows until a checkpoint runs.", Format: corpus.FormatMarkdown}))
	in.Limit = 5
	after, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.False(t, after.Cached, "re-indexing invalidates the cached search")
	require.Len(t, after.Results, 2)
	in.Limit = 1
	small, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.True(t, small.Cached, "a smaller limit is served from the larger cached answer")
	require.Len(t, small.Results, 1)
}

// A search whose worker died after the provider answered is retried with the same run and
// activity id; the retry answers from the run's record, with or without the cache.
func TestSearchRetryAnswersFromTheRunRecord(t *testing.T) {
	cache, err := search.OpenCache(filepath.Join(t.TempDir(), "cache.db"), search.CacheTTL)
	require.NoError(t, err)
	defer cache.Close()
	p := &countingProvider{res: []search.Result{{URL: "https://example.org/a", Title: "A", Snippet: "alpha"}}}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": p}, Cache: cache, Record: cache})
	in := SearchInput{Provider: "searxng", Query: "go memory model", Limit: 5, NoCache: true}

	first, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.Equal(t, 1, p.calls)
	// the test environment gives every execution the same workflow, run and activity id: the
	// second execution is the retry of the first
	p.res = []search.Result{{URL: "https://example.org/changed"}}
	retry, err := runSearch(t, acts, in)
	require.NoError(t, err)
	require.Equal(t, 1, p.calls, "the retry must not ask the provider again")
	require.Equal(t, first.Results, retry.Results)

	// without a record the retry asks again: the record, not the cache, saved the call
	bare := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": p}, Cache: cache})
	_, err = runSearch(t, bare, in)
	require.NoError(t, err)
	require.Equal(t, 2, p.calls)
}
