package chunk

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

var (
	h2RE  = regexp.MustCompile(`(?is)<h2[^>]*>(.*?)</h2>`)
	h3RE  = regexp.MustCompile(`(?is)<h3[^>]*>(.*?)</h3>`)
	tagRE = regexp.MustCompile(`(?s)<[^>]+>`)
)

// goSpec returns the Go specification as Markdown-ish text (## and ### headings) and as
// plain text with the headings removed.
func goSpec(b *testing.B) (withHeadings, plain string) {
	raw, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "doc", "go_spec.html"))
	if err != nil {
		b.Skipf("go_spec.html not found: %v", err)
	}
	s := h2RE.ReplaceAllString(string(raw), "\n\n## $1\n\n")
	s = h3RE.ReplaceAllString(s, "\n\n### $1\n\n")
	s = html.UnescapeString(tagRE.ReplaceAllString(s, ""))
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return s, strings.Join(lines, "\n")
}

// BenchmarkExtractGoSpec: go test -run '^$' -bench ExtractGoSpec ./internal/chunk/
func BenchmarkExtractGoSpec(b *testing.B) {
	if testing.Short() {
		b.Skip("large document")
	}
	withHeadings, plain := goSpec(b)
	const task = "how do channels, select statements and goroutines synchronise"
	for _, c := range []struct {
		name, page, mode string
	}{{"sections", withHeadings, ModeSections}, {"chunks", plain, ModeChunks}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.page)))
			for i := 0; i < b.N; i++ {
				res, err := Extract(context.Background(), c.page, task, Options{})
				if err != nil || res.Mode != c.mode || len(res.Text) > DefaultBudget {
					b.Fatalf("mode %s, %d bytes, err %v", res.Mode, len(res.Text), err)
				}
			}
		})
	}
}
