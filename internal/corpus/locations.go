package corpus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Where pages come from: a corpus mixes whatever was indexed into its data directory (the Go
// docs of a first `make run` beside a user's own), and documents deleted from disk stay
// searchable until they are removed. These functions name the places a corpus holds pages
// from, remove a place's pages, and prune pages whose files are gone.

// Location is one place the corpus holds pages from: a local directory, or a web site.
type Location struct {
	Where string // a directory path, or scheme://host of fetched pages
	Pages int
}

// fileURL is the URL a local file's page is stored under (indexer.file).
func fileURL(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// localPath is the file a stored file: URL names, or "" for any other URL.
func localPath(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(p.Path)
}

// storedPrefix is the URL form of a location the user names: an http(s) URL as given (without
// a #fragment), a local path or file: URL made absolute with its symlinks resolved as indexing
// resolves them (a path that no longer exists is made absolute only, so the pages of a deleted
// directory can still be named).
func storedPrefix(loc string) string {
	if u, err := url.Parse(loc); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		page, _, _ := strings.Cut(loc, "#") // a passage's URL (as a report cites it) names its page
		return page
	} else if err == nil && u.Scheme == "file" {
		loc = filepath.FromSlash(u.Path)
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return fileURL(loc)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return fileURL(abs)
}

// Under returns the URLs of the pages stored at a location: a local file, a local directory
// and everything below it, or an http(s) URL and the pages below it (its path followed by "/").
// The location need not exist any more.
func (x *Index) Under(ctx context.Context, loc string) ([]string, error) {
	p := storedPrefix(loc)
	below := strings.TrimSuffix(p, "/") + "/"
	rows, err := x.db.QueryContext(ctx, `SELECT url FROM docs WHERE url = ?1 OR substr(url, 1, length(?2)) = ?2 ORDER BY url`, p, below)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: pages under %s: %w", x.path, loc, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("corpus %s: pages under %s: %w", x.path, loc, err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// RemovePages deletes the pages stored under these URLs with their passages and links, in one
// transaction that gives the corpus a new generation (so no cached search serves them again),
// then merges the full-text index. It returns how many pages it removed; URLs it does not hold
// are ignored.
func (x *Index) RemovePages(ctx context.Context, urls []string) (int, error) {
	n, err := x.removePages(ctx, urls)
	if err != nil || n == 0 {
		return n, err
	}
	if err := x.optimize(ctx); err != nil {
		return n, fmt.Errorf("corpus %s: %w", x.path, err)
	}
	return n, nil
}

// removePages is RemovePages without the merge, for an index run that merges once at its end.
func (x *Index) removePages(ctx context.Context, urls []string) (int, error) {
	ids := make([]string, len(urls))
	for i, u := range urls {
		ids[i] = DocID(u)
	}
	return x.removeIDs(ctx, ids)
}

// removeIDs deletes the pages with these ids in one transaction, a new generation when any was
// stored; it returns how many were.
func (x *Index) removeIDs(ctx context.Context, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("corpus %s: %w", x.path, err)
	}
	defer tx.Rollback()
	n := 0
	for _, id := range ids {
		ok, err := removePage(ctx, tx, id)
		if err != nil {
			return 0, fmt.Errorf("corpus %s: remove %q: %w", x.path, id, err)
		}
		if ok {
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	if err := bumpVersion(ctx, tx); err != nil {
		return 0, fmt.Errorf("corpus %s: %w", x.path, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("corpus %s: %w", x.path, err)
	}
	return n, nil
}

// removePage deletes one page and what hangs off it inside tx; false when it is not stored.
func removePage(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
	var rowid int64
	err := tx.QueryRowContext(ctx, `SELECT rowid FROM docs WHERE id = ?`, id).Scan(&rowid)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	for _, q := range []string{
		`DELETE FROM passages WHERE page = ?`,
		`DELETE FROM links WHERE src = ?`,
		`DELETE FROM passage_ids WHERE page = ?`,
		`DELETE FROM docs WHERE rowid = ?`,
	} {
		if err != nil {
			break
		}
		_, err = tx.ExecContext(ctx, q, rowid)
	}
	return err == nil, err
}

// gone returns the stored pages under the local directory dir whose files no longer exist, and
// how many pages it holds under dir in all.
func (x *Index) gone(ctx context.Context, dir string) ([]string, int, error) {
	urls, err := x.Under(ctx, dir)
	if err != nil {
		return nil, 0, err
	}
	var out []string
	for _, u := range urls {
		p := localPath(u)
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, u)
		}
	}
	return out, len(urls), nil
}

// Locations lists the places the corpus holds pages from, most pages first: local pages by the
// highest directory holding any of them directly (the Go docs' pages under GOROOT/doc are one
// location, however deep), fetched pages by site.
func (x *Index) Locations(ctx context.Context) ([]Location, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT url FROM docs`)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: locations: %w", x.path, err)
	}
	defer rows.Close()
	perDir := map[string]int{}
	sites := map[string]int{}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("corpus %s: locations: %w", x.path, err)
		}
		if p := localPath(u); p != "" {
			perDir[filepath.Dir(p)]++
			continue
		}
		site := u
		if pu, err := url.Parse(u); err == nil && pu.Host != "" {
			site = pu.Scheme + "://" + pu.Host
		}
		sites[site]++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("corpus %s: locations: %w", x.path, err)
	}
	// each directory's pages count for the highest directory above it holding pages directly
	byRoot := map[string]int{}
	for dir, n := range perDir {
		root := ancestorIn(dir, perDir)
		if root == "" {
			root = dir
		}
		byRoot[root] += n
	}
	out := make([]Location, 0, len(byRoot)+len(sites))
	for dir, n := range byRoot {
		out = append(out, Location{Where: dir, Pages: n})
	}
	for s, n := range sites {
		out = append(out, Location{Where: s, Pages: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pages != out[j].Pages {
			return out[i].Pages > out[j].Pages
		}
		return out[i].Where < out[j].Where
	})
	return out, nil
}

// ancestorIn is the highest proper ancestor of dir that is a key of dirs, or "".
func ancestorIn(dir string, dirs map[string]int) string {
	top := ""
	if filepath.Dir(dir) == dir {
		return ""
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, ok := dirs[d]; ok {
			top = d
		}
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	return top
}
