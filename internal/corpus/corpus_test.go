package corpus

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sated-dev/sated/internal/search"
	"github.com/stretchr/testify/require"
)

func openTemp(t testing.TB) *Index {
	t.Helper()
	x, err := Open(filepath.Join(t.TempDir(), "data", "corpus.db"))
	require.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	return x
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

const pageHTML = `<!DOCTYPE html>
<html><head><title>Tuning the Garbage Collector</title>
<style>.x { color: red } stylesecret</style>
<script>var scriptsecret = 1;</script></head>
<body>
<nav><a href="/">navsecret home</a></nav>
<h1>GC tuning</h1>
<p>The <b>pacer</b> decides when
   a cycle starts.</p>
<ul><li>GOGC sets the target</li><li>GOMEMLIMIT caps memory</li></ul>
<pre>GOGC=off
go run .</pre>
<noscript>noscriptsecret</noscript>
</body></html>`

var sampleFiles = map[string]string{
	"page.html":         pageHTML,
	"notes.md":          "Some preface.\n\n# Markdown Heading Title\n\nEscape analysis moves values to the heap.\n",
	"front.md":          "---\ntitle: \"Front Matter Title\"\nlayout: article\n---\n\n# Other heading\n\nCompatibility promises.\n",
	"plain.txt":         "Plain text about goroutines and channels.\n",
	"sub/deep/deep.txt": "Deeply nested scheduler notes.\n",
	"broken.bin":        "\x7fELF\x00\x00\x01binary junk",
	"latin1.txt":        "caf\xe9 cr\xe8me",
	".hidden/secret.md": "# Hidden\n\nhiddensecret",
}

func TestIndexPathsFormats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	x := openTemp(t)

	warned := map[string]error{}
	var progress []int
	st, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{
		Warn:     func(p string, err error) { warned[filepath.Base(p)] = err },
		Progress: func(done int) { progress = append(progress, done) },
	})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Added: 5, Skipped: 2}, st)
	require.Len(t, warned, 2)
	require.ErrorIs(t, warned["broken.bin"], errBinary)
	require.ErrorIs(t, warned["latin1.txt"], errBinary)
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7}, progress)
	n, err := x.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, 5, n)

	page, err := x.Document(ctx, DocID(fileURL(filepath.Join(dir, "page.html"))))
	require.NoError(t, err)
	require.Equal(t, "Tuning the Garbage Collector", page.Title)
	require.Equal(t, FormatHTML, page.Format)
	require.True(t, strings.HasPrefix(page.URL, "file:///"), page.URL)
	for _, hidden := range []string{"stylesecret", "scriptsecret", "navsecret", "noscriptsecret", "<p>"} {
		require.NotContains(t, page.Body, hidden)
	}
	require.Contains(t, page.Body, "# GC tuning")
	require.Contains(t, page.Body, "The pacer decides when a cycle starts.")
	require.Contains(t, page.Body, "- GOGC sets the target")
	require.Contains(t, page.Body, "GOGC=off\ngo run .", "pre keeps its lines")

	titles := map[string]string{}
	for _, name := range []string{"notes.md", "front.md", "plain.txt", "sub/deep/deep.txt"} {
		d, err := x.Document(ctx, DocID(fileURL(filepath.Join(dir, name))))
		require.NoError(t, err, name)
		titles[name] = d.Title
	}
	require.Equal(t, map[string]string{
		"notes.md":          "Markdown Heading Title",
		"front.md":          "Front Matter Title",
		"plain.txt":         "plain.txt",
		"sub/deep/deep.txt": "deep.txt",
	}, titles)

	for _, q := range []string{"scriptsecret", "navsecret", "hiddensecret"} {
		res, err := x.Search(ctx, q, 5)
		require.NoError(t, err)
		require.Empty(t, res, q)
	}
	res, err := x.Search(ctx, "scheduler", 5)
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.Equal(t, fileURL(filepath.Join(dir, "sub/deep/deep.txt")), res[0].URL)
	require.Equal(t, "corpus", res[0].Provider)
	require.Equal(t, PassageID(DocID(res[0].URL), 0), res[0].DocID, "results are passages")
	require.Contains(t, res[0].Snippet, "scheduler")
}

func TestIndexSingleFileAndMissingInput(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"one.md": "# One\n\nsingle file"})
	x := openTemp(t)
	var warned []string
	st, err := x.IndexPaths(context.Background(), []string{filepath.Join(dir, "one.md"), filepath.Join(dir, "nope")},
		IndexOptions{Warn: func(p string, err error) { warned = append(warned, p) }})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Added: 1, Skipped: 1}, st)
	require.Equal(t, []string{filepath.Join(dir, "nope")}, warned)
}

func TestReindexIsIdempotentAndReplacesChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	x := openTemp(t)
	_, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)

	st, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Unchanged: 5, Skipped: 2}, st)

	writeFiles(t, dir, map[string]string{"plain.txt": "Now about quasars instead.\n"})
	st, err = x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Updated: 1, Unchanged: 4, Skipped: 2}, st)

	n, err := x.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	old, err := x.Search(ctx, "goroutines", 5)
	require.NoError(t, err)
	require.Empty(t, old, "the replaced text must leave the full-text index")
	res, err := x.Search(ctx, "quasars", 5)
	require.NoError(t, err)
	require.Len(t, res, 1)
	d, err := x.Document(ctx, res[0].DocID)
	require.NoError(t, err)
	require.Equal(t, "Now about quasars instead.", d.Body)
}

// TestIndexRunLeavesOneSegment: every index run that changes the corpus merges the
// full-text index into one segment (a search reads each word's postings once, not once per
// batch the runs committed), and the merged index still finds the new and not the old text.
func TestIndexRunLeavesOneSegment(t *testing.T) {
	ctx := context.Background()
	x := openTemp(t)
	segments := func() int {
		var n int
		require.NoError(t, x.db.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM passages_fts_idx`).Scan(&n))
		return n
	}
	var dir string
	for i, files := range []map[string]string{sampleFiles, {"plain.txt": "Now about quasars instead.\n"}, {"more.txt": "Pulsars spin fast.\n"}} {
		dir = t.TempDir()
		writeFiles(t, dir, files)
		_, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
		require.NoError(t, err)
		require.Equal(t, 1, segments(), "after index run %d", i+1)
	}
	for q, want := range map[string]int{"quasars": 1, "pulsars": 1, "escape analysis": 1} {
		res, err := x.Search(ctx, q, 5)
		require.NoError(t, err)
		require.Len(t, res, want, q)
	}
	// pages added one by one (or a corpus indexed before merging was done) leave several
	// segments; the next index run merges them even when it changes nothing
	for _, id := range []string{"a", "b", "c"} {
		require.NoError(t, x.Add(ctx, Document{ID: id, URL: "https://example.com/" + id, Title: "Note " + id, Body: "Magnetars " + id + " flare."}))
	}
	require.Greater(t, segments(), 1)
	st, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{}) // the last run's files again
	require.NoError(t, err)
	require.Zero(t, st.Added+st.Updated, "the run changes nothing")
	require.Equal(t, 1, segments(), "an unchanged run still merges")
}

func TestAddAndDocument(t *testing.T) {
	ctx := context.Background()
	x := openTemp(t)
	require.NoError(t, x.Add(ctx, Document{URL: "https://example.org/a", Title: "A", Body: "alpha body"}))
	d, err := x.Document(ctx, DocID("https://example.org/a"))
	require.NoError(t, err)
	require.Equal(t, Document{ID: DocID("https://example.org/a"), URL: "https://example.org/a", Title: "A", Body: "alpha body", Format: FormatText}, d)

	_, err = x.Document(ctx, "missing")
	require.ErrorIs(t, err, ErrNotFound)
	require.Contains(t, err.Error(), "missing")
	require.ErrorIs(t, x.Add(ctx, Document{Body: "no url"}), search.ErrBadInput)
}

func TestTitleMatchRanksAbove(t *testing.T) {
	ctx := context.Background()
	x := openTemp(t)
	filler := strings.Repeat("memory allocation heap stack pointer ", 5)
	require.NoError(t, x.Add(ctx, Document{URL: "u:body", Title: "Runtime internals", Body: filler + "the scavenger returns pages"}))
	require.NoError(t, x.Add(ctx, Document{URL: "u:title", Title: "The scavenger", Body: filler + "returns pages to the OS"}))
	require.NoError(t, x.Add(ctx, Document{URL: "u:none", Title: "Unrelated", Body: filler}))
	res, err := x.Search(ctx, "scavenger", 10)
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.Equal(t, "u:title", res[0].URL)
	require.Equal(t, "u:body", res[1].URL)

	// More of the query's words matched ranks higher.
	res, err = x.Search(ctx, "scavenger OS pages", 10)
	require.NoError(t, err)
	require.Equal(t, "u:title", res[0].URL)
}

func TestHostileQueries(t *testing.T) {
	ctx := context.Background()
	x := openTemp(t)
	require.NoError(t, x.Add(ctx, Document{URL: "u:gc", Title: "GC tuning", Body: "Set GOGC and near limits carefully."}))
	for _, q := range []string{
		`"gc tuning`, `gc AND`, `AND gc`, `gc*`, `-gc`, `(gc OR`, `NEAR(gc tuning, 2)`, `title:gc`,
		`^gc`, `gc + tuning`, `'; DROP TABLE docs; -- gc`, `gc NOT`, `{gc}`, `gc"`, `NEAR`,
	} {
		res, err := x.Search(ctx, q, 5)
		require.NoError(t, err, q)
		require.Len(t, res, 1, q)
		require.Equal(t, "u:gc", res[0].URL, q)
	}
	for _, q := range []string{"", "   ", `"" AND OR`, `***`, "the of and"} {
		_, err := x.Search(ctx, q, 5)
		require.ErrorIs(t, err, search.ErrBadInput, q)
	}
	n, err := x.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

func TestQueryTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"garbage collector", []string{"garbage", "collector"}},
		{`What is the "Go" GC?`, []string{"go", "gc"}},
		{"NEAR(a b) AND c*", []string{"near"}}, // one-letter words carry no topic
		{"How do I make a way to get the foreign_keys pragma working?", []string{"foreign", "keys", "pragma", "working"}},
		{"gc gc GC", []string{"gc"}},
		// a question-form word that names the subject is searched: after a determiner, and in
		// the planner's keywords
		{"Why does a list I use keep growing?", []string{"list", "keep", "growing"}},
		{"list default argument", []string{"list", "default", "argument"}},
		{"naïve café 日本語", []string{"naïve", "café", "日本語"}},
		{"go1.22 -race", []string{"go1", "22", "race"}},
	} {
		got, err := queryTerms(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "w%d ", i)
	}
	long, err := queryTerms(b.String())
	require.NoError(t, err)
	require.Len(t, long, maxQueryTerms)
	require.Equal(t, `"naïve" OR "near" OR "and"`, matchQuery([]string{"naïve", "near", "and"}))
}

