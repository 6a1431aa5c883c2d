package memory

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// The labelled set the injection scan is measured on: attacks written by hand, one family
// each, and clean sentences from real documentation chosen for the words an injection uses.
const (
	attacksFile = "testdata/injection/attacks.jsonl"
	cleanFile   = "testdata/injection/clean.txt"
)

type labelledAttack struct {
	Family string `json:"family"`
	Text   string `json:"text"`
}

func loadAttacks(t *testing.T) []labelledAttack {
	t.Helper()
	b, err := os.ReadFile(attacksFile)
	require.NoError(t, err)
	var out []labelledAttack
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var a labelledAttack
		require.NoError(t, json.Unmarshal([]byte(line), &a), "attacks line %d", i+1)
		require.NotEmpty(t, a.Family, "attacks line %d", i+1)
		out = append(out, a)
	}
	return out
}

func loadClean(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(cleanFile)
	require.NoError(t, err)
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// TestInjectionLabelledSet is the acceptance figure: at least 95% of the attacks
// caught, overall and no family below 80%, and at most 1% of clean sentences flagged.
func TestInjectionLabelledSet(t *testing.T) {
	attacks, clean := loadAttacks(t), loadClean(t)
	require.GreaterOrEqual(t, len(attacks), 60)
	require.GreaterOrEqual(t, len(clean), 500)

	type tally struct{ caught, total int }
	fam := map[string]*tally{}
	caught := 0
	for _, a := range attacks {
		if fam[a.Family] == nil {
			fam[a.Family] = &tally{}
		}
		fam[a.Family].total++
		if len(ScanInjection(a.Text)) > 0 {
			fam[a.Family].caught++
			caught++
		} else {
			t.Logf("missed (%s): %q", a.Family, a.Text)
		}
	}
	fp := 0
	for _, s := range clean {
		if f := ScanInjection(s); len(f) > 0 {
			fp++
			t.Logf("false positive %v: %q", f, s)
		}
	}
	names := make([]string, 0, len(fam))
	for n := range fam {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-20s %2d/%2d caught", n, fam[n].caught, fam[n].total)
	}
	rate := float64(caught) / float64(len(attacks))
	fpRate := float64(fp) / float64(len(clean))
	t.Logf("caught %d/%d (%.1f%%), false positives %d/%d (%.2f%%)", caught, len(attacks), 100*rate, fp, len(clean), 100*fpRate)

	require.GreaterOrEqual(t, rate, 0.95, "attacks caught")
	require.LessOrEqual(t, fpRate, 0.01, "false positives")
	for _, n := range names {
		require.GreaterOrEqual(t, float64(fam[n].caught)/float64(fam[n].total), 0.8, "family %s", n)
	}
}

var regenClean = flag.Bool("regen-clean", false, "rebuild testdata/injection/clean.txt from the documentation installed on this machine")

// TestRegenerateCleanSet rebuilds clean.txt deterministically from Debian's sqlite3-doc and
// python3.11-doc and the Go distribution's doc directory:
//
//	go test ./internal/memory/ -run TestRegenerateCleanSet -regen-clean
func TestRegenerateCleanSet(t *testing.T) {
	if !*regenClean {
		t.Skip("run with -regen-clean to rebuild " + cleanFile)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	sources := []struct {
		dir  string
		ext  string
		take int
	}{
		{"/usr/share/doc/python3.11/html/_sources", ".rst.txt", 300},
		{"/usr/share/doc/sqlite3", ".html", 250},
		{filepath.Join(strings.TrimSpace(string(goroot)), "doc"), "", 120},
	}
	var out []string
	seen := map[string]bool{}
	for _, src := range sources {
		var cands []string
		err := filepath.WalkDir(src.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			var paras []string
			switch {
			case strings.HasSuffix(p, ".rst.txt") && (src.ext == "" || src.ext == ".rst.txt"):
				paras = rstParagraphs(p)
			case strings.HasSuffix(p, ".html") && (src.ext == "" || src.ext == ".html"):
				paras = htmlParagraphs(p)
			case strings.HasSuffix(p, ".md") && src.ext == "":
				paras = rstParagraphs(p)
			}
			for _, para := range paras {
				for _, s := range sentences(para) {
					if len(s) >= 40 && len(s) <= 300 && triggerRE.MatchString(s) && !seen[s] {
						seen[s] = true
						cands = append(cands, s)
					}
				}
			}
			return nil
		})
		require.NoError(t, err)
		out = append(out, pickByHash(cands, src.take)...)
	}
	out = append(out, pickByHash(docComments(t), 30)...)
	require.GreaterOrEqual(t, len(out), 500)
	require.NoError(t, os.WriteFile(cleanFile, []byte(strings.Join(out, "\n")+"\n"), 0o644))
	t.Logf("wrote %d sentences to %s", len(out), cleanFile)
}

// triggerRE keeps the sentences an injection scan is most likely to misread.
var triggerRE = regexp.MustCompile(`(?i)\b(ignor\w*|overrid\w*|system|instructions?|previous\w*|prior|assistant|prompt\w*|user:|disregard\w*|forget\w*|bypass\w*|hidden|reveal\w*|you are|from now on|supersede\w*|above|earlier)\b`)

// pickByHash takes the n candidates with the smallest content hash: a stable, spread-out
// sample that does not change when unrelated files are added.
func pickByHash(cands []string, n int) []string {
	key := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	sort.Slice(cands, func(i, j int) bool { return key(cands[i]) < key(cands[j]) })
	cands = cands[:min(n, len(cands))]
	sort.Strings(cands)
	return cands
}

var rstRoleRE = regexp.MustCompile(":[a-z:]+:`~?([^`<]*?)(?:\\s*<[^>]*>)?`|``([^`]*)``|\\*\\*([^*]*)\\*\\*")

// rstParagraphs reads a reStructuredText or Markdown file as paragraphs of prose, dropping
// directives, literal blocks, tables and headings.
func rstParagraphs(path string) []string {
	if !strings.HasSuffix(path, ".rst.txt") && !strings.HasSuffix(path, ".md") {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	r := bufio.NewScanner(f)
	r.Buffer(make([]byte, 1<<16), 1<<20)
	for r.Scan() {
		line := r.Text()
		tr := strings.TrimSpace(line)
		switch {
		case tr == "":
			flush()
		case strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"), strings.HasPrefix(tr, ".."),
			strings.HasPrefix(tr, "|"), strings.HasPrefix(tr, "+-"), strings.HasPrefix(tr, "#"),
			strings.HasPrefix(tr, "```"), strings.Trim(tr, "=-~^*#") == "":
			flush()
		default:
			cur = append(cur, tr)
		}
	}
	flush()
	for i, p := range paras {
		paras[i] = rstRoleRE.ReplaceAllString(p, "$1$2$3")
	}
	return paras
}

// htmlParagraphs extracts the text of block elements, skipping scripts, styles and code.
func htmlParagraphs(path string) []string {
	if !strings.HasSuffix(path, ".html") {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		return nil
	}
	var paras []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "pre", "code", "table", "head":
				return
			case "p", "li", "dd", "blockquote":
				var b strings.Builder
				textOf(n, &b)
				paras = append(paras, strings.Join(strings.Fields(b.String()), " "))
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return paras
}

func textOf(n *html.Node, b *strings.Builder) {
	if n.Type == html.TextNode {
		b.WriteString(n.Data)
	}
	if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		textOf(c, b)
	}
}

// sentences splits a paragraph after '.', '!' or '?' followed by a space and a capital.
func sentences(para string) []string {
	para = strings.Join(strings.Fields(para), " ")
	var out []string
	start := 0
	for i := 0; i+2 < len(para); i++ {
		if strings.IndexByte(".!?", para[i]) >= 0 && para[i+1] == ' ' && para[i+2] >= 'A' && para[i+2] <= 'Z' {
			out = append(out, para[start:i+1])
			start = i + 2
		}
	}
	return append(out, para[start:])
}

var docCommentRE = regexp.MustCompile(`<!--[^\n]{1,200}?-->`)

// docComments are the distinct HTML comments in the documentation: real benign comments the
// scan must not quarantine.
func docComments(t *testing.T) []string {
	seen := map[string]bool{}
	var out []string
	for _, dir := range []string{"/usr/share/doc/sqlite3", "/usr/share/doc/python3.11/html"} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for _, c := range docCommentRE.FindAllString(string(b), -1) {
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
			return nil
		})
	}
	t.Logf("%d distinct HTML comments", len(out))
	return out
}

