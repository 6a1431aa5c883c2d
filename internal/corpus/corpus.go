// Package corpus is the embedded full-text search provider: local files and fetched pages
// indexed in SQLite FTS5, ranked by BM25, readable again by document id for enrichment.
package corpus

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

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

// bm25 column weights of the passage index: a query word in the page title or the
// passage's headings counts this many times one in its text.
const (
	titleWeight   = 4.0
	headingWeight = 4.0
)

// maxLimit bounds how many results one search returns.
const maxLimit = 100

// schemaVersion is PRAGMA user_version of a corpus with pages, passages, links and the anchors
// inside passages; version 0 files hold whole documents only and are migrated on Open; version
// 2 files gain the links and passage_ids tables, empty until their pages are indexed again.
const schemaVersion = 3

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

// PassageID is the id of the passage at ordinal in the page pageID.
func PassageID(pageID string, ordinal int) string { return pageID + ":" + strconv.Itoa(ordinal) }

// parsePassageID splits a passage id; ok is false for page ids.
func parsePassageID(id string) (pageID string, ordinal int, ok bool) {
	page, n, found := strings.Cut(id, ":")
	if !found {
		return "", 0, false
	}
	o, err := strconv.Atoi(n)
	if err != nil || o < 0 {
		return "", 0, false
	}
	return page, o, true
}

// Index is an open corpus file; it is safe for concurrent use.
type Index struct {
	db    *sql.DB
	path  string
	stats rankStats

	vocabOnce sync.Once // the vocabulary table is created on first use
	vocabErr  error
	vocab     vocabMemo // term counts read this generation (termCounts)

	// passageStmt reads one passage (Passage), prepared on first use: the answer reads every
	// passage of a run's evidence once a round, and preparing the statement was half of a read
	passageOnce sync.Once
	passageStmt *sql.Stmt
}

var (
	_ search.Provider  = (*Index)(nil)
	_ search.Versioned = (*Index)(nil)
)

// Pages (docs) keep each document's readable body for Document and Each; passages are what
// is searched. The external-content FTS5 table indexes passages, and the triggers keep it
// in step with them.
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
CREATE TABLE IF NOT EXISTS passages (
	rowid   INTEGER PRIMARY KEY,
	page    INTEGER NOT NULL,
	ordinal INTEGER NOT NULL,
	anchor  TEXT NOT NULL,
	path    TEXT NOT NULL,
	title   TEXT NOT NULL,
	heading TEXT NOT NULL,
	text    TEXT NOT NULL,
	UNIQUE (page, ordinal)
);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
	title, heading, text, content='passages', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
	INSERT INTO passages_fts(rowid, title, heading, text) VALUES (new.rowid, new.title, new.heading, new.text);
END;
CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
	INSERT INTO passages_fts(passages_fts, rowid, title, heading, text) VALUES ('delete', old.rowid, old.title, old.heading, old.text);
