// Quote hygiene shared by the answer: what counts as a heading, a footnote marker or site
// chrome, and when two sentences are the same.

package report

import (
	"regexp"
	"strings"

	"github.com/sated-dev/sated/internal/text"
)

// maxQuoteChars drops run-on "sentences" (unsplit lists, tables) that read badly as quotes.
const maxQuoteChars = 600

var (
	// reHeading matches Markdown headings: titles, not findings.
	reHeading = regexp.MustCompile(`(?m)^ {0,3}#{1,6}(\s.*)?$`)
	// reFootnote matches a source's own footnote markers, meaningless in this report: after
	// punctuation or a space ("the search.[12]", "as in [4]"), never glued to a word, where
	// brackets are code ("gate[0]") and removing them would change the quote's meaning.
	reFootnote = regexp.MustCompile(`(^|[\s.,;:!?"”’)])\[(\d+(\s*[,;\-–]\s*\d+)*|citation needed|note \d+|[a-z])\]`)
)

// boilerplate phrases mark site chrome that survived extraction; a phrase the question itself
// uses is not boilerplate.
var boilerplate = []string{
	"cookie", "all rights reserved", "subscribe", "sign up", "sign in", "log in", "newsletter",
	"privacy policy", "terms of service", "terms of use", "click here", "enable javascript",
	"skip to", "share this", "follow us", "copyright", "©", "advertisement", "read more",
	"your browser", "accept all", "last modified on", "last updated on",
}

// stripFootnotes removes a source's footnote markers, keeping what stood before them.
func stripFootnotes(s string) string {
	if !mayHoldFootnote(s) {
		return s // no marker: the common case, without the regexp's scan
	}
	return stripMarkers(s)
}

// stripMarkers is reFootnote's markers removed, but for an index after a call's parentheses
// ("sys.exc_info()[2]", "sorted(items, key=f)[0]"): code, whose meaning the index is, where a
// footnote after a parenthesis stands after a space or a word ("(born 1950)[3]").
func stripMarkers(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range reFootnote.FindAllStringSubmatchIndex(s, -1) {
		if m[3] > m[2] && s[m[2]] == ')' && afterCall(s, m[2]) {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(s[m[2]:m[3]])
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// afterCall reports whether the ")" at close ends a call: its "(" follows a name's last
// character, a bracket or another call's ")".
func afterCall(s string, close int) bool {
	depth := 0
	for i := close; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				if i == 0 {
					return false
				}
				c := s[i-1]
				return c == '_' || c == ']' || c == ')' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			}
		}
	}
	return false
}

// mayHoldFootnote reports whether s has a "[" before a digit or a lower-case letter, as every
// marker reFootnote matches does ("[1]", "[citation needed]", "[a]").
func mayHoldFootnote(s string) bool {
	for i := strings.IndexByte(s, '['); i >= 0 && i+1 < len(s); {
		if c := s[i+1]; c >= '0' && c <= '9' || c >= 'a' && c <= 'z' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '[')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// dropHeadingLines is reHeading.ReplaceAllString(s, ""): Markdown heading lines emptied,
// skipping the expression for a text without a "#".
func dropHeadingLines(s string) string {
	if strings.IndexByte(s, '#') < 0 {
		return s
	}
	return reHeading.ReplaceAllString(s, "")
}

// lowerForPhrases is s lower-cased as far as finding the boilerplate phrases (ASCII words and
// "©") can tell from strings.ToLower: ASCII letters lowered, every other byte kept, unless s
// holds one of the two characters whose lower case is ASCII (the Kelvin sign, a dotted capital
// I), when it is strings.ToLower itself.
func lowerForPhrases(s string) string {
	if strings.Contains(s, "\u212a") || strings.Contains(s, "\u0130") {
		return strings.ToLower(s)
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// boilerplateBits is the set of boilerplate phrases s holds, one bit per phrase: a sentence
// is boilerplate when it holds a phrase the question does not (a question about cookies quotes
// what a page says of them).
func boilerplateBits(s string) uint32 {
	ls := lowerForPhrases(s)
	var bits uint32
	for i, p := range boilerplate {
		if strings.Contains(ls, p) {
			bits |= 1 << i
		}
	}
	return bits
}

func init() {
	if len(boilerplate) > 32 {
		panic("report: boilerplate outgrew its bit set")
	}
}

// markContinuations marks, in a passage's extracted text (paragraphs split by blank lines), a
// prose paragraph that carries on a sentence a code sample interrupted ("...for example:", the
// code, "is guaranteed to print "hello, world"."): it opens in lower case after a paragraph that
// ends without a full stop, and gets a leading "… ", so that a quote of it shows it starts
// mid-sentence instead of reading as a whole sentence. A paragraph is prose when it ends in a
// full stop and its first line is not code; it carries on when its first word is a plain word
// (letters only: not an identifier such as "sqlite3_open()" that may open a sentence).
func markContinuations(s string) string {
	paras := strings.Split(s, "\n\n")
	prev := ""
	for i, p := range paras {
		t := strings.TrimSpace(p)
		if t == "" {
			continue
		}
		if prev != "" && !endsSentence(prev) && isProseContinuation(t) {
			paras[i] = strings.Replace(p, t[:1], "… "+t[:1], 1)
		}
		prev = t
	}
	return strings.Join(paras, "\n\n")
}

// endsSentence reports text whose last character closes a sentence.
func endsSentence(s string) bool {
	return s != "" && strings.ContainsAny(s[len(s)-1:], ".!?")
}

// isProseContinuation reports a prose paragraph that opens with a plain lower-case word.
func isProseContinuation(p string) bool {
	first, _, _ := strings.Cut(p, "\n")
	word, _, _ := strings.Cut(first, " ")
	if word == "" || word[0] < 'a' || word[0] > 'z' || text.IsCode(first) || !endsSentence(strings.TrimRight(p, " ")) {
		return false
	}
	for _, r := range word {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// unwrapComments turns each C block comment that opens a line of a passage's extracted text
// ("/*", then lines of "** Perform an online backup of database pDb to the database file named",
// then "*/") into a paragraph of its prose: the comment markers go, its lines join, and an empty
// comment line ("**") ends a paragraph. Left as they are, each line of the comment reads as a
// sentence cut off at the line's end, with the markers quoted.
func unwrapComments(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, "", strings.Join(para, " "), "")
			para = nil
		}
	}
	in := false
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if !in && !strings.HasPrefix(t, "/*") {
			out = append(out, line)
			continue
		}
		in = true
		t, rest, closes := strings.Cut(t, "*/") // rest: code after the comment's end, on its line
		t = strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(t, "/"), "*"))
		if t == "" {
			flush()
		} else {
			para = append(para, t)
		}
		if closes {
			flush()
			if rest = strings.TrimSpace(rest); rest != "" {
				out = append(out, rest)
			}
			in = false
		}
	}
	flush()
	return strings.Join(out, "\n")
}
