package corpus

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sated-dev/sated/internal/search"
)

// benchQueries are the kind of questions a research run sends to the corpus.
var benchQueries = []string{
	"garbage collector pacing", "goroutine scheduler preemption", "http server graceful shutdown",
	"json unmarshal struct tags", "tls certificate verification", "context cancellation deadline",
	"mutex starvation mode", "map iteration order random", "escape analysis heap allocation",
	"utf8 decode rune", "sort slice stable", "reflect method value call", "channel select fairness",
	"defer panic recover", "time ticker stop", "regexp syntax parse", "sql transaction rollback",
	"zip archive reader", "memory model happens before", "generic type parameters constraints",
}

// BenchmarkCorpusSearch indexes GOROOT/src and GOROOT/doc (10k+ real documents) once, then
// measures search latency. SATED_BENCH_CORPUS=path keeps the index between runs.
func BenchmarkCorpusSearch(b *testing.B) {
	if testing.Short() {
		b.Skip("indexes all of GOROOT; skipped under -short")
	}
	ctx := context.Background()
	root := goroot(b)
	path := os.Getenv("SATED_BENCH_CORPUS")
	if path == "" {
		path = filepath.Join(b.TempDir(), "corpus.db")
	}
	x, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	start := time.Now()
	st, err := x.IndexPaths(ctx, []string{filepath.Join(root, "src"), filepath.Join(root, "doc")}, IndexOptions{})
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	n, err := x.Count(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if n < 10000 {
		b.Fatalf("corpus holds %d documents, want 10000+", n)
	}
	b.Logf("indexed %d docs in %v (%.0f docs/s): %+v", n, took.Round(time.Millisecond), float64(st.Added+st.Updated+st.Unchanged)/took.Seconds(), st)

	np, err := x.PassageCount(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d passages", np)

	// search is what Search does; cold forgets the document frequencies it caches per corpus
	// generation before every query; exact ranks a plain OR of the words by bm25 in FTS5,
	// which the pruned ranking approximates.
	for _, mode := range []string{"search", "cold", "exact"} {
		b.Run(mode, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				q := benchQueries[i%len(benchQueries)]
				if mode == "cold" {
					x.vocab.forget()
				}
				t0 := time.Now()
				var n int
				var err error
				if mode == "exact" {
					terms, _ := queryTerms(q)
					var ps []candidate
					ps, err = x.topPassages(ctx, terms, 10)
					n = len(ps)
				} else {
					var res []search.Result
					res, err = x.Search(ctx, q, 10)
					n = len(res)
				}
				lat = append(lat, time.Since(t0))
				if err != nil || n == 0 {
					b.Fatalf("%q: %d results, %v", q, n, err)
				}
				i++
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*50/100].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*95/100)].Nanoseconds()), "p95-ns")
			b.ReportMetric(float64(n), "docs")
			b.ReportMetric(float64(np), "passages")
			if mode == "search" {
				b.ReportMetric(exactShare(b, x), "exact-top10")
			}
		})
	}
}