END;
CREATE TABLE IF NOT EXISTS links (
	src      INTEGER NOT NULL,
	target   TEXT NOT NULL,
	fragment TEXT NOT NULL,
	label    TEXT NOT NULL,
	lead     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS links_src ON links(src);
CREATE TABLE IF NOT EXISTS passage_ids (
	page    INTEGER NOT NULL,
	ordinal INTEGER NOT NULL,
	id      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passage_ids_page ON passage_ids(page, id);
CREATE INDEX IF NOT EXISTS page_url ON docs(url);
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);`

// migrate brings a corpus file to schemaVersion: the whole-document index of version 0 goes,
// and passages are split from the stored bodies (re-indexing re-extracts them properly).
const migrate = `
DROP TRIGGER IF EXISTS docs_ai;
DROP TRIGGER IF EXISTS docs_ad;
DROP TRIGGER IF EXISTS docs_au;
DROP TABLE IF EXISTS docs_fts;
INSERT INTO passages_fts(passages_fts, rank) VALUES ('rank', 'bm25(%g, %g, 1.0)');`

// Open opens or creates the corpus at path, creating its directory. An existing file must pass
// SQLite's quick integrity check: a damaged, empty or foreign file is an error naming it and the
// fix, not a corpus that silently answers from whatever pages still read.
func Open(path string) (*Index, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("corpus %s: %w", path, err)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() == 0 {
		return nil, fmt.Errorf("corpus %s is empty (0 bytes), not a corpus database. %s", path, reindexHint(path))
	}
	db, err := openSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	x := &Index{db: db, path: path}
	if err := x.check(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	if err := x.setup(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("corpus %s: not a usable corpus database (corrupt or foreign file?): %w", path, err)
	}
	return x, nil
}

// reindexHint is the fix for a corpus file that cannot be used, as a person types it.
func reindexHint(path string) string {
	return fmt.Sprintf("Move it away (with any %s-wal and %s-shm) and index your documents again with `starter corpus index PATH|URL...`.", filepath.Base(path), filepath.Base(path))
}

// check runs PRAGMA quick_check, which reads every page once (it skips only the index-content
// cross-check of integrity_check), so damage anywhere in the file is found on open.
func (x *Index) check(ctx context.Context) error {
	var res string
	err := x.db.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&res)
	switch {
	case err != nil && strings.Contains(err.Error(), "not a database"):
		return fmt.Errorf("corpus %s is not a SQLite database (%v). %s", x.path, err, reindexHint(x.path))
	case err != nil:
		return fmt.Errorf("corpus %s is damaged or cannot be read (%v). %s", x.path, err, reindexHint(x.path))
	case res != "ok":
		return fmt.Errorf("corpus %s is damaged: it failed its integrity check (%s). %s", x.path, res, reindexHint(x.path))
	}
	return nil
}

// setup creates the schema, or migrates an older one, in one immediate transaction so two
// processes opening the same new file do not both migrate it.
func (x *Index) setup(ctx context.Context) error {
	var v int
	if err := x.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v == schemaVersion {
		return nil
	}
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil || v == schemaVersion {
		return err
	}
	if v > schemaVersion {
		return fmt.Errorf("schema version %d is newer than this program's %d", v, schemaVersion)
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(migrate, titleWeight, headingWeight)); err != nil {
		return err
	}
	if err := splitStored(ctx, tx); err != nil {
		return err
	}
	if err := bumpVersion(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// splitStored derives passages for pages stored before passages existed.
func splitStored(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, title, body, format FROM docs WHERE rowid NOT IN (SELECT page FROM passages)`)
	if err != nil {
		return err
	}
	type page struct {
		rowid               int64
		title, body, format string
	}
	var pages []page
	for rows.Next() {
		var p page
		if err := rows.Scan(&p.rowid, &p.title, &p.body, &p.format); err != nil {
			rows.Close()
			return err
		}
		pages = append(pages, p)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, p := range pages {
		secs := []section{{text: p.body}}
		if p.format != FormatText {
			secs = markdownSections(p.body)
		}
		if err := insertPassages(ctx, tx, p.rowid, p.title, splitPassages(p.title, secs)); err != nil {
			return err
		}
	}
	return nil
}

// openSQLite opens path in WAL mode with a busy timeout, so a worker and a CLI can share it;
// transactions take the write lock up front, so a reader turning writer never fails busy.
func openSQLite(path string) (*sql.DB, error) {
	if strings.ContainsRune(path, '?') {
		return nil, errors.New("path must not contain '?'")
	}
	return sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=mmap_size(268435456)&_txlock=immediate")
}

// Close releases the database.
func (x *Index) Close() error {
	if x.passageStmt != nil {
		x.passageStmt.Close()
	}
	return x.db.Close()
}

// Name implements search.Provider.
func (x *Index) Name() string { return "corpus" }

// Count returns how many documents (pages) the corpus holds.
func (x *Index) Count(ctx context.Context) (int, error) {
	var n int
	if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM docs`).Scan(&n); err != nil {
		return 0, fmt.Errorf("corpus %s: count: %w", x.path, err)
	}
	return n, nil
}

// PassageCount returns how many passages the corpus holds.
func (x *Index) PassageCount(ctx context.Context) (int, error) {
	var n int
	if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM passages`).Scan(&n); err != nil {
		return 0, fmt.Errorf("corpus %s: count passages: %w", x.path, err)
	}
	return n, nil
}

