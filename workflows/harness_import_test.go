package workflows

import (
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
)

// TestImportedBenchmarksPassAtBaselineFirst is issue 11's probe: a benchmark imported enabled
// was enabled at once. Through the import path it enters disabled and is enabled only when it
// passes at baseline; the one that fails stays disabled.
func TestImportedBenchmarksPassAtBaselineFirst(t *testing.T) {
	env, store := hxEnv(t, nil)
	next := hxHarness()
	next.Benchmarks[1].Threshold = 0.95
	next.Benchmarks = append(next.Benchmarks,
		harness.Benchmark{ID: "nilmap", Question: "Is a nil map writable?", Gold: hxFact("nil map panics"), Threshold: 0.5, Enabled: true},
		harness.Benchmark{ID: "once", Question: "What does sync.Once guarantee?", Gold: hxFact("exactly once"), Threshold: 0.5, Enabled: true})
	p := harness.Diff(hxHarness(), next)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Import: &ExpansionImport{File: "edit.json", By: "ana", User: "ana-os", Host: "box", Proposal: p}, ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st := hxStatus(t, env)
	if st.State != ExpansionApplied || st.Decision == nil || st.Decision.By != "ana" || st.Decision.User != "ana-os" || st.Decision.Host != "box" || st.ProposalSource != "import edit.json" || st.ResearchWorkflowID != "" {
		t.Fatalf("status %+v", st)
	}
	if len(st.NewTests) != 2 || !st.NewTests[0].Passed || st.NewTests[1].Passed {
		t.Fatalf("baseline runs %+v", st.NewTests)
	}
	h, _ := store.Current()
	nilmap, _ := h.Benchmark("nilmap")
	once, _ := h.Benchmark("once")
	memlimit, _ := h.Benchmark("memlimit")
	if h.Version != 2 || !nilmap.Enabled || once.Enabled || memlimit.Threshold != 0.95 {
		t.Errorf("v%d nilmap %v once %v memlimit %g", h.Version, nilmap.Enabled, once.Enabled, memlimit.Threshold)
	}
}

// TestImportRefusesTrivialPattern is issue 11's probe: a benchmark whose pattern is "." at
// threshold 0.01 was accepted and enabled.
func TestImportRefusesTrivialPattern(t *testing.T) {
	env, store := hxEnv(t, nil)
	next := hxHarness()
	next.Benchmarks = append(next.Benchmarks, harness.Benchmark{ID: "anything", Question: "Anything?", Gold: []eval.Fact{{Fact: "any", Patterns: []string{"."}}}, Threshold: 0.01, Enabled: true})
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Import: &ExpansionImport{File: "edit.json", By: "ana", Proposal: harness.Diff(hxHarness(), next)}})
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(Readable(err), `import of edit.json refused by the ratchet over v1: new benchmark anything: test anything, fact "any": pattern "." is trivial`) {
		t.Fatalf("trivial import: %v", err)
	}
	if h, _ := store.Current(); h.Version != 1 {
		t.Errorf("harness changed to v%d", h.Version)
	}
}
