package corpus

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// prose is n words of filler with a marker word first.
func prose(marker string, n int) string {
	ws := []string{marker}
	for i := 1; i < n; i++ {
		ws = append(ws, fmt.Sprintf("w%d", i))
	}
	return strings.Join(ws, " ")
}

func TestSplitPassages(t *testing.T) {
	type want struct {
		heading, anchor, first string // first: the marker word the passage starts with
		minWords, maxWords     int
	}
	for _, tc := range []struct {
		name  string
		title string
		secs  []section
		want  []want
	}{
		{
			name:  "one passage per section, heading paths below the title",
			title: "Guide",
			secs: []section{
				{level: 1, heading: "Guide", anchor: "top"},
				{level: 2, heading: "Install", anchor: "install", text: prose("install", 100)},
				{level: 3, heading: "On Linux", anchor: "linux", text: prose("linux", 100)},
				{level: 2, heading: "Use", anchor: "use", text: prose("use", 100)},
			},
			want: []want{
				{"Install", "install", "install", 100, 100},
				{"Install > On Linux", "linux", "linux", 100, 100},
				{"Use", "use", "use", 100, 100},
			},
		},
		{
			name:  "a tiny section joins the next, heading and all",
			title: "Guide",
			secs: []section{
				{text: prose("intro", 20)},
				{level: 2, heading: "Tiny", anchor: "tiny", text: prose("tiny", 10)},
				{level: 2, heading: "Big", anchor: "big", text: prose("big", 200)},
			},
			want: []want{{"", "", "intro", 230, 234}}, // with the two merged heading lines
		},
		{
			name:  "a long section splits at paragraphs, continuations keep the path and take the nearest id",
			title: "Ref",
			secs:  []section{{level: 2, heading: "API", anchor: "api", text: prose("a", 300) + "\n\n" + prose("b", 300) + "\n\n" + markOpen + "api.c" + markClose + prose("c", 300)}},
			want: []want{
				{"API", "api", "a", 300, 300},
				{"API", "api", "b", 300, 300},
				{"API", "api.c", "c", 300, 300},
			},
		},
		{
			name:  "a paragraph over the maximum splits between lines, then words",
			title: "Log",
			secs:  []section{{text: prose("x", 1000)}},
			want:  []want{{"", "", "x", 400, 400}, {"", "", "w400", 400, 400}, {"", "", "w800", 200, 200}},
		},
		{
			name:  "a small tail joins the passage before it",
			title: "T",
			secs: []section{
				{level: 2, heading: "Main", anchor: "main", text: prose("main", 200)},
				{level: 2, heading: "Notes", anchor: "notes", text: prose("notes", 30)},
			},
			want: []want{{"Main", "main", "main", 230, 232}},
		},
		{
			name:  "a title-repeating h1 with a site suffix is left out of the path",
			title: "sqlite3 — DB-API — Python 3.11 documentation",
			secs: []section{
				{level: 1, heading: "sqlite3 — DB-API", anchor: "module-sqlite3", text: prose("intro", 90)},
				{level: 2, heading: "Tutorial", anchor: "tutorial", text: prose("tut", 90)},
			},
			want: []want{{"", "module-sqlite3", "intro", 90, 90}, {"Tutorial", "tutorial", "tut", 90, 90}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitPassages(tc.title, tc.secs)
			require.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				p := got[i]
				require.Equal(t, w.heading, p.heading, "passage %d", i)
				require.Equal(t, w.anchor, p.anchor, "passage %d", i)
				require.True(t, strings.HasPrefix(p.text, w.first+" "), "passage %d starts %.30q", i, p.text)
				n := words(p.text)
				require.GreaterOrEqual(t, n, w.minWords, "passage %d", i)
				require.LessOrEqual(t, n, w.maxWords, "passage %d", i)
				require.NotContains(t, p.text, markOpen, "markers never reach stored text")
			}
		})
	}
}

func TestMarkdownSectionsAnchorsAndFences(t *testing.T) {
	secs := markdownSections("Preface.\n\n# Title\n\nIntro.\n\n## Custom {#my-id}\n\nText.\n\n```sh\n# not a heading\nls *.go\n```\n\n### Go 1.22: What's New?\n\nMore.")
	var got []string
	for _, s := range secs {
		got = append(got, fmt.Sprintf("%d|%s|%s", s.level, s.heading, s.anchor))
	}
	require.Equal(t, []string{"0||", "1|Title|title", "2|Custom|my-id", "3|Go 1.22: What's New?|go-122-whats-new"}, got)
	require.Contains(t, secs[2].text, "# not a heading\nls *.go", "fenced code stays in its section, symbols and all")
}