// BenchmarkOpenCheck measures what the quick integrity check adds to opening a real corpus:
// "open" is Open and Close with the check, "quick_check" the check alone on an open handle.
// Index one first, e.g. SATED_DATA_DIR=/tmp/s starter corpus index /usr/share/doc/sqlite3, then
// SATED_BENCH_OPEN=/tmp/s/corpus.db go test -run '^$' -bench OpenCheck ./internal/corpus/
func BenchmarkOpenCheck(b *testing.B) {
	path := os.Getenv("SATED_BENCH_OPEN")
	if path == "" {
		b.Skip("set SATED_BENCH_OPEN to an indexed corpus file")
	}
	b.Run("open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			x.Close()
		}
	})
	b.Run("quick_check", func(b *testing.B) {
		x, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer x.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := x.check(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkVocabulary measures what the planner and the answer pay to weigh words: DocFreq and
// HeadingFreq for 1,000 stems of a real corpus (GOROOT/doc), one lookup per stem each, beside
// each other in the same run.
func BenchmarkVocabulary(b *testing.B) {
	ctx := context.Background()
	x, err := Open(filepath.Join(b.TempDir(), "corpus.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	if _, err := x.IndexPaths(ctx, []string{filepath.Join(goroot(b), "doc")}, IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, _, err := x.DocFreq(ctx, nil); err != nil { // creates the vocabulary tables
		b.Fatal(err)
	}
	rows, err := x.db.QueryContext(ctx, `SELECT term FROM passages_vocab LIMIT 1000`)
	if err != nil {
		b.Fatal(err)
	}
	var stems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			b.Fatal(err)
		}
		stems = append(stems, s)
	}
	rows.Close()
	if len(stems) < 1000 {
		b.Fatalf("%d stems, want 1000", len(stems))
	}
	// each lookup anew (the memo emptied first: a corpus generation's first lookup), then
	// remembered (a later round's words, already counted this generation)
	for _, remembered := range []bool{false, true} {
		suffix := ""
		if remembered {
			suffix = "Remembered"
		}
		b.Run("DocFreq1000"+suffix, func(b *testing.B) {
			for b.Loop() {
				if !remembered {
					x.vocab.forget()
				}
				if _, _, err := x.DocFreq(ctx, stems); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("HeadingFreq1000"+suffix, func(b *testing.B) {
			for b.Loop() {
				if !remembered {
					x.vocab.forget()
				}
				if _, err := x.HeadingFreq(ctx, stems); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// exactShare is the share of the exact bm25 top 10 (a plain OR of the words ranked in FTS5)
// that the pruned ranking keeps in its own top 10, over the benchmark queries.
func exactShare(b *testing.B, x *Index) float64 {
	ctx := context.Background()
	kept, total := 0, 0
	for _, q := range benchQueries {
		terms, err := queryTerms(q)
		if err != nil {
			b.Fatal(err)
		}
		exact, err := x.topPassages(ctx, terms, 10)
		if err != nil {
			b.Fatal(err)
		}
		pruned, err := x.rankedPassages(ctx, terms, 10)
		if err != nil {
			b.Fatal(err)
		}
		ids := map[string]bool{}
		for _, p := range pruned {
			ids[p.ID] = true
		}
		for _, p := range exact {
			if total++; ids[p.ID] {
				kept++
			}
		}
	}
	return float64(kept) / float64(total)
}

// forget empties the memo, so that a benchmark reads every count from the index again.
func (m *vocabMemo) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.version, m.counts, m.size = "", nil, 0
}

// BenchmarkReferences measures following the cross-references of a first round's results on a
// corpus whose pages link to each other (Debian's sqlite3-doc, 769 pages), beside the search
// that found them, same queries, same run: what the FollowReferences activity adds to round 1.
func BenchmarkReferences(b *testing.B) {
	const docs = "/usr/share/doc/sqlite3"
	if _, err := os.Stat(docs); err != nil {
		b.Skip("needs sqlite3-doc (apt-get install sqlite3-doc)")
	}
	ctx := context.Background()
	x, err := Open(filepath.Join(b.TempDir(), "corpus.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	if _, err := x.IndexPaths(ctx, []string{docs}, IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	queries := []string{
		"deleted rows database file still big disk space back", "foreign key constraints enforced",
		"autoincrement unique ids cost", "read field JSON document stored text column",
		"two connections share memory database", "store timestamps compute dates",
		"search documents ranked relevance", "running total group query",
		"readers working someone writes", "inserting many rows slow speed safety",
		"corrupt database file check recover", "copy database while applications still use it",
		"query slow see how executed index", "threads share one connection",
	}
	var searchT, refT []time.Duration
	refs := 0
	for b.Loop() {
		for _, q := range queries {
			start := time.Now()
			rs, err := x.Search(ctx, q, 15)
			if err != nil {
				b.Fatal(err)
			}
			searchT = append(searchT, time.Since(start))
			ids := make([]string, len(rs))
			for i, r := range rs {
				ids[i] = r.DocID
			}
			start = time.Now()
			got, err := x.References(ctx, q, ids, 3)
			if err != nil {
				b.Fatal(err)
			}
			refT = append(refT, time.Since(start))
			refs += len(got)
		}
	}
	b.ReportMetric(quantile(searchT, 0.5), "search-p50-ms")
	b.ReportMetric(quantile(refT, 0.5), "references-p50-ms")
	b.ReportMetric(quantile(refT, 0.95), "references-p95-ms")
	b.ReportMetric(float64(refs)/float64(len(refT)), "references/round")
}

// quantile is the q-th quantile of ds, in milliseconds.
func quantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(float64(len(s))*q))].Microseconds()) / 1000
}
