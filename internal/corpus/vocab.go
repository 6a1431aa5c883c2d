package corpus

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
)

// The fts5vocab table reads the passage index's own term statistics: how many passages hold
// each (Porter-stemmed) term. The planner weighs query words by it.
// The 'col' table counts them per column, so the planner can tell the words the corpus names
// its sections by (headings and titles) from the words it merely uses.
const vocabSchema = `CREATE VIRTUAL TABLE IF NOT EXISTS passages_vocab USING fts5vocab(passages_fts, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS passages_vocab_col USING fts5vocab(passages_fts, 'col');`

// DocFreq returns, for each stem, how many passages hold it, and how many passages there are.
// Stems are as text.Stem makes them, which matches the index's porter tokenizer.
func (x *Index) DocFreq(ctx context.Context, stems []string) (map[string]int, int, error) {
	n, err := x.PassageCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	df, err := x.termCounts(ctx, "vocabulary", `SELECT term, doc FROM passages_vocab WHERE term IN (%s)`, stems)
	if err != nil {
		return nil, 0, err
	}
	return df, n, nil
}

// HeadingFreq returns, for each stem, how many passages hold it in their page title or heading
// path: the corpus's topic words ("backup", "vacuum") score high, everyday words ("someone",
// "nightly") zero, however rare.
func (x *Index) HeadingFreq(ctx context.Context, stems []string) (map[string]int, error) {
	return x.termCounts(ctx, "heading vocabulary", `SELECT term, sum(doc) FROM passages_vocab_col WHERE term IN (%s) AND col IN ('title', 'heading') GROUP BY term`, stems)
}

// termBatch is how many stems one vocabulary query looks up (SQLite allows 32,766 parameters).
const termBatch = 500

// termCounts counts the distinct stems with query (a format whose %s takes the placeholders of
// one batch, and which returns each stem found with its count), termBatch stems per query,
// creating the vocabulary tables on first use; a stem the corpus lacks counts 0. what names the
// count in errors and in the memo: a count read once is remembered until the corpus changes
// generation, since the answer weighs every evidence word by its heading count in each round's
// novelty and again in the synthesis (thousands of stems, 135-185 ms a lookup of all of them
// on the SQLite and Python dev corpora), and most of a round's words were in the round before.
func (x *Index) termCounts(ctx context.Context, what, query string, stems []string) (map[string]int, error) {
	x.vocabOnce.Do(func() { _, x.vocabErr = x.db.ExecContext(ctx, vocabSchema) })
	if x.vocabErr != nil {
		return nil, fmt.Errorf("corpus %s: vocabulary: %w", x.path, x.vocabErr)
	}
	v, err := x.Version(ctx)
	if err != nil {
		return nil, err
	}
	return x.vocab.count(v, what, stems, func(missing []any, into map[string]int) error {
		for len(missing) > 0 {
			batch := missing[:min(termBatch, len(missing))]
			missing = missing[len(batch):]
			q := fmt.Sprintf(query, strings.TrimSuffix(strings.Repeat("?,", len(batch)), ","))
			if err := x.countRows(ctx, q, batch, into); err != nil {
				return fmt.Errorf("corpus %s: %s: %w", x.path, what, err)
			}
		}
		return nil
	})
}

// maxVocabMemo bounds the counts remembered over all kinds; when full the memo starts over.
const maxVocabMemo = 200000

// vocabMemo remembers term counts per kind of count for one corpus generation.
type vocabMemo struct {
	mu      sync.Mutex
	version string
	counts  map[string]map[string]int // kind (termCounts' what, matchCounts) -> term -> count
	size    int
}

// recall returns the remembered counts of kind for generation v of each distinct stem ("" left
// out), 0 for the others, and the others, to be counted.
func (m *vocabMemo) recall(v, kind string, stems []string) (map[string]int, []any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := make(map[string]int, len(stems))
	var missing []any
	for _, s := range stems {
		if _, ok := counts[s]; ok || s == "" {
			continue
		}
		n, ok := m.counts[kind][s]
		if !ok || m.version != v {
			n = 0
			missing = append(missing, s)
		}
		counts[s] = n
	}
	return counts, missing
}

// count is the count of kind of each distinct stem ("" left out) in generation v: remembered
// ones from the memo, the others counted by count (which sets the counts of the stems it is
// given; one it leaves out counts 0) and remembered.
func (m *vocabMemo) count(v, kind string, stems []string, count func(missing []any, into map[string]int) error) (map[string]int, error) {
	counts, missing := m.recall(v, kind, stems)
	fresh := make(map[string]int, len(missing))
	for _, s := range missing {
		fresh[s.(string)] = 0
	}
	if err := count(missing, fresh); err != nil {
		return nil, err
	}
	maps.Copy(counts, fresh)
	m.remember(v, kind, fresh)
	return counts, nil
}

// remember stores counts of kind read from generation v; counts of another generation than the
// memo holds replace it.
func (m *vocabMemo) remember(v, kind string, counts map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.version != v || m.size+len(counts) > maxVocabMemo {
		m.version, m.counts, m.size = v, map[string]map[string]int{}, 0
	}
	if m.counts[kind] == nil {
		m.counts[kind] = map[string]int{}
	}
	for s, n := range counts {
		if _, ok := m.counts[kind][s]; !ok {
			m.size++
		}
		m.counts[kind][s] = n
	}
}

// countRows reads (term, count) rows into counts.
func (x *Index) countRows(ctx context.Context, query string, args []any, counts map[string]int) error {
	rows, err := x.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var n int
		if err := rows.Scan(&term, &n); err != nil {
			return err
		}
		counts[term] = n
	}
	return rows.Err()
}
