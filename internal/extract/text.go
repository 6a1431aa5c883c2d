package extract

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escapeBase moves Markdown backslash escapes into the private-use area while syntax is
// stripped, so an escaped "\*" survives as a literal star.
const escapeBase = 0xE000

var (
	reEscape     = regexp.MustCompile("\\\\[!-/:-@\\[-`{-~]")
	reFence      = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	reTableRule  = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
	reRule       = regexp.MustCompile(`^\s{0,3}([-*_])(\s*[-*_]){2,}\s*$`)
	reRefDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*\S+`)
	reBlockStart = regexp.MustCompile(`^\s*(>\s*)*(#{1,6}\s+|[-*+]\s+(\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?`)
	reImage      = regexp.MustCompile(`!\[((?:\\.|[^\]\\])*)\]\((?:[^()]|\([^)]*\))*\)`)
	reLink       = regexp.MustCompile(`\[((?:\\.|[^\]\\])*)\]\((?:[^()]|\([^)]*\))*\)`)
	reRefLink    = regexp.MustCompile(`\[((?:\\.|[^\]\\])+)\]\[[^\]]*\]`)
	reAutolink   = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	reTag        = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9-]*(\s[^>]*)?/?>`)
	reUnderscore = regexp.MustCompile(`(^|[^\p{L}\p{N}])_+|_+([^\p{L}\p{N}]|$)`)
	reHeadingEnd = regexp.MustCompile(`\s+#+\s*$`)
)

// PlainText strips Markdown syntax (links keep their text, code keeps its content) so that
// words and sentences can be counted; blocks stay on their own lines.
func PlainText(markdown string) string {
	md := reEscape.ReplaceAllStringFunc(markdown, func(m string) string {
		return string(rune(escapeBase + int(m[1])))
	})
	var out []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if reFence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if !inFence {
			if reTableRule.MatchString(line) || reRule.MatchString(line) || reRefDef.MatchString(line) {
				continue
			}
			line = plainLine(line)
		}
		line = strings.Join(strings.Fields(line), " ")
		if line == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, line)
	}
	text := strings.TrimSpace(strings.Join(out, "\n"))
	return strings.Map(func(r rune) rune {
		if r > escapeBase && r < escapeBase+128 {
			return r - escapeBase
		}
		return r
	}, text)
}

func plainLine(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		line = reHeadingEnd.ReplaceAllString(line, "")
	}
	line = reBlockStart.ReplaceAllString(line, "")
	if strings.HasPrefix(line, "|") || strings.HasSuffix(line, "|") {
		line = strings.ReplaceAll(line, "|", " ")
	}
	line = reImage.ReplaceAllString(line, "$1")
	line = reLink.ReplaceAllString(line, "$1")
	line = reRefLink.ReplaceAllString(line, "$1")
	line = reAutolink.ReplaceAllString(line, "$1")
	line = reTag.ReplaceAllString(line, "")
	line = strings.NewReplacer("**", "", "~~", "", "*", "", "`", "").Replace(line)
	return reUnderscore.ReplaceAllString(line, "$1$2")
}

// abbreviations end with a dot that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "vs": true,
	"cf": true, "fig": true, "figs": true, "no": true, "nos": true, "approx": true, "inc": true,
	"ltd": true, "jr": true, "sr": true, "co": true, "corp": true, "dept": true, "est": true,
	"al": true, "ca": true, "resp": true, "vol": true, "pp": true, "ed": true, "eds": true,
	"eq": true, "sec": true, "ch": true, "ref": true, "refs": true, "jan": true, "feb": true,
	"mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true,
	"oct": true, "nov": true, "dec": true, "mt": true, "gen": true, "gov": true, "univ": true,
}

// minSentenceWords drops fragments (menu items, captions, "Read more.") that say nothing.
const minSentenceWords = 3

// Sentences splits text into sentences. Blank lines and line breaks end a sentence unless the
// next line continues it in lower case; code-like lines and short fragments are dropped.
func Sentences(text string) []string {
	var out []string
	var seg strings.Builder
	flush := func() {
		for _, s := range splitSentences(seg.String()) {
			if substantial(s) {
				out = append(out, s)
			}
		}
		seg.Reset()
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" || codeish(line) {
			flush()
			continue
		}
		if seg.Len() > 0 && !continues(seg.String(), line) {
			flush()
		}
		if seg.Len() > 0 {
			seg.WriteByte(' ')
		}
		seg.WriteString(line)
	}
	flush()
	return out
}

