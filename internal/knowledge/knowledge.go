// Package knowledge builds and compresses the knowledge state: a short, capped list of bullet
// facts that each round's results are compared against.
package knowledge

import (
	"sort"
	"strings"

	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/search"
)

// Bullets splits a knowledge state into its bullet facts.
func Bullets(state string) []string {
	var out []string
	for _, line := range strings.Split(state, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// Join renders bullets as the knowledge state, keeping whole bullets under the cap.
func Join(bullets []string, cap int) string {
	var b strings.Builder
	for _, f := range bullets {
		line := "- " + f
		if b.Len() > 0 {
			line = "\n" + line
		}
		if b.Len()+len(line) > cap {
			if b.Len() == 0 { // a single over-long fact is cut rather than lost
				return search.Truncate(line, cap-len("…"))
			}
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// resultFacts turns results into one candidate fact each: the title and the snippet.
func resultFacts(results []search.Result) []string {
	var out []string
	for _, r := range results {
		text := strings.Join(strings.Fields(r.Snippet), " ")
		title := strings.Join(strings.Fields(r.Title), " ")
		switch {
		case title != "" && text != "":
			out = append(out, title+": "+text)
		case text != "":
			out = append(out, text)
		case title != "":
			out = append(out, title)
		}
	}
	return out
}

// Initial builds the first round's state directly from its results: no compression call.
func Initial(results []search.Result, cap int) string {
	return Join(cover(nil, resultFacts(results), cap), cap)
}

// Compress merges new results into the state deterministically: candidate facts from the old
// state and the new results are chosen greedily by how many words they add that the chosen
// facts do not yet cover, until the cap is full. Old facts win ties, so the state is stable.
func Compress(state string, results []search.Result, cap int) string {
	return Join(cover(Bullets(state), resultFacts(results), cap), cap)
}

// cover picks facts by greedy maximum coverage of content words within the cap.
func cover(old, fresh []string, cap int) []string {
	cands := append(append([]string{}, old...), fresh...)
	words := make([][]string, len(cands))
	for i, c := range cands {
		words[i] = novelty.ContentWords(c)
	}
	covered := map[string]bool{}
	chosen := make([]bool, len(cands))
	used := 0
	for {
		best, bestGain := -1, 0
		for i := range cands {
			if chosen[i] || used+len(cands[i])+3 > cap && used > 0 {
				continue
			}
			gain := 0
			for _, w := range words[i] {
				if !covered[w] {
					gain++
				}
			}
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if best < 0 {
			break
		}
		chosen[best] = true
		used += len(cands[best]) + 3
		for _, w := range words[best] {
			covered[w] = true
		}
	}
	// keep the original order: old facts first, then new ones as they came
	var out []string
	for i, c := range cands {
		if chosen[i] {
			out = append(out, c)
		}
	}
	return out
}

// Attribute returns the indices of up to n candidates that support a fact: those sharing at
// least half of the fact's content words, best first (ties by index).
func Attribute(fact string, candidates []string, n int) []int {
	words := novelty.ContentWords(fact)
	if len(words) == 0 {
		return nil
	}
	type hit struct {
		i     int
		share float64
	}
	var hits []hit
	for i, c := range candidates {
		set := novelty.WordSet(c)
		k := 0
		for _, w := range words {
			if set[w] {
				k++
			}
		}
		if share := float64(k) / float64(len(words)); share >= 0.5 {
			hits = append(hits, hit{i, share})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].share > hits[b].share })
	var out []int
	for _, h := range hits {
		if len(out) == n {
			break
		}
		out = append(out, h.i)
	}
	return out
}
