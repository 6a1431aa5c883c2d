// Package text is the one place for words, stopwords, stems, sentences and lexical
// similarity, so that planning, novelty, chunking, reports and search agree on what a word is.
//
// Word rules, chosen for technical documentation: a word is a run of letters, digits and
// combining marks; a dot, underscore or apostrophe between two such runs joins them, so
// identifiers stay whole ("go1.21", "x86_64", "sync.mutex", "foo.go", "1.2.3", "don't"). A
// hyphen joins only when a digit is next to it ("utf-8", "x86-64", "v1.0-rc1"): English
// compounds split ("mark-and-sweep" is "mark", "and", "sweep"), since writers hyphenate them
// or not at will. A trailing possessive "'s" is dropped ("Go's" is "go"). All else separates.
// SQLite's unicode61 tokenizer splits such compounds, but a compound quoted in an FTS5 query
// becomes a phrase of its parts, so queries built from these words still match the index.
package text

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens returns the word tokens of s as written (case kept), for callers that rank by
// capitals or digits. Words is the lower-cased form.
func Tokens(s string) []string {
	var out []string
	scan(s, func(tok string) { out = append(out, tok) })
	return out
}

// EachToken calls emit with each word token of s as written (Tokens without the slice), for
// callers that cache per token and must not allocate per word.
func EachToken(s string, emit func(tok string)) { scan(s, emit) }

// Words returns the lower-cased word tokens of s.
func Words(s string) []string {
	var out []string
	scan(s, func(tok string) { out = append(out, strings.ToLower(tok)) })
	return out
}

// Content returns the words of s that carry meaning: stopwords and one-character words
// dropped, repeats kept (they count in a Bag).
func Content(s string) []string {
	var out []string
	scan(s, func(tok string) {
		if w := strings.ToLower(tok); IsContent(w) {
			out = append(out, w)
		}
	})
	return out
}

// Terms returns the comparison form of s: its content words, stemmed. Two texts share a
// term when they use the same word in any inflection ("rounds", "round").
func Terms(s string) []string {
	out := Content(s)
	for i, w := range out {
		out[i] = Stem(w)
	}
	return out
}

// Aliases are the bare names of the qualified names a question writes ("Once" of "sync.Once"),
// each with the qualified name's term ("sync.onc"): documentation names a type by itself once
// its package is clear ("the Once type", "a Mutex") and its values by a variable named after it
// ("once.Do(f)"), so a text writing either names the qualified name. The bare name is often a
// stopword or a common word ("Once", "Client"), which is why it is matched as written, not as
// a term: Terms drops "once" and matches "client" anywhere. A slice in the question's order, so
// that workflow code may read it.
type Aliases []Alias

// Alias is one bare name (as written) and its qualified name's term.
type Alias struct{ Name, Term string }

// NameAliases returns the aliases of the qualified names s writes: a package path (whose first
// part is no stopword: "once.Do" is a method called on a variable), a dot and a capitalized name
// ("sync.Once", "http.Client", "asyncio.Lock"). Nil when s writes none.
func NameAliases(s string) Aliases {
	var out Aliases
	scan(s, func(tok string) {
		i := strings.LastIndexByte(tok, '.')
		if i <= 0 || i == len(tok)-1 {
			return
		}
		name, pkg := tok[i+1:], strings.ToLower(tok[:strings.IndexByte(tok, '.')])
		if r, _ := utf8.DecodeRuneInString(name); !unicode.IsUpper(r) || strings.ContainsAny(tok, "'’-") || hasDigit(tok[:1]) || !IsContent(pkg) {
			return // not a package's name: a version, a file, a method of a variable ("once.Do")
		}
		if a := (Alias{name, Stem(strings.ToLower(tok))}); !slices.Contains(out, a) {
			out = append(out, a)
		}
	})
	return out
}

// Terms is Terms(s) with the term of each qualified name s names by an alias: a word written as
// the bare name ("Once"), or a qualified word whose first part is the bare name in any case
// ("once.Do", "Mutex.Lock").
func (a Aliases) Terms(s string) []string {
	out := Terms(s)
	if len(a) == 0 {
		return out
	}
	scan(s, func(tok string) {
		first, _, dotted := strings.Cut(tok, ".")
		for _, al := range a {
			if (tok == al.Name || dotted && strings.EqualFold(first, al.Name)) && !slices.Contains(out, al.Term) {
				out = append(out, al.Term)
			}
		}
	})
	return out
}

