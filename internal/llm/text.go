package llm

import (
	"encoding/json"
	"slices"
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

// FitPrompt returns the evidence that fits, with fixed text (system prompt, instructions,
// question: never cut), into numCtx tokens minus reserve for the answer. Evidence is trimmed
// per item, not dropped: when it does not all fit whole, every kept item gets an equal share
// of the room (an item shorter than its share stays whole and leaves the rest to the others),
// and items are dropped from the end only when the room cannot hold each at minPieceTokens.
// numCtx <= 0 means no limit. The input slice is not modified.
func FitPrompt(fixed string, evidence []string, numCtx, reserve int) []string {
	if numCtx <= 0 {
		return append([]string(nil), evidence...)
	}
	return fitRoom(evidence, numCtx-reserve-EstimateTokens(fixed))
}

// evidenceSep is the tokens a separator and numbering cost per evidence item.
const evidenceSep = 2

// fitRoom fits evidence into room tokens as FitPrompt describes.
func fitRoom(evidence []string, room int) []string {
	cost := make([]int, len(evidence))
	total := 0
	for i, ev := range evidence {
		cost[i] = EstimateTokens(ev)
		total += cost[i] + evidenceSep
	}
	if total <= room {
		return append([]string(nil), evidence...)
	}
	k := min(len(evidence), max(room, 0)/(minPieceTokens+evidenceSep))
	if k == 0 {
		return []string{}
	}
	share := waterLevel(cost[:k], room-k*evidenceSep)
	out := make([]string, k)
	for i, ev := range evidence[:k] {
		out[i] = ev
		if cost[i] > share {
			out[i] = clip(ev, share*7/2)
		}
	}
	return out
}

// waterLevel is the largest per-item size s such that sum(min(cost, s)) fits room.
func waterLevel(cost []int, room int) int {
	sorted := slices.Clone(cost)
	slices.Sort(sorted)
	left := room
	for i, c := range sorted {
		if c*(len(sorted)-i) > left {
			return left / (len(sorted) - i)
		}
		left -= c
	}
	return sorted[len(sorted)-1]
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
