package search

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// CacheTTL is how long cached results count as fresh by default.
const CacheTTL = 24 * time.Hour

// Cache remembers search results per provider, provider version, normalized query and result
// limit in SQLite, so repeated runs do not hammer web providers and a re-indexed corpus is
// not answered from before. It is safe for concurrent use.
type Cache struct {
	db   *sql.DB
	path string
	ttl  time.Duration
	// Now is the clock expiry is judged by; tests replace it.
	Now func() time.Time
}

// cacheSchema keys entries by Key; lim 0 is an entry stored without a known limit.
const cacheSchema = `
CREATE TABLE IF NOT EXISTS search_cache (
	provider  TEXT NOT NULL,
	version   TEXT NOT NULL,
	query     TEXT NOT NULL,
	lim       INTEGER NOT NULL,
	results   TEXT NOT NULL,
	stored_at INTEGER NOT NULL,
	PRIMARY KEY (provider, query, version, lim)
);
CREATE INDEX IF NOT EXISTS search_cache_stored_at ON search_cache(stored_at);
CREATE TABLE IF NOT EXISTS search_runs (
	workflow_id TEXT NOT NULL,
	run_id      TEXT NOT NULL,
	activity_id TEXT NOT NULL,
	results     TEXT NOT NULL,
	stored_at   INTEGER NOT NULL,
	PRIMARY KEY (workflow_id, run_id, activity_id)
);
CREATE INDEX IF NOT EXISTS search_runs_stored_at ON search_runs(stored_at);`

// cacheUnversioned is true for a cache file from before versions and limits were part of
// the key; being a cache, its table is dropped and made anew.
const cacheUnversioned = `SELECT count(*) = 0 AND EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'search_cache')
	FROM pragma_table_info('search_cache') WHERE name = 'version'`

// OpenCache opens or creates the cache at path; ttl <= 0 means CacheTTL.
func OpenCache(path string, ttl time.Duration) (*Cache, error) {
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("search cache %s: path must not contain '?'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("search cache %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("search cache %s: %w", path, err)
	}
	var old bool
	err = db.QueryRow(cacheUnversioned).Scan(&old)
	if err == nil && old {
		_, err = db.Exec(`DROP TABLE search_cache`)
	}
	if err == nil {
		_, err = db.Exec(cacheSchema)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("search cache %s: not a usable cache database (corrupt or foreign file?): %w", path, err)
	}
	if ttl <= 0 {
		ttl = CacheTTL
	}
	return &Cache{db: db, path: path, ttl: ttl, Now: time.Now}, nil
}

// Close releases the database.
func (c *Cache) Close() error { return c.db.Close() }

// Key names one cached search. Version is the provider's data version (see Versioned; ""
// for providers without one), so entries of an older corpus are never answered. Limit is
// how many results were asked for: an entry stored for a limit serves that limit and any
// smaller one (its first Limit results); Limit 0 stands for an unknown limit and matches
// only itself.
type Key struct {
	Provider string
	Version  string
	Query    string
	Limit    int
}

// Get returns the fresh cached results for query at provider (unversioned, unknown limit);
// ok is false on a miss.
func (c *Cache) Get(ctx context.Context, provider, query string) (results []Result, ok bool, err error) {
	return c.GetKey(ctx, Key{Provider: provider, Query: query})
}

// Put stores results for query at provider (unversioned, unknown limit).
func (c *Cache) Put(ctx context.Context, provider, query string, results []Result) error {
	return c.PutKey(ctx, Key{Provider: provider, Query: query}, results)
}

// GetKey returns the fresh cached results for k, at most k.Limit of them when it is set;
// ok is false on a miss.
func (c *Cache) GetKey(ctx context.Context, k Key) (results []Result, ok bool, err error) {
	query := NormalizeQuery(k.Query)
	if query == "" || k.Limit < 0 {
		return nil, false, nil
	}
	var raw string
	var stored int64
	// the smallest stored limit that covers the one asked for; lim 0 only for limit 0
	err = c.db.QueryRowContext(ctx, `SELECT results, stored_at FROM search_cache
		WHERE provider = ? AND query = ? AND version = ? AND (lim = ? OR (? > 0 AND lim > ?))
		ORDER BY lim LIMIT 1`,
		k.Provider, query, k.Version, k.Limit, k.Limit, k.Limit).Scan(&raw, &stored)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("search cache %s: %w", c.path, err)
	}
	if c.Now().Sub(time.UnixMilli(stored)) >= c.ttl {
		return nil, false, nil
	}
	if err := json.Unmarshal([]byte(raw), &results); err != nil {
		return nil, false, fmt.Errorf("search cache %s: entry %s/%q: %w", c.path, k.Provider, query, err)
	}
	if k.Limit > 0 && len(results) > k.Limit {
		results = results[:k.Limit]
	}
	return results, true, nil
}

