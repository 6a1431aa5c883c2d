package corpus

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/text"
)

// Search implements search.Provider: the best passages by BM25 (page title and headings
// weigh more than text), each as its page's URL#anchor with the best window of its text for
// the query as snippet and the passage id as DocID.
func (x *Index) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if limit < 1 {
		return nil, fmt.Errorf("corpus: limit %d: %w", limit, search.ErrBadInput)
	}
	limit = min(limit, maxLimit)
	terms, err := queryTerms(query)
	if err != nil {
		return nil, err
	}
	ps, err := x.rankedPassages(ctx, terms, limit+limit/2+duplicateSlack)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: search %q: %w", x.path, query, err)
	}
	ps = distinctText(ps, limit)
	out := make([]search.Result, 0, len(ps))
	for _, p := range ps {
		out = append(out, search.Result{
			URL: p.URL, Title: resultTitle(p.Title, p.Heading), Provider: "corpus", DocID: p.ID,
			Snippet: snippet(p.Text, terms, search.MaxSnippetChars),
		})
	}
	return out, nil
}

// duplicateSlack is how many extra passages a search ranks so that, with repeats collapsed,
// it still fills its limit.
const duplicateSlack = 5

// distinctText keeps the best-ranked of passages with the same text (a page shipped under two
// names, release notes repeated in a history page), at most limit of them: a repeat takes a
// result slot and adds nothing.
func distinctText(ps []candidate, limit int) []candidate {
	seen := make(map[string]bool, len(ps))
	out := ps[:0]
	for _, p := range ps {
		key := strings.Join(strings.Fields(p.Text), " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		if out = append(out, p); len(out) == limit {
			break
		}
	}
	return out
}

// maxTitleChars bounds a result title; long heading paths keep their deepest headings.
const maxTitleChars = 160

// resultTitle is "Page title — Section > Subsection", shortened from the top of the path.
func resultTitle(title, heading string) string {
	if heading == "" {
		return search.Truncate(title, maxTitleChars)
	}
	title = search.Truncate(title, maxTitleChars/2)
	hs := strings.Split(heading, headingSep)
	for len(hs) > 1 && len(title)+len(" — … > ")+len(strings.Join(hs, headingSep)) > maxTitleChars {
		hs = hs[1:]
	}
	path := strings.Join(hs, headingSep)
	if len(hs) < len(strings.Split(heading, headingSep)) {
		path = "…" + headingSep + path
	}
	return title + " — " + search.Truncate(path, maxTitleChars-len(title))
}

// maxQueryTerms bounds the OR-query a long question turns into.
const maxQueryTerms = 32

// queryTerms turns free text into the words worth searching, as FTS5 tokenizes them: the
// content words of the text package (stopwords, question-form words and one-letter words
// dropped), compounds split into their parts ("foreign_keys" is "foreign", "keys"), repeats
// dropped, at most maxQueryTerms.
func queryTerms(q string) ([]string, error) {
	var terms []string
	words := text.Words(q)
	for i, w := range words {
		if !text.IsContent(w) || text.QuestionFormAt(words, i) {
			continue
		}
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
			if !text.IsContent(part) || part != w && text.IsQuestionForm(part) || slices.Contains(terms, part) {
				continue
			}
			terms = append(terms, part)
		}
		if len(terms) >= maxQueryTerms {
			terms = terms[:maxQueryTerms]
			break
		}
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("corpus: query %q has no searchable words: %w", q, search.ErrBadInput)
	}
	return terms, nil
}

// matchQuery is the FTS5 query for terms; quoting every word means no user text can be
// FTS5 syntax, and OR lets bm25 reward documents that match more of them.
func matchQuery(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + t + `"`
	}
	return strings.Join(quoted, " OR ")
}

// snippetScanBytes bounds how much of a long document the snippet search reads.
const snippetScanBytes = 64 << 10

