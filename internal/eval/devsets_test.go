package eval

// The dev question sets (testdata/sqlite-questions.jsonl, testdata/python-questions.jsonl) are
// written from Debian's HTML documentation packages; this test checks every gold fact against
// the pages they came from. Install the corpora with
//
//	apt-get install -y sqlite3-doc python3.11-doc
//
// which put the HTML under SQLiteDocDir and PythonDocDir. Without them the test skips, unless
// SATED_REQUIRE_INTEGRATION=1, when it fails. Run it alone with
//
//	go test ./internal/eval/ -run TestDevSets -v

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Debian paths of the dev-set corpora (sqlite3-doc and python3.11-doc), of the held-out
// git set's (git-doc) and of the PostgreSQL set's (postgresql-doc-15).
const (
	SQLiteDocDir = "/usr/share/doc/sqlite3"
	PythonDocDir = "/usr/share/doc/python3.11/html"
	GitDocDir    = "/usr/share/doc/git-doc"
	PGDocDir     = "/usr/share/doc/postgresql-doc-15/html"
	ApacheDocDir = "/usr/share/doc/apache2-doc/manual/en"
)

// Limits a question set must keep.
const (
	minComplexPages = 4    // a c- question's facts come from at least this many pages
	maxSimplePages  = 2    // an s- question's facts can all be found on this many pages
	maxPageShare    = 0.40 // no pattern matches more than this share of the corpus pages
)

type page struct {
	rel   string // path under the corpus dir
	text  string // visible text, whitespace collapsed
	lower string // text lower-cased, for requiredLiteral
}

// loadCorpus reads every .html file under dir as visible text.
func loadCorpus(dir string) ([]page, error) {
	var pages []page
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".html") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		text := visibleText(b)
		pages = append(pages, page{rel: rel, text: text, lower: lowerFold(text)})
		return nil
	})
	return pages, err
}

// lowerFold lower-cases s so that an ASCII literal matches it case-insensitively exactly when
// it is a substring: ToLower maps the Kelvin sign to k, and the long s is mapped to s here.
func lowerFold(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "\u017f", "s")
}

// visibleText is the text a browser shows: tags, scripts, styles and the head dropped (the
// title kept), whitespace collapsed to single spaces.
func visibleText(b []byte) string {
	var sb strings.Builder
	z := html.NewTokenizer(bytes.NewReader(b))
	skip := 0 // depth inside elements whose text is not shown
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(sb.String()), " ")
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "noscript", "template":
				skip++
			case "br", "p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "dt", "dd", "title":
				sb.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "noscript", "template":
				if skip > 0 {
					skip--
				}
			case "p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "dt", "dd", "title":
				sb.WriteByte(' ')
			}
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		}
	}
}

// devSet is a question set and the corpus it was written from.
type devSet struct {
	name, file, dir string
}

var devSets = []devSet{
	{"sqlite", "testdata/sqlite-questions.jsonl", SQLiteDocDir},
	{"python", "testdata/python-questions.jsonl", PythonDocDir},
	{"git", "testdata/git-questions.jsonl", GitDocDir},
	{"pg", "testdata/pg-questions.jsonl", PGDocDir},
	{"apache", "testdata/apache-questions.jsonl", ApacheDocDir},
	{"pgdocs", "testdata/pgdocs-questions.jsonl", PGDocDir},
	{"pgblind", "testdata/pgblind-questions.jsonl", PGDocDir},
	{"pgblind2", "testdata/pgblind2-questions.jsonl", PGDocDir},
}