// PutKey stores results for k (an empty list too: "nothing found" is an answer), drops the
// entries of other versions of the same provider and query, and drops expired entries.
func (c *Cache) PutKey(ctx context.Context, k Key, results []Result) error {
	query := NormalizeQuery(k.Query)
	if query == "" || k.Provider == "" || k.Limit < 0 {
		return fmt.Errorf("search cache: provider %q, query %q, limit %d: %w", k.Provider, k.Query, k.Limit, ErrBadInput)
	}
	if results == nil {
		results = []Result{}
	}
	raw, err := json.Marshal(results)
	if err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	now := c.Now()
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("search cache %s: %w", c.path, err)
	}
	defer tx.Rollback()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM search_cache WHERE provider = ? AND query = ? AND version != ?`, []any{k.Provider, query, k.Version}},
		{`INSERT INTO search_cache(provider, version, query, lim, results, stored_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT(provider, query, version, lim) DO UPDATE SET results = excluded.results, stored_at = excluded.stored_at`,
			[]any{k.Provider, k.Version, query, k.Limit, string(raw), now.UnixMilli()}},
		{`DELETE FROM search_cache WHERE stored_at <= ?`, []any{now.Add(-c.ttl).UnixMilli()}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return fmt.Errorf("search cache %s: %w", c.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("search cache %s: %w", c.path, err)
	}
	return nil
}

// Punctuation NormalizeQuery strips from the ends of a query. Symbols that carry meaning
// ("c#", "c++") stay, and a leading dot stays for ".net".
const (
	queryLeadPunct  = ` "'` + "`" + `“”‘’«»„?!,;:()[]{}¿¡…`
	queryTrailPunct = queryLeadPunct + "."
)

// NormalizeQuery is the cache key of a query: lower-case, whitespace collapsed, surrounding
// punctuation stripped.
func NormalizeQuery(q string) string {
	s := strings.Join(strings.Fields(strings.ToLower(q)), " ")
	return strings.TrimLeft(strings.TrimRight(s, queryTrailPunct), queryLeadPunct)
}

// RunRecordTTL is how long a completed search stays in its run's record: far longer than any
// run retries an activity.
const RunRecordTTL = 7 * 24 * time.Hour

// RunKey names one search activity of one workflow run; a retry of the activity has the same key.
type RunKey struct {
	WorkflowID string
	RunID      string
	ActivityID string
}

// GetRun returns the results a search activity recorded before its worker died; ok is false
// when it recorded none. The record is read whatever the cache settings: it is not a cache but
// the run's own account of what the provider already answered.
func (c *Cache) GetRun(ctx context.Context, k RunKey) (results []Result, ok bool, err error) {
	var raw string
	err = c.db.QueryRowContext(ctx, `SELECT results FROM search_runs WHERE workflow_id = ? AND run_id = ? AND activity_id = ?`,
		k.WorkflowID, k.RunID, k.ActivityID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("search run record %s: %w", c.path, err)
	}
	if err := json.Unmarshal([]byte(raw), &results); err != nil {
		return nil, false, fmt.Errorf("search run record %s: %s/%s: %w", c.path, k.WorkflowID, k.ActivityID, err)
	}
	return results, true, nil
}

// PutRun records the results of a completed search activity, durably before it returns, and
// drops records older than RunRecordTTL.
func (c *Cache) PutRun(ctx context.Context, k RunKey, results []Result) error {
	if k.WorkflowID == "" || k.RunID == "" || k.ActivityID == "" {
		return fmt.Errorf("search run record: key %+v: %w", k, ErrBadInput)
	}
	if results == nil {
		results = []Result{}
	}
	raw, err := json.Marshal(results)
	if err != nil {
		return fmt.Errorf("search run record: %w", err)
	}
	now := c.Now()
	if _, err := c.db.ExecContext(ctx, `INSERT OR REPLACE INTO search_runs(workflow_id, run_id, activity_id, results, stored_at)
		VALUES (?, ?, ?, ?, ?)`, k.WorkflowID, k.RunID, k.ActivityID, string(raw), now.UnixMilli()); err != nil {
		return fmt.Errorf("search run record %s: %w", c.path, err)
	}
	if _, err := c.db.ExecContext(ctx, `DELETE FROM search_runs WHERE stored_at <= ?`, now.Add(-RunRecordTTL).UnixMilli()); err != nil {
		return fmt.Errorf("search run record %s: %w", c.path, err)
	}
	return nil
}