const chromePage = `<!DOCTYPE html><html><head><title>Index Maintenance</title></head><body>
<div class="navheader"><table><tr><td><a href="a.html">Prev</a></td><td><a href="b.html">Up</a></td>
<td><a href="c.html">Home</a></td><td><a href="d.html">Next</a></td></tr></table></div>
<div class="breadcrumbs"><a href="/">Docs</a> » <a href="/admin">Administration</a></div>
<div role="navigation" class="side">sidebarsecret</div>
<div class="sect1" id="ROUTINE-REINDEX"><div class="titlepage"><h2 class="title">71.2. Index Maintenance</h2></div>
<div class="toc"><dl><dt>71.2.1. <a href="#x">Reindexing</a></dt><dt>71.2.2. <a href="#y">Bloat</a></dt></dl></div>
<p>Indexes may need periodic rebuilding with <code>REINDEX</code> when they bloat.</p>
<ul class="contents"><li><a href="1">One</a></li><li><a href="2">Two</a></li><li><a href="3">Three</a></li><li><a href="4">Four</a></li></ul>
<pre>SELECT * FROM t WHERE a * 2 > b; -- keep the *</pre>
<p><a name="old-anchor"></a>Prev Up Home Next</p>
<h3><a id="REINDEX-CONCURRENTLY"></a>Concurrent rebuilds<a class="headerlink" href="#c">¶</a></h3>
<p>Use REINDEX CONCURRENTLY to avoid locking out writes.</p>
</div>
<div class="navfooter">Prev Up Home Next footersecret</div>
<footer>© 2024 footersecret2</footer>
</body></html>`

func TestExtractHTMLDropsChrome(t *testing.T) {
	e, err := extract([]byte(chromePage), FormatHTML, "p.html")
	require.NoError(t, err)
	require.Equal(t, "Index Maintenance", e.title)
	for _, chrome := range []string{"Prev", "Home", "Administration", "sidebarsecret", "Reindexing", "71.2.1", "Four", "footersecret", "¶"} {
		require.NotContains(t, e.body, chrome)
	}
	require.Contains(t, e.body, "## 71.2. Index Maintenance")
	require.Contains(t, e.body, "Indexes may need periodic rebuilding with REINDEX when they bloat.")
	require.Contains(t, e.body, "SELECT * FROM t WHERE a * 2 > b; -- keep the *")
	require.Contains(t, e.body, "### Concurrent rebuilds\n\nUse REINDEX CONCURRENTLY")

	var anchors []string
	for _, s := range e.sections {
		anchors = append(anchors, s.anchor)
	}
	require.Equal(t, []string{"ROUTINE-REINDEX", "REINDEX-CONCURRENTLY"}, anchors, "the enclosing id, then the id inside the heading")

	all, err := extractHTML([]byte(chromePage), allText)
	require.NoError(t, err)
	require.Contains(t, all.body, "Prev", "the old tag-list extractor keeps navigation: the comparison is real")
}

func TestIndexSkipsNonDocuments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"doc.html":             "<html><head><title>Doc</title></head><body><p>real words here</p></body></html>",
		"style.css":            "body { color: red }",
		"app.js":               "function f() { return 1 }",
		"app.min.js":           "var a=1",
		"app.js.map":           `{"version":3,"sources":[]}`,
		"logo.svg":             `<svg xmlns="http://www.w3.org/2000/svg"><text>logo</text></svg>`,
		"noext-image":          "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>",
		"font.woff2":           "wOF2\x00\x01",
		"pic.png":              "\x89PNG\r\n\x1a\nxxxx",
		"unnamed":              "GIF89a\x01\x00\x01\x00",
		"bundle.zip":           "PK\x03\x04",
		"_static/basic.txt":    "sphinx asset",
		"_sources/doc.rst.txt": "Doc\n===\n\nreal words here",
		"notes.txt":            "plain notes",
		"doc.txt":              "Doc\n===\n\nreal words here (the AsciiDoc source of doc.html)",
		"guide.md":             "# Guide\n\nno page is rendered from it here",
	})
	x := openTemp(t)
	warned := map[string]string{}
	st, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{Warn: func(p string, err error) { warned[filepath.Base(p)] = err.Error() }})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Added: 3, Skipped: 13}, st)
	for _, name := range []string{"style.css", "app.js", "app.min.js", "app.js.map", "logo.svg", "font.woff2", "pic.png", "bundle.zip"} {
		require.Contains(t, warned[name], "not a document", name)
	}
	require.Contains(t, warned["noext-image"], "SVG")
	require.Contains(t, warned["unnamed"], "image/gif")
	require.Contains(t, warned["_sources"], "Sphinx")
	require.Contains(t, warned["doc.txt"], "the source of doc.html")
}