func TestSnippet(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	for _, tc := range []struct {
		name, body string
		terms      []string
		want       string // must appear in the snippet
		lead       bool   // snippet starts mid-document
	}{
		{"start when no hit", "Opening words. " + filler, []string{"absent"}, "Opening words.", false},
		{"window around hit", filler + "the pacer\n\tdecides when " + filler, []string{"pacer"}, "the pacer decides when", true},
		{"most distinct terms win", filler + "garbage alone " + filler + "garbage collector pacing together " + filler,
			[]string{"garbage", "collector", "pacing"}, "garbage collector pacing together", true},
		{"same porter stem", filler + "collection cycles " + filler, []string{"collecting"}, "collection cycles", true},
		{"multibyte safe", strings.Repeat("日本語のテキスト ", 100) + "目標 " + strings.Repeat("日本語 ", 100), []string{"目標"}, "目標", true},
	} {
		got := snippet(tc.body, tc.terms, 200)
		require.LessOrEqual(t, len(got), 200, tc.name)
		require.True(t, utf8.ValidString(got), tc.name)
		require.Contains(t, got, tc.want, tc.name)
		require.Equal(t, tc.lead, strings.HasPrefix(got, "…"), tc.name)
	}
	// a section merged into the passage reads by its heading, without the heading's markup; a
	// one-hash line (a code comment as often) is left as written
	got := snippet("Channels order goroutines.\n\n### Locks\n\nA mutex orders them too.\n\n# not a heading\nmu.Lock()", []string{"mutex"}, 200)
	require.Contains(t, got, "goroutines. Locks — A mutex orders them too. # not a heading mu.Lock()")
	require.NotContains(t, got, "##")
}

func TestSearchLimitAndSnippetBound(t *testing.T) {
	ctx := context.Background()
	x := openTemp(t)
	for i := range 5 {
		require.NoError(t, x.Add(ctx, Document{URL: fmt.Sprintf("u:%d", i), Title: "doc", Body: strings.Repeat("lengthy scheduling prose ", 400)}))
	}
	_, err := x.Search(ctx, "scheduling", 0)
	require.ErrorIs(t, err, search.ErrBadInput)
	res, err := x.Search(ctx, "scheduling", 3)
	require.NoError(t, err)
	require.Len(t, res, 3)
	for _, r := range res {
		require.LessOrEqual(t, len(r.Snippet), search.MaxSnippetChars)
		require.Contains(t, r.Snippet, "scheduling")
	}
}

