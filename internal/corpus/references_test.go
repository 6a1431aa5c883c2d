package corpus

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/search"
)

// The disk-full page points to the tablespaces page, in words the question's reader uses
// ("move some files to another disk"), while the tablespaces page says "tablespace" throughout.
const (
	diskFullHTML = `<!DOCTYPE html><html><head><title>Disk Full Failure</title></head><body>
<div class="navheader"><a href="index.html">Home</a> <a href="tablespaces.html">Next</a></div>
<h1 id="disk-full">Disk Full Failure</h1>
<p>The most important disk monitoring task is to watch the database's free space. If a disk
fills, move some of the database files to other file systems by making use of tablespaces.
See <a href="tablespaces.html">Section 23.6</a> for more information about that.</p>
<p>Do not delete log files by hand: see <a href="wal.html#wal-config">the WAL configuration</a>,
and <a href="https://example.org/outside.html">an outside page</a>, <a href="#disk-full">this page</a>,
<a href="mailto:dba@example.org">the DBA</a>.</p>
<h2 id="other">Other failures</h2>
<p>A full disk holding the WAL may cause the server to shut down.</p>
</body></html>`
	tablespacesHTML = `<!DOCTYPE html><html><head><title>Tablespaces</title></head><body>
<h1 id="tablespaces">23.6. Tablespaces</h1>
<p>Tablespaces allow administrators to define locations in the file system where the files
representing database objects can be stored.</p>
<h2 id="create">Creating a tablespace</h2>
<p>CREATE TABLESPACE fastspace LOCATION '/ssd1/postgresql/data'; the location must be an
existing, empty directory owned by the server's operating system user.</p>
</body></html>`
	walHTMLHead = `<!DOCTYPE html><html><head><title>Write-Ahead Logging</title></head><body>
<h1 id="wal">Write-Ahead Logging</h1>
<p>WAL files are recycled by checkpoints; removing them by hand loses data.</p>
<p>FILLER</p>
<h2 id="wal-config">WAL Configuration</h2>
<p>max_wal_size bounds the WAL kept between automatic checkpoints.</p>
<p>FILLER</p>
</body></html>`
)

// walHTML's sections are long enough to be passages of their own.
var walHTML = strings.ReplaceAll(walHTMLHead, "FILLER", strings.Repeat("A checkpoint writes every dirty page of the shared buffers to disk. ", 20))

func indexDocs(t *testing.T, files map[string]string) (*Index, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	x := openTemp(t)
	_, err := x.IndexPaths(context.Background(), []string{dir}, IndexOptions{})
	require.NoError(t, err)
	return x, dir
}

// passageWith is the id of the passage of the page at path whose text holds s.
func passageWith(t *testing.T, x *Index, path, s string) string {
	t.Helper()
	ps, err := x.Passages(context.Background(), DocID(fileURL(path)))
	require.NoError(t, err)
	for _, p := range ps {
		if strings.Contains(p.Text, s) {
			return p.ID
		}
	}
	t.Fatalf("no passage of %s holds %q", path, s)
	return ""
}

func TestReferencesFollowTheLinksAPassageMakes(t *testing.T) {
	ctx := context.Background()
	x, dir := indexDocs(t, map[string]string{"diskfull.html": diskFullHTML, "tablespaces.html": tablespacesHTML, "wal.html": walHTML})
	full := passageWith(t, x, filepath.Join(dir, "diskfull.html"), "Section 23.6")
	other := passageWith(t, x, filepath.Join(dir, "tablespaces.html"), "CREATE TABLESPACE")

	rs, err := x.References(ctx, "move files to another disk", []string{full}, 3)
	require.NoError(t, err)
	var urls []string
	for _, r := range rs {
		urls = append(urls, r.URL)
		require.Equal(t, "corpus", r.Provider)
		require.NotEmpty(t, r.DocID)
		require.NotEmpty(t, r.Snippet)
	}
	// in the passage's order: the tablespaces page (no fragment: its first passage), then the
	// WAL page's passage that holds the section the fragment names; the navigation bar's "Next", the outside page, the
	// page's own fragment and the mail address are no references
	require.Equal(t, []string{
		fileURL(filepath.Join(dir, "tablespaces.html")) + "#tablespaces",
		fileURL(filepath.Join(dir, "wal.html")) + "#wal-config",
	}, urls)
	require.Contains(t, rs[1].Title, "WAL Configuration")

	// per bounds each passage's references; ids already held are not repeated
	rs, err = x.References(ctx, "disk", []string{full}, 1)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	rs, err = x.References(ctx, "disk", []string{full, rs[0].DocID}, 3)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Contains(t, rs[0].URL, "#wal-config")

	// a passage without links has none; unknown ids and per 0 give nothing
	rs, err = x.References(ctx, "disk", []string{other, "nosuchpage:0", "garbage"}, 3)
	require.NoError(t, err)
	require.Empty(t, rs)
	rs, err = x.References(ctx, "disk", []string{full}, 0)
	require.NoError(t, err)
	require.Empty(t, rs)

	// the corpus satisfies the interface the search activity looks for
	var _ search.Referencer = x
}

