package plan

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/sated-dev/sated/internal/text"
)

// Vocabulary tells how many documents of the searched corpus hold a term, so queries are built
// from the words that discriminate in that corpus. Terms are stems (text.Stem).
type Vocabulary interface {
	// DocFreq returns, for each stem, the number of documents holding it, and the corpus size.
	DocFreq(stems []string) (df map[string]int, docs int, err error)
}

// HeadingVocabulary is a Vocabulary that also knows how many documents name a term in their
// title or headings: the words a corpus is about. A question's everyday words ("someone",
// "nightly") can be rarer in the corpus than its topic words ("backup") and still say nothing
// about where the answer is.
type HeadingVocabulary interface {
	Vocabulary
	HeadingFreq(stems []string) (map[string]int, error)
}

// untitledWeight scales the idf of a term no title or heading of the corpus holds, when the
// vocabulary knows. Measured in internal/devloop over the SQLite, Python and PostgreSQL sets:
// 0.7 keeps report recall (0.207/0.339/0.110 against 0.207/0.312/0.102 at 1) and raises the
// evidence of unseen corpora (PostgreSQL 0.24 -> 0.29 at five searches); 0.5 and below lose
// report recall on SQLite and Python.
const untitledWeight = 0.7

// Aspect is one thing the question asks about, with the query that searches for it.
type Aspect struct {
	Text  string `json:"text"`
	Query string `json:"query"`
}

const (
	maxQueryTerms = 6
	// maxWholeTerms bounds the first query, the whole question's terms: as many as the corpus
	// searches (its maxQueryTerms), so a long question keeps the corpus's common words
	// ("index", "replica"). At 16 they were lost to the question's rare everyday words
	// (devloop, saturation report recall, same run: pgdocs 0.167 -> 0.190, Apache 0.151 ->
	// 0.160, PostgreSQL 0.148 -> 0.142, pooled over six sets 0.211 -> 0.216, evidence 0.391 ->
	// 0.400; shorter questions unchanged; the longest dev question searches 31 terms).
	maxWholeTerms = 32
	// nearDuplicate is the share of terms two queries may share before the second adds nothing.
	nearDuplicate = 0.6
)

// SplitAspects returns the clauses of a question, each a thing it asks about, in order. A
// question with one clause is its own single aspect.
func SplitAspects(question string) []string {
	// Go's regexp has no lookahead: find the separators, then cut where each ends.
	var out []string
	for _, part := range splitClauses(question) {
		part = strings.TrimSpace(strings.Trim(part, " ,;:.?!"))
		if len(Terms(part)) == 0 {
			continue
		}
		out = append(out, part)
	}
	if len(out) == 0 {
		if q := strings.TrimSpace(question); q != "" {
			return []string{q}
		}
	}
	return out
}

var (
	reEnd      = regexp.MustCompile(`[?;!]+\s*|\.\s+`)
	reJoin     = regexp.MustCompile(`(?i),?\s+(?:and|or|but|as well as)\s+(?:also\s+|then\s+)?(what|how|why|which|when|where|who|whether|does|do|is|are|can|could|should|will|would)\b`)
	reCommaAsk = regexp.MustCompile(`(?i),\s+(what|how|why|which|when|where|who|whether)\b`)
)

func splitClauses(q string) []string {
	var out []string
	for _, sent := range reEnd.Split(q, -1) {
		for _, part := range cutJoins(sent) {
			out = append(out, cutBefore(part, reCommaAsk)...)
		}
	}
	return out
}

// cutJoins splits a sentence where "and"/"or"/"but" opens another question ("..., and what
// counts as a data race"), except inside "between ... and ..." ("divide memory between
// caching data and what each query gets for sorting" asks one thing).
func cutJoins(sent string) []string {
	var out []string
	start := 0
	for _, m := range reJoin.FindAllStringSubmatchIndex(sent, -1) {
		before := strings.ToLower(sent[start:m[0]])
		if b := strings.LastIndex(before, "between "); b >= 0 && !strings.Contains(before[b:], " and ") {
			continue
		}
		out = append(out, sent[start:m[0]])
		start = m[2]
	}
	return append(out, sent[start:])
}

// cutBefore splits s at every match of re, keeping the match's first group (the question word)
// with the clause it opens.
func cutBefore(s string, re *regexp.Regexp) []string {
	var out []string
	start := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, s[start:m[0]])
		start = m[2]
	}
	return append(out, s[start:])
}