func TestIndexURLs(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/guide.html", func(w http.ResponseWriter, r *http.Request) {
		require.Contains(t, r.Header.Get("User-Agent"), "sated")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, pageHTML)
	})
	mux.HandleFunc("/raw", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Served Markdown\n\nInterfaces are satisfied implicitly.")
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/huge.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("x", 2048))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := context.Background()
	x := openTemp(t)
	warned := map[string]string{}
	inputs := []string{srv.URL + "/guide.html", srv.URL + "/raw", srv.URL + "/missing", srv.URL + "/image.png", srv.URL + "/huge.txt"}
	st, err := x.IndexPaths(ctx, inputs, IndexOptions{
		HTTPClient: srv.Client(),
		MaxBytes:   1024,
		Warn:       func(p string, err error) { warned[strings.TrimPrefix(p, srv.URL)] = err.Error() },
	})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Added: 2, Skipped: 3}, st)
	require.Contains(t, warned["/missing"], "404")
	require.Contains(t, warned["/image.png"], "image/png")
	require.Contains(t, warned["/huge.txt"], "limit")

	d, err := x.Document(ctx, DocID(srv.URL+"/guide.html"))
	require.NoError(t, err)
	require.Equal(t, "Tuning the Garbage Collector", d.Title)
	require.NotContains(t, d.Body, "scriptsecret")
	d, err = x.Document(ctx, DocID(srv.URL+"/raw"))
	require.NoError(t, err)
	require.Equal(t, Document{ID: d.ID, URL: srv.URL + "/raw", Title: "Served Markdown", Body: "# Served Markdown\n\nInterfaces are satisfied implicitly.", Format: FormatMarkdown}, d)
}

func TestIndexStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	x := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := x.IndexPaths(ctx, []string{dir}, IndexOptions{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestOpenCorruptFileNamesPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "corpus.db")
	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("this is not a sqlite database ", 200)), 0o644))
	_, err := Open(p)
	require.Error(t, err)
	require.Contains(t, err.Error(), p)
}

func TestTwoHandlesShareOneFile(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "corpus.db")
	a, err := Open(p)
	require.NoError(t, err)
	defer a.Close()
	b, err := Open(p)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, a.Add(ctx, Document{URL: "u:shared", Title: "Shared", Body: "written by the worker"}))
	res, err := b.Search(ctx, "worker", 5)
	require.NoError(t, err)
	require.Len(t, res, 1)
	var mode string
	require.NoError(t, b.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode))
	require.Equal(t, "wal", mode)
}

// goroot finds the Go installation whose docs and sources the real-data tests index.
func goroot(t testing.TB) string {
	t.Helper()
	if r := os.Getenv("GOROOT"); r != "" {
		return r
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func TestRealGoDocs(t *testing.T) {
	ctx := context.Background()
	doc := filepath.Join(goroot(t), "doc")
	x := openTemp(t)
	st, err := x.IndexPaths(ctx, []string{doc}, IndexOptions{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.Added, 5)

	// Newer distributions may ship the GC guide; this one's only GC text is in the asm doc.
	gcDoc := "gc-guide.html"
	if _, err := os.Stat(filepath.Join(doc, gcDoc)); err != nil {
		gcDoc = "asm.html"
	}
	for _, tc := range []struct{ query, file, title string }{
		{"garbage collector", gcDoc, ""},
		{"memory model happens before", "go_mem.html", "The Go Memory Model"},
		{"backwards compatibility GODEBUG settings", "godebug.md", "Go, Backwards Compatibility, and GODEBUG"},
		{"method sets of interface types", "go_spec.html", "The Go Programming Language Specification"},
	} {
		res, err := x.Search(ctx, tc.query, 3)
		require.NoError(t, err, tc.query)
		require.NotEmpty(t, res, tc.query)
		page, _, _ := strings.Cut(res[0].URL, "#")
		require.Equal(t, fileURL(filepath.Join(doc, tc.file)), page, tc.query)
		if tc.title != "" {
			require.True(t, strings.HasPrefix(res[0].Title, tc.title), "%s: title %q", tc.query, res[0].Title)
		}
	}
}

func TestEachVisitsEveryDocument(t *testing.T) {
	ctx := context.Background()
	x, err := Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, u := range []string{"https://b.example/x", "https://a.example/y"} {
		if err := x.Add(ctx, Document{URL: u, Title: "t", Body: "body text " + u, Format: FormatText}); err != nil {
			t.Fatal(err)
		}
	}
	var urls []string
	if err := x.Each(ctx, func(d Document) error { urls = append(urls, d.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(urls) != 2 || urls[0] != "https://a.example/y" {
		t.Fatalf("Each visited %v", urls)
	}
}

func TestSearchCollapsesRepeatedPassages(t *testing.T) {
	ctx := context.Background()
	x := openTemp(t)
	body := "The vacuum command rebuilds the database file, repacking it into a minimal amount of disk space."
	require.NoError(t, x.Add(ctx, Document{URL: "u:a", Title: "Vacuum", Body: body}))
	require.NoError(t, x.Add(ctx, Document{URL: "u:b", Title: "Vacuum copy", Body: body}))
	require.NoError(t, x.Add(ctx, Document{URL: "u:c", Title: "Other", Body: "The vacuum of space is cold."}))
	rs, err := x.Search(ctx, "vacuum disk space", 10)
	require.NoError(t, err)
	require.Len(t, rs, 2, "the repeated passage is one result")
}