// substantial keeps sentences of enough words, counting CJK characters, which have no spaces.
func substantial(s string) bool {
	if len(Words(s)) >= minSentenceWords {
		return true
	}
	cjk := 0
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			cjk++
		}
	}
	return cjk >= 2*minSentenceWords
}

// continues reports whether next is a hard-wrapped continuation of prev.
func continues(prev, next string) bool {
	last, _ := utf8.DecodeLastRuneInString(prev)
	if strings.ContainsRune(".!?:;…", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLower(first)
}

func splitSentences(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if strings.ContainsRune("。！？", r) {
			out = appendTrimmed(out, rs[start:i+1])
			start = i + 1
			continue
		}
		if !strings.ContainsRune(".!?…", r) {
			continue
		}
		end := i + 1
		for end < len(rs) && strings.ContainsRune(".!?…", rs[end]) {
			end++
		}
		for end < len(rs) && strings.ContainsRune("\"'”’)]»", rs[end]) {
			end++
		}
		if end < len(rs) && !unicode.IsSpace(rs[end]) {
			i = end - 1
			continue
		}
		next := end
		for next < len(rs) && unicode.IsSpace(rs[next]) {
			next++
		}
		if next < len(rs) && !startsSentence(rs[next]) {
			i = end - 1
			continue
		}
		if r == '.' && end == i+1 && abbreviation(rs[start:i]) {
			continue
		}
		out = appendTrimmed(out, rs[start:end])
		start = end
		i = end - 1
	}
	return appendTrimmed(out, rs[start:])
}

func startsSentence(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("\"'“‘([¿¡", r) ||
		unicode.Is(unicode.Han, r)
}

// abbreviation reports whether the word before a dot is a known abbreviation, an initial
// ("J.") or dotted letters ("e.g", "U.S").
func abbreviation(before []rune) bool {
	j := len(before)
	for j > 0 && !unicode.IsSpace(before[j-1]) && before[j-1] != '(' {
		j--
	}
	word := strings.ToLower(string(before[j:]))
	if word == "" {
		return false
	}
	if abbreviations[word] {
		return true
	}
	if n := utf8.RuneCountInString(word); n == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		return unicode.IsLetter(r)
	}
	parts := strings.Split(word, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if n := utf8.RuneCountInString(p); n == 0 || n > 2 || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			return false
		}
	}
	return true
}

func appendTrimmed(out []string, rs []rune) []string {
	if s := strings.TrimSpace(string(rs)); s != "" {
		out = append(out, s)
	}
	return out
}

// codeish reports lines that look like source code or shell, not prose.
func codeish(line string) bool {
	for _, p := range []string{"}", "//", "#include", "$ ", ">>> "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	for _, s := range []string{"{", "}", ";", "};"} {
		if strings.HasSuffix(line, s) {
			return true
		}
	}
	for _, op := range []string{":=", "=>", "==", "!=", "&&", "||", "->", "();"} {
		if strings.Contains(line, op) {
			return true
		}
	}
	symbols, total := 0, 0
	for _, r := range line {
		if unicode.IsSpace(r) {
			continue
		}
		total++
		if strings.ContainsRune("{}[]()<>=;*&|\\$#@^~_`", r) {
			symbols++
		}
	}
	return symbols >= 3 && float64(symbols) > 0.12*float64(total)
}

// Words returns lower-cased word tokens: runs of letters and digits, keeping inner dots,
// hyphens, apostrophes and underscores between them ("go1.21", "state-of-the-art", "don't").
func Words(text string) []string {
	var out []string
	rs := []rune(text)
	isWord := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]) || unicode.Is(unicode.Mn, rs[i]))
	}
	var b strings.Builder
	for i, r := range rs {
		switch {
		case isWord(i):
			b.WriteRune(unicode.ToLower(r))
		case b.Len() > 0 && strings.ContainsRune(".-'’_", r) && isWord(i+1):
			if r == '’' {
				r = '\''
			}
			b.WriteRune(r)
		case b.Len() > 0:
			out = append(out, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
