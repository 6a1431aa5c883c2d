package activities

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
)

func TestFindings(t *testing.T) {
	md := "# Report\n\n> Extractive report: no language model was configured; the sentences below are quoted [1].\n\n" +
		"- The scavenger returns unused heap pages to the operating system [2].\n" +
		"A sentence with no citation about heap pages and the operating system.\n" +
		"Short [3].\n\n## Sources\n[1] The Go Memory Model — Introduction > Informal Overview — file:///usr/local/go/doc/go_mem.html\n"
	got := Findings(md)
	if len(got) != 1 || !strings.HasPrefix(got[0], "The scavenger returns") {
		t.Errorf("findings %q", got)
	}
}

func TestHarnessProposeGeneratesFromCorpus(t *testing.T) {
	ctx := context.Background()
	x, err := corpus.Open(filepath.Join(t.TempDir(), "corpus.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	filler := strings.Repeat(" Padding words keep this section long enough to stand as a passage of its own in the index.", 8)
	for _, d := range []corpus.Document{
		{URL: "u:gc", Title: "GC Guide", Format: corpus.FormatMarkdown, Body: "# GC Guide\n\n## Scavenger\n\nThe background scavenger returns unused heap pages to the operating system gradually." + filler},
		{URL: "u:sched", Title: "Scheduler", Format: corpus.FormatMarkdown, Body: "# Scheduler\n\n## Preemption\n\nGoroutines are preempted asynchronously by signals since the runtime of Go 1.14." + filler},
	} {
		if err := x.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(NewHarnessActivitiesWithCorpus(t.TempDir(), nil, "q", nil, x))
	h := harness.Harness{Version: 1, Benchmarks: []harness.Benchmark{{ID: "a", Question: "q", Threshold: 0.5, Enabled: true,
		Gold: []eval.Fact{{Fact: "f", Patterns: []string{`asynchronously\W+by\W+signals`}}}}}}
	v, err := env.ExecuteActivity((&HarnessActivities{}).HarnessPropose, HarnessProposeInput{Harness: h, Cycle: 3,
		Research: "The scavenger returns heap pages to the operating system [1]."})
	if err != nil {
		t.Fatal(err)
	}
	var out HarnessProposeOutput
	if err := v.Get(&out); err != nil {
		t.Fatal(err)
	}
	// the preemption passage is covered by benchmark a; the scavenger one is found by the
	// research finding and cited; one page is not enough for a two-page benchmark
	nb := out.Proposal.NewBenchmarks
	if len(nb) != 1 || !strings.Contains(nb[0].Origin, "GC Guide > Scavenger") || !strings.Contains(nb[0].Origin, "expansion research found: The scavenger returns") {
		t.Fatalf("proposal %+v", out.Proposal)
	}
	if out.Note != "" || !strings.Contains(out.Proposal.Rationale, "1 led to by the expansion research") {
		t.Errorf("note %q rationale %q", out.Note, out.Proposal.Rationale)
	}
	if ok, refused := harness.Filter(h, out.Proposal); len(refused) > 0 || len(ok.NewBenchmarks) != 1 {
		t.Errorf("ratchet: %+v", refused)
	}
}
