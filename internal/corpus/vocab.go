package corpus

import (
	"context"
	"fmt"
	"strings"
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
// count in errors.
func (x *Index) termCounts(ctx context.Context, what, query string, stems []string) (map[string]int, error) {
	x.vocabOnce.Do(func() { _, x.vocabErr = x.db.ExecContext(ctx, vocabSchema) })
	if x.vocabErr != nil {
		return nil, fmt.Errorf("corpus %s: vocabulary: %w", x.path, x.vocabErr)
	}
	counts := make(map[string]int, len(stems))
	var distinct []any
	for _, s := range stems {
		if _, ok := counts[s]; !ok && s != "" {
			counts[s] = 0
			distinct = append(distinct, s)
		}
	}
	for len(distinct) > 0 {
		batch := distinct[:min(termBatch, len(distinct))]
		distinct = distinct[len(batch):]
		q := fmt.Sprintf(query, strings.TrimSuffix(strings.Repeat("?,", len(batch)), ","))
		if err := x.countRows(ctx, q, batch, counts); err != nil {
			return nil, fmt.Errorf("corpus %s: %s: %w", x.path, what, err)
		}
	}
	return counts, nil
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
