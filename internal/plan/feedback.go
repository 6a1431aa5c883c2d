package plan

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/sated-dev/sated/internal/text"
)

const (
	// feedbackPassages is how many evidence passages, those holding the most of the
	// question, the feedback reads.
	feedbackPassages = 10
	// feedbackCore is how many of the question's terms a feedback query keeps.
	feedbackCore = 3
	// feedbackExtra is how many words from the evidence a feedback query adds.
	feedbackExtra = 3
	// feedbackMinPages is how many pages the feedback passages holding a word must come from:
	// one page's own identifier ("pautoinc", "op_seekscan") is no lead.
	feedbackMinPages = 2
)

// FeedbackQuery is the gap query from pseudo-relevance feedback. It reads the evidence passages
// that hold the most of the question (by idf), and asks the question's terms those passages
// support best, preferring terms earlier feedback queries did not lean on, plus the words the
// passages share that no query has tried. "" when nothing new is left to ask. The aspects are
// not used: targeting the least covered aspect found fewer gold facts on the dev sets.
func FeedbackQuery(question string, aspects []Aspect, evidence, previous []string, vocab Vocabulary) string {
	all := Terms(JoinCompounds(question, vocab))
	if len(all) == 0 {
		return ""
	}
	idf := idfOf(all, vocab)
	ps := relevantPassages(all, idf, evidence, feedbackPassages)
	tried := map[string]bool{}
	for _, t := range all {
		tried[stemOf(t)] = true
	}
	// uses counts the earlier queries that singled a term out; one that searched (most of)
	// the whole question singles out none
	uses := map[string]int{}
	for _, p := range previous {
		pt := Terms(p)
		for _, t := range pt {
			tried[stemOf(t)] = true
		}
		if termOverlap(pt, all) >= nearDuplicate {
			continue
		}
		for _, t := range pt {
			uses[stemOf(t)]++
		}
	}
	core := supportedTerms(all, idf, ps, uses, feedbackCore)
	extra := expansionTerms(ps, tried, slices.ContainsFunc(all, isIdentifier), vocab)
	for i := 0; i < min(4, len(extra)); i++ { // the best words first, the next ones if those repeat a query
		q := strings.Join(append(slices.Clone(core), extra[i:min(i+feedbackExtra, len(extra))]...), " ")
		if !SameAsQuestion(q, question) && !NearDuplicate(q, previous) {
			return q
		}
	}
	return ""
}

// fbPassage is one evidence text as the feedback reads it.
type fbPassage struct {
	page   string            // the page it comes from: its title before the section path
	words  map[string]string // its content words' stems, each to its first spelling
	weight float64           // the idf-weighted share of the question's terms it holds
}

// relevantPassages returns the n evidence texts ("Title. Snippet") that hold the largest
// idf-weighted share of the question's terms, best first (earlier evidence first on ties).
func relevantPassages(terms []string, idf map[string]float64, evidence []string, n int) []fbPassage {
	var stems []string // the question's stems the corpus holds, each once, in question order
	weight := map[string]float64{}
	total := 0.0
	for _, t := range terms {
		if s := stemOf(t); idf[t] > 0 && weight[s] == 0 {
			stems = append(stems, s)
			weight[s] = idf[t]
			total += idf[t]
		}
	}
	if total == 0 {
		return nil
	}
	var ps []fbPassage
	for _, e := range evidence {
		p := fbPassage{page: e, words: map[string]string{}}
		if i := strings.Index(e, " — "); i >= 0 {
			p.page = e[:i]
		} else if i := strings.Index(e, ". "); i >= 0 {
			p.page = e[:i]
		}
		for _, w := range text.Content(e) {
			if s := text.Stem(w); p.words[s] == "" {
				p.words[s] = w
			}
		}
		for _, s := range stems { // in one order, so passages holding the same terms tie exactly
			if p.words[s] != "" {
				p.weight += weight[s]
			}
		}
		if p.weight /= total; p.weight > 0 {
			ps = append(ps, p)
		}
	}
	slices.SortStableFunc(ps, func(a, b fbPassage) int { return cmp.Compare(b.weight, a.weight) })
	return ps[:min(n, len(ps))]
}

