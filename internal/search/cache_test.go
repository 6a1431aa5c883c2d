package search

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNormalizeQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Go Garbage Collector", "go garbage collector"},
		{"  go \t garbage\n collector  ", "go garbage collector"},
		{`"What is the Go GC?"`, "what is the go gc"},
		{"¿Qué es Go?", "qué es go"},
		{"(go gc)...", "go gc"},
		{"c#", "c#"},
		{"C++ templates!", "c++ templates"},
		{".NET runtime.", ".net runtime"},
		{"node.js vs deno", "node.js vs deno"},
		{"don't panic", "don't panic"},
		{" ?!. ", ""},
		{"", ""},
	} {
		require.Equal(t, tc.want, NormalizeQuery(tc.in), "%q", tc.in)
	}
}

// clock is a settable time source for cache expiry.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func openCache(t *testing.T, path string, ttl time.Duration) (*Cache, *clock) {
	t.Helper()
	c, err := OpenCache(path, ttl)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	c.Now = clk.now
	return c, clk
}

var cached = []Result{
	{URL: "https://go.dev/doc/gc-guide", Title: "GC guide", Snippet: "guide", Provider: "searxng"},
	{URL: "file:///doc/a.md", Title: "A", Snippet: "a", Provider: "corpus", DocID: "abc"},
}

func TestCacheHitMissAndExpiry(t *testing.T) {
	ctx := context.Background()
	c, clk := openCache(t, filepath.Join(t.TempDir(), "nested", "cache.db"), time.Hour)

	_, ok, err := c.Get(ctx, "searxng", "go gc")
	require.NoError(t, err)
	require.False(t, ok)

	require.NoError(t, c.Put(ctx, "searxng", "Go GC?", cached))
	got, ok, err := c.Get(ctx, "searxng", "  go   gc ")
	require.NoError(t, err)
	require.True(t, ok, "normalized queries share an entry")
	require.Equal(t, cached, got)

	clk.t = clk.t.Add(59 * time.Minute)
	_, ok, err = c.Get(ctx, "searxng", "go gc")
	require.NoError(t, err)
	require.True(t, ok)

	clk.t = clk.t.Add(time.Minute)
	_, ok, err = c.Get(ctx, "searxng", "go gc")
	require.NoError(t, err)
	require.False(t, ok, "an entry as old as the TTL is a miss")

	require.NoError(t, c.Put(ctx, "searxng", "go gc", cached[:1]))
	got, ok, err = c.Get(ctx, "searxng", "go gc")
	require.NoError(t, err)
	require.True(t, ok, "a fresh Put renews the entry")
	require.Equal(t, cached[:1], got)
}

func TestCacheSeparatesProviders(t *testing.T) {
	ctx := context.Background()
	c, _ := openCache(t, filepath.Join(t.TempDir(), "cache.db"), 0)
	require.NoError(t, c.Put(ctx, "searxng", "go gc", cached[:1]))
	require.NoError(t, c.Put(ctx, "duckduckgo", "go gc", nil))

	got, ok, err := c.Get(ctx, "searxng", "go gc")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, cached[:1], got)

	got, ok, err = c.Get(ctx, "duckduckgo", "go gc")
	require.NoError(t, err)
	require.True(t, ok, "an empty answer is cached too")
	require.Empty(t, got)

	_, ok, err = c.Get(ctx, "corpus", "go gc")
	require.NoError(t, err)
	require.False(t, ok)
}

func TestCacheDefaultTTLAndPersistence(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	c, clk := openCache(t, path, 0)
	require.NoError(t, c.Put(ctx, "searxng", "go gc", cached))
	require.NoError(t, c.Close())

	c2, _ := openCache(t, path, 0)
	c2.Now = func() time.Time { return clk.t.Add(CacheTTL - time.Second) }
	got, ok, err := c2.Get(ctx, "searxng", "go gc")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, cached, got)
	c2.Now = func() time.Time { return clk.t.Add(CacheTTL) }
	_, ok, err = c2.Get(ctx, "searxng", "go gc")
	require.NoError(t, err)
	require.False(t, ok)
}

func TestCachePutPrunesExpired(t *testing.T) {
	ctx := context.Background()
	c, clk := openCache(t, filepath.Join(t.TempDir(), "cache.db"), time.Hour)
	require.NoError(t, c.Put(ctx, "searxng", "old", cached))
	clk.t = clk.t.Add(2 * time.Hour)
	require.NoError(t, c.Put(ctx, "searxng", "new", cached))
	var n int
	require.NoError(t, c.db.QueryRowContext(ctx, `SELECT count(*) FROM search_cache`).Scan(&n))
	require.Equal(t, 1, n)
}

func TestCacheRejectsBadInputAndCorruptFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, _ := openCache(t, filepath.Join(dir, "cache.db"), 0)
	require.ErrorIs(t, c.Put(ctx, "searxng", " ?? ", cached), ErrBadInput)
	require.ErrorIs(t, c.Put(ctx, "", "go", cached), ErrBadInput)
	_, ok, err := c.Get(ctx, "searxng", "  ")
	require.NoError(t, err)
	require.False(t, ok)

	bad := filepath.Join(dir, "bad.db")
	require.NoError(t, os.WriteFile(bad, []byte(string(make([]byte, 8192))+"garbage"), 0o644))
	_, err = OpenCache(bad, 0)
	require.ErrorContains(t, err, bad)
}

