package workflows

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/testenv"
)

// renamed serves an index under another source's name, so a small index stands in for a
// shallow web source in the benchmark.
type renamed struct {
	*corpus.Index
	name string
}

func (r renamed) Name() string { return r.name }

func (r renamed) Search(ctx context.Context, q string, limit int) ([]search.Result, error) {
	rs, err := r.Index.Search(ctx, q, min(limit, 5)) // a shallow source: few results per query
	for i := range rs {
		rs[i].Provider = r.name
	}
	return rs, err
}

// benchCorpora loads the Go question set and indexes the rich source (GOROOT/doc plus
// src/runtime and src/sync) and the shallow one (GOROOT/doc alone).
func benchCorpora(b *testing.B) (qs []eval.Question, rich, shallow *corpus.Index) {
	root := filepath.Dir(testenv.GoDocDir(b))
	f, err := os.Open(filepath.Join(testenv.ModuleRoot(b), "internal/eval/testdata/go-questions.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	qs, err = eval.ParseQuestions(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	rich = benchIndex(b, "rich", filepath.Join(root, "doc"), filepath.Join(root, "src/runtime"), filepath.Join(root, "src/sync"))
	shallow = benchIndex(b, "shallow", filepath.Join(root, "doc"))
	return qs, rich, shallow
}

func benchIndex(b *testing.B, dir string, inputs ...string) *corpus.Index {
	x, err := corpus.Open(filepath.Join(b.TempDir(), dir+".db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if _, err := x.IndexPaths(context.Background(), inputs, corpus.IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	return x
}

// relevant: a result whose title and snippet name at least two of the question's terms.
func relevant(r search.Result, terms []string) bool {
	words := novelty.WordSet(r.Title + " " + r.Snippet)
	n := 0
	for _, t := range terms {
		if words[strings.ToLower(t)] {
			n++
		}
	}
	return n >= 2
}

type benchOutcome struct {
	results []search.Result
	wall    time.Duration
}

func countRelevant(rs []search.Result, terms []string) int {
	n := 0
	for _, r := range rs {
		if relevant(r, terms) {
			n++
		}
	}
	return n
}

// recall is the share of gold facts found in the bodies of the retrieved documents.
func recall(b *testing.B, x *corpus.Index, rs []search.Result, gold []eval.Fact) float64 {
	var text strings.Builder
	for _, r := range rs {
		if d, err := x.Document(context.Background(), r.DocID); err == nil {
			text.WriteString(d.Body + "\n")
		}
	}
	got, total, _ := eval.FactRecall(text.String(), gold)
	return eval.Recall(got, total)
}

// BenchmarkInvestigationVsBaseline compares the investigation with one query per source on the
// Go question set: "corpus" indexes GOROOT/doc plus GOROOT/src/runtime and sync (rich), and
// "duckduckgo" is GOROOT/doc alone answering 5 results per query (shallow). Run with
// go test ./workflows -run '^$' -bench InvestigationVsBaseline -benchtime 1x
func BenchmarkInvestigationVsBaseline(b *testing.B) {
	qs, rich, shallow := benchCorpora(b)
	providers := map[string]search.Provider{"corpus": rich, "duckduckgo": renamed{shallow, "duckduckgo"}}
	sources := []string{"corpus", "duckduckgo"}
	acts := activities.NewActivities(activities.Deps{Providers: providers})

	for b.Loop() {
		var baseRel, invRel, baseN, invN, hyps, richQ, shallowQ int
		var baseRecall, invRecall float64
		var baseWall, invWall time.Duration
		for _, q := range qs {
			terms := plan.Terms(q.Question)
			// baseline: the first planned query, once per source, sources in parallel
			t0 := time.Now()
			var mu sync.Mutex
			var base []search.Result
			var wg sync.WaitGroup
			for _, s := range sources {
				wg.Go(func() {
					rs, err := providers[s].Search(context.Background(), plan.Queries(q.Question)[0], 8)
					if err != nil {
						b.Error(err)
					}
					mu.Lock()
					base = append(base, rs...)
					mu.Unlock()
				})
			}
			wg.Wait()
			baseWall += time.Since(t0)
			seen := map[string]bool{}
			base, _ = investigate.Within(seen, base)

			var suite testsuite.WorkflowTestSuite
			suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			env := suite.NewTestWorkflowEnvironment()
			env.RegisterWorkflow(InvestigationWorkflow)
			env.RegisterWorkflow(SourceLoopWorkflow)
			env.RegisterActivity(acts)
			t1 := time.Now()
			env.ExecuteWorkflow(InvestigationWorkflow, InvestigationRequest{Question: q.Question, Sources: sources, NoModel: true})
			invWall += time.Since(t1)
			if err := env.GetWorkflowError(); err != nil {
				b.Fatal(err)
			}
			var rep InvestigationReport
			if err := env.GetWorkflowResult(&rep); err != nil {
				b.Fatal(err)
			}
			var found []search.Result
			for _, f := range rep.Findings {
				found = append(found, f.Result)
			}
			br, ir := countRelevant(base, terms), countRelevant(found, terms)
			bRec, iRec := recall(b, rich, base, q.Gold), recall(b, rich, found, q.Gold)
			var rq, sq, h int
			for _, l := range rep.Loops {
				if l.Source == "corpus" {
					rq += l.Queries
					h++
				} else {
					sq += l.Queries
				}
			}
			b.Logf("%-22s baseline %2d relevant of %2d (recall %.2f) | investigation %3d relevant of %3d (recall %.2f), %d hypotheses, queries corpus %d / duckduckgo %d",
				q.ID, br, len(base), bRec, ir, len(found), iRec, h, rq, sq)
			baseRel, invRel, baseN, invN = baseRel+br, invRel+ir, baseN+len(base), invN+len(found)
			baseRecall, invRecall = baseRecall+bRec, invRecall+iRec
			hyps, richQ, shallowQ = hyps+h, richQ+rq, shallowQ+sq
		}
		n := float64(len(qs))
		b.ReportMetric(float64(baseRel)/n, "base-relevant/q")
		b.ReportMetric(float64(invRel)/n, "inv-relevant/q")
		b.ReportMetric(float64(invRel)/float64(max(baseRel, 1)), "relevant-ratio")
		b.ReportMetric(baseRecall/n, "base-recall")
		b.ReportMetric(invRecall/n, "inv-recall")
		b.ReportMetric(float64(invWall)/float64(baseWall), "wall-ratio")
		b.ReportMetric(float64(invWall.Milliseconds())/n, "inv-ms/q")
		b.ReportMetric(float64(richQ)/float64(max(hyps, 1)), "corpus-queries/hyp")
		b.ReportMetric(float64(shallowQ)/float64(max(hyps, 1)), "ddg-queries/hyp")
		b.Logf("totals: baseline %d relevant of %d, investigation %d relevant of %d", baseRel, baseN, invRel, invN)
	}
}

// BenchmarkBreadcrumbContextGain measures what breadcrumbs add: the same investigation of each
// Go question (corpus rich, duckduckgo shallow, as in BenchmarkInvestigationVsBaseline) run
// without breadcrumbs and with the default (5 per hypothesis, each in its own best source),
// comparing the relevant findings and the share of gold facts in the retrieved documents.
// Run with go test ./workflows -run '^$' -bench BreadcrumbContextGain -benchtime 1x
func BenchmarkBreadcrumbContextGain(b *testing.B) {
	qs, rich, shallow := benchCorpora(b)
	providers := map[string]search.Provider{"corpus": rich, "duckduckgo": renamed{shallow, "duckduckgo"}}
	acts := activities.NewActivities(activities.Deps{Providers: providers, Docs: rich})
	run := func(q eval.Question, crumbs int) (InvestigationReport, time.Duration) {
		var suite testsuite.WorkflowTestSuite
		suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		env := suite.NewTestWorkflowEnvironment()
		env.RegisterWorkflow(InvestigationWorkflow)
		env.RegisterWorkflow(SourceLoopWorkflow)
		env.RegisterActivity(acts)
		t0 := time.Now()
		env.ExecuteWorkflow(InvestigationWorkflow, InvestigationRequest{Question: q.Question, Sources: []string{"corpus", "duckduckgo"},
			NoModel: true, Breadcrumbs: &crumbs})
		wall := time.Since(t0)
		if err := env.GetWorkflowError(); err != nil {
			b.Fatal(err)
		}
		var rep InvestigationReport
		if err := env.GetWorkflowResult(&rep); err != nil {
			b.Fatal(err)
		}
		return rep, wall
	}
	for b.Loop() {
		var relOff, relOn, nOff, nOn, searchOff, searchOn int
		var recOff, recOn float64
		var wallOff, wallOn time.Duration
		for _, q := range qs {
			terms := plan.Terms(q.Question)
			off, w0 := run(q, 0)
			on, w1 := run(q, DefaultBreadcrumbs)
			res := func(rep InvestigationReport) []search.Result {
				var out []search.Result
				for _, f := range rep.Findings {
					out = append(out, f.Result)
				}
				return out
			}
			ro, rn := res(off), res(on)
			a, c := countRelevant(ro, terms), countRelevant(rn, terms)
			ra, rc := recall(b, rich, ro, q.Gold), recall(b, rich, rn, q.Gold)
			b.Logf("%-22s without %3d relevant of %3d (recall %.2f, %d searches) | with %3d relevant of %3d (recall %.2f, %d searches, %d leads)",
				q.ID, a, len(ro), ra, off.Spend.SearchCalls, c, len(rn), rc, on.Spend.SearchCalls, len(on.Leads))
			relOff, relOn, nOff, nOn = relOff+a, relOn+c, nOff+len(ro), nOn+len(rn)
			recOff, recOn = recOff+ra, recOn+rc
			searchOff, searchOn = searchOff+off.Spend.SearchCalls, searchOn+on.Spend.SearchCalls
			wallOff, wallOn = wallOff+w0, wallOn+w1
		}
		n := float64(len(qs))
		b.ReportMetric(float64(relOn)/float64(max(relOff, 1)), "relevant-ratio")
		b.ReportMetric(float64(nOn)/float64(max(nOff, 1)), "findings-ratio")
		b.ReportMetric(recOff/n, "recall-without")
		b.ReportMetric(recOn/n, "recall-with")
		b.ReportMetric(float64(searchOn)/float64(max(searchOff, 1)), "search-ratio")
		b.ReportMetric(float64(wallOn)/float64(max(wallOff, 1)), "wall-ratio")
		b.Logf("totals: without breadcrumbs %d relevant of %d, %d searches; with %d relevant of %d, %d searches", relOff, nOff, searchOff, relOn, nOn, searchOn)
	}
}
