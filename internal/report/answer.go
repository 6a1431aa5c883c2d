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

// DefaultFindingsBudget bounds the findings an extractive answer writes, in characters.
const DefaultFindingsBudget = 8000

// Answer tuning: relevance weights, the MMR trade-off and the floors below which a sentence is
// not a finding. Chosen on the dev sets (internal/eval/testdata), not on the hold-out.
const (
	weightSentence  = 0.55 // the sentence itself names the aspect's terms
	weightQuestion  = 0.20 // ... or the question's
	weightPassage   = 0.25 // the passage it sits in is about the aspect
	mmrLambda       = 0.75 // relevance against redundancy
	redundantAbove  = 0.70 // a sentence this similar to a picked one adds nothing
	minFindingScore = 0.18
	minQuoteChars   = 25
)

// AnswerInput is what an extractive answer is written from.
type AnswerInput struct {
	Question string
	// Aspects are the clauses the question asks about, in the plan's order; none means the
	// question is a single aspect.
	Aspects []string
	// Sources are numbered; each is quoted from its Text, or its Snippet when not read in full.
	Sources []research.Source
	// Budget bounds the findings in characters; 0 means DefaultFindingsBudget.
	Budget int
}

// AspectCoverage says how much of one aspect the findings answer.
type AspectCoverage struct {
	Aspect   string  `json:"aspect"`
	Coverage float64 `json:"coverage"` // share of the aspect's term weight the findings contain, 0-1
	Findings int     `json:"findings"`
}

// AnswerOutput is the findings, cited with the sources renumbered by first citation.
type AnswerOutput struct {
	Body string
	// Order lists the original source numbers in their new order: Order[i] becomes i+1.
	// Sources never cited follow the cited ones in their original order.
	Order    []int
	Coverage []AspectCoverage
}

type candidate struct {
	src     int // index into the sources
	idx     int // position within its source
	text    string
	terms   []string
	rel     []float64 // score per aspect
	picked  bool
	aspect  int
	quality float64
}

// Answer ranks every evidence sentence by relevance to the question and its aspects, picks by
// maximal marginal relevance until the budget is spent, and groups the quotes under the aspect
// each answers, best source first. Quotes are exact; every one is cited.
func Answer(in AnswerInput) AnswerOutput {
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultFindingsBudget
	}
	aspects := in.Aspects
	if len(aspects) == 0 {
		aspects = []string{in.Question}
	}
	cands := answerCandidates(in.Question, in.Sources)
	idf := sentenceIDF(cands)
	qterms := text.Terms(in.Question)
	aterms := make([][]string, len(aspects))
	for j, a := range aspects {
		aterms[j] = text.Terms(a)
		if len(aterms[j]) == 0 {
			aterms[j] = qterms
		}
	}
	scoreCandidates(cands, in.Sources, qterms, aterms, idf)
	picked := selectMMR(cands, len(aspects), budget)
	body, order := renderAnswer(aspects, in.Sources, cands, picked)
	return AnswerOutput{Body: body, Order: order, Coverage: coverage(aspects, aterms, cands, picked, idf)}
}

var (
	// reNavigation matches site chrome that survives extraction: "Prev Up Home Next", breadcrumbs.
	reNavigation = regexp.MustCompile(`(?i)^(\W*(prev(ious)?|next|up|home|index|contents|top|back|table of contents|search|modules|next topic|previous topic|this page|show source|navigation|quick search)\b\W*){2,}`)
	// reTOCEntry matches numbered table-of-contents lines: "71.2. Index Maintenance".
	reTOCEntry = regexp.MustCompile(`^(\d+\.)+\d*\s+\S+(\s+\S+){0,6}$`)
)

// answerCandidates splits every source into quotable sentences, dropping chrome, questions,
// run-ons and repeats.
func answerCandidates(question string, sources []research.Source) []candidate {
	seen := map[string]bool{}
	lq := strings.ToLower(question)
	var out []candidate
	for i, s := range sources {
		body := s.Text
		if strings.TrimSpace(body) == "" {
			body = s.Snippet
		}
		if looksMarkdown(body) {
			body = extract.PlainText(reHeading.ReplaceAllString(body, ""))
		}
		for k, sent := range text.Sentences(reFootnote.ReplaceAllString(body, "")) {
			sent = strings.TrimSpace(strings.TrimRight(sent, " …"))
			key := sentenceKey(sent)
			if len(sent) < minQuoteChars || len(sent) > maxQuoteChars || strings.HasSuffix(sent, "?") ||
				seen[key] || isBoilerplate(sent, lq) || reNavigation.MatchString(sent) || reTOCEntry.MatchString(sent) {
				continue
			}
			seen[key] = true
			t := text.Terms(sent)
			if len(t) < 2 {
				continue
			}
			out = append(out, candidate{src: i, idx: k, text: sent, terms: t, quality: sentenceQuality(sent, t)})
		}
	}
	return out
}

