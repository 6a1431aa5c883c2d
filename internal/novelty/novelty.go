// Package novelty holds the pure math of the novelty gate: heuristic novelty, overlap, the
// epsilon-greedy pass-through and embedding distance. Workflows call it; they never re-derive it.
package novelty

import (
	"math"

	"github.com/sated-dev/sated/internal/text"
)

// ContentWords returns the distinct content words of text (text.Content), in first-seen order.
func ContentWords(s string) []string { return text.Distinct(text.Content(s)) }

// WordSet is ContentWords as a set.
func WordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range text.Content(s) {
		set[w] = true
	}
	return set
}

// Heuristic scores how new text is against known on a 0-10 scale: the share of the distinct
// terms (stemmed content words) of text that known does not contain. Empty text scores 0:
// nothing new.
func Heuristic(s, known string) float64 {
	return Round2(10 * (1 - Overlap(s, known)))
}

// Overlap is the share of text's distinct terms that known already contains (0-1). Empty text
// overlaps fully: there is nothing in it worth fetching.
func Overlap(s, known string) float64 {
	return text.Overlap(text.Terms(s), text.Terms(known))
}

// SelectForEnrichment picks, in rank order, up to count snippets whose overlap with known is at
// most cut, and returns their indices.
func SelectForEnrichment(snippets []string, known string, cut float64, count int) []int {
	var out []int
	for i, s := range snippets {
		if len(out) >= count {
			break
		}
		if Overlap(s, known) <= cut {
			out = append(out, i)
		}
	}
	return out
}

// EnrichCandidate is one source as enrichment sees it, in rank order: its overlap with the
// knowledge state and whether that is over the cut (Skip). Indexed sources are never fetched.
type EnrichCandidate struct {
	Index   int
	Overlap float64
	Skip    bool
	Indexed bool
}

// EnrichmentCandidates ranks every source for enrichment. A source whose snippet is empty has
// overlap 0: nothing of the page is known yet, so reading it can only add. (Overlap counts empty
// text as fully known, which never fetched such a page.) snippets[i] is the source's title and
// snippet, "" when the snippet is empty; indexed[i] marks a source read from the index instead.
func EnrichmentCandidates(snippets []string, indexed []bool, known string, cut float64) []EnrichCandidate {
	out := make([]EnrichCandidate, len(snippets))
	for i, s := range snippets {
		c := EnrichCandidate{Index: i, Indexed: i < len(indexed) && indexed[i]}
		if s != "" {
			c.Overlap = Round2(Overlap(s, known))
		}
		c.Skip = !c.Indexed && c.Overlap > cut
		out[i] = c
	}
	return out
}

// splitmix64 is a small, well-mixed hash: the same seed and round always give the same draw.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Draw is the uniform number in [0,1) for a seed and a round: replay-safe because it depends on
// recorded inputs only.
func Draw(seed int64, round int) float64 {
	h := splitmix64(uint64(seed) ^ splitmix64(uint64(round)))
	return float64(h>>11) / float64(1<<53)
}

// EpsilonPass reports whether a sub-threshold round passes through anyway (epsilon-greedy).
func EpsilonPass(seed int64, round int, epsilon float64) bool {
	return epsilon > 0 && Draw(seed, round) < epsilon
}

// Decision is what the gate says about one scored round of a saturation run.
type Decision int

const (
	Accept Decision = iota
	DiscardContinue
	EpsilonContinue
	Stop
	// KeepAndStop: the round joins the evidence and the search ends (Kept)
	KeepAndStop
)

// Gate decides a scored round: at or above the threshold it is accepted; below it, a round before
// the minimum is discarded and the search goes on; from the minimum on, the epsilon draw lets it
// through or the loop stops.
func Gate(score, threshold float64, round, minRounds int, seed int64, epsilon float64) Decision {
	if score >= threshold {
		return Accept
	}
	if round < minRounds {
		return DiscardContinue
	}
	if EpsilonPass(seed, round, epsilon) {
		return EpsilonContinue
	}
	return Stop
}

// Kept decides a scored round the saturation design always accepts (rounds 2..minRounds): it
// joins the evidence whatever it scores, and the last of them (round minRounds), below the
// threshold, ends the search unless the epsilon draw lets the run go on. A run whose last
// guaranteed round taught it little is saturated: the next round, gated, would only confirm it
// one search later. It is Gate's decision with the round kept: discarded before the minimum becomes accepted,
// the stop at the minimum keeps the round.
func Kept(score, threshold float64, round, minRounds int, seed int64, epsilon float64) Decision {
	switch d := Gate(score, threshold, round, minRounds, seed, epsilon); d {
	case DiscardContinue:
		return Accept
	case Stop:
		return KeepAndStop
	default:
		return d
	}
}

// Cosine similarity of two vectors; 0 when either is empty or zero or they differ in length.
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// Embedding scores novelty 0-10 from embeddings: for each new vector its best similarity to any
// known vector; novelty is the mean distance (1 - similarity, clamped to [0,1]) scaled to 10.
// With nothing known everything is new.
func Embedding(fresh, known [][]float32) float64 {
	if len(fresh) == 0 {
		return 0
	}
	if len(known) == 0 {
		return 10
	}
	total := 0.0
	for _, f := range fresh {
		best := -1.0
		for _, k := range known {
			if s := Cosine(f, k); s > best {
				best = s
			}
		}
		d := 1 - best
		total += math.Max(0, math.Min(1, d))
	}
	return Round2(10 * total / float64(len(fresh)))
}

// Round2 rounds to two decimals so scores read cleanly in progress and reports.
func Round2(x float64) float64 { return math.Round(x*100) / 100 }
