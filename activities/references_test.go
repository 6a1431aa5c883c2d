package activities

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/search"
)

func runReferences(t *testing.T, acts *Activities, in ReferencesInput) (ReferencesOutput, error) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	v, err := env.ExecuteActivity(acts.FollowReferences, in)
	if err != nil {
		return ReferencesOutput{}, err
	}
	var out ReferencesOutput
	require.NoError(t, v.Get(&out))
	return out, nil
}

// A search for how to free space finds the page that says "see Section 23.6"; following its
// reference reads the tablespaces page, which the query's words do not find.
func TestFollowReferencesReadsWhatTheResultsPointTo(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"diskfull.html": `<html><head><title>Disk Full Failure</title></head><body><h1 id="full">Disk Full Failure</h1>
<p>If a disk fills up, free space by moving some of the database files to other file systems.
See <a href="tablespaces.html">Section 23.6</a> for more information about that.</p></body></html>`,
		"tablespaces.html": `<html><head><title>Tablespaces</title></head><body><h1 id="ts">23.6. Tablespaces</h1>
<p>CREATE TABLESPACE defines a location in the file system where database objects are stored.</p></body></html>`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	x, err := corpus.Open(filepath.Join(t.TempDir(), "corpus.db"))
	require.NoError(t, err)
	defer x.Close()
	_, err = x.IndexPaths(context.Background(), []string{dir}, corpus.IndexOptions{})
	require.NoError(t, err)
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"corpus": x}})

	found, err := runSearch(t, acts, SearchInput{Provider: "corpus", Query: "disk fills free space", Limit: 5})
	require.NoError(t, err)
	require.Len(t, found.Results, 1, "the query's words are on the disk-full page only")
	out, err := runReferences(t, acts, ReferencesInput{Provider: "corpus", Query: "disk fills free space", IDs: []string{found.Results[0].DocID}, Per: 3})
	require.NoError(t, err)
	require.Len(t, out.Results, 1)
	require.True(t, strings.HasSuffix(out.Results[0].URL, "tablespaces.html#ts"), out.Results[0].URL)
	require.Equal(t, "corpus", out.Results[0].Provider)
	require.Contains(t, out.Results[0].Snippet, "CREATE TABLESPACE")

	// nothing to follow: no ids, per 0
	out, err = runReferences(t, acts, ReferencesInput{Provider: "corpus", Query: "disk", Per: 3})
	require.NoError(t, err)
	require.Empty(t, out.Results)
	out, err = runReferences(t, acts, ReferencesInput{Provider: "corpus", Query: "disk", IDs: []string{found.Results[0].DocID}})
	require.NoError(t, err)
	require.Empty(t, out.Results)
}

func TestFollowReferencesRefusesBadInputAndSkipsProvidersWithoutLinks(t *testing.T) {
	web := &countingProvider{res: []search.Result{{URL: "https://example.org/a", Title: "a", Snippet: "a"}}}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"searxng": web}})
	out, err := runReferences(t, acts, ReferencesInput{Provider: "searxng", Query: "q", IDs: []string{"x"}, Per: 3})
	require.NoError(t, err, "a provider whose documents do not link has nothing to follow")
	require.Empty(t, out.Results)
	require.Zero(t, web.calls)

	_, err = runReferences(t, acts, ReferencesInput{Provider: "searxng", Query: "q", IDs: []string{"x"}, Per: 11})
	require.Equal(t, ErrBadInput, appErrType(err))
	_, err = runReferences(t, acts, ReferencesInput{Provider: "searxng", Query: "q", IDs: make([]string, maxReferenceIDs+1), Per: 3})
	require.Equal(t, ErrBadInput, appErrType(err))
	_, err = runReferences(t, acts, ReferencesInput{Provider: "nosuch", Query: "q", IDs: []string{"x"}, Per: 3})
	require.Equal(t, ProviderUnusable, appErrType(err))
	require.ErrorContains(t, err, `unknown provider "nosuch"`)
}