func TestReferencesFollowReindexAndRemoval(t *testing.T) {
	ctx := context.Background()
	x, dir := indexDocs(t, map[string]string{"diskfull.html": diskFullHTML, "tablespaces.html": tablespacesHTML, "wal.html": walHTML})
	page := filepath.Join(dir, "diskfull.html")
	full := passageWith(t, x, page, "Section 23.6")

	// the WAL page goes: its link leads nowhere, the other stays
	require.NoError(t, os.Remove(filepath.Join(dir, "wal.html")))
	require.NoError(t, x.Remove(ctx, DocID(fileURL(filepath.Join(dir, "wal.html")))))
	rs, err := x.References(ctx, "disk", []string{full}, 3)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Contains(t, rs[0].URL, "tablespaces.html")

	// the page is edited to link nowhere: a re-index replaces its links
	writeFiles(t, dir, map[string]string{"diskfull.html": strings.ReplaceAll(diskFullHTML, `<a href="tablespaces.html">Section 23.6</a>`, "Section 23.6")})
	st, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, st.Updated)
	full = passageWith(t, x, page, "Section 23.6")
	rs, err = x.References(ctx, "disk", []string{full}, 3)
	require.NoError(t, err)
	require.Empty(t, rs)

	// removing the linking page removes its links
	require.NoError(t, x.Remove(ctx, DocID(fileURL(page))))
	var n int
	require.NoError(t, x.db.QueryRowContext(ctx, `SELECT count(*) FROM links`).Scan(&n))
	require.Zero(t, n)
}

// A corpus written before links were kept (schema version 2) opens, searches as before, and
// gains its pages' links when they are indexed again: the pages with links count as updated.
func TestVersion2CorpusGainsLinksOnReindex(t *testing.T) {
	ctx := context.Background()
	x, dir := indexDocs(t, map[string]string{"diskfull.html": diskFullHTML, "tablespaces.html": tablespacesHTML})
	path := x.path
	_, err := x.db.ExecContext(ctx, `DROP TABLE links; PRAGMA user_version = 2`)
	require.NoError(t, err)
	// the hash a version 2 index stored had no links in it
	_, err = x.db.ExecContext(ctx, `UPDATE docs SET hash = 'v2'`)
	require.NoError(t, err)
	require.NoError(t, x.Close())

	x, err = Open(path)
	require.NoError(t, err)
	defer x.Close()
	rs, err := x.Search(ctx, "tablespaces", 5)
	require.NoError(t, err)
	require.NotEmpty(t, rs)
	full := passageWith(t, x, filepath.Join(dir, "diskfull.html"), "Section 23.6")
	refs, err := x.References(ctx, "disk", []string{full}, 3)
	require.NoError(t, err)
	require.Empty(t, refs, "no links until the page is indexed again")

	st, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Updated: 2}, st, "pages with links or anchors are stored again")
	full = passageWith(t, x, filepath.Join(dir, "diskfull.html"), "Section 23.6")
	refs, err = x.References(ctx, "disk", []string{full}, 3)
	require.NoError(t, err)
	require.Len(t, refs, 1)
	var version int
	require.NoError(t, x.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version))
	require.Equal(t, schemaVersion, version)
}

// A page whose text sits directly in one <div>, not in paragraphs, names "the manual" three
// times: as plain words in the introduction, then as a link in each of two long sections. Each
// link belongs to the passage it is written in, told by the words written just before it, not
// by the words before the text's first occurrence in the block (the introduction's); a link
// right after a parenthesis still follows its words.
func TestReferencesBelongToThePassageThatWritesThem(t *testing.T) {
	ctx := context.Background()
	filler := strings.Repeat("A checkpoint writes every dirty page of the shared buffers to disk. ", 20)
	page := `<!DOCTYPE html><html><head><title>Tuning</title></head><body><div>
Tuning starts from the manual and a benchmark. ` + filler + `
<h2 id="speed">Speed</h2>For speed read checkpoints (<a href="wal.html">the manual</a>). ` + filler + `
<h2 id="safety">Safety</h2>For safety read <a href="tablespaces.html">the manual</a> on disks. ` + filler + `
</div></body></html>`
	x, dir := indexDocs(t, map[string]string{"tuning.html": page, "tablespaces.html": tablespacesHTML, "wal.html": walHTML})
	path := filepath.Join(dir, "tuning.html")
	intro := passageWith(t, x, path, "Tuning starts")
	speed := passageWith(t, x, path, "For speed read")
	safety := passageWith(t, x, path, "For safety read")
	require.NotEqual(t, speed, safety)
	require.NotEqual(t, intro, speed)

	follow := func(id string) []string {
		t.Helper()
		rs, err := x.References(ctx, "manual", []string{id}, 3)
		require.NoError(t, err)
		var urls []string
		for _, r := range rs {
			urls = append(urls, filepath.Base(r.URL))
		}
		return urls
	}
	require.Empty(t, follow(intro), "the introduction names the manual but links nowhere")
	require.Equal(t, []string{"wal.html#wal"}, follow(speed))
	require.Equal(t, []string{"tablespaces.html#tablespaces"}, follow(safety))
}
