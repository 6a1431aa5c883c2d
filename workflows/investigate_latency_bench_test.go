package workflows

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// slow adds a provider's network latency, so orchestration is compared at realistic costs.
type slow struct {
	search.Provider
	d time.Duration
}

func (s slow) Search(ctx context.Context, q string, limit int) ([]search.Result, error) {
	time.Sleep(s.d)
	return s.Provider.Search(ctx, q, limit)
}

// baselineRequest is the one-query-per-source pipeline over the same hypotheses.
type baselineRequest struct {
	Queries  []string // one per hypothesis
	Sources  []string
	Parallel bool // sources of a hypothesis at once, or one after another as a single loop does
}

// baselineWorkflow asks each source once per hypothesis through the same Search activity.
func baselineWorkflow(ctx workflow.Context, req baselineRequest) ([]search.Result, error) {
	ctx = workflow.WithActivityOptions(ctx, searchOptions)
	var out []search.Result
	for _, q := range req.Queries {
		var fs []workflow.Future
		for _, s := range req.Sources {
			f := workflow.ExecuteActivity(ctx, researchActs.Search, activities.SearchInput{Provider: s, Query: q, Limit: 8})
			if !req.Parallel {
				var o activities.SearchOutput
				if err := f.Get(ctx, &o); err != nil {
					return nil, err
				}
				out = append(out, o.Results...)
				continue
			}
			fs = append(fs, f)
		}
		for _, f := range fs {
			var o activities.SearchOutput
			if err := f.Get(ctx, &o); err != nil {
				return nil, err
			}
			out = append(out, o.Results...)
		}
	}
	return out, nil
}

// BenchmarkInvestigationWithLatency compares the investigation with the one-query-per-source
// pipeline on the same hypotheses, everything through the same Temporal test environment, with
// a rich source answering in 40 ms and a shallow web-like one in 250 ms. The single-loop baseline
// asks the sources one after another (as the research loop does); the parallel baseline asks
// them at once. Run with
// go test ./workflows -run '^$' -bench InvestigationWithLatency -benchtime 1x
func BenchmarkInvestigationWithLatency(b *testing.B) {
	if testing.Short() {
		b.Skip("indexes GOROOT; skipped under -short")
	}
	qs, rich, shallow := benchCorpora(b)
	providers := map[string]search.Provider{
		"corpus":     slow{rich, 40 * time.Millisecond},
		"duckduckgo": slow{renamed{shallow, "duckduckgo"}, 250 * time.Millisecond},
	}
	sources := []string{"corpus", "duckduckgo"}
	acts := activities.NewActivities(activities.Deps{Providers: providers})
	newEnv := func() *testsuite.TestWorkflowEnvironment {
		env := quietInvestigationEnv(acts)
		env.RegisterWorkflow(baselineWorkflow)
		return env
	}
	runBaseline := func(queries []string, parallel bool) ([]search.Result, time.Duration) {
		env := newEnv()
		t := time.Now()
		env.ExecuteWorkflow(baselineWorkflow, baselineRequest{Queries: queries, Sources: sources, Parallel: parallel})
		d := time.Since(t)
		var rs []search.Result
		if err := env.GetWorkflowResult(&rs); err != nil {
			b.Fatal(err)
		}
		rs, _ = investigate.Within(map[string]bool{}, rs, investigate.PassageKey)
		return rs, d
	}

	for b.Loop() {
		var seqWall, parWall, invWall time.Duration
		var baseRel, invRel int
		for _, q := range qs {
			terms := plan.Terms(q.Question)
			var queries []string
			for _, t := range activities.DeterministicInvestigationPlan(q.Question, sources, nil) {
				for _, h := range t.Hypotheses {
					if len(h.SeedQueries) > 0 {
						queries = append(queries, h.SeedQueries[0])
					}
				}
			}
			base, ds := runBaseline(queries, false)
			_, dp := runBaseline(queries, true)
			seqWall, parWall = seqWall+ds, parWall+dp

			env := newEnv()
			t := time.Now()
			env.ExecuteWorkflow(InvestigationWorkflow, InvestigationRequest{Question: q.Question, Sources: sources, NoModel: true})
			invWall += time.Since(t)
			var rep InvestigationReport
			if err := env.GetWorkflowResult(&rep); err != nil {
				b.Fatal(err)
			}
			var found []search.Result
			for _, f := range rep.Findings {
				found = append(found, f.Result)
			}
			br, ir := countRelevant(base, terms), countRelevant(found, terms)
			baseRel, invRel = baseRel+br, invRel+ir
			b.Logf("%-22s %d hypotheses | baseline %2d relevant in %v (parallel %v) | investigation %3d relevant in %v",
				q.ID, len(queries), br, ds.Round(time.Millisecond), dp.Round(time.Millisecond), ir, time.Since(t).Round(time.Millisecond))
		}
		b.ReportMetric(float64(invRel)/float64(max(baseRel, 1)), "relevant-ratio")
		b.ReportMetric(float64(invWall)/float64(seqWall), "wall-vs-single-loop")
		b.ReportMetric(float64(invWall)/float64(parWall), "wall-vs-parallel-baseline")
		b.ReportMetric(float64(invWall.Milliseconds())/float64(len(qs)), "inv-ms/q")
	}
}