// factPages lists, for each fact of q, the pages any of its patterns matches, and for each
// pattern the number of pages it matches.
func factPages(pages []page, q Question) (perFact [][]int, perPattern [][]int) {
	for _, f := range q.Gold {
		hit := map[int]bool{}
		var counts []int
		for _, p := range f.Patterns {
			re := regexp.MustCompile("(?i)" + p)
			lit := requiredLiteral(p)
			n := 0
			for i, pg := range pages {
				if lit != "" && !strings.Contains(pg.lower, lit) {
					continue
				}
				if re.MatchString(pg.text) {
					hit[i] = true
					n++
				}
			}
			counts = append(counts, n)
		}
		var idx []int
		for i := range hit {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		perFact = append(perFact, idx)
		perPattern = append(perPattern, counts)
	}
	return perFact, perPattern
}

// requiredLiteral is the longest ASCII literal, lower-cased, that every match of pattern p
// contains: a cheap prefilter so each regexp runs only on pages that could match. "" when
// there is none.
func requiredLiteral(p string) string {
	re, err := syntax.Parse(p, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return ""
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	best := ""
	for _, s := range subs {
		if s.Op != syntax.OpLiteral {
			continue
		}
		lit := strings.ToLower(string(s.Rune))
		ascii := true
		for _, r := range lit {
			if r >= 0x80 {
				ascii = false
			}
		}
		if ascii && len(lit) > len(best) {
			best = lit
		}
	}
	return best
}

// minPages is the least number of pages that together hold every fact: the number of pages
// a reader needs to answer the question in full. perFact lists each fact's pages; -1 when a
// fact is on no page.
func minPages(perFact [][]int) int {
	full := 1<<len(perFact) - 1
	masks := map[int]int{} // page -> facts it holds
	for f, idx := range perFact {
		if len(idx) == 0 {
			return -1
		}
		for _, i := range idx {
			masks[i] |= 1 << f
		}
	}
	distinct := map[int]bool{}
	for _, m := range masks {
		distinct[m] = true
	}
	// best[s] = fewest pages covering fact set s
	best := make([]int, full+1)
	for s := 1; s <= full; s++ {
		best[s] = len(perFact) + 1
	}
	for s := 0; s < full; s++ {
		if best[s] > len(perFact) {
			continue
		}
		for m := range distinct {
			if t := s | m; best[s]+1 < best[t] {
				best[t] = best[s] + 1
			}
		}
	}
	return best[full]
}

// TestDevSetsAreTrue checks each dev question set against its corpus: every fact is on some
// page, every pattern matches some page but at most maxPageShare of them, a c- (complex)
// question needs at least minComplexPages pages to answer in full and an s- (simple) one at
// most maxSimplePages, and the question does not give its own answers away.
func TestDevSetsAreTrue(t *testing.T) {
	for _, set := range devSets {
		t.Run(set.name, func(t *testing.T) {
			qs := readQuestions(t, set.file)
			if _, err := os.Stat(set.dir); err != nil {
				if os.Getenv("SATED_REQUIRE_INTEGRATION") == "1" {
					t.Fatalf("corpus %s: %v", set.dir, err)
				}
				t.Skipf("corpus %s not installed (apt-get install sqlite3-doc python3.11-doc git-doc postgresql-doc-15): %v", set.dir, err)
			}
			pages, err := loadCorpus(set.dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(pages) < 100 {
				t.Fatalf("%s: only %d pages", set.dir, len(pages))
			}
			t.Logf("%s: %d pages", set.dir, len(pages))
			limit := int(maxPageShare * float64(len(pages)))
			for _, q := range qs {
				perFact, perPattern := factPages(pages, q)
				for f, fact := range q.Gold {
					if len(perFact[f]) == 0 {
						t.Errorf("%s: fact %q is on no page", q.ID, fact.Fact)
					}
					for p, n := range perPattern[f] {
						switch {
						case n == 0:
							t.Errorf("%s: fact %q: pattern %q matches no page", q.ID, fact.Fact, fact.Patterns[p])
						case n > limit:
							t.Errorf("%s: fact %q: pattern %q matches %d of %d pages (too generic)", q.ID, fact.Fact, fact.Patterns[p], n, len(pages))
						}
					}
					if testing.Verbose() {
						var names []string
						for i, idx := range perFact[f] {
							if i == 4 {
								names = append(names, "...")
								break
							}
							names = append(names, pages[idx].rel)
						}
						t.Logf("  %s fact %d: %d pages %v", q.ID, f, len(perFact[f]), names)
					}
				}
				found, total := corpusRecall(perFact)
				need := minPages(perFact)
				t.Logf("%s: corpus holds %d/%d facts; %d pages answer it in full", q.ID, found, total, need)
				switch {
				case found != total:
					// reported per fact above
				case strings.HasPrefix(q.ID, "c-") && need < minComplexPages:
					t.Errorf("%s: complex, but %d pages hold every fact (want >= %d)", q.ID, need, minComplexPages)
				case strings.HasPrefix(q.ID, "s-") && need > maxSimplePages:
					t.Errorf("%s: simple, but needs %d pages (want <= %d)", q.ID, need, maxSimplePages)
				}
				if rec, total, _ := FactRecall(q.Question, q.Gold); rec*2 > total {
					t.Errorf("%s: the question itself recalls %d/%d facts", q.ID, rec, total)
				}
			}
		})
	}
}

// corpusRecall counts the facts found on at least one page of the corpus.
func corpusRecall(perFact [][]int) (found, total int) {
	for _, idx := range perFact {
		if len(idx) > 0 {
			found++
		}
	}
	return found, len(perFact)
}

func readQuestions(t *testing.T, file string) []Question {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := ParseQuestions(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return qs
}

func TestMinPages(t *testing.T) {
	cases := []struct {
		perFact [][]int
		want    int
	}{
		{[][]int{{0}, {0}, {0}}, 1},
		{[][]int{{0, 1}, {1, 2}, {3}}, 2},
		{[][]int{{0}, {1}, {2}, {3}}, 4},
		{[][]int{{0, 9}, {1, 9}, {2}, {3, 9}}, 2},
		{[][]int{{0}, {}}, -1},
	}
	for _, c := range cases {
		if got := minPages(c.perFact); got != c.want {
			t.Errorf("minPages(%v) = %d, want %d", c.perFact, got, c.want)
		}
	}
}

func TestRequiredLiteral(t *testing.T) {
	for p, want := range map[string]string{
		`readers\W+do\W+not\W+block`: "readers",
		`WAL\W+mode`:                 "mode",
		`(a|bc)`:                     "",
		`journal`:                    "journal",
		`caf\x{e9}\W+x`:              "x", // non-ASCII literals are not compared
	} {
		if got := requiredLiteral(p); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", p, got, want)
		}
	}
}