func TestDocumentAndPassageByPassageID(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"guide.html": `<html><head><title>Guide</title></head><body>
<h1>Guide</h1><p>` + prose("opening", 120) + `</p>
<h2 id="tuning">Tuning</h2><p>` + prose("pacer", 150) + `</p>
<h2>Limits</h2><p>` + prose("memlimit", 150) + `</p></body></html>`})
	x := openTemp(t)
	_, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	pageURL := fileURL(filepath.Join(dir, "guide.html"))
	pageID := DocID(pageURL)

	res, err := x.Search(ctx, "pacer", 5)
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.Equal(t, pageURL+"#tuning", res[0].URL)
	require.Equal(t, "Guide — Tuning", res[0].Title)
	require.Equal(t, PassageID(pageID, 1), res[0].DocID)

	d, err := x.Document(ctx, res[0].DocID)
	require.NoError(t, err)
	require.Equal(t, Document{ID: res[0].DocID, URL: pageURL + "#tuning", Title: "Guide — Tuning", Body: prose("pacer", 150), Format: FormatText}, d)

	p, err := x.Passage(ctx, res[0].DocID)
	require.NoError(t, err)
	require.Equal(t, Passage{ID: res[0].DocID, PageID: pageID, URL: pageURL + "#tuning", Title: "Guide", Heading: "Tuning",
		Anchor: "tuning", Text: prose("pacer", 150), Ordinal: 1}, p)
	require.Equal(t, "Guide > Tuning", p.Path())

	page, err := x.Document(ctx, pageID)
	require.NoError(t, err)
	require.Equal(t, pageURL, page.URL)
	require.Contains(t, page.Body, "## Limits")

	ps, err := x.Passages(ctx, pageID)
	require.NoError(t, err)
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%d %s %s", p.Ordinal, p.Anchor, strings.Fields(p.Text)[0]))
	}
	require.Equal(t, []string{"0  opening", "1 tuning pacer", "2  memlimit"}, got,
		"in page order; no anchor where the page has no id (a slug of the heading is no fragment of the page)")
	require.Equal(t, pageURL, ps[2].URL, "a passage under a heading without an id links to its page, not to the section before it")

	for _, id := range []string{PassageID(pageID, 9), "nope:0", "nope"} {
		_, err := x.Document(ctx, id)
		require.ErrorIs(t, err, ErrNotFound, id)
	}
	_, err = x.Passage(ctx, pageID)
	require.ErrorIs(t, err, ErrNotFound, "a page id is not a passage id")
	_, err = x.Passages(ctx, "nope")
	require.ErrorIs(t, err, ErrNotFound)

	n, err := x.PassageCount(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	n, err = x.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "Count is pages")
}

func TestVersionChangesOnlyWhenTheCorpusDoes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\nalpha", "b.txt": "beta"})
	x := openTemp(t)
	version := func() string {
		v, err := x.Version(ctx)
		require.NoError(t, err)
		require.NotEmpty(t, v)
		return v
	}
	empty := version()
	_, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	v1 := version()
	require.NotEqual(t, empty, v1, "adding changes it")

	_, err = x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	require.Equal(t, v1, version(), "a no-op re-index keeps it")
	require.NoError(t, x.Add(ctx, Document{URL: fileURL(filepath.Join(dir, "b.txt")), Title: "b.txt", Body: "beta", Format: FormatText}))
	require.Equal(t, v1, version(), "adding the same content keeps it")

	writeFiles(t, dir, map[string]string{"b.txt": "gamma"})
	_, err = x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	v2 := version()
	require.NotEqual(t, v1, v2, "replacing changes it")

	require.NoError(t, x.Remove(ctx, DocID(fileURL(filepath.Join(dir, "a.md")))))
	require.NotEqual(t, v2, version(), "removing changes it")
	res, err := x.Search(ctx, "alpha", 5)
	require.NoError(t, err)
	require.Empty(t, res, "a removed page's passages leave the index")
}

