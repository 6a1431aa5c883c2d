package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/workflows"
	"github.com/stretchr/testify/require"
)

// An investigation's evidence recall is scored on its findings' passages whole, as a research
// run's evidence holds its passages, when this machine holds the corpus; a finding the corpus
// no longer holds, or any finding without a corpus, counts its title and snippet. Without the
// corpus the eval says once that it reads snippets.
func TestInvestigationEvidenceReadsTheFindingsPassagesWhole(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	env, err := config.FromEnv()
	require.NoError(t, err)

	var errb bytes.Buffer
	stderr = &errb
	defer func() { stderr = os.Stderr }()
	none, done := investigationPassages(env, "corpus")
	done()
	require.Nil(t, none)
	require.Contains(t, errb.String(), "read from the findings' snippets (no corpus at "+filepath.Join(dir, "corpus.db"))
	errb.Reset()
	none, done = investigationPassages(env, "brave")
	done()
	require.Nil(t, none)
	require.Contains(t, errb.String(), "it searches brave, not the corpus")

	x, err := corpus.Open(env.CorpusPath())
	require.NoError(t, err)
	require.NoError(t, x.Add(ctx, corpus.Document{URL: "file:///wal.md", Title: "WAL", Format: corpus.FormatMarkdown,
		Body: "# WAL\n\nReaders do not block writers. The snippet stops here; the passage goes on: a checkpoint moves the WAL back into the database."}))
	ps, err := x.Passages(ctx, mustDocID(t, x))
	require.NoError(t, err)
	require.NoError(t, x.Close())
	errb.Reset()
	passages, done := investigationPassages(env, "corpus")
	defer done()
	require.NotNil(t, passages)
	require.Empty(t, errb.String())

	var rep workflows.InvestigationReport
	rep.Findings = []investigate.Finding{
		{N: 1, Result: search.Result{Title: "WAL", Snippet: "Readers do not block writers.", DocID: ps[0].ID}},
		{N: 2, Result: search.Result{Title: "Gone", Snippet: "a passage since removed", DocID: "nope:0"}},
		{N: 3, Result: search.Result{Title: "Web", Snippet: "a web page's snippet"}},
	}
	ev := investigationEvidence(ctx, rep, passages)
	require.Contains(t, ev, "a checkpoint moves the WAL back into the database", "the passage whole")
	require.Contains(t, ev, "Gone. a passage since removed")
	require.Contains(t, ev, "Web. a web page's snippet")
	snippets := investigationEvidence(ctx, rep, nil)
	require.NotContains(t, snippets, "checkpoint")
	require.Equal(t, 3, strings.Count(snippets, "\n"))
}

// mustDocID is the id of the one document x holds.
func mustDocID(t *testing.T, x *corpus.Index) string {
	t.Helper()
	var id string
	require.NoError(t, x.Each(context.Background(), func(d corpus.Document) error {
		id = d.ID
		return nil
	}))
	require.NotEmpty(t, id)
	return id
}