// idfOf weighs each term by its inverse document frequency in the corpus; terms the corpus
// lacks get -1. With no vocabulary every term weighs 1.
func idfOf(terms []string, vocab Vocabulary) map[string]float64 {
	w := make(map[string]float64, len(terms))
	for _, t := range terms {
		w[t] = 1
	}
	if vocab == nil || len(terms) == 0 {
		return w
	}
	// the index splits identifiers at dots, dashes and underscores ("sync.Mutex" is two
	// tokens), so a compound is looked up by its parts and counts as often as its rarest part
	parts := make([][]string, len(terms))
	var stems []string
	for i, t := range terms {
		for _, p := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			parts[i] = append(parts[i], text.Stem(p))
		}
		stems = append(stems, parts[i]...)
	}
	df, n, err := vocab.DocFreq(stems)
	if err != nil || n == 0 {
		return w
	}
	var hf map[string]int
	if hv, ok := vocab.(HeadingVocabulary); ok {
		// without heading counts every known term weighs its idf alone
		hf, _ = hv.HeadingFreq(stems)
	}
	for i, t := range terms {
		d, h := 0, 0
		for k, p := range parts[i] {
			if k == 0 || df[p] < d {
				d = df[p]
			}
			h = max(h, hf[p])
		}
		if d == 0 {
			w[t] = -1
			continue
		}
		w[t] = math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5))
		if hf != nil && h == 0 {
			w[t] *= untitledWeight
		}
	}
	return w
}

// discriminative keeps the terms the corpus holds, best idf first up to n, in question order.
func discriminative(terms []string, idf map[string]float64, n int) []string {
	var known []string
	for _, t := range terms {
		if idf[t] >= 0 {
			known = append(known, t)
		}
	}
	if len(known) <= n {
		return known
	}
	ranked := slices.Clone(known)
	slices.SortStableFunc(ranked, func(a, b string) int {
		switch {
		case idf[a] > idf[b]:
			return -1
		case idf[a] < idf[b]:
			return 1
		}
		return salience(b) - salience(a) // without a vocabulary: identifiers and long words first
	})
	keep := map[string]bool{}
	for _, t := range ranked[:n] {
		keep[t] = true
	}
	var out []string
	for _, t := range known {
		if keep[t] {
			out = append(out, t)
		}
	}
	return out
}

// AspectPlan searches the whole question first (every term the corpus holds, as a plain search
// box would: BM25 over all of them is the robust floor), then splits it into aspects and gives
// each a query of its discriminative terms; a question of one clause with many terms also gets
// a query of its strongest terms and one of the rest. No query is the raw question, none holds a
// word the corpus lacks, and no two aspect queries share most of their terms. Rounds after the
// plan's queries come from FeedbackQuery.
func AspectPlan(question string, vocab Vocabulary) (queries []string, aspects []Aspect) {
	asked := SplitAspects(question) // the aspects as asked, before compounds are added
	question = JoinCompounds(question, vocab)
	all := Terms(question)
	idf := idfOf(all, vocab)
	whole := discriminative(all, idf, maxQueryTerms)
	var used [][]string
	add := func(terms []string) string {
		q := strings.Join(terms, " ")
		if len(terms) == 0 || SameAsQuestion(q, question) {
			return ""
		}
		for _, u := range used {
			if termOverlap(terms, u) >= nearDuplicate {
				return ""
			}
		}
		used = append(used, terms)
		queries = append(queries, q)
		return q
	}
	if everything := discriminative(all, idf, maxWholeTerms); len(everything) > 0 && !SameAsQuestion(strings.Join(everything, " "), question) {
		queries = append(queries, strings.Join(everything, " "))
		if len(everything) <= maxQueryTerms {
			used = append(used, everything) // it is also the strongest-terms query
		}
	}
	parts := SplitAspects(question)
	if len(parts) == 1 {
		add(whole)
	}
	for i, part := range parts {
		terms := discriminative(Terms(part), idf, maxQueryTerms)
		if len(terms) < 3 {
			// a clause like "which settings matter" leans on the question's subject
			terms = anchorWith(terms, whole, idf)
		}
		q := add(terms)
		if q == "" {
			q = strings.Join(terms, " ")
		}
		text := part
		if len(asked) == len(parts) {
			text = asked[i]
		}
		aspects = append(aspects, Aspect{Text: text, Query: q})
	}
	if len(parts) == 1 && len(all) > maxQueryTerms {
		// one clause with many terms: also search the terms the first query left out, anchored
		// on its strongest term
		rest := slices.DeleteFunc(slices.Clone(all), func(t string) bool { return slices.Contains(whole, t) })
		strongest := discriminative(whole, idf, 1)
		add(append(strongest, discriminative(rest, idf, maxQueryTerms-1)...))
	}
	return queries, aspects
}

