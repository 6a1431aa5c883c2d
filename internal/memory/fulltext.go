package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/sated-dev/sated/internal/chunk"
)

// FullText is the lexical side of memory: the embedded SQLite FTS5 index, or Meilisearch.
type FullText interface {
	Name() string
	// Health reports whether the backend answers; an unreachable backend wraps ErrFullTextUnavailable.
	Health(ctx context.Context) error
	// Index adds or replaces documents by ID.
	Index(ctx context.Context, docs []TextDoc) error
	// Search returns up to limit hits, best first; a higher Score is a better match.
	Search(ctx context.Context, query string, limit int) ([]TextHit, error)
	Delete(ctx context.Context, ids []string) error
	DeleteTask(ctx context.Context, task string) error
	Close() error
}

// TextDoc is what the full-text side stores per observation.
type TextDoc struct {
	ID   string `json:"id"`
	Text string `json:"fact"`
	Task string `json:"task"`
}

// TextHit is one full-text match.
type TextHit struct {
	ID    string
	Score float64
}

// ErrFullTextUnavailable marks a full-text backend that cannot be reached, so the store can
// fall back to the embedded index and say so.
var ErrFullTextUnavailable = errors.New("full-text backend unavailable")

// SQLiteFTS is the embedded full-text index: an FTS5 table with Porter stemming, ranked by BM25.
type SQLiteFTS struct {
	db   *sql.DB
	path string
	// checkpoint is the wal_checkpoint mode Checkpoint runs; "" turns it off (benchmarks only).
	checkpoint string
}

// OpenSQLiteFTS opens or creates the index file at path.
func OpenSQLiteFTS(path string) (*SQLiteFTS, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, fmt.Errorf("open full-text index %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; FTS5 queries are fast enough to share it
	// An FTS5 index over an ordinary table: the table's unique id and task indexes make
	// replace and delete cheap, the triggers keep the index in step.
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS obs(rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, task TEXT NOT NULL, fact TEXT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS obs_task ON obs(task)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS obs_fts USING fts5(fact, content='obs', content_rowid='rid', tokenize='porter unicode61')`,
		`CREATE TRIGGER IF NOT EXISTS obs_ai AFTER INSERT ON obs BEGIN INSERT INTO obs_fts(rowid, fact) VALUES (new.rid, new.fact); END`,
		`CREATE TRIGGER IF NOT EXISTS obs_ad AFTER DELETE ON obs BEGIN INSERT INTO obs_fts(obs_fts, rowid, fact) VALUES ('delete', old.rid, old.fact); END`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			return nil, fmt.Errorf("open full-text index %s (is it a sated SQLite file?): %w", path, err)
		}
	}
	return &SQLiteFTS{db: db, path: path, checkpoint: "TRUNCATE"}, nil
}

// Name says which backend answered.
func (f *SQLiteFTS) Name() string { return "sqlite-fts5" }

// Health pings the database file.
func (f *SQLiteFTS) Health(ctx context.Context) error { return f.db.PingContext(ctx) }

// Index replaces documents with the same ID in one transaction.
func (f *SQLiteFTS) Index(ctx context.Context, docs []TextDoc) error {
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, d := range docs {
		if _, err := tx.ExecContext(ctx, `DELETE FROM obs WHERE id = ?`, d.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO obs(id, task, fact) VALUES (?, ?, ?)`, d.ID, d.Task, d.Text); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Search matches any query word (stop words dropped) and ranks by BM25.
func (f *SQLiteFTS) Search(ctx context.Context, query string, limit int) ([]TextHit, error) {
	expr := matchExpr(query)
	if expr == "" || limit <= 0 {
		return nil, nil
	}
	rows, err := f.db.QueryContext(ctx, `SELECT obs.id, bm25(obs_fts) FROM obs_fts JOIN obs ON obs.rid = obs_fts.rowid WHERE obs_fts MATCH ? ORDER BY bm25(obs_fts) LIMIT ?`, expr, limit)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	var hits []TextHit
	for rows.Next() {
		var h TextHit
		if err := rows.Scan(&h.ID, &h.Score); err != nil {
			return nil, err
		}
		h.Score = -h.Score // bm25() is lower-is-better
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// matchExpr quotes each token so user text can never be read as FTS5 query syntax.
func matchExpr(query string) string {
	toks := chunk.Tokens(query)
	seen := map[string]bool{}
	var parts []string
	for _, t := range toks {
		if !seen[t] {
			seen[t] = true
			parts = append(parts, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		}
	}
	return strings.Join(parts, " OR ")
}

// Delete removes documents by ID.
func (f *SQLiteFTS) Delete(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if _, err := f.db.ExecContext(ctx, `DELETE FROM obs WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// DeleteTask removes every document of a task.
func (f *SQLiteFTS) DeleteTask(ctx context.Context, task string) error {
	_, err := f.db.ExecContext(ctx, `DELETE FROM obs WHERE task = ?`, task)
	return err
}

// Checkpoint copies the write-ahead log into the database file and empties the log, so the
// rows live in fulltext.db itself: a process killed later, or a lost fulltext.db-wal, keeps them.
func (f *SQLiteFTS) Checkpoint(ctx context.Context) error {
	if f.checkpoint == "" {
		return nil
	}
	var busy, logPages, done int
	if err := f.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(`+f.checkpoint+`)`).Scan(&busy, &logPages, &done); err != nil {
		return fmt.Errorf("checkpoint full-text index %s: %w", f.path, err)
	}
	if busy != 0 {
		return fmt.Errorf("checkpoint full-text index %s: the database was busy (%d of %d log pages copied)", f.path, done, logPages)
	}
	return nil
}

// QuickCheck runs SQLite's quick integrity check and returns its first complaint, "" when
// the file is sound.
func (f *SQLiteFTS) QuickCheck(ctx context.Context) (string, error) {
	return quickCheck(ctx, f.db)
}

func quickCheck(ctx context.Context, db *sql.DB) (string, error) {
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&res); err != nil {
		return "", err
	}
	if res == "ok" {
		return "", nil
	}
	return res, nil
}

// Count returns how many documents the index holds.
func (f *SQLiteFTS) Count(ctx context.Context) (int, error) {
	var n int
	err := f.db.QueryRowContext(ctx, `SELECT count(*) FROM obs`).Scan(&n)
	return n, err
}

// IDs returns every document id in the index.
func (f *SQLiteFTS) IDs(ctx context.Context) ([]string, error) {
	rows, err := f.db.QueryContext(ctx, `SELECT id FROM obs`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Close checkpoints and closes the database.
func (f *SQLiteFTS) Close() error {
	return errors.Join(f.Checkpoint(context.Background()), f.db.Close())
}
