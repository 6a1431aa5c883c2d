package corpus

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/text"
)

// The vocabulary counts passages per stem, and apart from that the passages whose page title
// or heading path names the stem: the planner tells the corpus's topic words from its everyday
// ones by the second count.
func TestDocFreqAndHeadingFreq(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"backup.html": `<html><head><title>Backup and Restore</title></head><body>
<h1>Backup and Restore</h1><p>Someone should take a backup every night, said the guide to backups.</p>
<h2>Restoring a dump</h2><p>To restore, someone feeds the dump back to the server.</p></body></html>`,
		"vacuum.html": `<html><head><title>Routine Vacuuming</title></head><body>
<h1>Routine Vacuuming</h1><p>Vacuum reclaims space; someone may run it after a backup.</p></body></html>`,
	})
	x := openTemp(t)
	_, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	stems := []string{text.Stem("backup"), text.Stem("someone"), text.Stem("restoring"), text.Stem("absent")}
	df, n, err := x.DocFreq(ctx, stems)
	require.NoError(t, err)
	passages, err := x.PassageCount(ctx)
	require.NoError(t, err)
	require.Equal(t, passages, n)
	require.Equal(t, 0, df[text.Stem("absent")])
	require.Positive(t, df[text.Stem("someone")], "the body word is in the vocabulary")
	require.GreaterOrEqual(t, df[text.Stem("backup")], 2, "backup is in the text of both pages")

	hf, err := x.HeadingFreq(ctx, stems)
	require.NoError(t, err)
	require.Zero(t, hf[text.Stem("someone")], "no title or heading says someone, however often the text does")
	require.Zero(t, hf[text.Stem("absent")])
	require.Positive(t, hf[text.Stem("backup")], "the page title names backup")
	require.Positive(t, hf[text.Stem("restoring")], "a heading names restoring")
	require.Less(t, hf[text.Stem("backup")], df[text.Stem("backup")]+1)
}

// Counts are remembered for the corpus's generation only: a stem counted 0 counts again once
// a page that names it is indexed, in a heading or the text, and what a handle remembers
// equals what a fresh handle on the same file reads.
func TestVocabularyCountsFollowTheCorpusGeneration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"vacuum.html": `<html><head><title>Routine Vacuuming</title></head><body>
<h1>Routine Vacuuming</h1><p>Vacuum reclaims space.</p></body></html>`})
	path := filepath.Join(t.TempDir(), "corpus.db")
	x, err := Open(path)
	require.NoError(t, err)
	defer x.Close()
	_, err = x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	quasar, vacuum := text.Stem("quasars"), text.Stem("vacuum")
	stems := []string{quasar, vacuum, quasar, ""}
	hf, err := x.HeadingFreq(ctx, stems)
	require.NoError(t, err)
	require.Equal(t, map[string]int{quasar: 0, vacuum: 1}, hf)
	df, _, err := x.DocFreq(ctx, stems)
	require.NoError(t, err)
	require.Zero(t, df[quasar])

	writeFiles(t, dir, map[string]string{"quasar.html": `<html><head><title>Quasars</title></head><body>
<h1>Quasars</h1><p>Quasars are bright; so are more quasars.</p></body></html>`})
	_, err = x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	hf, err = x.HeadingFreq(ctx, stems)
	require.NoError(t, err)
	require.Positive(t, hf[quasar], "the new page's title names quasars: the 0 counted before must not be remembered")
	df, _, err = x.DocFreq(ctx, stems)
	require.NoError(t, err)
	require.Positive(t, df[quasar])

	fresh, err := Open(path)
	require.NoError(t, err)
	defer fresh.Close()
	want, err := fresh.HeadingFreq(ctx, stems)
	require.NoError(t, err)
	again, err := x.HeadingFreq(ctx, stems) // all remembered now
	require.NoError(t, err)
	require.Equal(t, want, again)
}
