package corpus

import (
	"context"
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
