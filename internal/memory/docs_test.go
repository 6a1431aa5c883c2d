package memory

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

var (
	tagRE      = regexp.MustCompile(`(?s)<(script|style|pre)[^>]*>.*?</(script|style|pre)>|<[^>]+>`)
	sentenceRE = regexp.MustCompile(`[^.!?]+[.!?]`)
)

// docSentences extracts prose sentences (40-300 bytes) from the Go distribution's own
// documents, in a fixed order, for the labelled recall set and the latency benchmarks.
func docSentences() []string {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "doc", "*.html"))
	md, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "doc", "*.md"))
	files = append(files, md...)
	sort.Strings(files)
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		text := html.UnescapeString(tagRE.ReplaceAllString(string(b), " "))
		for _, para := range strings.Split(text, "\n\n") {
			for _, s := range sentenceRE.FindAllString(strings.Join(strings.Fields(para), " "), -1) {
				s = strings.TrimSpace(s)
				if len(s) < 40 || len(s) > 300 || seen[s] || strings.Count(s, " ") < 6 {
					continue
				}
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
