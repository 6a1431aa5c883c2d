package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/sated-dev/sated/internal/extract"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/text"
)

// DefaultPerSource is how many sentences an extractive report quotes from each source.
const DefaultPerSource = 3

// maxQuoteChars drops run-on "sentences" (unsplit lists, tables) that read badly as quotes.
const maxQuoteChars = 600

var (
	// reHeading matches Markdown headings: titles, not findings.
	reHeading = regexp.MustCompile(`(?m)^ {0,3}#{1,6}(\s.*)?$`)
	// reFootnote matches a source's own footnote markers, meaningless in this report.
	reFootnote = regexp.MustCompile(`\[(\d+(\s*[,;\-–]\s*\d+)*|citation needed|note \d+|[a-z])\]`)
	mdEscaper  = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`)
)

// boilerplate phrases mark site chrome that survived extraction; a phrase the question itself
// uses is not boilerplate.
var boilerplate = []string{
	"cookie", "all rights reserved", "subscribe", "sign up", "sign in", "log in", "newsletter",
	"privacy policy", "terms of service", "terms of use", "click here", "enable javascript",
	"skip to", "share this", "follow us", "copyright", "©", "advertisement", "read more",
	"your browser", "accept all",
}

// terms returns the distinct stemmed content words of s.
func terms(s string) []string { return text.Distinct(text.Terms(s)) }

// ExtractiveBody quotes the key sentences of each source, in document order, each cited with
// the source's number. Sentences are ranked by the question's terms they contain plus how
// central their terms are to the source; boilerplate and repeats are skipped.
func ExtractiveBody(question string, sources []research.Source, perSource int) string {
	if perSource <= 0 {
		perSource = DefaultPerSource
	}
	question = strings.ToLower(question)
	qterms := terms(question)
	seen := map[string]bool{}
	var b strings.Builder
	for _, s := range sources {
		if s.N <= 0 {
			continue
		}
		text := s.Text
		if strings.TrimSpace(text) == "" {
			text = s.Snippet
		}
		picked := keySentences(extract.PlainText(reHeading.ReplaceAllString(text, "")), question, qterms, perSource, seen)
		if len(picked) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s [%d]\n\n", mdEscaper.Replace(sourceTitle(s)), s.N)
		for _, q := range picked {
			fmt.Fprintf(&b, "- %s [%d]\n", mdEscaper.Replace(q), s.N)
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "_No quotable sentences were found in the source texts._\n"
	}
	return b.String()
}

func keySentences(text, question string, qterms []string, limit int, seen map[string]bool) []string {
	type cand struct {
		idx     int
		text    string
		terms   []string
		score   float64
		overlap int
	}
	var cands []cand
	tf := map[string]int{}
	local := map[string]bool{}
	for i, s := range extract.Sentences(reFootnote.ReplaceAllString(text, "")) {
		key := sentenceKey(s)
		if len(s) > maxQuoteChars || strings.HasSuffix(s, "?") || seen[key] || local[key] || isBoilerplate(s, question) {
			continue
		}
		local[key] = true
		t := terms(s)
		for _, w := range t {
			tf[w]++
		}
		cands = append(cands, cand{idx: i, text: s, terms: t})
	}
	for i := range cands {
		c := &cands[i]
		overlap, salience := 0, 0.0
		for _, w := range c.terms {
			if slices.Contains(qterms, w) {
				overlap++
			}
			salience += math.Log1p(float64(tf[w] - 1))
		}
		if len(c.terms) > 0 {
			salience /= math.Sqrt(float64(len(c.terms)))
		}
		c.overlap = overlap
		c.score = 2*float64(overlap) + salience + 0.5/float64(1+c.idx)
		if len(c.terms) < 4 {
			c.score *= 0.6 // terse fragments rarely carry a finding
		}
	}
	if len(qterms) > 0 {
		// a sentence that shares no term with the question is not a finding for it
		cands = slices.DeleteFunc(cands, func(c cand) bool { return c.overlap == 0 })
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.idx - b.idx
	})
	cands = cands[:min(limit, len(cands))]
	slices.SortFunc(cands, func(a, b cand) int { return a.idx - b.idx })
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.text
		seen[sentenceKey(c.text)] = true
	}
	return out
}

// sentenceKey identifies a sentence regardless of case and punctuation, to quote it once.
func sentenceKey(s string) string { return strings.Join(text.Words(s), " ") }

func isBoilerplate(s, question string) bool {
	ls := strings.ToLower(s)
	for _, p := range boilerplate {
		if strings.Contains(ls, p) && !strings.Contains(question, p) {
			return true
		}
	}
	return false
}