// supportedTerms are the n question terms the passages support best, in question order: a term
// weighs the share of the passages' weight that holds it, times the square root of its idf (a
// rare filler word of the question, "big", "still", must not outweigh its subject), divided by
// one plus the earlier queries that singled it out (so the rounds vary their anchor).
func supportedTerms(terms []string, idf map[string]float64, ps []fbPassage, uses map[string]int, n int) []string {
	total := 0.0
	for _, p := range ps {
		total += p.weight
	}
	w := make(map[string]float64, len(terms))
	for _, t := range terms {
		if idf[t] < 0 {
			w[t] = -1 // the corpus lacks it: discriminative drops it
			continue
		}
		held := 0.0
		for _, p := range ps {
			if p.words[stemOf(t)] != "" {
				held += p.weight
			}
		}
		if total > 0 {
			held /= total
		}
		w[t] = math.Sqrt(idf[t]) * held / float64(1+uses[stemOf(t)])
	}
	return discriminative(terms, w, n)
}

// expansionTerms are the words of the passages that no query has tried, best first: a word
// scores its corpus idf times the summed weight of the passages holding it, and counts only
// when passages of feedbackMinPages pages hold it. Numbers and versions are no search terms,
// and identifiers only when the question names one itself (identifiers): a passage's function
// names, column names, build flags and check-in hashes rarely name what a question in words asks.
func expansionTerms(ps []fbPassage, tried map[string]bool, identifiers bool, vocab Vocabulary) []string {
	score := map[string]float64{}
	pages := map[string]map[string]bool{}
	spellings := map[string]map[string]int{}
	for _, p := range ps {
		for s, w := range p.words {
			if tried[s] || len(w) < 3 || !unicode.IsLetter([]rune(w)[0]) || text.IsQuestionForm(w) ||
				!identifiers && isIdentifier(w) {
				continue
			}
			score[s] += p.weight
			if pages[s] == nil {
				pages[s] = map[string]bool{}
			}
			pages[s][p.page] = true
			if spellings[s] == nil {
				spellings[s] = map[string]int{}
			}
			spellings[s][w]++
		}
	}
	var words []string
	for s := range score {
		if len(pages[s]) >= feedbackMinPages {
			words = append(words, mostUsed(spellings[s]))
		}
	}
	slices.Sort(words)
	idf := idfOf(words, vocab)
	words = slices.DeleteFunc(words, func(w string) bool { return idf[w] <= 0 })
	slices.SortStableFunc(words, func(a, b string) int {
		return cmp.Compare(score[stemOf(b)]*idf[b], score[stemOf(a)]*idf[a])
	})
	return words
}

// isIdentifier reports a word with an underscore, or with a digit next to a letter: a name from
// code ("sqlite3_open", "op_seekscan", "fts5", "f68dc596"), not a word of prose ("utf-8").
func isIdentifier(w string) bool {
	if strings.ContainsRune(w, '_') {
		return true
	}
	rs := []rune(w)
	for i := 1; i < len(rs); i++ {
		if unicode.IsLetter(rs[i-1]) && unicode.IsDigit(rs[i]) || unicode.IsDigit(rs[i-1]) && unicode.IsLetter(rs[i]) {
			return true
		}
	}
	return false
}

// mostUsed is the spelling most passages use, the first in order on ties.
func mostUsed(counts map[string]int) string {
	best := ""
	for w, n := range counts {
		if best == "" || n > counts[best] || n == counts[best] && w < best {
			best = w
		}
	}
	return best
}

// stemOf is a term's lower-case stem.
func stemOf(t string) string { return text.Stem(strings.ToLower(t)) }
