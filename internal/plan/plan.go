// Package plan is the deterministic planner: search queries from a question, a simplified
// fallback query, and gap-filling queries from what the knowledge state does not yet cover.
// The model planner replaces it when one is configured and falls back to it when the model fails.
package plan

import (
	"strings"
	"unicode"

	"github.com/sated-dev/sated/internal/text"
)

// Terms are the question's content words in order, with the original casing of the first
// occurrence, minus stopwords and question-form words (text.QuestionFormAt).
func Terms(question string) []string {
	seen := map[string]bool{}
	var out []string
	tokens := text.Tokens(question)
	words := make([]string, len(tokens))
	for i, raw := range tokens {
		words[i] = strings.ToLower(raw)
	}
	for i, raw := range tokens {
		w := words[i]
		if !text.IsContent(w) || text.QuestionFormAt(words, i) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, raw)
	}
	return out
}

// salience ranks a term: identifiers, acronyms and long words say more than short common ones.
func salience(t string) int {
	s := len(t)
	for _, r := range t {
		if unicode.IsUpper(r) || unicode.IsDigit(r) {
			s += 3
		}
	}
	return s
}

// top returns the n most salient terms, kept in question order.
func top(terms []string, n int) []string {
	if len(terms) <= n {
		return terms
	}
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	// stable selection by salience, ties by position
	for i := 0; i < len(idx); i++ {
		for j := i + 1; j < len(idx); j++ {
			if salience(terms[idx[j]]) > salience(terms[idx[i]]) {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	keep := map[int]bool{}
	for _, i := range idx[:n] {
		keep[i] = true
	}
	var out []string
	for i, t := range terms {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}

// Normalize is the comparison form of a query: lower case, single spaces, no punctuation.
func Normalize(q string) string {
	return strings.Join(text.Words(q), " ")
}

// SameAsQuestion reports whether a query is just the question itself.
func SameAsQuestion(query, question string) bool {
	return Normalize(query) == Normalize(question)
}

// Queries makes 3 targeted queries from the question; none is the raw question.
func Queries(question string) []string {
	terms := Terms(question)
	if len(terms) == 0 {
		return nil
	}
	var cands []string
	cands = append(cands, strings.Join(top(terms, 6), " "))
	cands = append(cands, strings.Join(top(terms, 3), " "))
	if len(terms) > 3 {
		half := len(terms) / 2
		tail := top(terms[half:], 4)
		if anchor := top(terms, 1)[0]; !containsFold(tail, anchor) {
			tail = append([]string{anchor}, tail...)
		}
		cands = append(cands, strings.Join(tail, " "))
		cands = append(cands, strings.Join(top(terms[:half], 4), " "))
	}
	cands = append(cands, strings.Join(top(terms, 2), " ")+" overview")
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		n := Normalize(c)
		if n == "" || seen[n] || SameAsQuestion(c, question) {
			continue
		}
		seen[n] = true
		out = append(out, strings.TrimSpace(c))
		if len(out) == 3 {
			break
		}
	}
	return out
}

// coreWords is how many words of the core concept a simplified query keeps.
const coreWords = 3

// Simplify is the quality-floor fallback for a search that returned too little: the query
// with its jargon stripped (IsJargon), cut to the first coreWords words of what remains, the
// core concept. It returns "" when no simpler query exists: nothing but jargon, or nothing to
// strip or cut.
func Simplify(query string) string {
	var core []string
	for _, t := range Terms(query) {
		if !IsJargon(t) {
			core = append(core, t)
		}
	}
	if len(core) == 0 {
		return ""
	}
	s := strings.Join(core[:min(len(core), coreWords)], " ")
	if Normalize(s) == Normalize(query) {
		return ""
	}
	return s
}

// IsJargon reports a term a plainer search does without: an acronym, identifier or name
// (any capital letter or digit, or an identifier mark such as . _ / inside it).
func IsJargon(term string) bool {
	for _, r := range term {
		if unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("._/:", r) {
			return true
		}
	}
	return false
}

// SimplifyV0 is the fallback before the floor-replace change (the two most salient terms);
// it stays so runs started before it replay.
func SimplifyV0(query string) string {
	terms := Terms(query)
	if len(terms) <= 2 {
		return ""
	}
	s := strings.Join(top(terms, 2), " ")
	if Normalize(s) == Normalize(query) {
		return ""
	}
	return s
}

// facets widen a query when every question term is already covered.
var facets = []string{"examples", "limitations", "performance", "configuration", "history", "comparison", "internals", "best practices"}

// GapQuery plans the next query from what the knowledge state does not yet cover: the question
// terms missing from it, anchored on the most salient term; when all are covered, the terms with
// a facet not yet used. It never repeats an earlier query nor returns the raw question.
func GapQuery(question, knowledge string, previous []string) string {
	terms := Terms(question)
	if len(terms) == 0 {
		return ""
	}
	known := map[string]bool{}
	for _, w := range text.Content(knowledge) {
		known[w] = true
	}
	var missing []string
	for _, t := range terms {
		if !known[strings.ToLower(t)] {
			missing = append(missing, t)
		}
	}
	used := map[string]bool{}
	for _, p := range previous {
		used[Normalize(p)] = true
	}
	ok := func(q string) bool {
		n := Normalize(q)
		return n != "" && !used[n] && !SameAsQuestion(q, question)
	}
	anchor := top(terms, 1)[0]
	if len(missing) > 0 {
		q := strings.Join(top(missing, 4), " ")
		if !strings.Contains(strings.ToLower(q), strings.ToLower(anchor)) {
			q = anchor + " " + q
		}
		if ok(q) {
			return q
		}
	}
	base := strings.Join(top(terms, 3), " ")
	for _, f := range facets {
		if q := base + " " + f; ok(q) {
			return q
		}
	}
	for _, f := range facets {
		if q := anchor + " " + f; ok(q) {
			return q
		}
	}
	return ""
}

func containsFold(ws []string, w string) bool {
	for _, x := range ws {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}