// snippet picks from body the passage of at most limit bytes holding the most distinct query
// terms. FTS5's snippet() re-tokenizes every matching document (~1.5 ms per large one);
// this scans at most snippetScanBytes of only the winners, in Go.
func snippet(body string, terms []string, limit int) string {
	body = body[:runeFloor(body, snippetScanBytes)]
	best := bestWindow(termHits(body, terms), len(terms), limit/2)
	from := runeFloor(body, max(0, best-limit/6))
	if i := strings.IndexAny(body[from:best], " \t\n"); from > 0 && i >= 0 {
		from += i // start on a word boundary
	}
	// a merged section's heading line (splitPassages writes "### Locks") reads inline, "Locks —",
	// not as markup: snippets become knowledge, memory and prompts
	out := collapse(text.InnerHeading.ReplaceAllString(body[from:runeFloor(body, from+2*limit)], "$1 —"))
	const ellipsis = "…"
	out = search.Truncate(out, limit-2*len(ellipsis))
	if from > 0 {
		out = ellipsis + out
	}
	return out
}

// hit is one occurrence of query term number term at byte offset at.
type hit struct{ at, term int }

// termHits finds the words of body that match a term.
func termHits(body string, terms []string) []hit {
	stems := make([]string, len(terms))
	for i, t := range terms {
		stems[i] = text.Stem(t)
	}
	var hits []hit
	eachStemmed(body, newFirstBytes(stems), func(at int, stem string) {
		for ti, t := range stems {
			if stem == t {
				hits = append(hits, hit{at, ti})
				break
			}
		}
	})
	return hits
}

// eachStemmed calls fn with the offset and stem of every word of s that may stem to a stem
// first marks: the words ranking and snippets compare with a query's stems.
func eachStemmed(s string, first *firstBytes, fn func(at int, stem string)) {
	scanWords(s, first, func(start, end int) { fn(start, text.StemCached(strings.ToLower(s[start:end]))) })
}

// eachWord calls fn with the byte span of every run of letters and digits in s: the words the
// index's tokenizer sees.
func eachWord(s string, fn func(start, end int)) { scanWords(s, nil, fn) }

// asciiWord marks the ASCII bytes that are letters or digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// firstBytes marks the first bytes of words: a stem keeps its word's first letter, so a word
// whose first byte no stem of a query's starts with cannot match it.
type firstBytes [256]bool

func newFirstBytes(stems []string) *firstBytes {
	var f firstBytes
	for _, st := range stems {
		if st != "" {
			f[st[0]] = true
		}
	}
	return &f
}

// may reports whether the word starting with byte c may stem to a marked stem: its ASCII
// letter in lower case is marked, or it starts with a multi-byte letter (whose lower case may
// start with another byte).
func (f *firstBytes) may(c byte) bool { return c >= utf8.RuneSelf || f[lower(c)] }

// lower is an ASCII byte in lower case (any other byte as it is).
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// scanWords is eachWord calling fn only for the words first may (every word when first is nil).
func scanWords(s string, first *firstBytes, fn func(start, end int)) {
	start := -1
	for i := 0; i < len(s); {
		c, size := s[i], 1
		var word bool
		if c < utf8.RuneSelf {
			word = asciiWord[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			word = unicode.IsLetter(r) || unicode.IsNumber(r)
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if first == nil || first.may(s[start]) {
				fn(start, i)
			}
			start = -1
		}
		i += size
	}
	if start >= 0 && (first == nil || first.may(s[start])) {
		fn(start, len(s))
	}
}

// bestWindow returns the offset of the first hit of the span of at most width bytes that
// covers the most distinct terms (the earliest on ties); 0 without hits.
func bestWindow(hits []hit, nterms, width int) int {
	best, bestN, distinct, lo := 0, 0, 0, 0
	count := make([]int, nterms)
	for _, h := range hits {
		if count[h.term]++; count[h.term] == 1 {
			distinct++
		}
		for h.at-hits[lo].at > width {
			if count[hits[lo].term]--; count[hits[lo].term] == 0 {
				distinct--
			}
			lo++
		}
		if distinct > bestN {
			best, bestN = hits[lo].at, distinct
		}
	}
	return best
}

// runeFloor is the largest rune boundary of s at or before i.
func runeFloor(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
