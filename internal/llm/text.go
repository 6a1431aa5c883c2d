package llm

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ExtractJSON returns the first balanced, valid JSON object in a model answer, skipping code
// fences and prose around it.
func ExtractJSON(s string) (string, bool) {
	for start := strings.IndexByte(s, '{'); start >= 0; {
		if end := objectEnd(s[start:]); end > 0 && json.Valid([]byte(s[start:start+end])) {
			return s[start : start+end], true
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return "", false
}

// objectEnd returns the length of the brace-balanced object s starts with, or 0 if it never
// closes. Braces inside JSON strings do not count.
func objectEnd(s string) int {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '{':
			depth++
		case ch == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// FirstInt returns the first integer written in digits in a model answer ("Score: 7/10" is
// 7); a minus sign right before the digits makes it negative.
func FirstInt(s string) (int, bool) {
	i := strings.IndexAny(s, "0123456789")
	if i < 0 {
		return 0, false
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(s[i:j])
	if err != nil {
		return 0, false
	}
	if i > 0 && s[i-1] == '-' {
		n = -n
	}
	return n, true
}

// ClampScore maps an integer answer onto the 0..10 score scale.
func ClampScore(n int) float64 {
	return float64(max(0, min(10, n)))
}

// EstimateTokens is a conservative token estimate: 3.5 bytes per token, rounded up.
func EstimateTokens(s string) int {
	return (2*len(s) + 6) / 7
}

// minPieceTokens is the smallest shortened evidence item worth keeping.
const minPieceTokens = 32

// FitPrompt returns the leading evidence items that fit, with fixed text (system prompt,
// instructions, question: never cut), into numCtx tokens minus reserve for the answer; the
// first item that does not fit is shortened into the space left and the rest are dropped.
// numCtx <= 0 means no limit. The input slice is not modified.
func FitPrompt(fixed string, evidence []string, numCtx, reserve int) []string {
	if numCtx <= 0 {
		return append([]string(nil), evidence...)
	}
	left := numCtx - reserve - EstimateTokens(fixed)
	out := []string{}
	for _, ev := range evidence {
		cost := EstimateTokens(ev) + 2 // separator and numbering
		if cost <= left {
			out = append(out, ev)
			left -= cost
			continue
		}
		if left-2 >= minPieceTokens {
			out = append(out, clip(ev, (left-2)*7/2))
		}
		break
	}
	return out
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	n -= len(mark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(n, 0)] + mark
}
