package text

import "math"

// Bag counts terms: a text as a term-frequency vector.
type Bag map[string]float64

// NewBag counts terms (usually Terms(s) or Content(s)).
func NewBag(terms []string) Bag {
	b := make(Bag, len(terms))
	for _, t := range terms {
		b[t]++
	}
	return b
}

// Cosine is the cosine similarity of two bags, in [0,1]; 0 when either is empty.
func Cosine(a, b Bag) float64 {
	if len(a) > len(b) {
		a, b = b, a // iterate the smaller bag for the dot product
	}
	var dot, na, nb float64
	for t, v := range a {
		na += v * v
		dot += v * b[t]
	}
	for _, v := range b {
		nb += v * v
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Jaccard is the share of distinct terms the two lists have in common, of all their distinct
// terms, in [0,1]; 0 when both are empty.
func Jaccard(a, b []string) float64 {
	// counted over the slice, not a map, as in Overlap: the research workflow's diagnosis
	// calls it (plan.NearDuplicate)
	da, bs := Distinct(a), set(b)
	inter := 0
	for _, t := range da {
		if bs[t] {
			inter++
		}
	}
	union := len(da) + len(bs) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// Overlap is the share of a's distinct terms that b contains, in [0,1]. An empty a overlaps
// fully: it brings nothing b lacks.
func Overlap(a, b []string) float64 {
	// counted over the slice, not a map: workflows call this, and workflowcheck (rightly)
	// refuses map iteration in workflow code
	distinct := Distinct(a)
	if len(distinct) == 0 {
		return 1
	}
	bs := set(b)
	hit := 0
	for _, t := range distinct {
		if bs[t] {
			hit++
		}
	}
	return float64(hit) / float64(len(distinct))
}

func set(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// InOrder is the share of the longer list's terms that the two lists write in the same order
// (their longest common subsequence), in [0,1]; 0 when either is empty. Two statements that
// use the same words in another order are not one: "a send is synchronized before the
// corresponding receive" and "a receive is synchronized before the corresponding send" have the
// same terms, and a Cosine of 1.
func InOrder(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(max(len(a), len(b)))
}
