package llm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp"}

// pathSpan is a candidate path in a text: text[start:end] is replaced, path is the path itself
// (the span includes the quotes around a quoted path).
type pathSpan struct {
	start, end int
	path       string
}

// candidateSpans finds quoted strings and whitespace-separated words (stripped of surrounding
// punctuation) that look like local image paths; URLs are skipped.
func candidateSpans(text string) []pathSpan {
	var spans []pathSpan
	taken := make([]bool, len(text))
	for i := 0; i < len(text); i++ {
		q := text[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		j := strings.IndexByte(text[i+1:], q)
		if j < 0 {
			break
		}
		inner := text[i+1 : i+1+j]
		if looksLikeImage(inner) && !strings.ContainsAny(inner, "\n") {
			spans = append(spans, pathSpan{i, i + j + 2, inner})
			for k := i; k < i+j+2; k++ {
				taken[k] = true
			}
			i += j + 1
		}
	}
	for start := 0; start < len(text); {
		for start < len(text) && isSpace(text[start]) {
			start++
		}
		end := start
		for end < len(text) && !isSpace(text[end]) {
			end++
		}
		if start < end && !slices.Contains(taken[start:end], true) {
			s, e := start, end
			for s < e && strings.IndexByte("\"'`([{<", text[s]) >= 0 {
				s++
			}
			for e > s && strings.IndexByte("\"'`)]}>.,;:!?", text[e-1]) >= 0 {
				e--
			}
			if looksLikeImage(text[s:e]) {
				spans = append(spans, pathSpan{s, e, text[s:e]})
			}
		}
		start = end
	}
	slices.SortFunc(spans, func(a, b pathSpan) int { return a.start - b.start })
	return spans
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func looksLikeImage(p string) bool {
	if p == "" || strings.Contains(p, "://") || strings.HasPrefix(strings.ToLower(p), "file:") {
		return false
	}
	return slices.Contains(imageExts, strings.ToLower(filepath.Ext(p)))
}

// FindImagePaths returns, in order of appearance and without repeats, the local image files
// named in a task (quoted paths may contain spaces). URLs and missing files are ignored.
func FindImagePaths(task string) []string {
	var out []string
	for _, sp := range candidateSpans(task) {
		if slices.Contains(out, sp.path) {
			continue
		}
		if st, err := os.Stat(sp.path); err == nil && st.Mode().IsRegular() {
			out = append(out, sp.path)
		}
	}
	return out
}

// ReplaceImages replaces each described image path (and its quotes) with "[Image: description]".
func ReplaceImages(task string, descriptions map[string]string) string {
	spans := candidateSpans(task)
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		d, ok := descriptions[sp.path]
		if !ok {
			continue
		}
		b.WriteString(task[last:sp.start])
		b.WriteString("[Image: " + strings.Join(strings.Fields(d), " ") + "]")
		last = sp.end
	}
	b.WriteString(task[last:])
	return b.String()
}