// Distinct returns ws without repeats, in first-seen order.
func Distinct(ws []string) []string {
	seen := make(map[string]bool, len(ws))
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// IsContent reports whether a lower-case word carries meaning: not a stopword, and at least
// two characters long.
func IsContent(w string) bool {
	if stopwords[w] {
		return false
	}
	n := 0
	for range w {
		if n++; n >= 2 {
			return true
		}
	}
	return false
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf { // ASCII, most of any text: the same answer without the tables
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
}

func isJoiner(r rune) bool {
	return r == '.' || r == '-' || r == '_' || r == '\'' || r == '’'
}

// scan calls emit with each word token of s, as written but for a curly apostrophe made
// straight and a possessive "'s" dropped.
func scan(s string, emit func(string)) {
	start := -1 // byte offset of the current token, -1 between tokens
	seg := -1   // byte offset of the current token's last joined segment
	apos := false
	end := func(i int) {
		if start < 0 {
			return
		}
		tok := s[start:i]
		if apos {
			tok = strings.ReplaceAll(tok, "’", "'")
			if n := len(tok); n > 2 && (tok[n-2:] == "'s" || tok[n-2:] == "'S") {
				tok = tok[:n-2]
			}
		}
		emit(tok)
		start, apos = -1, false
	}
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start, seg = i, i
			}
			continue
		}
		if start >= 0 && isJoiner(r) {
			next := i + utf8.RuneLen(r)
			after := len(s)
			if k := strings.IndexFunc(s[next:], func(r rune) bool { return !isWordRune(r) }); k >= 0 {
				after = next + k
			}
			if after > next && (r != '-' || hasDigit(s[seg:i]) || hasDigit(s[next:after])) {
				apos = apos || r == '\'' || r == '’'
				seg = next
				continue // joined: the next word rune goes on this token
			}
		}
		end(i)
	}
	end(len(s))
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// IsQuestionForm reports whether w (lower case) carries the form of a question or request, not
// its subject ("explain", "way", "get", "make"): a query built from a question drops it.
// QuestionFormAt tells the same of a word in its sentence, for the words that are also what
// documentation names ("a list", "git show", "make").
func IsQuestionForm(w string) bool { return questionForm[w] }

// QuestionFormAt reports whether words[i] (lower-case tokens of a question or query, stopwords
// kept) carries the question's form. A word that can also be what documentation names ("list",
// "show", "find", "get", "make", "give") is the subject after a determiner ("a list I use as a
// default argument", "the list grows") and anywhere in a query of keywords (no stopwords: the
// planner's "list default argument", which kept it as a term); elsewhere it is taken for the
// asker's verb ("How do I get", "List the tables", "not give exactly 0.3"), as before. The other
// question-form words ("explain", "way") are form wherever they stand.
func QuestionFormAt(words []string, i int) bool {
	w := words[i]
	if !questionForm[w] {
		return false
	}
	if !verbOrSubject[w] {
		return true
	}
	if i > 0 && determiner[words[i-1]] {
		return false
	}
	return slices.ContainsFunc(words, IsStopword)
}

// verbOrSubject are the question-form words that documentation also names as subjects.
var verbOrSubject = setOf(`find show give list get make`)

// determiner are the words after which a question-form word is a noun, the question's subject.
var determiner = setOf(`a an the my our your his her its their this these those each every`)

// setOf is the set of the words of a space-separated list.
func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var questionForm = setOf(`explain describe tell know find show give list want like please
	anything something way ways get make`)

// IsStopword reports whether w (lower case) carries no topic on its own: function words,
// question words and the filler of technical prose ("e.g", "via", "using").
func IsStopword(w string) bool { return stopwords[w] }

var stopwords = setOf(`a about above after again against all also am an and any are
	aren't as at be because been before being below between both but by can can't cannot could
	couldn't did didn't do does doesn't doing don't down during each e.g eg etc few for from
	further had hadn't has hasn't have haven't having he he'd he'll her here hers herself him
	himself his how i i'd i'll i'm i've i.e ie if in into is isn't it it'll its itself just let
	let's me may might more most must mustn't my myself no nor not now of off on once only or
	other ought our ours ourselves out over own per same shall shan't she should shouldn't so
	some such than that the their theirs them themselves then there these they they'd they'll
	they're they've this those through to too under until up upon use used uses using very via
	vs was wasn't we we'd we'll we're we've were weren't what when where whether which while who
	whom whose why will with won't would wouldn't you you'd you'll you're you've your yours
	yourself yourselves`)
