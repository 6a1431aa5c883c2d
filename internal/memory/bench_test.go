package memory

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	chromem "github.com/philippgille/chromem-go"
	"github.com/stretchr/testify/require"
)

// labelled is one recall case: a query paraphrasing one known source sentence.
type labelled struct {
	Query  string `json:"query"`
	Source string `json:"source"`
}

func loadLabelled(tb testing.TB) []labelled {
	f, err := os.Open("testdata/recall_labelled.jsonl")
	require.NoError(tb, err)
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l labelled
		require.NoError(tb, json.Unmarshal(sc.Bytes(), &l))
		out = append(out, l)
	}
	return out
}

func TestLabelledSetMatchesDocuments(t *testing.T) {
	sents := docSentences()
	if len(sents) == 0 {
		t.Skip("no documents under GOROOT/doc")
	}
	have := map[string]bool{}
	for _, s := range sents {
		have[s] = true
	}
	set := loadLabelled(t)
	require.GreaterOrEqual(t, len(set), 40)
	for _, l := range set {
		require.True(t, have[l.Source], "source sentence not in the documents: %q", l.Source)
		require.NotEqual(t, normText(l.Query), normText(l.Source), "a query must paraphrase, not copy")
	}
}

// moreSentences adds prose from /usr/share/doc (changelogs, READMEs, copyright notices).
func moreSentences(limit int) []string {
	files, _ := filepath.Glob("/usr/share/doc/*/*")
	sort.Strings(files)
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if len(out) >= limit {
			break
		}
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		var r io.Reader = io.LimitReader(fh, 1<<20)
		if strings.HasSuffix(f, ".gz") {
			if gz, err := gzip.NewReader(r); err == nil {
				r = io.LimitReader(gz, 1<<20)
			}
		}
		b, _ := io.ReadAll(r)
		fh.Close()
		for _, s := range sentenceRE.FindAllString(strings.Join(strings.Fields(string(b)), " "), -1) {
			s = strings.TrimSpace(s)
			if len(s) < 40 || len(s) > 300 || seen[s] || strings.Count(s, " ") < 6 {
				continue
			}
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// observations returns n distinct observations from real sentences, the Go documents first;
// past the supply, pairs of sentences make new ones.
func observations(n int) []Observation {
	base := append(docSentences(), moreSentences(n)...)
	var out []Observation
	seen := map[string]bool{}
	add := func(s string) {
		id := ObservationID(s)
		if len(out) < n && !seen[id] {
			seen[id] = true
			out = append(out, Observation{ID: id, Fact: s, Task: fmt.Sprintf("bench-%d", len(out)%50), Sources: []string{"file:///doc"}, At: time.Unix(0, 0).UTC()})
		}
	}
	for _, s := range base {
		add(s)
	}
	for k := 1; len(out) < n; k++ {
		for i := 0; i < len(base) && len(out) < n; i++ {
			add(base[i] + " " + base[(i*7+k)%len(base)])
		}
	}
	return out
}

// bulkLoad fills a store without the per-item novelty check (benchmark setup only).
func bulkLoad(tb testing.TB, s *Store, obs []Observation) {
	ctx := context.Background()
	texts := make([]string, len(obs))
	docs := make([]TextDoc, len(obs))
	for i, o := range obs {
		texts[i] = o.Fact
		docs[i] = TextDoc{ID: o.ID, Text: o.Fact, Task: o.Task}
	}
	vecs, err := s.embed.Embed(ctx, texts)
	require.NoError(tb, err)
	require.NoError(tb, s.local.Index(ctx, docs))
	cd := make([]chromem.Document, len(obs))
	for i, o := range obs {
		src, _ := json.Marshal(o.Sources)
		cd[i] = chromem.Document{ID: o.ID, Content: o.Fact, Embedding: vecs[i],
			Metadata: map[string]string{"task": o.Task, "sources": string(src), "at": o.At.Format(time.RFC3339Nano)}}
	}
	require.NoError(tb, s.col.AddDocuments(ctx, cd, 2))
	require.NoError(tb, s.saveManifest())
}

var (
	benchMu     sync.Mutex
	benchStores = map[int]*Store{}
	benchBuild  = map[int]time.Duration{}
	benchDirs   []string
)

// benchStore builds a store of n observations once per process.
func benchStore(b *testing.B, n int) (*Store, time.Duration) {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s := benchStores[n]; s != nil {
		return s, benchBuild[n]
	}
	dir, err := os.MkdirTemp("", "sated-memory-bench-")
	require.NoError(b, err)
	benchDirs = append(benchDirs, dir)
	s, err := Open(context.Background(), Options{Dir: dir})
	require.NoError(b, err)
	start := time.Now()
	bulkLoad(b, s, observations(n))
	benchStores[n], benchBuild[n] = s, time.Since(start)
	return s, benchBuild[n]
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range benchStores {
		s.Close()
	}
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func percentile(d []time.Duration, p float64) float64 {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[int(p*float64(len(s)-1))].Microseconds()) / 1000
}

// BenchmarkRecallLatency: go test -run '^$' -bench RecallLatency -benchtime 200x ./internal/memory/
func BenchmarkRecallLatency(b *testing.B) {
	if testing.Short() {
		b.Skip("builds stores of 10,000 and 50,000 observations")
	}
	queries := loadLabelled(b)
	for _, n := range []int{10000, 50000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, build := benchStore(b, n)
			require.Equal(b, n, s.Stats().Count)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := s.Search(context.Background(), queries[i%len(queries)].Query, DefaultK)
				lat = append(lat, time.Since(t0))
				if err != nil || len(res.Hits) != DefaultK {
					b.Fatalf("search: %v, %d hits", err, len(res.Hits))
				}
			}
			b.ReportMetric(percentile(lat, 0.50), "p50-ms")
			b.ReportMetric(percentile(lat, 0.95), "p95-ms")
			b.ReportMetric(build.Seconds(), "build-s")
		})
	}
}

