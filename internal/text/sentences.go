package text

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentences splits s into sentences and keeps every character: each non-space character of
// s is in exactly one sentence, in order, and only runs of white space are folded to one
// space (a hard-wrapped line joins the next with a space). Nothing is stripped, so `*`, `_`
// and backticks quote exactly.
//
// Where it splits: after ., !, ? or … (and any closing quote, bracket or emphasis) followed by
// space and something that can start a sentence (a capital, digit, quote, bracket, backtick);
// after 。！？; at a blank line; before a list item, heading, quote or table row; around each
// code line (fenced, or one that IsCode calls code), which stays whole. A line break ends a
// sentence unless the line ends mid-sentence and the next goes on in lower case.
//
// Where it does not: after abbreviations (e.g., i.e., vs., Mr., Fig.), initials and dotted
// letters (U.S.), inside version numbers, decimals, file names and calls (1.2.3, 3.14,
// main.go, x.Close()) since no space follows their dots, before a lower-case word, and inside
// `code spans`. "etc." before a capital does end a sentence, as it usually does.
func Sentences(s string) []string {
	out, _ := SentenceBlocks(s)
	return out
}

// SentenceBlocks is Sentences with, per sentence, the number of the block of s it sits in: a
// paragraph, a list item, a heading, a code line (0 for the first). Two sentences of one list
// item share its number; the paragraph after the list has another.
func SentenceBlocks(s string) (out []string, blocks []int) {
	var para []string // the lines of the prose block being read
	block := -1
	mark := func() {
		block++
		for len(blocks) < len(out) {
			blocks = append(blocks, block)
		}
	}
	flush := func() {
		if len(para) > 0 {
			out = splitProse(out, strings.Join(para, " "))
			para = nil
			mark()
		}
	}
	whole := func(line string) {
		flush()
		out = append(out, line)
		mark()
	}
	inFence := false
	for _, raw := range strings.Split(s, "\n") {
		line := foldSpace(raw)
		switch {
		case reFence.MatchString(raw):
			inFence = !inFence
			whole(line)
		case line == "":
			flush()
		case inFence || IsCode(line):
			whole(line)
		case reBlock.MatchString(line):
			flush()
			if reOneLineBlock.MatchString(line) {
				whole(line)
			} else {
				para = append(para, line)
			}
		default:
			if len(para) > 0 && !continues(para[len(para)-1], line) {
				flush()
			}
			para = append(para, line)
		}
	}
	flush()
	return out, blocks
}

var (
	reFence = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	// reBlock matches the start of a list item, heading, block quote or table row.
	reBlock = regexp.MustCompile(`^([-*+•]\s|\d{1,9}[.)]\s|#{1,6}(\s|$)|>|\|)`)
	// reOneLineBlock matches blocks that never run on to the next line: headings, table rows.
	reOneLineBlock = regexp.MustCompile(`^(#{1,6}(\s|$)|\|)`)
)

// foldSpace is strings.Join(strings.Fields(s), " "): white space trimmed and each run of it
// one space. A line of ASCII with single spaces between words is returned as it is.
func foldSpace(s string) string {
	plain := s == "" || s[0] != ' ' && s[len(s)-1] != ' '
	for i := 0; plain && i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			plain = false
		case c == ' ' && s[i+1] == ' ':
			plain = false
		}
	}
	if plain {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// continues reports whether next is a hard-wrapped continuation of prev.
func continues(prev, next string) bool {
	last, _ := utf8.DecodeLastRuneInString(prev)
	if strings.ContainsRune(".!?:;…。！？", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLower(first) || last == ',' || dangling[strings.ToLower(lastField(prev))]
}

// dangling words cannot end a sentence: a line ending in one goes on.
var dangling = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true,
	"and": true, "or": true, "in": true, "for": true, "with": true, "by": true, "from": true}

func lastField(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

// splitProse appends the sentences of one prose block (white space already folded) to out.
func splitProse(out []string, s string) []string {
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // each invalid byte a U+FFFD, as a rune-by-rune reading has it
	}
	start := 0
	inCode := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '`' {
			inCode = !inCode
			i += size
			continue
		}
		if inCode {
			i += size
			continue
		}
		if r == '。' || r == '！' || r == '？' {
			out = appendSentence(out, s[start:i+size])
			start = i + size
			i = start
			continue
		}
		if !isSentenceEnd(r) {
			i += size
			continue
		}
		end := i + size
		for end < len(s) {
			e, n := utf8.DecodeRuneInString(s[end:])
			if !isSentenceEnd(e) {
				break
			}
			end += n
		}
		for end < len(s) {
			c, n := utf8.DecodeRuneInString(s[end:])
			if !closesSentence(c) {
				break
			}
			end += n
		}
		if end < len(s) && s[end] != ' ' {
			i = end
			continue
		}
		next := end
		for next < len(s) && s[next] == ' ' {
			next++
		}
		var nr rune
		if next < len(s) {
			nr, _ = utf8.DecodeRuneInString(s[next:])
			if !startsSentence(nr) {
				i = end
				continue
			}
		}
		if r == '.' && end == i+1 && next < len(s) && notAnEnd(s[start:i], nr) {
			i += size
			continue
		}
		out = appendSentence(out, s[start:end])
		start = end
		i = end
	}
	return appendSentence(out, s[start:])
}

