package corpus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	x.vocabOnce.Do(func() { _, x.vocabErr = x.db.ExecContext(ctx, vocabSchema) })
	if x.vocabErr != nil {
		return nil, 0, fmt.Errorf("corpus %s: vocabulary: %w", x.path, x.vocabErr)
	}
	n, err := x.PassageCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	df := make(map[string]int, len(stems))
	for _, s := range stems {
		if _, ok := df[s]; ok || s == "" {
			continue
		}
		var d int
		err := x.db.QueryRowContext(ctx, `SELECT doc FROM passages_vocab WHERE term = ?`, s).Scan(&d)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, 0, fmt.Errorf("corpus %s: vocabulary %q: %w", x.path, s, err)
		}
		df[s] = d
	}
	return df, n, nil
}

// HeadingFreq returns, for each stem, how many passages hold it in their page title or heading
// path: the corpus's topic words ("backup", "vacuum") score high, everyday words ("someone",
// "nightly") zero, however rare.
func (x *Index) HeadingFreq(ctx context.Context, stems []string) (map[string]int, error) {
	x.vocabOnce.Do(func() { _, x.vocabErr = x.db.ExecContext(ctx, vocabSchema) })
	if x.vocabErr != nil {
		return nil, fmt.Errorf("corpus %s: vocabulary: %w", x.path, x.vocabErr)
	}
	hf := make(map[string]int, len(stems))
	for _, s := range stems {
		if _, ok := hf[s]; ok || s == "" {
			continue
		}
		var d int
		err := x.db.QueryRowContext(ctx, `SELECT coalesce(sum(doc), 0) FROM passages_vocab_col WHERE term = ? AND col IN ('title', 'heading')`, s).Scan(&d)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: heading vocabulary %q: %w", x.path, s, err)
		}
		hf[s] = d
	}
	return hf, nil
}
