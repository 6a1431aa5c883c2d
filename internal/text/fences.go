package text

import "strings"

// FencedLines splits md into its lines (strings.SplitAfter at "\n") and reports per line whether
// it belongs to a fenced code block, its fences included: a run of three or more ` or ~,
// indented at most three spaces, opens one, and a run of the same character at least as long,
// with nothing after it, closes it. Text inside is program text or a quoted sample, not prose:
// "[1]" there is an index, not a citation.
func FencedLines(md string) (lines []string, fenced []bool) {
	lines = strings.SplitAfter(md, "\n")
	fenced = make([]bool, len(lines))
	fence := ""
	for i, line := range lines {
		if marker := fenceMarker(line); marker != "" && (fence == "" || strings.HasPrefix(marker, fence)) {
			if fence == "" {
				fence = marker
			} else if strings.TrimSpace(strings.TrimLeft(line, " ")[len(marker):]) == "" {
				fence = ""
			}
			fenced[i] = true
			continue
		}
		fenced[i] = fence != ""
	}
	return lines, fenced
}

// fenceMarker returns the ``` or ~~~ run opening or closing a code fence on line, if any.
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}