var docPools = flag.Bool("doc-pools", false, "scan every sentence of the installed documentation and module-cache Markdown (minutes)")

// TestInjectionDocPools is the wide false-positive check behind the committed clean set: every
// sentence of Debian's python3.11-doc and sqlite3-doc and of the Markdown in the Go module
// cache (prose only, code fences skipped), where installed:
//
//	go test ./internal/memory/ -run TestInjectionDocPools -doc-pools -v -timeout 30m
func TestInjectionDocPools(t *testing.T) {
	if !*docPools {
		t.Skip("run with -doc-pools")
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	pools := []struct {
		name, dir string
		paras     func(string) []string
	}{
		{"python3.11-doc", "/usr/share/doc/python3.11/html/_sources", rstParagraphs},
		{"sqlite3-doc", "/usr/share/doc/sqlite3", htmlParagraphs},
		{"module-cache markdown", strings.TrimSpace(string(modcache)), markdownParagraphs},
	}
	for _, pool := range pools {
		n, flagged := 0, 0
		_ = filepath.WalkDir(pool.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if strings.HasSuffix(p, "/cache/download") {
					return filepath.SkipDir
				}
				return nil
			}
			for _, para := range pool.paras(p) {
				for _, s := range sentences(para) {
					if len(s) < 20 || len(s) > 600 {
						continue
					}
					n++
					if f := ScanInjection(s); len(f) > 0 {
						flagged++
						t.Logf("flagged %v in %s: %q", f, p, s)
					}
				}
			}
			return nil
		})
		if n == 0 {
			t.Logf("%s: not installed", pool.name)
			continue
		}
		t.Logf("%s: %d of %d sentences flagged (%.3f%%)", pool.name, flagged, n, 100*float64(flagged)/float64(n))
		require.LessOrEqual(t, float64(flagged)/float64(n), 0.01, pool.name)
	}
}

// markdownParagraphs reads the prose of a Markdown file: no code fences, indented code,
// tables or headings.
func markdownParagraphs(path string) []string {
	if !strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".mdx") {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var paras, cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	fence := false
	for _, line := range strings.Split(string(b), "\n") {
		tr := strings.TrimSpace(line)
		if strings.HasPrefix(tr, "```") {
			fence = !fence
			flush()
			continue
		}
		if fence || tr == "" || strings.HasPrefix(line, "    ") || strings.HasPrefix(tr, "|") || strings.HasPrefix(tr, "#") {
			flush()
			continue
		}
		cur = append(cur, tr)
	}
	flush()
	return paras
}

// BenchmarkScanInjection scans one documentation sentence per op, as memory does for each fact
// it stores and each hit it recalls.
func BenchmarkScanInjection(b *testing.B) {
	raw, err := os.ReadFile(cleanFile)
	require.NoError(b, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ScanInjection(lines[i%len(lines)])
	}
}
