package activities

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
	"github.com/stretchr/testify/require"
)

// What memory already holds is searched last: an aspect the recalled facts cover moves behind
// the ones they do not; the whole-question query stays first.
func TestKnownAspectsAreSearchedLast(t *testing.T) {
	qs := []string{"write ahead log checkpoint run", "write ahead log work", "checkpoint run"}
	aspects := []plan.Aspect{{Text: "how does the write-ahead log work", Query: qs[1]}, {Text: "when does a checkpoint run", Query: qs[2]}}
	require.Equal(t, qs, knownLast(qs, aspects, nil))
	known := []string{"The write-ahead log appends changes to the WAL; the log work lets readers continue."}
	require.Equal(t, []string{qs[0], qs[2], qs[1]}, knownLast(qs, aspects, known))
	// a fact about something else moves nothing
	require.Equal(t, qs, knownLast(qs, aspects, []string{"VACUUM rebuilds the database file."}))
}

// The planner reads the corpus provider's vocabulary with its heading counts, so its queries
// can prefer the words the corpus's headings use; a provider without an index gives none.
func TestPlannerVocabularyKnowsTheCorpusHeadings(t *testing.T) {
	ctx := context.Background()
	acts := backupCorpusActivities(t)
	v, ok := acts.vocabulary(ctx, "corpus").(plan.HeadingVocabulary)
	require.True(t, ok, "the corpus vocabulary knows its headings")
	hf, err := v.HeadingFreq([]string{"backup", "someon"})
	require.NoError(t, err)
	require.Positive(t, hf["backup"])
	require.Zero(t, hf["someon"])
	require.Nil(t, acts.vocabulary(ctx, "web"))
}

// The answer learns the corpus's topic words from the provider its sources came from; sources
// from a provider without a vocabulary give it none.
func TestSynthesisReadsTheTopicWordsOfTheSourcesCorpus(t *testing.T) {
	ctx := context.Background()
	acts := backupCorpusActivities(t)
	web := []research.Source{{N: 1, Result: search.Result{Provider: "web"}}}
	require.Nil(t, acts.topical(ctx, web))
	topical := acts.topical(ctx, append(web, research.Source{N: 2, Result: search.Result{Provider: "corpus"}}))
	require.NotNil(t, topical)
	require.Equal(t, map[string]bool{"backup": true}, topical([]string{"backup", "someon"}))
}

// backupCorpusActivities are activities over a corpus of one page titled "Backups" (whose text
// also says "someone") and a web provider without a vocabulary.
func backupCorpusActivities(t *testing.T) *Activities {
	x, err := corpus.Open(filepath.Join(t.TempDir(), "corpus.db"))
	require.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	require.NoError(t, x.Add(context.Background(), corpus.Document{URL: "file:///b.md", Title: "Backups", Body: "# Backups\n\nSomeone takes a backup every night.", Format: corpus.FormatMarkdown}))
	return NewActivities(Deps{Providers: map[string]search.Provider{"corpus": x, "web": &countingProvider{}}})
}
