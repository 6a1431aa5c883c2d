package corpus

import (
	"context"
	"math"
	"slices"
	"sync"

	"github.com/sated-dev/sated/internal/text"
)

// Ranking a plain OR of the query words costs FTS5 a bm25 call per matching passage and, for
// its idf, a pass over every word's whole posting list: a query with a common word ("type",
// "time") ranks 10k+ passages (60-200 ms). So a query whose words match more than
// exactBudget passages together is ranked in two steps: its rarest words (together matching
// at most rareBudget passages) pick candidates by bm25, and the common words' bm25 terms are
// added in Go over those candidates' text only, with their document frequencies counted
// once per corpus generation. On the 20 benchmark queries this keeps 93.5% of the exact top 10
// (BenchmarkCorpusSearch reports it as exact-top10).
const (
	exactBudget = 1500
	rareBudget  = 2000
	// candidatesPerResult is how many rare-word candidates each result is chosen from.
	candidatesPerResult = 5
	minCandidates       = 100
	// bm25 parameters of FTS5's bm25().
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rankStats are per-generation corpus statistics for ranking: the passage count and their
// average length. The words' document frequencies are remembered with the other term counts
// (vocabMemo).
type rankStats struct {
	mu      sync.Mutex
	version string
	n       int
	avgLen  float64
}

// matchCounts is the kind of term count termStats remembers: how many passages a word matches.
const matchCounts = "passages matching"

// termStats returns the document frequency of each term (the passages it matches), the
// passage count and average length.
func (x *Index) termStats(ctx context.Context, terms []string) (df []int, n int, avgLen float64, err error) {
	v, err := x.Version(ctx)
	if err != nil {
		return nil, 0, 0, err
	}
	s := &x.stats
	s.mu.Lock()
	if s.version != v {
		err := x.db.QueryRowContext(ctx, `SELECT count(*), coalesce(avg(length(title) + length(heading) + length(text)), 1) FROM passages`).Scan(&s.n, &s.avgLen)
		if err != nil {
			s.mu.Unlock()
			return nil, 0, 0, err
		}
		s.version = v
	}
	n, avgLen = s.n, s.avgLen
	s.mu.Unlock()
	counts, err := x.vocab.count(v, matchCounts, terms, func(missing []any, into map[string]int) error {
		for _, t := range missing {
			var d int
			if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM passages_fts WHERE passages_fts MATCH ?`, matchQuery([]string{t.(string)})).Scan(&d); err != nil {
				return err
			}
			into[t.(string)] = d
		}
		return nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	for _, t := range terms {
		df = append(df, counts[t])
	}
	return df, n, avgLen, nil
}

// candidate is a passage with what ranking needs.
type candidate struct {
	Passage
	headings string
	rank     float64
}

// rankedPassages returns the best limit passages for terms, best first.
func (x *Index) rankedPassages(ctx context.Context, terms []string, limit int) ([]candidate, error) {
	df, n, avgLen, err := x.termStats(ctx, terms)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, d := range df {
		total += d
	}
	if total <= exactBudget {
		return x.topPassages(ctx, terms, limit)
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return df[a] - df[b] })
	var rare, common []string
	var commonIdf []float64
	sum := 0
	for k, i := range order {
		if d := df[i]; d == 0 {
			continue
		} else if k == 0 || len(rare) == 0 || sum+d <= rareBudget {
			rare, sum = append(rare, terms[i]), sum+d
		} else {
			common = append(common, terms[i])
			commonIdf = append(commonIdf, idf(n, d))
		}
	}
	cands, err := x.topPassages(ctx, rare, max(minCandidates, candidatesPerResult*limit))
	if err != nil {
		return nil, err
	}
	for i := range cands {
		cands[i].rank -= commonScore(&cands[i], common, commonIdf, avgLen)
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.rank < b.rank:
			return -1
		case a.rank > b.rank:
			return 1
		}
		return 0
	})
	return cands[:min(limit, len(cands))], nil
}

// idf is FTS5 bm25's inverse document frequency.
func idf(n, d int) float64 {
	v := math.Log((float64(n) - float64(d) + 0.5) / (float64(d) + 0.5))
	return max(v, 1e-6)
}

// commonScore is the bm25 contribution of the common words to a candidate, as FTS5 would
// compute it: weighted term frequency over title, headings and text, saturated by length
// (in characters here, against the average in characters).
func commonScore(c *candidate, common []string, idfs []float64, avgLen float64) float64 {
	cols := []struct {
		text   string
		weight float64
	}{{c.Title, titleWeight}, {c.headings, headingWeight}, {c.Text, 1}}
	freq := make([]float64, len(common))
	stems := make([]string, len(common))
	for i, t := range common {
		stems[i] = text.Stem(t)
	}
	first := newFirstBytes(stems)
	length := 0
	for _, col := range cols {
		length += len(col.text)
		eachStemmed(col.text, first, func(_ int, stem string) {
			for ti, t := range stems {
				if stem == t {
					freq[ti] += col.weight
				}
			}
		})
	}
	score := 0.0
	norm := bm25K1 * (1 - bm25B + bm25B*float64(length)/avgLen)
	for i, f := range freq {
		score += idfs[i] * f * (bm25K1 + 1) / (f + norm)
	}
	return score
}

// topPassages ranks passages matching any of terms by bm25 inside FTS5 (ORDER BY rank lets
// it sort only ranks), then reads only the winners.
func (x *Index) topPassages(ctx context.Context, terms []string, limit int) ([]candidate, error) {
	rows, err := x.db.QueryContext(ctx, `
		WITH top AS (
			SELECT rowid, rank FROM passages_fts WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?)
		SELECT `+passageColumns+`, p.heading, top.rank
		FROM top JOIN passages p ON p.rowid = top.rowid JOIN docs d ON d.rowid = p.page
		ORDER BY top.rank`, matchQuery(terms), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		var url string
		if err := rows.Scan(&c.PageID, &url, &c.Title, &c.Heading, &c.Anchor, &c.Text, &c.Ordinal, &c.headings, &c.rank); err != nil {
			return nil, err
		}
		c.ID = PassageID(c.PageID, c.Ordinal)
		c.URL = withAnchor(url, c.Anchor)
		out = append(out, c)
	}
	return out, rows.Err()
}