// Version implements search.Versioned: it changes whenever indexing adds, replaces or
// removes anything, so cached searches of an older corpus are not reused.
func (x *Index) Version(ctx context.Context) (string, error) {
	var v string
	err := x.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'generation'`).Scan(&v)
	if err != nil {
		return "", fmt.Errorf("corpus %s: version: %w", x.path, err)
	}
	return searchVersion + "." + v, nil
}

// searchVersion changes whenever the same index answers a query differently (query words,
// ranking, collapsing repeats), so searches cached by an older build are not served again.
const searchVersion = "s3" // s3: question-form words kept as subjects (text.QuestionFormAt)

// bumpVersion gives the corpus a new generation; a random one, so a corpus rebuilt from
// nothing never repeats the generation of the one it replaces.
func bumpVersion(ctx context.Context, tx *sql.Tx) error {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('generation', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, hex.EncodeToString(b[:]))
	return err
}

// Document reads a stored document by id: a page by its page id, or a single passage by a
// passage id (Body is the passage's text, URL carries its anchor, Title its heading path).
func (x *Index) Document(ctx context.Context, id string) (Document, error) {
	if _, _, ok := parsePassageID(id); ok {
		p, err := x.Passage(ctx, id)
		if err != nil {
			return Document{}, err
		}
		return Document{ID: p.ID, URL: p.URL, Title: resultTitle(p.Title, p.Heading), Body: p.Text, Format: FormatText}, nil
	}
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

// passageColumns reads a Passage joined with its page (d) in scanPassage's order.
const passageColumns = `d.id, d.url, p.title, p.path, p.anchor, p.text, p.ordinal`

// passageQuery reads the passage of a page (by its id) and ordinal.
const passageQuery = `SELECT ` + passageColumns + `
		FROM docs d JOIN passages p ON p.page = d.rowid WHERE d.id = ? AND p.ordinal = ?`

func scanPassage(row interface{ Scan(...any) error }) (Passage, error) {
	var p Passage
	var url string
	if err := row.Scan(&p.PageID, &url, &p.Title, &p.Heading, &p.Anchor, &p.Text, &p.Ordinal); err != nil {
		return Passage{}, err
	}
	p.ID = PassageID(p.PageID, p.Ordinal)
	p.URL = withAnchor(url, p.Anchor)
	return p, nil
}

func withAnchor(url, anchor string) string {
	if anchor == "" {
		return url
	}
	return url + "#" + anchor
}

// Passage reads one passage by its id (PassageID).
func (x *Index) Passage(ctx context.Context, id string) (Passage, error) {
	page, ordinal, ok := parsePassageID(id)
	if !ok {
		return Passage{}, fmt.Errorf("corpus %s: passage %q: not a passage id: %w", x.path, id, ErrNotFound)
	}
	x.passageOnce.Do(func() {
		// a statement that fails to prepare is prepared again by each read below
		x.passageStmt, _ = x.db.PrepareContext(context.WithoutCancel(ctx), passageQuery)
	})
	var row *sql.Row
	if x.passageStmt != nil {
		row = x.passageStmt.QueryRowContext(ctx, page, ordinal)
	} else {
		row = x.db.QueryRowContext(ctx, passageQuery, page, ordinal)
	}
	p, err := scanPassage(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Passage{}, fmt.Errorf("corpus %s: passage %q: %w", x.path, id, ErrNotFound)
	}
	if err != nil {
		return Passage{}, fmt.Errorf("corpus %s: passage %q: %w", x.path, id, err)
	}
	return p, nil
}

// Passages reads every passage of the page pageID in order, for the context around a hit;
// ErrNotFound when the corpus has no such page.
func (x *Index) Passages(ctx context.Context, pageID string) ([]Passage, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT `+passageColumns+`
		FROM docs d JOIN passages p ON p.page = d.rowid WHERE d.id = ? ORDER BY p.ordinal`, pageID)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: passages of %q: %w", x.path, pageID, err)
	}
	defer rows.Close()
	var out []Passage
	for rows.Next() {
		p, err := scanPassage(rows)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: passages of %q: %w", x.path, pageID, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("corpus %s: passages of %q: %w", x.path, pageID, err)
	}
	if len(out) == 0 {
		if _, err := x.Document(ctx, pageID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Add stores d (its ID is derived from its URL), replacing a stored version with other
// content. Its body is split into passages as Markdown (headings start sections) unless
// its format is text.
func (x *Index) Add(ctx context.Context, d Document) error {
	secs := []section{{text: d.Body}}
	if d.Format == FormatHTML || d.Format == FormatMarkdown {
		secs = markdownSections(d.Body)
	}
	return x.addPage(ctx, page{Document: d, sections: secs})
}

func (x *Index) addPage(ctx context.Context, p page) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("corpus %s: %w", x.path, err)
	}
	defer tx.Rollback()
	c, err := upsert(ctx, tx, p)
	if err != nil {
		return fmt.Errorf("corpus %s: %w", x.path, err)
	}
	if c != unchanged {
		if err := bumpVersion(ctx, tx); err != nil {
			return fmt.Errorf("corpus %s: %w", x.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("corpus %s: %w", x.path, err)
	}
	return nil
}

// Remove deletes the page id and its passages; removing a missing page is not an error.
func (x *Index) Remove(ctx context.Context, id string) error {
	_, err := x.removeIDs(ctx, []string{id})
	return err
}

// page is a document with the sections its passages are split from.
type page struct {
	Document
	sections []section
	links    []link
}

// change says what upsert did with a document.
type change int

const (
	added change = iota
	updated
	unchanged
)

// upsert writes p and its passages unless the same content is already stored under its URL.
func upsert(ctx context.Context, tx *sql.Tx, p page) (change, error) {
	d := p.Document
	if strings.TrimSpace(d.URL) == "" {
		return 0, fmt.Errorf("document without URL: %w", search.ErrBadInput)
	}
	if d.Format == "" {
		d.Format = FormatText
	}
	d.ID = DocID(d.URL)
	ps := splitPassages(d.Title, p.sections)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", d.Format, d.Title, d.Body)
	for _, q := range ps {
		fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%s", q.anchor, q.heading, q.headings, q.text)
		if len(q.ids) > 0 {
			fmt.Fprintf(h, "\x02%s", strings.Join(q.ids, "\x00"))
		}
	}
	// a page's links and anchors count only when it has some: a page without keeps the hash
	// it was stored under before they were kept, and a re-index stores those of the rest
	links := resolveLinks(d.URL, p.links)
	for _, l := range links {
		fmt.Fprintf(h, "\x01%s\x00%s\x00%s\x00%s", l.target, l.fragment, l.label, l.lead)
	}
	hash := hex.EncodeToString(h.Sum(nil))
	var old string
	var rowid int64
	err := tx.QueryRowContext(ctx, `SELECT rowid, hash FROM docs WHERE id = ?`, d.ID).Scan(&rowid, &old)
	c := updated
	switch {
	case errors.Is(err, sql.ErrNoRows):
		c = added
		err = tx.QueryRowContext(ctx, `INSERT INTO docs(id, url, title, body, format, hash) VALUES (?, ?, ?, ?, ?, ?) RETURNING rowid`,
			d.ID, d.URL, d.Title, d.Body, d.Format, hash).Scan(&rowid)
	case err != nil:
		return 0, err
	case old == hash:
		return unchanged, nil
	default:
		_, err = tx.ExecContext(ctx, `UPDATE docs SET url = ?, title = ?, body = ?, format = ?, hash = ? WHERE rowid = ?`,
			d.URL, d.Title, d.Body, d.Format, hash, rowid)
		if err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM passages WHERE page = ?`, rowid)
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM links WHERE src = ?`, rowid)
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM passage_ids WHERE page = ?`, rowid)
		}
	}
	if err == nil {
		err = insertLinks(ctx, tx, rowid, links)
	}
	if err != nil {
		return 0, err
	}
	return c, insertPassages(ctx, tx, rowid, d.Title, ps)
}

func insertPassages(ctx context.Context, tx *sql.Tx, page int64, title string, ps []passage) error {
	if len(ps) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO passages(page, ordinal, anchor, path, title, heading, text) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	ids, err := tx.PrepareContext(ctx, `INSERT INTO passage_ids(page, ordinal, id) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ids.Close()
	for i, p := range ps {
		if _, err := st.ExecContext(ctx, page, i, p.anchor, p.heading, title, p.headings, p.text); err != nil {
			return err
		}
		for _, id := range p.ids {
			if _, err := ids.ExecContext(ctx, page, i, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// Each calls fn for every stored document (page) in URL order; it stops at fn's first error.
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