// looksMarkdown reports whether a source text carries Markdown markup worth flattening; corpus
// passages are plain text and are quoted as they are.
func looksMarkdown(s string) bool {
	return strings.Contains(s, "](") || strings.Contains(s, "\n#") || strings.HasPrefix(s, "#") || strings.Contains(s, "**")
}

// sentenceQuality discounts fragments: very short sentences and those made mostly of
// capitalised words (titles, menus) rarely state a fact.
func sentenceQuality(s string, terms []string) float64 {
	q := 1.0
	if len(terms) < 4 {
		q *= 0.75
	}
	words := strings.Fields(s)
	caps := 0
	for _, w := range words {
		if r := []rune(w); len(r) > 0 && r[0] >= 'A' && r[0] <= 'Z' {
			caps++
		}
	}
	if len(words) >= 4 && float64(caps) > 0.6*float64(len(words)) {
		q *= 0.5
	}
	if !strings.ContainsAny(s[len(s)-1:], ".!:;)") {
		q *= 0.9 // unfinished line: a label or a heading
	}
	return q
}

// sentenceIDF weighs terms by how few evidence sentences use them: a word in every sentence
// (the corpus's own name) says nothing about which sentence answers.
func sentenceIDF(cands []candidate) map[string]float64 {
	df := map[string]int{}
	for _, c := range cands {
		for _, t := range c.terms {
			df[t]++
		}
	}
	n := float64(len(cands))
	idf := make(map[string]float64, len(df))
	for t, d := range df {
		idf[t] = math.Log(1 + n/float64(d))
	}
	return idf
}

// weightOf is the idf mass of terms; a term no sentence holds weighs half an average term: it
// cannot tell sentences apart, but a sentence naming the rest still answers only part.
func weightOf(terms []string, idf map[string]float64, missing float64) float64 {
	w := 0.0
	for _, t := range terms {
		if v, ok := idf[t]; ok {
			w += v
		} else {
			w += missing
		}
	}
	return w
}

// missingWeight is the weight of a term no evidence sentence holds.
func missingWeight(idf map[string]float64) float64 {
	if len(idf) == 0 {
		return 1
	}
	sum := 0.0
	for _, v := range idf {
		sum += v
	}
	return 0.5 * sum / float64(len(idf))
}

// matchWeight is the share of want's idf mass that have contains.
func matchWeight(want []string, have map[string]bool, idf map[string]float64, missing float64) float64 {
	total := weightOf(want, idf, missing)
	if total == 0 {
		return 0
	}
	got := 0.0
	for _, t := range want {
		if have[t] {
			got += idf[t]
		}
	}
	return got / total
}

func scoreCandidates(cands []candidate, sources []research.Source, qterms []string, aterms [][]string, idf map[string]float64) {
	missing := missingWeight(idf)
	// passage relevance: how much of each aspect a source's title and text hold
	srcTerms := make([]map[string]bool, len(sources))
	for i := range sources {
		srcTerms[i] = map[string]bool{}
	}
	for _, c := range cands {
		for _, t := range c.terms {
			srcTerms[c.src][t] = true
		}
	}
	for i, s := range sources {
		for _, t := range text.Terms(s.Title) {
			srcTerms[i][t] = true
		}
	}
	passage := make([][]float64, len(sources))
	for i := range sources {
		passage[i] = make([]float64, len(aterms))
		for j, at := range aterms {
			passage[i][j] = matchWeight(at, srcTerms[i], idf, missing)
		}
	}
	for k := range cands {
		c := &cands[k]
		have := make(map[string]bool, len(c.terms))
		for _, t := range c.terms {
			have[t] = true
		}
		q := matchWeight(qterms, have, idf, missing)
		c.rel = make([]float64, len(aterms))
		for j, at := range aterms {
			s := matchWeight(at, have, idf, missing)
			if s == 0 && q == 0 {
				continue // a sentence naming nothing asked about is not a finding
			}
			// earlier sentences of a passage state its point; later ones detail it
			position := 1 / (1 + 0.05*float64(c.idx))
			c.rel[j] = c.quality * (weightSentence*s + weightQuestion*q + weightPassage*passage[c.src][j]*position)
		}
	}
}

