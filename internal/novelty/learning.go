package novelty

import (
	"math"
	"slices"

	"github.com/sated-dev/sated/internal/text"
)

// redundantSim is the similarity above which a fresh sentence says what a known one said.
const redundantSim = 0.6

// LearningInput is one round's fresh texts against all the evidence gathered so far.
type LearningInput struct {
	Question string
	Aspects  []string
	Fresh    []string // this round's new results (title and snippet, or passage text)
	Known    []string // every earlier accepted result
	// KnownRounds is how many rounds the known evidence came from; a round bringing less
	// relevant material than an average earlier one scores lower.
	KnownRounds int
}

// LearningOutput is the score and what it is made of, for the round record.
type LearningOutput struct {
	Score float64 // 0-10
	// NewShare is the share of the round's question-relevant material that no known text says.
	NewShare float64
	// Relevant and KnownRelevant are the relevance mass of the round and of all known evidence.
	Relevant, KnownRelevant float64
}

type unit struct {
	terms []int // sorted term ids
	rel   float64
}

// Learning scores how much new question-relevant information a round adds to all the evidence
// so far, on 0-10: each fresh sentence weighs by how much of the question (or its best aspect)
// it names, counts as new by how unlike every known sentence it is, and the new share is scaled
// down when the round brings less relevant material than an average earlier round. A round of
// new pages that repeat known facts, or that are off the question, scores near 0.
func Learning(in LearningInput) LearningOutput {
	ids := map[string]int{}
	asks := [][]int{termIDs(text.Terms(in.Question), ids)}
	for _, a := range in.Aspects {
		if t := termIDs(text.Terms(a), ids); len(t) > 0 {
			asks = append(asks, t)
		}
	}
	fresh := units(in.Fresh, ids, asks)
	known := units(in.Known, ids, asks)
	out := LearningOutput{}
	gain := 0.0
	for _, f := range fresh {
		best := 0.0
		for _, k := range known {
			best = max(best, setCosine(f.terms, k.terms))
			if best >= 1 {
				break
			}
		}
		out.Relevant += f.rel
		if best < redundantSim {
			gain += f.rel * (1 - best/redundantSim*0.5)
		}
	}
	for _, k := range known {
		out.KnownRelevant += k.rel
	}
	if out.Relevant == 0 {
		return out
	}
	out.NewShare = Round2(gain / out.Relevant)
	scale := 1.0
	if in.KnownRounds > 0 && out.KnownRelevant > 0 {
		scale = math.Min(1, out.Relevant/(out.KnownRelevant/float64(in.KnownRounds)))
	}
	out.Score = Round2(10 * gain / out.Relevant * scale)
	out.Relevant, out.KnownRelevant = Round2(out.Relevant), Round2(out.KnownRelevant)
	return out
}

// termIDs maps terms to small ints, sorted and distinct.
func termIDs(terms []string, ids map[string]int) []int {
	out := make([]int, 0, len(terms))
	for _, t := range terms {
		id, ok := ids[t]
		if !ok {
			id = len(ids)
			ids[t] = id
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// units splits texts into sentences that name something asked about, each weighted by the
// largest share of one ask (the question or an aspect) it names.
func units(texts []string, ids map[string]int, asks [][]int) []unit {
	var out []unit
	for _, t := range texts {
		for _, s := range text.Sentences(t) {
			terms := termIDs(text.Terms(s), ids)
			rel := 0.0
			for _, a := range asks {
				if len(a) > 0 {
					rel = max(rel, float64(intersect(terms, a))/float64(len(a)))
				}
			}
			if rel > 0 {
				out = append(out, unit{terms: terms, rel: rel})
			}
		}
	}
	return out
}

// intersect counts the ids two sorted slices share.
func intersect(a, b []int) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

func setCosine(a, b []int) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return float64(intersect(a, b)) / math.Sqrt(float64(len(a)*len(b)))
}