func TestOpenMigratesWholeDocumentCorpus(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "old.db")
	db, err := openSQLite(p)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE docs (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, url TEXT NOT NULL,
		title TEXT NOT NULL, body TEXT NOT NULL, format TEXT NOT NULL, hash TEXT NOT NULL);
		CREATE VIRTUAL TABLE docs_fts USING fts5(title, body, content='docs', content_rowid='rowid');
		INSERT INTO docs(id, url, title, body, format, hash) VALUES (?, 'u:old', 'Old', '# Old

## Pacing

the pacer runs', 'markdown', 'h')`, DocID("u:old"))
	require.NoError(t, err)
	require.NoError(t, db.Close())

	x, err := Open(p)
	require.NoError(t, err)
	defer x.Close()
	res, err := x.Search(ctx, "pacer", 5)
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.Equal(t, "u:old#pacing", res[0].URL)
	var n int
	require.NoError(t, x.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'docs_%'`).Scan(&n))
	require.Zero(t, n, "the whole-document index is gone")
}

// A back-of-book index ("abs, Mathematical Functions" entries, the term outside its link) is
// navigation, not content, and goes; a chapter's introduction beside its table of contents
// stays, however many links the contents hold, and so does a list of prose with a few links.
func TestExtractHTMLDropsABookIndex(t *testing.T) {
	var index, toc, prose strings.Builder
	for i := range 30 {
		fmt.Fprintf(&index, `<dt>term%d, <a class="indexterm" href="s%d.html">Section %d Of The Manual</a></dt>`, i, i, i)
		fmt.Fprintf(&toc, `<dt><a href="c%d.html">19.%d. Chapter part %d</a></dt>`, i, i, i)
	}
	for i := range 25 {
		fmt.Fprintf(&prose, `<li>Step %d: run the checkpoint by hand when the write-ahead log grows past its limit, as <a href="w%d.html">WAL</a> explains.</li>`, i, i)
	}
	page := `<html><head><title>Server Setup</title></head><body>
<div class="chapter"><h1>19. Server Setup</h1><div class="toc"><dl>` + toc.String() + `</dl></div>
<p>This chapter discusses how to set up and run the database server, and its interactions with the operating system.</p>
<p>The directions in this chapter assume that you are working with the plain server without any additional infrastructure, for example a copy that you built from source.</p></div>
<div class="index"><h2>Index</h2><dl>` + index.String() + `</dl></div>
<ul>` + prose.String() + `</ul></body></html>`
	e, err := extract([]byte(page), FormatHTML, "p.html")
	require.NoError(t, err)
	require.Contains(t, e.body, "This chapter discusses how to set up and run the database server, and its interactions")
	require.NotContains(t, e.body, "term7", "the book index is gone")
	require.NotContains(t, e.body, "Chapter part 3", "the table of contents is gone")
	require.Contains(t, e.body, "Step 24: run the checkpoint by hand")
}

// SQLite's pragma page opens each pragma with a hidden heading, <h _id=...>, below its <h2>: each
// is a section of its own, under its own name.
func TestExtractHTMLReadsSQLitesHiddenHeadings(t *testing.T) {
	page := `<html><head><title>Pragma statements supported by SQLite</title></head><body>
<h2 id="list">List Of PRAGMAs</h2><p>Notes on the pragmas follow.</p>
<a name="pragma_stats"></a>
<h _id=pragma_stats style="display:none"> PRAGMA stats</h><hr>
<p>This pragma is subject to change without notice and is not recommended for use by application programs.</p>
<a name="pragma_synchronous"></a>
<h _id=pragma_synchronous style="display:none"> PRAGMA synchronous</h><hr>
<p>Query or change the setting of the "synchronous" flag.</p></body></html>`
	e, err := extract([]byte(page), FormatHTML, "pragma.html")
	require.NoError(t, err)
	var got []string
	for _, s := range e.sections {
		got = append(got, fmt.Sprintf("%d %s #%s", s.level, s.heading, s.anchor))
	}
	require.Equal(t, []string{"2 List Of PRAGMAs #list", "3 PRAGMA stats #pragma_stats", "3 PRAGMA synchronous #pragma_synchronous"}, got)
}

// A Sphinx page with a local table of contents (the Python FAQ) writes each heading as a link
// back to it, class "toc-backref": that link is the heading's text, and only the pilcrow
// after it is decoration. Read as page chrome, the FAQ's questions were no headings at all.
func TestExtractHTMLReadsSphinxBacklinkHeadings(t *testing.T) {
	page := `<html><head><title>Programming FAQ</title></head><body>
<nav class="contents local" id="contents"><ul><li><a class="reference internal" href="#why-are-default-values-shared-between-objects" id="id14">Why are default values shared between objects?</a></li></ul></nav>
<section id="why-are-default-values-shared-between-objects">
<h3><a class="toc-backref" href="#id14" role="doc-backlink">Why are default values shared between objects?</a><a class="headerlink" href="#why-are-default-values-shared-between-objects" title="Permalink to this heading">¶</a></h3>
<p>This type of bug commonly bites neophyte programmers.</p>
</section>
<section id="how-can-i-pass-optional-or-keyword-parameters">
<h3><a class="toc-backref" href="#id15" role="doc-backlink">How can I pass optional or keyword parameters?</a><a class="headerlink" href="#how-can-i-pass-optional-or-keyword-parameters">¶</a></h3>
<p>Collect the arguments using the * and ** specifiers.</p>
</section></body></html>`
	e, err := extract([]byte(page), FormatHTML, "programming.html")
	require.NoError(t, err)
	var got []string
	for _, s := range e.sections {
		if s.heading != "" {
			got = append(got, fmt.Sprintf("%d %s #%s", s.level, s.heading, s.anchor))
		}
	}
	require.Equal(t, []string{
		"3 Why are default values shared between objects? #why-are-default-values-shared-between-objects",
		"3 How can I pass optional or keyword parameters? #how-can-i-pass-optional-or-keyword-parameters",
	}, got)
	require.NotContains(t, e.body, "¶")
}

func TestExtractHTMLDropsALanguageSwitcher(t *testing.T) {
	// as the Apache manual heads and ends every page
	switcher := `<div class="toplang"><p><span>Available Languages: </span><a href="../en/mod/x.html" title="English">&nbsp;en&nbsp;</a> |
<a href="../fr/mod/x.html" hreflang="fr" rel="alternate">&nbsp;fr&nbsp;</a> |
<a href="../ja/mod/x.html" hreflang="ja" rel="alternate">&nbsp;ja&nbsp;</a></p></div>`
	page := `<html><head><title>Expiry</title></head><body><h1>Expiry</h1>` + switcher + `
<p>Expiry headers are sent only when <a href="#active">ExpiresActive</a> is on; see the <a href="../de/x.html" hreflang="de">German</a> and <a href="../fr/x.html" hreflang="fr">French</a> translations for more.</p>
<div class="bottomlang"><p><span>Available Languages: </span><a href="../en/x.html">en</a> | <a href="../fr/x.html" hreflang="fr">fr</a></p></div>
</body></html>`
	e, err := extract([]byte(page), FormatHTML, "x.html")
	require.NoError(t, err)
	require.NotContains(t, e.body, "Available Languages")
	require.Contains(t, e.body, "Expiry headers are sent only when ExpiresActive is on; see the German and French translations for more.",
		"prose that links translations is content")
}

// A table row is one paragraph, its cells run on: Sphinx wraps each cell's text in <p>, and read
// as paragraphs a row's cells came apart ("DEBUG" one paragraph, its meaning the next), so a
// quote of the meaning lost the level it describes, and a one-word cell ("print()") sat before
// the next row's text as if it were that row's.
func TestExtractHTMLKeepsATableRowTogether(t *testing.T) {
	page := `<html><head><title>Logging HOWTO</title></head><body><h1>Logging HOWTO</h1>
<p>The standard levels and their applicability are described below:</p>
<table><thead><tr><th class="head"><p>Level</p></th><th class="head"><p>When it's used</p></th></tr></thead>
<tbody><tr><td><p><code>DEBUG</code></p></td><td><p>Detailed information, typically of interest only when diagnosing problems.</p></td></tr>
<tr><td><p>Display console output</p></td><td><p><code>print()</code></p></td></tr>
<tr><td><p>Show a listing:</p><pre>ls -l
ls -a</pre></td><td><p>two lines</p></td></tr></tbody></table>
<p>After the table.</p></body></html>`
	paras := htmlParagraphs(t, page, "logging.html")
	require.Contains(t, paras, "Level When it's used")
	require.Contains(t, paras, "DEBUG Detailed information, typically of interest only when diagnosing problems.")
	require.Contains(t, paras, "Display console output print()")
	require.Contains(t, paras, "After the table.")
	// a code block in a cell keeps its lines
	require.Contains(t, strings.Join(paras, "\n\n"), "ls -l\nls -a")
}

// A term and the first paragraph of its definition are one paragraph: Sphinx's API pages are
// lists of them (<dt>Record.GetFieldCount()</dt><dd><p>Return the number of fields...</p></dd>),
// and read apart a quote of the definition lost the name it defines.
func TestExtractHTMLKeepsATermWithItsDefinition(t *testing.T) {
	page := `<html><head><title>msilib</title></head><body><h1>Record Objects</h1>
<dl class="py method"><dt class="sig" id="msilib.Record.GetFieldCount"><span class="sig-name">Record.GetFieldCount</span>()<a class="headerlink" href="#msilib.Record.GetFieldCount">¶</a></dt>
<dd><p>Return the number of fields of the record, through MsiRecordGetFieldCount().</p><p>A second paragraph.</p></dd></dl>
<dl><dt>-d, --debug</dt><dt>--verbose</dt><dd><pre>code first</pre><p>Turn on parser debugging output.</p></dd>
<dt>empty</dt><dd></dd></dl>
<p>After the list.</p></body></html>`
	paras := htmlParagraphs(t, page, "msilib.html")
	require.Contains(t, paras, "Record.GetFieldCount() Return the number of fields of the record, through MsiRecordGetFieldCount().")
	require.Contains(t, paras, "A second paragraph.")
	// a definition that opens with code keeps the code a block of its own
	require.Contains(t, paras, "code first")
	require.Contains(t, paras, "After the list.")
	for _, p := range paras {
		require.NotContains(t, p, "empty After", "a term with an empty definition glues the next paragraph")
	}
}

// A list item whose text sits in a paragraph (<li><p>...</p></li>, as Asciidoc and Sphinx write
// them) reads "- the number of added lines;", its marker on its line, not a lone "-" and a
// paragraph after it.
func TestExtractHTMLKeepsAListMarkerWithItsItem(t *testing.T) {
	page := `<html><head><title>git-diff</title></head><body><h1>Other diff formats</h1>
<p>That is, from left to right:</p>
<ol><li><p>the number of added lines;</p></li><li><p>a tab;</p><p>a second paragraph of the item.</p></li>
<li><pre>code first</pre></li><li>bare item</li></ol><p>After the list.</p></body></html>`
	paras := htmlParagraphs(t, page, "git-diff.html")
	for _, want := range []string{"- the number of added lines;", "- a tab;", "a second paragraph of the item.", "- bare item", "After the list."} {
		require.Contains(t, paras, want)
	}
	// an item that opens with a code block keeps the block apart (its marker stands alone)
	require.Contains(t, paras, "code first")
}

// htmlParagraphs extracts an HTML page and returns its text as paragraphs, anchor marks
// stripped.
func htmlParagraphs(t *testing.T, page, name string) []string {
	t.Helper()
	e, err := extract([]byte(page), FormatHTML, name)
	require.NoError(t, err)
	var out []string
	for _, s := range e.sections {
		for _, p := range strings.Split(stripMarkers(s.text), "\n\n") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// A note, tip, warning or example box's short heading labels the box: the text after the box
// stays in the section the box sits in, under that section's heading and anchor (PostgreSQL's
// manual headed the wait-event tables of "28.2.3. pg_stat_activity" "Note", with an anchor the
// page lacks; Apache's put a directive's text after its example under "Example"). A longer
// heading in an example box still heads a section.
func TestExtractHTMLReadsAnAdmonitionHeadingAsText(t *testing.T) {
	page := `<html><head><title>28.2. The Cumulative Statistics System</title></head><body>
<div class="sect2" id="MONITORING-PG-STAT-ACTIVITY-VIEW"><h3 class="title">28.2.3. pg_stat_activity</h3>
<p>The pg_stat_activity view will have one row per server process.</p>
<div class="note"><h3 class="title">Note</h3><p>The wait_event and state columns are independent.</p></div>
<div class="warning"><h3 class="title">Warning: Cross-site scripting (XSS) safety</h3><p>Escape the output.</p></div>
<div class="table" id="WAIT-EVENT-IO-TABLE"><p>DataFileRead Waiting for a read from a relation data file.</p></div>
<div class="warning"><h4>Warning</h4><p>Do not rely on it.</p></div>
</div>
<div class="sect2" id="MONITORING-PG-STAT-REPLICATION-VIEW"><h3 class="title">28.2.4. pg_stat_replication</h3>
<p>One row per WAL sender process.</p></div>
<div class="directive-section"><h2 id="ProxyRemote">ProxyRemote Directive</h2>
<div class="example"><h3>Example</h3><pre>ProxyRemote "*" "http://firewall.example.com:81"</pre></div>
<p>In the last example, the proxy will forward FTP requests.</p>
<div class="example"><h3 id="box">How the example proxy chain forwards requests</h3><p>A box's long heading heads a section.</p></div></div>
</body></html>`
	e, err := extract([]byte(page), FormatHTML, "monitoring-stats.html")
	require.NoError(t, err)
	var got []string
	for _, s := range e.sections {
		got = append(got, fmt.Sprintf("%d %s #%s", s.level, s.heading, s.anchor))
	}
	require.Equal(t, []string{"3 28.2.3. pg_stat_activity #MONITORING-PG-STAT-ACTIVITY-VIEW", "3 28.2.4. pg_stat_replication #MONITORING-PG-STAT-REPLICATION-VIEW",
		"2 ProxyRemote Directive #ProxyRemote", "3 How the example proxy chain forwards requests #box"}, got)
	require.Contains(t, e.sections[2].text, "Example\n\n")
	require.Contains(t, e.sections[2].text, "In the last example, the proxy will forward FTP requests.", "the directive's text after its example box stays under the directive")
	first := e.sections[0].text
	require.Contains(t, first, "Note\n\nThe wait_event and state columns are independent.")
	require.Contains(t, first, "Warning: Cross-site scripting (XSS) safety\n\nEscape the output.", "an admonition's heading labels it, however long")
	require.Contains(t, first, "DataFileRead Waiting for a read from a relation data file.")
	require.Contains(t, first, "Warning\n\nDo not rely on it.")
}

func TestExtractHTMLReadsAnchoredBoldParagraphsAsHeadings(t *testing.T) {
	// as SQLite's FAQ and compile-time options pages write them, beside a DocBook table caption
	// (enclosing id, no anchor of its own) and a bold lead-in that starts a paragraph
	page := `<html><head><title>SQLite Frequently Asked Questions</title></head><body>
<h1>Frequently Asked Questions</h1>
<a name="q19"></a>
<p><b>(19) INSERT is really slow - I can only do few dozen INSERTs per second</b></p>
<blockquote>Actually, SQLite will easily do 50,000 or more INSERT statements per second.</blockquote>
<a name="q20"></a>
<p><b>(20) I accidentally deleted some important information.</b></p>
<blockquote><p>If you have a backup, restore it.</p></blockquote>
<div class="table" id="funcs"><p class="title"><strong>Table F.1. adminpack Functions</strong></p><table><tr><td>pg_file_sync</td></tr></table></div>
<a name="note"></a><p><b>Note:</b> a bold lead-in is text.</p>
</body></html>`
	e, err := extract([]byte(page), FormatHTML, "faq.html")
	require.NoError(t, err)
	var got []string
	for _, s := range e.sections {
		got = append(got, fmt.Sprintf("%d %s #%s: %s", s.level, s.heading, s.anchor, stripMarkers(s.text)))
	}
	require.Equal(t, []string{
		"1 Frequently Asked Questions #: ",
		"2 (19) INSERT is really slow - I can only do few dozen INSERTs per second #q19: Actually, SQLite will easily do 50,000 or more INSERT statements per second.",
		"2 (20) I accidentally deleted some important information. #q20: If you have a backup, restore it.\n\nTable F.1. adminpack Functions\n\npg_file_sync\n\nNote: a bold lead-in is text.",
	}, got)
}
