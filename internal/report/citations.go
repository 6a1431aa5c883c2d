package report

import (
	"strconv"
	"strings"

	"github.com/sated-dev/sated/internal/text"
)

// dashes folds the range dashes models write into "-".
var dashes = strings.NewReplacer("–", "-", "—", "-")

// maxCitationSpan bounds a range like [2-4]; a wider one is not a citation.
const maxCitationSpan = 100

// SanitizeCitations drops citation numbers for which valid is false: "[3]", "[1, 7]",
// "[1][9]", "[2-4]". Links, reference definitions, checkboxes, escaped brackets, inline code and
// fenced code are left alone. removed counts the dropped numbers.
func SanitizeCitations(md string, valid func(n int) bool) (clean string, removed int) {
	var b strings.Builder
	lines, fenced := text.FencedLines(md)
	for i, line := range lines {
		if fenced[i] {
			b.WriteString(line)
			continue
		}
		out, n := sanitizeLine(line, valid)
		b.WriteString(out)
		removed += n
	}
	return b.String(), removed
}

func sanitizeLine(line string, valid func(int) bool) (string, int) {
	out := make([]byte, 0, len(line))
	removed := 0
	for i := 0; i < len(line); {
		switch c := line[i]; c {
		case '\\':
			end := min(i+2, len(line))
			out = append(out, line[i:end]...)
			i = end
			continue
		case '`':
			end := codeSpanEnd(line, i)
			out = append(out, line[i:end]...)
			i = end
			continue
		case '[':
			k := i + 1
			for k < len(line) && line[k] != ']' && line[k] != '[' {
				k++
			}
			if k >= len(line) || line[k] != ']' {
				break
			}
			content, next := line[i+1:k], byte(0)
			if k+1 < len(line) {
				next = line[k+1]
			}
			if next == '(' { // inline link or image: keep text and destination whole
				end := parenEnd(line, k+1)
				out = append(out, line[i:end]...)
				i = end
				continue
			}
			if next == ':' && strings.TrimSpace(line[:i]) == "" { // reference definition
				return string(append(out, line[i:]...)), removed
			}
			nums, ok := parseCitation(content)
			if !ok {
				if next == '[' { // reference link [text][ref]: keep both labels
					end := k + 1
					if j := strings.IndexByte(line[k+1:], ']'); j >= 0 {
						end = k + 2 + j
					}
					out = append(out, line[i:end]...)
					i = end
					continue
				}
				break
			}
			var keep []int
			for _, n := range nums {
				if valid(n) {
					keep = append(keep, n)
				}
			}
			removed += len(nums) - len(keep)
			switch {
			case len(keep) == len(nums):
				out = append(out, line[i:k+1]...)
			case len(keep) > 0:
				out = append(out, '[')
				out = append(out, formatCitation(keep)...)
				out = append(out, ']')
			default:
				out = tidyRemoval(out, line[k+1:])
				if next == ' ' && (len(out) == 0 || out[len(out)-1] == ' ') {
					k++ // swallow the space after a dropped marker
				}
			}
			i = k + 1
			continue
		}
		out = append(out, line[i])
		i++
	}
	return string(out), removed
}

// tidyRemoval trims the space left before a dropped marker when punctuation, a space or the
// end of the line follows ("fact [9]." becomes "fact.").
func tidyRemoval(out []byte, rest string) []byte {
	if rest == "" || strings.ContainsRune(" \t\r\n.,;:!?)", rune(rest[0])) {
		for len(out) > 0 && (out[len(out)-1] == ' ' || out[len(out)-1] == '\t') {
			out = out[:len(out)-1]
		}
	}
	return out
}

// codeSpanEnd returns the end of the inline code span starting at i, or the end of the
// backtick run when it is never closed.
func codeSpanEnd(line string, i int) int {
	n := 0
	for i+n < len(line) && line[i+n] == '`' {
		n++
	}
	run := line[i : i+n]
	for j := i + n; j < len(line); {
		k := strings.Index(line[j:], run)
		if k < 0 {
			break
		}
		k += j
		m := k + n
		if m < len(line) && line[m] == '`' { // longer run: not our closer
			for m < len(line) && line[m] == '`' {
				m++
			}
			j = m
			continue
		}
		return m
	}
	return i + n
}

// parenEnd returns the index after the parenthesis group opening at open.
func parenEnd(line string, open int) int {
	depth := 0
	for j := open; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(line)
}

// parseCitation reads "3", "1, 7", "2-4" or "2–4; 9" as citation numbers.
func parseCitation(s string) ([]int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	var nums []int
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(dashes.Replace(part), "-")
		a, ok := citationNumber(lo)
		if !ok {
			return nil, false
		}
		if !isRange {
			nums = append(nums, a)
			continue
		}
		z, ok := citationNumber(hi)
		if !ok {
			return nil, false
		}
		if a > z {
			a, z = z, a
		}
		if z-a > maxCitationSpan {
			return nil, false
		}
		for n := a; n <= z; n++ {
			nums = append(nums, n)
		}
	}
	return nums, len(nums) > 0
}

func citationNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 6 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// formatCitation writes numbers as "1, 3, 5-7", without duplicates, in first-seen order.
func formatCitation(nums []int) string {
	seen := map[int]bool{}
	var uniq []int
	for _, n := range nums {
		if !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	var parts []string
	for i := 0; i < len(uniq); {
		j := i
		for j+1 < len(uniq) && uniq[j+1] == uniq[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, strconv.Itoa(uniq[i])+"-"+strconv.Itoa(uniq[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, strconv.Itoa(uniq[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
