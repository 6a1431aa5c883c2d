package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/fetch"
	"github.com/sated-dev/sated/internal/meili"
	"github.com/sated-dev/sated/internal/search"
)

func init() {
	register("corpus", "index documents for the corpus provider: corpus index PATH|URL... | remove PATH|URL... | stats | search QUERY", corpusCmd)
}

func corpusCmd(ctx context.Context, env config.Env, args []string) error {
	if len(args) == 0 {
		return usagef("want a subcommand: corpus index PATH|URL... | corpus remove PATH|URL... | corpus stats | corpus search QUERY")
	}
	switch args[0] {
	case "index":
		return corpusIndex(ctx, env, args[1:])
	case "remove":
		return corpusRemove(ctx, env, args[1:])
	case "stats":
		return corpusStats(ctx, env)
	case "search":
		if len(args) != 2 {
			return usagef(`want one query in quotes: corpus search "query"`)
		}
		return corpusSearch(ctx, env, args[1])
	default:
		return usagef("unknown corpus subcommand %q (want index, remove, stats or search)", args[0])
	}
}

// corpusIndex indexes files, directories and URLs; a missing path is a usage error before
// anything is indexed.
func corpusIndex(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("corpus index", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	quiet := fs.Bool("quiet", false, "print only the summary")
	inputs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return usagef("want at least one file, directory or http(s) URL to index")
	}
	for _, in := range inputs {
		if strings.HasPrefix(in, "http://") || strings.HasPrefix(in, "https://") {
			continue
		}
		if _, err := os.Stat(in); err != nil {
			return usagef("cannot index %s: %v", in, errors.Unwrap(err))
		}
	}
	idx, err := corpus.Open(env.CorpusPath())
	if err != nil {
		return err
	}
	defer idx.Close()
	start := time.Now()
	last := time.Now()
	var skips skipLog
	defer skips.print()
	stats, err := idx.IndexPaths(ctx, inputs, corpus.IndexOptions{
		// URLs go through the research fetcher's guard: no loopback or private addresses
		// (SATED_FETCH_ALLOW opens them), so internal pages never become corpus documents
		HTTPClient: fetch.New(fetch.Fetcher{Allow: env.FetchAllow, Timeout: env.FetchTimeout}).HTTPClient(),
		Warn: func(path string, err error) {
			if errors.Is(err, corpus.ErrPlaceEmpty) {
				// not a skipped file: a whole place kept, said apart from the skips
				fmt.Fprintf(stderr, "warning: %s: %v; to delete them: starter corpus remove %s\n", path, err, shellWord(path))
				return
			}
			skips.add(path, err)
		},
		Progress: func(done int) {
			if !*quiet && time.Since(last) > time.Second {
				last = time.Now()
				fmt.Fprintf(stderr, "  %d documents handled…\n", done)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("index %s: %w", env.CorpusPath(), err)
	}
	skips.print()
	n, _ := idx.Count(ctx)
	removed := ""
	if len(stats.Removed) > 0 {
		removed = fmt.Sprintf(", %d removed (their files are gone)", len(stats.Removed))
	}
	fmt.Fprintf(stdout, "indexed into %s in %s: %d added, %d updated, %d unchanged, %d skipped%s; %d documents in the corpus\n",
		env.CorpusPath(), time.Since(start).Round(time.Millisecond), stats.Added, stats.Updated, stats.Unchanged, stats.Skipped, removed, n)
	return indexMeili(ctx, env, idx, stats.Removed)
}

// corpusRemove removes the pages stored at each location (a file, a directory and below, a URL
// prefix), whether or not it still exists. A location that names no stored page is a usage
// error before anything is removed, with the places the corpus does hold.
func corpusRemove(ctx context.Context, env config.Env, locs []string) error {
	if len(locs) == 0 {
		return usagef("want at least one file, directory or URL whose pages to remove (starter corpus stats lists them)")
	}
	idx, err := openExisting(env)
	if err != nil {
		return err
	}
	defer idx.Close()
	var all []string
	per := make([]int, len(locs))
	for i, loc := range locs {
		urls, err := idx.Under(ctx, loc)
		if err != nil {
			return err
		}
		if len(urls) == 0 {
			return usagef("the corpus holds no pages under %s; %s", loc, locationSummary(ctx, idx))
		}
		per[i] = len(urls)
		all = append(all, urls...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	start := time.Now()
	n, err := idx.RemovePages(ctx, all)
	if err != nil {
		return err
	}
	left, _ := idx.Count(ctx)
	for i, loc := range locs {
		fmt.Fprintf(stdout, "%d pages under %s\n", per[i], loc)
	}
	fmt.Fprintf(stdout, "removed %d pages from %s in %s; %d documents in the corpus\n", n, env.CorpusPath(), time.Since(start).Round(time.Millisecond), left)
	return removeMeili(ctx, env, all)
}

// locationSummary names the places the corpus holds pages from, for an error message.
func locationSummary(ctx context.Context, idx *corpus.Index) string {
	locs, err := idx.Locations(ctx)
	if err != nil || len(locs) == 0 {
		return "it holds none"
	}
	shown, more := firstPlaces(locs)
	var parts []string
	for _, l := range shown {
		parts = append(parts, fmt.Sprintf("%s (%d)", l.Where, l.Pages))
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return "it holds pages from " + strings.Join(parts, ", ")
}

// maxLocations is how many places corpus stats and errors list before "and N more".
const maxLocations = 12

// firstPlaces is the places corpus stats and errors list, and how many they leave out.
func firstPlaces(locs []corpus.Location) (shown []corpus.Location, more int) {
	if len(locs) <= maxLocations {
		return locs, 0
	}
	return locs[:maxLocations], len(locs) - maxLocations
}

// openExisting opens the corpus a read-only command asks about; a missing one is an error that
// says how to make it, rather than an empty corpus made on the spot (and a data directory made
// where the user may have mistyped one).
func openExisting(env config.Env) (*corpus.Index, error) {
	p := env.CorpusPath()
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no corpus at %s (SATED_DATA_DIR=%s): index documents into it first with `starter corpus index PATH...`", p, env.DataDir)
	}
	return corpus.Open(p)
}

func corpusStats(ctx context.Context, env config.Env) error {
	idx, err := openExisting(env)
	if err != nil {
		return err
	}
	defer idx.Close()
	n, err := idx.Count(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d documents\n", env.CorpusPath(), n)
	locs, err := idx.Locations(ctx)
	if err != nil {
		return err
	}
	shown, more := firstPlaces(locs)
	for _, l := range shown {
		fmt.Fprintf(stdout, "  %6d  %s\n", l.Pages, l.Where)
	}
	if more > 0 {
		fmt.Fprintf(stdout, "  … and %d more places\n", more)
	}
	if len(locs) > 1 {
		fmt.Fprintln(stdout, "a research run searches all of them; `starter corpus remove PLACE` drops one")
	}
	return nil
}

func corpusSearch(ctx context.Context, env config.Env, query string) error {
	idx, err := openExisting(env)
	if err != nil {
		return err
	}
	defer idx.Close()
	rs, err := idx.Search(ctx, query, 10)
	if errors.Is(err, search.ErrBadInput) {
		return usagef(`nothing to search for in %q: give words the documents may hold (corpus search "garbage collector")`, query)
	}
	if err != nil {
		return err
	}
	for i, r := range rs {
		fmt.Fprintf(stdout, "%2d. %s\n    %s\n    %s\n", i+1, r.Title, r.URL, r.Snippet)
	}
	return nil
}

// indexMeili mirrors the corpus into Meilisearch when MEILI_URL is set, so the meilisearch
// provider searches the same documents; enrichment still reads them from the embedded corpus.
func indexMeili(ctx context.Context, env config.Env, idx *corpus.Index, removed []string) error {
	if env.MeiliURL == "" {
		return nil
	}
	if err := removeMeili(ctx, env, removed); err != nil {
		return err
	}
	p := meili.New(env.MeiliURL, env.MeiliAPIKey).Corpus(meili.CorpusIndex)
	var batch []meili.Document
	n := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := p.IndexDocuments(ctx, batch); err != nil {
			return fmt.Errorf("meilisearch at %s: %w (the embedded corpus is indexed; the corpus provider still works)", env.MeiliURL, err)
		}
		n += len(batch)
		batch = batch[:0]
		return nil
	}
	err := idx.Each(ctx, func(d corpus.Document) error {
		batch = append(batch, meili.Document{URL: d.URL, Title: d.Title, Body: d.Body})
		if len(batch) == 500 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mirrored %d documents into Meilisearch at %s (index %s)\n", n, env.MeiliURL, meili.CorpusIndex)
	return nil
}

// removeMeili deletes removed pages from the Meilisearch mirror of the corpus, if there is one.
func removeMeili(ctx context.Context, env config.Env, removed []string) error {
	if env.MeiliURL == "" || len(removed) == 0 {
		return nil
	}
	if err := meili.New(env.MeiliURL, env.MeiliAPIKey).Corpus(meili.CorpusIndex).RemoveURLs(ctx, removed); err != nil {
		return fmt.Errorf("meilisearch at %s: %w (the embedded corpus no longer holds the %d pages; the mirror still does)", env.MeiliURL, err, len(removed))
	}
	fmt.Fprintf(stdout, "removed %d documents from Meilisearch at %s (index %s)\n", len(removed), env.MeiliURL, meili.CorpusIndex)
	return nil
}

// skipLog gathers the files indexing skipped, to print them once it ends: one line per file, or
// one line per directory and reason for several (a Sphinx build's 44 index pages without text
// are one line naming all 44, not 44 lines). An error with a SkipGroup method names the reason
// files skipped for the same kind of cause share (the 203 text sources of git-doc's HTML pages in
// its top directory, each the source of another page).
type skipLog struct {
	mu      sync.Mutex
	order   []skipGroup
	files   map[skipGroup][]skipped
	printed bool
}

type skipGroup struct{ dir, reason string }

// maxSkipNames is how many of a group's files its warning line names; it counts the others
// (git-doc's 203 text sources in one directory are a line a terminal can show).
const maxSkipNames = 20

type skipped struct{ name, reason string }

func (l *skipLog) add(path string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	reason := err.Error()
	g := skipGroup{filepath.Dir(path), reason}
	var grouped interface{ SkipGroup() string }
	if errors.As(err, &grouped) {
		g.reason = grouped.SkipGroup()
	}
	if l.files == nil {
		l.files = map[skipGroup][]skipped{}
	}
	if _, ok := l.files[g]; !ok {
		l.order = append(l.order, g)
	}
	l.files[g] = append(l.files[g], skipped{filepath.Base(path), reason})
}

// print writes the skipped files to stderr, once.
func (l *skipLog) print() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.printed {
		return
	}
	l.printed = true
	for _, g := range l.order {
		fs := l.files[g]
		if len(fs) == 1 {
			fmt.Fprintf(stderr, "warning: skipped %s: %s\n", filepath.Join(g.dir, fs[0].name), fs[0].reason)
			continue
		}
		var names []string
		for _, f := range fs[:min(len(fs), maxSkipNames)] {
			names = append(names, f.name)
		}
		if len(fs) > maxSkipNames {
			names = append(names, fmt.Sprintf("and %d more", len(fs)-maxSkipNames))
		}
		fmt.Fprintf(stderr, "warning: skipped %d files in %s: %s: %s\n", len(fs), g.dir, g.reason, strings.Join(names, " "))
	}
}

// shellWord is path as one shell word: quoted when it holds a space or a character the shell
// reads.
func shellWord(path string) string {
	if strings.ContainsAny(path, " \t'\"$`\\*?[]{}()<>|&;#~!") {
		return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
	}
	return path
}