// isSentenceEnd reports the marks a sentence ends with: . ! ? …
func isSentenceEnd(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

// closesSentence reports what may follow a sentence's end mark and still belong to it: a closing
// quote, bracket or emphasis.
func closesSentence(r rune) bool {
	switch r {
	case '"', '\'', '”', '’', ')', ']', '»', '*', '_':
		return true
	}
	return false
}

func startsSentence(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("\"'“‘([¿¡`*_$", r) ||
		unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// abbreviations end with a dot that does not end a sentence.
var abbreviations = setOf(`mr mrs ms dr prof st vs cf fig figs approx inc ltd jr sr co
	corp dept est al ca resp vol pp ed eds eq sec ch ref refs jan feb mar apr jun jul aug sep sept
	oct nov dec mt gen gov univ ex incl e.g i.e`)

// notAnEnd reports whether the dot after before is part of an abbreviation, an initial, dotted
// letters ("U.S"), a list number at the start of the block or "No." before a number.
func notAnEnd(before string, next rune) bool {
	j := len(before)
	for j > 0 && before[j-1] != ' ' && before[j-1] != '(' {
		j--
	}
	word := strings.ToLower(before[j:])
	switch {
	case word == "":
		return false
	case abbreviations[word]:
		return true
	case word == "no" || word == "nos":
		return unicode.IsDigit(next)
	case j == 0 && len(word) <= 3 && strings.Trim(word, "0123456789") == "":
		return true // "1. Install" opens a numbered item
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

func appendSentence(out []string, sentence string) []string {
	if s := strings.TrimSpace(sentence); s != "" {
		out = append(out, s)
	}
	return out
}

// IsCode reports a line that looks like source code or a shell session rather than prose.
// Markdown emphasis and backticks do not count as code symbols.
func IsCode(line string) bool {
	line = strings.TrimSpace(line)
	for _, p := range []string{"}", "//", "/*", "#include", "$ ", ">>> ", "#!"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	for _, s := range []string{"{", "}", ";", "};"} {
		if strings.HasSuffix(line, s) {
			return true
		}
	}
	for _, op := range []string{":=", "=>", "==", "!=", "&&", "||", "->", "();", "<-"} {
		if strings.Contains(line, op) && !inCodeSpan(line, op) {
			return true
		}
	}
	symbols, total := 0, 0
	for _, r := range line {
		if unicode.IsSpace(r) {
			continue
		}
		total++
		if r < utf8.RuneSelf && codeSymbol[r] {
			symbols++
		}
	}
	return symbols >= 3 && float64(symbols) > 0.12*float64(total)
}

// codeSymbol marks the ASCII characters IsCode counts as code symbols.
var codeSymbol = func() (out [utf8.RuneSelf]bool) {
	for _, c := range "{}[]()<>=;&|\\$@^~" {
		out[c] = true
	}
	return out
}()

// inCodeSpan reports whether every occurrence of op in line sits inside a `code span`, as in
// prose that quotes code ("use `x := 1` to declare").
func inCodeSpan(line, op string) bool {
	in := false
	for i := 0; i < len(line); i++ {
		if line[i] == '`' {
			in = !in
			continue
		}
		if !in && strings.HasPrefix(line[i:], op) {
			return false
		}
	}
	return true
}
