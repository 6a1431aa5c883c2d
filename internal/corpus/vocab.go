package corpus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The fts5vocab table reads the passage index's own term statistics: how many passages hold
// each (Porter-stemmed) term. The planner weighs query words by it.
const vocabSchema = `CREATE VIRTUAL TABLE IF NOT EXISTS passages_vocab USING fts5vocab(passages_fts, 'row');`

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
