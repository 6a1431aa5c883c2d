package text

import "math"

// BM25 scores each document (its terms, as Terms gives them) for the query's terms with Okapi
// BM25 (k1 1.2, b 0.75), the document frequencies and average length taken from docs
// themselves: what ranks a set of texts by relevance when no index holds them (an
// investigation's findings). A query term repeated counts once.
func BM25(query []string, docs [][]string) []float64 {
	const k1, b = 1.2, 0.75
	q := Distinct(query)
	df := make(map[string]int, len(q))
	want := make(map[string]bool, len(q))
	for _, t := range q {
		want[t] = true
	}
	tfs := make([]map[string]int, len(docs))
	total := 0
	for i, d := range docs {
		tf := map[string]int{}
		for _, t := range d {
			if want[t] {
				tf[t]++
			}
		}
		for t := range tf {
			df[t]++
		}
		tfs[i] = tf
		total += len(d)
	}
	scores := make([]float64, len(docs))
	if len(docs) == 0 || total == 0 {
		return scores
	}
	n, avg := float64(len(docs)), float64(total)/float64(len(docs))
	for i, tf := range tfs {
		norm := k1 * (1 - b + b*float64(len(docs[i]))/avg)
		for _, t := range q {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			scores[i] += idf * f * (k1 + 1) / (f + norm)
		}
	}
	return scores
}