func TestCacheKeyVersionAndLimit(t *testing.T) {
	ctx := context.Background()
	c, _ := openCache(t, filepath.Join(t.TempDir(), "cache.db"), 0)
	three := []Result{cached[0], cached[1], {URL: "u:3", Provider: "corpus"}}
	require.NoError(t, c.PutKey(ctx, Key{Provider: "corpus", Version: "g1", Query: "Go GC", Limit: 3}, three))
	require.NoError(t, c.PutKey(ctx, Key{Provider: "corpus", Version: "g1", Query: "go gc", Limit: 1}, cached[1:]))
	for _, tc := range []struct {
		name string
		key  Key
		hit  bool
		want []Result
	}{
		{"same key", Key{"corpus", "g1", "go gc?", 3}, true, three},
		{"its own entry for a smaller limit", Key{"corpus", "g1", "go gc", 1}, true, cached[1:]},
		{"a larger stored limit serves a smaller one", Key{"corpus", "g1", "go gc", 2}, true, three[:2]},
		{"a larger limit than stored misses", Key{"corpus", "g1", "go gc", 5}, false, nil},
		{"another version misses", Key{"corpus", "g2", "go gc", 3}, false, nil},
		{"unversioned misses", Key{"corpus", "", "go gc", 3}, false, nil},
		{"unknown limit only matches itself", Key{"corpus", "g1", "go gc", 0}, false, nil},
		{"another provider misses", Key{"searxng", "g1", "go gc", 3}, false, nil},
	} {
		got, ok, err := c.GetKey(ctx, tc.key)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.hit, ok, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}

	// a new version replaces the old one's entries
	require.NoError(t, c.PutKey(ctx, Key{Provider: "corpus", Version: "g2", Query: "go gc", Limit: 3}, cached[:1]))
	_, ok, err := c.GetKey(ctx, Key{"corpus", "g1", "go gc", 3})
	require.NoError(t, err)
	require.False(t, ok)
	var n int
	require.NoError(t, c.db.QueryRowContext(ctx, `SELECT count(*) FROM search_cache`).Scan(&n))
	require.Equal(t, 1, n)
	require.ErrorIs(t, c.PutKey(ctx, Key{Provider: "corpus", Query: "go", Limit: -1}, nil), ErrBadInput)

	// Get and Put are the unversioned, unknown-limit key
	require.NoError(t, c.Put(ctx, "searxng", "go gc", cached))
	got, ok, err := c.GetKey(ctx, Key{Provider: "searxng", Query: "go gc"})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, cached, got)
}

func TestCacheDropsAnUnversionedTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE search_cache (provider TEXT NOT NULL, query TEXT NOT NULL, results TEXT NOT NULL,
		stored_at INTEGER NOT NULL, PRIMARY KEY (provider, query));
		INSERT INTO search_cache VALUES ('corpus', 'go gc', '[]', 1)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	c, _ := openCache(t, path, 0)
	_, ok, err := c.GetKey(ctx, Key{Provider: "corpus", Query: "go gc"})
	require.NoError(t, err)
	require.False(t, ok, "entries without a version are gone")
	require.NoError(t, c.PutKey(ctx, Key{Provider: "corpus", Version: "g", Query: "go gc", Limit: 5}, nil))
}

func TestRunRecordIsKeyedByRunAndActivity(t *testing.T) {
	c, clk := openCache(t, filepath.Join(t.TempDir(), "cache.db"), time.Hour)
	ctx := context.Background()
	k := RunKey{WorkflowID: "w", RunID: "r1", ActivityID: "5"}
	if _, ok, err := c.GetRun(ctx, k); ok || err != nil {
		t.Fatalf("empty record: ok %v err %v", ok, err)
	}
	want := []Result{{URL: "https://a.example", Title: "A"}}
	if err := c.PutRun(ctx, k, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.GetRun(ctx, k)
	if err != nil || !ok || len(got) != 1 || got[0].URL != want[0].URL {
		t.Fatalf("got %v %v %v", got, ok, err)
	}
	for _, other := range []RunKey{{"w", "r2", "5"}, {"w", "r1", "6"}, {"x", "r1", "5"}} {
		if _, ok, _ := c.GetRun(ctx, other); ok {
			t.Errorf("%+v answered from %+v's record", other, k)
		}
	}
	// an empty answer is an answer
	e := RunKey{WorkflowID: "w", RunID: "r1", ActivityID: "7"}
	if err := c.PutRun(ctx, e, nil); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := c.GetRun(ctx, e); !ok || len(got) != 0 {
		t.Errorf("empty answer: %v %v", got, ok)
	}
	if err := c.PutRun(ctx, RunKey{WorkflowID: "w"}, want); !errors.Is(err, ErrBadInput) {
		t.Errorf("incomplete key: %v", err)
	}
	// the record outlives the cache's TTL, and is pruned after RunRecordTTL
	clk.t = clk.t.Add(2 * time.Hour)
	if _, ok, _ := c.GetRun(ctx, k); !ok {
		t.Error("the record expired with the cache TTL")
	}
	clk.t = clk.t.Add(RunRecordTTL)
	if err := c.PutRun(ctx, e, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.GetRun(ctx, k); ok {
		t.Error("a record older than RunRecordTTL was kept")
	}
}