// similarity is the cosine of two term sets.
func similarity(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for _, t := range a {
		if slices.Contains(b, t) {
			n++
		}
	}
	return float64(n) / math.Sqrt(float64(len(a)*len(b)))
}

// quoteCost is the characters one quote adds to the findings: the bullet, the citation, the line.
func quoteCost(c candidate) int { return len(c.text) + 8 }

// selectMMR picks sentences round-robin over the aspects, each time the one with the best
// relevance less its similarity to what is already picked, until the budget is spent or no
// sentence is worth quoting.
func selectMMR(cands []candidate, naspects, budget int) []int {
	var picked []int
	spent := 0
	headings := 0
	if naspects > 1 {
		headings = 60 * naspects
	}
	exhausted := make([]bool, naspects)
	for left := naspects; left > 0; {
		left = 0
		for j := 0; j < naspects; j++ {
			if exhausted[j] {
				continue
			}
			best, bestScore := -1, 0.0
			for k := range cands {
				c := &cands[k]
				if c.picked || c.rel[j] < minFindingScore || spent+quoteCost(*c)+headings > budget {
					continue
				}
				red := 0.0
				for _, p := range picked {
					red = max(red, similarity(c.terms, cands[p].terms))
				}
				if red > redundantAbove {
					continue
				}
				if s := mmrLambda*c.rel[j] - (1-mmrLambda)*red; best < 0 || s > bestScore {
					best, bestScore = k, s
				}
			}
			if best < 0 {
				exhausted[j] = true
				continue
			}
			left++
			cands[best].picked, cands[best].aspect = true, j
			picked = append(picked, best)
			spent += quoteCost(cands[best])
		}
	}
	return picked
}

// renderAnswer writes the picked quotes under their aspects, sources ordered by their best
// quote, quotes of one source in document order, and numbers sources by first citation.
func renderAnswer(aspects []string, sources []research.Source, cands []candidate, picked []int) (string, []int) {
	newN := map[int]int{}
	var order []int
	var b strings.Builder
	for j, a := range aspects {
		var mine []int
		for _, p := range picked {
			if cands[p].aspect == j {
				mine = append(mine, p)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if len(aspects) > 1 {
			fmt.Fprintf(&b, "### %s\n\n", escapeQuote(strings.TrimRight(oneLine(a), "?. ")))
		}
		// sources by their best quote for this aspect, then that source's quotes in order
		bySrc := map[int][]int{}
		var srcOrder []int
		for _, p := range mine { // mine is in pick order: best first
			s := cands[p].src
			if _, ok := bySrc[s]; !ok {
				srcOrder = append(srcOrder, s)
			}
			bySrc[s] = append(bySrc[s], p)
		}
		for _, s := range srcOrder {
			n, ok := newN[s]
			if !ok {
				n = len(order) + 1
				newN[s] = n
				order = append(order, sources[s].N)
			}
			ps := bySrc[s]
			slices.SortFunc(ps, func(x, y int) int { return cands[x].idx - cands[y].idx })
			for _, p := range ps {
				fmt.Fprintf(&b, "- %s [%d]\n", escapeQuote(cands[p].text), n)
			}
		}
		b.WriteByte('\n')
	}
	for i, s := range sources {
		if _, ok := newN[i]; !ok {
			order = append(order, s.N)
		}
	}
	return strings.TrimSpace(b.String()) + "\n", order
}

// quoteEscaper escapes only what Markdown would turn into markup or a false citation; the
// quoted characters themselves stay, so a quote reads exactly as the source wrote it.
var quoteEscaper = strings.NewReplacer("*", `\*`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`)

func escapeQuote(s string) string { return quoteEscaper.Replace(s) }

// coverage is, per aspect, the share of its term weight the picked quotes contain.
func coverage(aspects []string, aterms [][]string, cands []candidate, picked []int, idf map[string]float64) []AspectCoverage {
	missing := missingWeight(idf)
	out := make([]AspectCoverage, len(aspects))
	for j, a := range aspects {
		have := map[string]bool{}
		n := 0
		for _, p := range picked {
			if cands[p].aspect == j {
				n++
			}
			for _, t := range cands[p].terms {
				have[t] = true
			}
		}
		out[j] = AspectCoverage{Aspect: a, Findings: n, Coverage: math.Round(100*matchWeight(aterms[j], have, idf, missing)) / 100}
	}
	return out
}
