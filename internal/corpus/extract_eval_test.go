package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"codeberg.org/readeck/go-readability/v2"
	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// realSite is a documentation set with the selectors that mark its chrome and its body text,
// written from the pages' markup (not from the extractor's rules).
type realSite struct {
	name, glob      string
	chrome, body    string
	chromeItemsFrom string // elements inside chrome whose text is one navigation line
}

var realSites = []realSite{
	{"python", "/usr/share/doc/python3.11-doc/html/library/*.html", "div.related, div.sphinxsidebar, div.footer", "div.body p", "a, h3, h4, li"},
	{"sqlite", "/usr/share/doc/sqlite3/*.html", "div.nosearch", "p", "a, div.fancy-toc1, div.fancy-toc2, div.fancy-toc3"},
	{"go", filepath.Join(os.Getenv("GOROOT"), "doc", "*.html"), "nav", "p", "a"},
}

// extractors under comparison: the tag list the corpus had, its rules for chrome, and
// readability with and without those rules.
var extractors = []struct {
	name string
	fn   func(raw []byte) (string, error)
}{
	{"tag list", func(raw []byte) (string, error) { e, err := extractHTML(raw, allText); return e.body, err }},
	{"rules", func(raw []byte) (string, error) { e, err := extractHTML(raw, mainContent); return e.body, err }},
	{"readability", func(raw []byte) (string, error) { return viaReadability(raw, allText) }},
	{"readability+rules", func(raw []byte) (string, error) { return viaReadability(raw, mainContent) }},
}

func viaReadability(raw []byte, mode extractMode) (string, error) {
	root, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	a, err := readability.FromDocument(root, nil)
	if err != nil || a.Node == nil {
		return "", err
	}
	w := htmlText{mode: mode}
	w.walk(a.Node, false)
	return w.result("").body, nil
}

// quality measures an extractor on up to 50 pages of a site: the share of navigation lines
// kept, and of body sentences kept.
func quality(t *testing.T, s realSite, pages []string, extract func([]byte) (string, error)) (navKept, bodyKept float64, navLines int) {
	nav, navIn, sent, sentIn := 0, 0, 0, 0
	for _, p := range pages {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		out, err := extract(raw)
		if err != nil {
			continue
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			lines[collapse(strings.TrimPrefix(strings.TrimSpace(l), "- "))] = true
		}
		flat := collapse(out)
		doc.Find(s.chrome).Find(s.chromeItemsFrom).Each(func(_ int, q *goquery.Selection) {
			if l := collapse(q.Text()); len(l) >= 2 && len(l) < 80 {
				nav++
				if lines[l] {
					navIn++
				}
			}
		})
		doc.Find(s.body).Each(func(_ int, q *goquery.Selection) {
			if q.Closest(s.chrome).Length() > 0 {
				return
			}
			for _, sn := range strings.SplitAfter(collapse(q.Text()), ". ") {
				if sn = strings.TrimSpace(sn); len(sn) >= 40 {
					sent++
					if strings.Contains(flat, sn) {
						sentIn++
					}
				}
			}
		})
	}
	return float64(navIn) / float64(max(nav, 1)), float64(sentIn) / float64(max(sent, 1)), nav
}

func sitePages(t *testing.T, s realSite) []string {
	pages, _ := filepath.Glob(s.glob)
	slices.Sort(pages)
	if len(pages) > 50 {
		pages = pages[:50]
	}
	return pages
}

// TestRealPagesLoseChromeKeepText checks the corpus extractor on real documentation pages.
func TestRealPagesLoseChromeKeepText(t *testing.T) {
	if os.Getenv("GOROOT") == "" {
		t.Setenv("GOROOT", goroot(t))
		realSites[2].glob = filepath.Join(goroot(t), "doc", "*.html")
	}
	found := 0
	for _, s := range realSites {
		pages := sitePages(t, s)
		if len(pages) == 0 {
			continue
		}
		found++
		nav, body, _ := quality(t, s, pages, extractors[1].fn)
		if nav > 0.05 || body < 0.95 {
			t.Errorf("%s (%d pages): navigation kept %.2f (want ≤ 0.05), body sentences kept %.2f (want ≥ 0.95)", s.name, len(pages), nav, body)
		}
	}
	if found < 2 {
		if os.Getenv("SATED_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("Debian's python3.11-doc and sqlite3-doc are not installed")
		}
		t.Skip("apt-get install python3.11-doc sqlite3-doc to check real pages")
	}
}

// TestExtractionQuality prints the comparison recorded beside chromeName.
// SATED_EXTRACT_EVAL=1 go test ./internal/corpus/ -run ExtractionQuality -v
func TestExtractionQuality(t *testing.T) {
	if os.Getenv("SATED_EXTRACT_EVAL") != "1" {
		t.Skip("SATED_EXTRACT_EVAL=1 runs the extractor comparison")
	}
	realSites[2].glob = filepath.Join(goroot(t), "doc", "*.html")
	for _, s := range realSites {
		pages := sitePages(t, s)
		for _, e := range extractors {
			nav, body, n := quality(t, s, pages, e.fn)
			fmt.Printf("%-7s %2d pages %4d nav lines  %-18s nav kept %.2f  body kept %.2f\n", s.name, len(pages), n, e.name, nav, body)
		}
	}
}