// anchorWith adds the question's most discriminative terms to a thin clause.
func anchorWith(terms, whole []string, idf map[string]float64) []string {
	out := slices.Clone(terms)
	for _, t := range discriminative(whole, idf, 4) {
		if len(out) >= 4 {
			break
		}
		if !containsFold(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// termOverlap is the Jaccard overlap of two queries' terms, compared by stem.
func termOverlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return text.Jaccard(stemsOf(a), stemsOf(b))
}

// stemsOf are the terms' lower-case stems.
func stemsOf(terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = text.Stem(strings.ToLower(t))
	}
	return out
}

// NearDuplicate reports whether query shares most of its terms with any earlier one.
func NearDuplicate(query string, previous []string) bool {
	qt := Terms(query)
	for _, p := range previous {
		if termOverlap(qt, Terms(p)) >= nearDuplicate {
			return true
		}
	}
	return false
}

// AspectCoverage is, per aspect, the largest share of its terms one evidence text holds (0-1),
// a text counting only when it holds two or more of them: a passage that answers an aspect
// names most of its terms together, while terms scattered over unrelated texts ("images" in a
// hotlinking recipe, "month" in a log-rotation one) answer nothing.
func AspectCoverage(aspects []Aspect, evidence []string) []float64 {
	// a qualified name an aspect writes ("sync.Once") the evidence often writes bare ("the Once
	// type"), as the answer reads it
	var asked []string
	for _, a := range aspects {
		asked = append(asked, a.Text)
	}
	aliases := text.NameAliases(strings.Join(asked, " "))
	sets := make([]map[string]bool, len(evidence))
	for i, e := range evidence {
		sets[i] = map[string]bool{}
		for _, t := range aliases.Terms(e) {
			sets[i][t] = true
		}
	}
	out := make([]float64, len(aspects))
	for j, a := range aspects {
		terms := text.Distinct(text.Terms(a.Text))
		if len(terms) == 0 {
			out[j] = 1
			continue
		}
		best := 0
		for _, s := range sets {
			n := 0
			for _, t := range terms {
				if s[t] {
					n++
				}
			}
			if n >= min(2, len(terms)) {
				best = max(best, n)
			}
		}
		out[j] = math.Round(100*float64(best)/float64(len(terms))) / 100
	}
	return out
}

// minCompoundDocs is how many documents must spell two question words as one before a query
// adds the joined word: one could be a typo.
const minCompoundDocs = 3

// JoinCompounds adds the one-word spelling of two adjacent content words where the corpus spells them as one
// word ("auto incrementing" where the documents say "autoincrement"): the joined word is in the
// corpus vocabulary, in at least minCompoundDocs documents. The two words stay: the joined one
// follows them.
func JoinCompounds(question string, vocab Vocabulary) string {
	if vocab == nil {
		return question
	}
	stem := func(w string) string { return text.Stem(strings.ToLower(w)) }
	type pair struct{ a, b string }
	var pairs []pair
	var stems []string
	words := text.Tokens(question)
	for i := 0; i+1 < len(words); i++ {
		a, b := words[i], words[i+1]
		if !text.IsContent(strings.ToLower(a)) || !text.IsContent(strings.ToLower(b)) {
			continue
		}
		pairs = append(pairs, pair{a, b})
		stems = append(stems, stem(a), stem(b), stem(a+b))
	}
	if len(pairs) == 0 {
		return question
	}
	df, _, err := vocab.DocFreq(stems)
	if err != nil {
		return question
	}
	for _, p := range pairs {
		if df[stem(p.a+p.b)] < minCompoundDocs {
			continue
		}
		for _, sep := range []string{" ", "-"} {
			question = strings.Replace(question, p.a+sep+p.b, p.a+sep+p.b+" "+p.a+p.b, 1)
		}
	}
	return question
}