// BenchmarkRecallAt4 compares hybrid, vector-only and full-text-only recall@4 on the
// labelled set, in the Go documents alone and among 10,000 observations:
// go test -run '^$' -bench RecallAt4 -benchtime 1x ./internal/memory/
func BenchmarkRecallAt4(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a store of 10,000 observations")
	}
	set := loadLabelled(b)
	for _, n := range []int{len(docSentences()), 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, _ := benchStore(b, n)
			for i := 0; i < b.N; i++ {
				for _, m := range []struct {
					name string
					mode mode
				}{{"hybrid", modeHybrid}, {"vector", modeVector}, {"text", modeText}} {
					found := 0
					for _, l := range set {
						res, err := s.search(context.Background(), l.Query, 4, m.mode)
						require.NoError(b, err)
						for _, h := range res.Hits {
							if h.ID == ObservationID(l.Source) {
								found++
								break
							}
						}
					}
					b.ReportMetric(float64(found)/float64(len(set)), m.name+"-recall@4")
				}
			}
		})
	}
}

// BenchmarkRememberCheckpoint measures what checkpointing the full-text WAL after every batch
// costs a Remember of 10 new observations into a store of 1,000. The Remember runs without its
// checkpoint and the checkpoint is timed on its own right after, so both see the same machine
// load; ratio is (remember + checkpoint) / remember:
// go test -run '^$' -bench RememberCheckpoint -benchtime 200x ./internal/memory/
func BenchmarkRememberCheckpoint(b *testing.B) {
	for _, mode := range []string{"PASSIVE", "TRUNCATE"} {
		b.Run("mode="+mode, func(b *testing.B) {
			s, err := Open(context.Background(), Options{Dir: b.TempDir()})
			require.NoError(b, err)
			defer s.Close()
			bulkLoad(b, s, observations(1000))
			words := strings.Fields(strings.Join(docSentences(), " "))
			var remember, checkpoint time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				batch := make([]Observation, 10)
				for j := range batch {
					// ten far-apart words per fact, so none is a near-duplicate of another
					var f []string
					for k := 0; k < 10; k++ {
						f = append(f, words[(i*7919+j*104729+k*15485863)%len(words)])
					}
					batch[j] = Observation{Fact: fmt.Sprintf("%s (%d-%d)", strings.Join(f, " "), i, j), Task: "bench"}
				}
				s.local.checkpoint = ""
				t0 := time.Now()
				res, err := s.Remember(context.Background(), batch)
				t1 := time.Now()
				require.NoError(b, err)
				require.Equal(b, len(batch), res.Stored)
				s.local.checkpoint = mode
				require.NoError(b, s.local.Checkpoint(context.Background()))
				remember += t1.Sub(t0)
				checkpoint += time.Since(t1)
			}
			b.ReportMetric(float64(remember.Microseconds())/1000/float64(b.N), "remember-ms")
			b.ReportMetric(float64(checkpoint.Microseconds())/1000/float64(b.N), "checkpoint-ms")
			b.ReportMetric(float64(remember+checkpoint)/float64(remember), "ratio")
		})
	}
}
