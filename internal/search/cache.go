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

// Cache remembers search results per provider and normalized query in SQLite, so repeated
// runs do not hammer web providers. It is safe for concurrent use.
type Cache struct {
	db   *sql.DB
	path string
	ttl  time.Duration
	// Now is the clock expiry is judged by; tests replace it.
	Now func() time.Time
}

const cacheSchema = `
CREATE TABLE IF NOT EXISTS search_cache (
	provider  TEXT NOT NULL,
	query     TEXT NOT NULL,
	results   TEXT NOT NULL,
	stored_at INTEGER NOT NULL,
	PRIMARY KEY (provider, query)
);
CREATE INDEX IF NOT EXISTS search_cache_stored_at ON search_cache(stored_at);`

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
	if _, err := db.Exec(cacheSchema); err != nil {
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

// Get returns the fresh cached results for query at provider; ok is false on a miss.
func (c *Cache) Get(ctx context.Context, provider, query string) (results []Result, ok bool, err error) {
	key := NormalizeQuery(query)
	if key == "" {
		return nil, false, nil
	}
	var raw string
	var stored int64
	err = c.db.QueryRowContext(ctx, `SELECT results, stored_at FROM search_cache WHERE provider = ? AND query = ?`,
		provider, key).Scan(&raw, &stored)
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
		return nil, false, fmt.Errorf("search cache %s: entry %s/%q: %w", c.path, provider, key, err)
	}
	return results, true, nil
}

// Put stores results (an empty list too: "nothing found" is an answer) and drops expired
// entries.
func (c *Cache) Put(ctx context.Context, provider, query string, results []Result) error {
	key := NormalizeQuery(query)
	if key == "" || provider == "" {
		return fmt.Errorf("search cache: provider %q, query %q: %w", provider, query, ErrBadInput)
	}
	if results == nil {
		results = []Result{}
	}
	raw, err := json.Marshal(results)
	if err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	now := c.Now()
	if _, err := c.db.ExecContext(ctx, `
		INSERT INTO search_cache(provider, query, results, stored_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(provider, query) DO UPDATE SET results = excluded.results, stored_at = excluded.stored_at`,
		provider, key, string(raw), now.UnixMilli()); err != nil {
		return fmt.Errorf("search cache %s: %w", c.path, err)
	}
	if _, err := c.db.ExecContext(ctx, `DELETE FROM search_cache WHERE stored_at <= ?`, now.Add(-c.ttl).UnixMilli()); err != nil {
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
