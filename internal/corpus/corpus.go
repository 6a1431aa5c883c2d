// Package corpus is the embedded full-text search provider: local files and fetched pages
// indexed in SQLite FTS5, ranked by BM25, readable again by document id for enrichment.
package corpus

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sated-dev/sated/internal/search"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound marks a document id the index does not hold.
var ErrNotFound = errors.New("document not found")

// Format names of stored documents.
const (
	FormatHTML     = "html"
	FormatMarkdown = "markdown"
	FormatText     = "text"
)

// titleWeight makes a term in the title count this many times a term in the body for bm25.
const titleWeight = 8.0

// maxLimit bounds how many results one search returns.
const maxLimit = 100

// Document is one stored, searchable text.
type Document struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Format string `json:"format"`
}

// DocID is the stable id of the document at url.
func DocID(url string) string {
	sum := sha256.Sum256([]byte(url))
	return hex.EncodeToString(sum[:16])
}

// Index is an open corpus file; it is safe for concurrent use.
type Index struct {
	db   *sql.DB
	path string
}

var _ search.Provider = (*Index)(nil)

// External-content FTS5 table: the body is stored once (in docs) and the triggers keep the
// full-text index in step with it.
const schema = `
CREATE TABLE IF NOT EXISTS docs (
	rowid  INTEGER PRIMARY KEY,
	id     TEXT NOT NULL UNIQUE,
	url    TEXT NOT NULL,
	title  TEXT NOT NULL,
	body   TEXT NOT NULL,
	format TEXT NOT NULL,
	hash   TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
	title, body, content='docs', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS docs_ai AFTER INSERT ON docs BEGIN
	INSERT INTO docs_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
END;
CREATE TRIGGER IF NOT EXISTS docs_ad AFTER DELETE ON docs BEGIN
	INSERT INTO docs_fts(docs_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
END;
CREATE TRIGGER IF NOT EXISTS docs_au AFTER UPDATE ON docs BEGIN
	INSERT INTO docs_fts(docs_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
	INSERT INTO docs_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
END;`

// Open opens or creates the corpus at path, creating its directory.
func Open(path string) (*Index, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("corpus %s: %w", path, err)
		}
	}
	db, err := openSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("corpus %s: not a usable corpus database (corrupt or foreign file?): %w", path, err)
	}
	return &Index{db: db, path: path}, nil
}

// openSQLite opens path in WAL mode with a busy timeout, so a worker and a CLI can share it.
func openSQLite(path string) (*sql.DB, error) {
	if strings.ContainsRune(path, '?') {
		return nil, errors.New("path must not contain '?'")
	}
	return sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
}

// Close releases the database.
func (x *Index) Close() error { return x.db.Close() }

// Name implements search.Provider.
func (x *Index) Name() string { return "corpus" }

// Count returns how many documents the corpus holds.
func (x *Index) Count(ctx context.Context) (int, error) {
	var n int
	if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM docs`).Scan(&n); err != nil {
		return 0, fmt.Errorf("corpus %s: count: %w", x.path, err)
	}
	return n, nil
}

// Document reads a stored document by id.
func (x *Index) Document(ctx context.Context, id string) (Document, error) {
	d := Document{ID: id}
	err := x.db.QueryRowContext(ctx, `SELECT url, title, body, format FROM docs WHERE id = ?`, id).
		Scan(&d.URL, &d.Title, &d.Body, &d.Format)
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, fmt.Errorf("corpus %s: document %q: %w", x.path, id, ErrNotFound)
	}
	if err != nil {
		return Document{}, fmt.Errorf("corpus %s: document %q: %w", x.path, id, err)
	}
	return d, nil
}

// Add stores d (its ID is derived from its URL), replacing a stored version with other content.
func (x *Index) Add(ctx context.Context, d Document) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("corpus %s: %w", x.path, err)
	}
	defer tx.Rollback()
	if _, err := upsert(ctx, tx, d); err != nil {
		return fmt.Errorf("corpus %s: %w", x.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("corpus %s: %w", x.path, err)
	}
	return nil
}

// change says what upsert did with a document.
type change int

const (
	added change = iota
	updated
	unchanged
)

// upsert writes d unless the same content is already stored under its URL.
func upsert(ctx context.Context, tx *sql.Tx, d Document) (change, error) {
	if strings.TrimSpace(d.URL) == "" {
		return 0, fmt.Errorf("document without URL: %w", search.ErrBadInput)
	}
	if d.Format == "" {
		d.Format = FormatText
	}
	d.ID = DocID(d.URL)
	h := sha256.Sum256([]byte(d.Format + "\x00" + d.Title + "\x00" + d.Body))
	hash := hex.EncodeToString(h[:])
	var old string
	err := tx.QueryRowContext(ctx, `SELECT hash FROM docs WHERE id = ?`, d.ID).Scan(&old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, `INSERT INTO docs(id, url, title, body, format, hash) VALUES (?, ?, ?, ?, ?, ?)`,
			d.ID, d.URL, d.Title, d.Body, d.Format, hash)
		return added, err
	case err != nil:
		return 0, err
	case old == hash:
		return unchanged, nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE docs SET url = ?, title = ?, body = ?, format = ?, hash = ? WHERE id = ?`,
		d.URL, d.Title, d.Body, d.Format, hash, d.ID)
	return updated, err
}

// Search implements search.Provider with BM25 ranking; titles weigh more than bodies.
func (x *Index) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if limit < 1 {
		return nil, fmt.Errorf("corpus: limit %d: %w", limit, search.ErrBadInput)
	}
	limit = min(limit, maxLimit)
	terms, err := queryTerms(query)
	if err != nil {
		return nil, err
	}
	// Rank first, then read only the winners: auxiliary functions in the select list would
	// run for every matching row before the LIMIT applies.
	rows, err := x.db.QueryContext(ctx, `
		WITH top AS (
			SELECT rowid, bm25(docs_fts, ?, 1.0) AS score FROM docs_fts
			WHERE docs_fts MATCH ? ORDER BY score LIMIT ?)
		SELECT d.id, d.url, d.title, substr(d.body, 1, ?)
		FROM top JOIN docs d ON d.rowid = top.rowid ORDER BY top.score`,
		titleWeight, matchQuery(terms), limit, snippetScanBytes)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: search %q: %w", x.path, query, err)
	}
	defer rows.Close()
	var out []search.Result
	for rows.Next() {
		r := search.Result{Provider: "corpus"}
		var body string
		if err := rows.Scan(&r.DocID, &r.URL, &r.Title, &body); err != nil {
			return nil, fmt.Errorf("corpus %s: search %q: %w", x.path, query, err)
		}
		r.Snippet = snippet(body, terms, search.MaxSnippetChars)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("corpus %s: search %q: %w", x.path, query, err)
	}
	return out, nil
}

// Each calls fn for every stored document in URL order; it stops at fn's first error.
func (x *Index) Each(ctx context.Context, fn func(Document) error) error {
	rows, err := x.db.QueryContext(ctx, `SELECT id, url, title, body, format FROM docs ORDER BY url`)
	if err != nil {
		return fmt.Errorf("corpus %s: %w", x.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var d Document
		if err := rows.Scan(&d.ID, &d.URL, &d.Title, &d.Body, &d.Format); err != nil {
			return fmt.Errorf("corpus %s: %w", x.path, err)
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return rows.Err()
}
