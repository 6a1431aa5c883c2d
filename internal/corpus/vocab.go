package corpus

import (
	"context"
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
	n, err := x.PassageCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	df, err := x.termCounts(ctx, "vocabulary", `SELECT coalesce(sum(doc), 0) FROM passages_vocab WHERE term = ?`, stems)
	if err != nil {
		return nil, 0, err
	}
	return df, n, nil
}

// HeadingFreq returns, for each stem, how many passages hold it in their page title or heading
// path: the corpus's topic words ("backup", "vacuum") score high, everyday words ("someone",
// "nightly") zero, however rare.
func (x *Index) HeadingFreq(ctx context.Context, stems []string) (map[string]int, error) {
	return x.termCounts(ctx, "heading vocabulary", `SELECT coalesce(sum(doc), 0) FROM passages_vocab_col WHERE term = ? AND col IN ('title', 'heading')`, stems)
}

// termCounts runs query (one count for the stem bound to it) once per distinct stem, creating
// the vocabulary tables on first use; what names the count in errors.
func (x *Index) termCounts(ctx context.Context, what, query string, stems []string) (map[string]int, error) {
	x.vocabOnce.Do(func() { _, x.vocabErr = x.db.ExecContext(ctx, vocabSchema) })
	if x.vocabErr != nil {
		return nil, fmt.Errorf("corpus %s: vocabulary: %w", x.path, x.vocabErr)
	}
	counts := make(map[string]int, len(stems))
	if len(stems) == 0 {
		return counts, nil
	}
	stmt, err := x.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %s: %w", x.path, what, err)
	}
	defer stmt.Close()
	for _, s := range stems {
		if _, ok := counts[s]; ok || s == "" {
			continue
		}
		var d int
		if err := stmt.QueryRowContext(ctx, s).Scan(&d); err != nil {
			return nil, fmt.Errorf("corpus %s: %s %q: %w", x.path, what, s, err)
		}
		counts[s] = d
	}
	return counts, nil
}
