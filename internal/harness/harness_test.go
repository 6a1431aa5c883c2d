package harness

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sated-dev/sated/internal/eval"
)

var gold = []eval.Fact{{Fact: "f", Patterns: []string{"x"}}}

func base() Harness {
	return Harness{
		Version: 3,
		Gates:   Gates{MinCitationValidity: 0.8, MaxInvalidCitations: 2},
		Benchmarks: []Benchmark{
			{ID: "a", Question: "qa", Gold: gold, Threshold: 0.6, Enabled: true},
			{ID: "b", Question: "qb", Gold: gold, Threshold: 0.98, Enabled: true},
			{ID: "c", Question: "qc", Gold: gold, Threshold: 0.5, Enabled: false},
		},
		RegressionTests: []string{"a"},
		EdgeCases:       []EdgeCase{{ID: "e", Description: "empty corpus", Enabled: true}},
	}
}

func TestValidate(t *testing.T) {
	if err := base().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		edit func(*Harness)
		want string
	}{
		{"version", func(h *Harness) { h.Version = 0 }, "version 0"},
		{"duplicate id", func(h *Harness) { h.EdgeCases[0].ID = "a" }, `id "a" is used twice`},
		{"threshold", func(h *Harness) { h.Benchmarks[0].Threshold = 1.2 }, `benchmark "a": threshold 1.2 not in (0,1]`},
		{"zero threshold", func(h *Harness) { h.Benchmarks[0].Threshold = 0 }, `threshold 0 not in (0,1]`},
		{"no gold", func(h *Harness) { h.Benchmarks[1].Gold = nil }, `benchmark "b": no gold facts`},
		{"bad regex", func(h *Harness) { h.Benchmarks[1].Gold = []eval.Fact{{Fact: "f", Patterns: []string{"(["}}} }, `benchmark "b": gold[0] "f": pattern 0`},
		{"unknown regression", func(h *Harness) { h.RegressionTests = append(h.RegressionTests, "zz") }, `regression test "zz" is not a benchmark`},
		{"disabled regression", func(h *Harness) { h.RegressionTests = []string{"c"} }, `regression test "c" is a disabled benchmark`},
		{"gate", func(h *Harness) { h.Gates.MinCitationValidity = 2 }, "min_citation_validity 2"},
		{"edge description", func(h *Harness) { h.EdgeCases[0].Description = "" }, `edge case "e" has no description`},
	}
	for _, c := range cases {
		h := base().Clone()
		c.edit(&h)
		if err := h.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestFilterRatchet(t *testing.T) {
	cur := base()
	cases := []struct {
		name    string
		p       Proposal
		kept    int // changes kept
		reasons []string
	}{
		{"raise", Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Current: 0.1, Proposed: 0.65}}}, 1, nil},
		{"lower", Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Proposed: 0.5}}}, 0, []string{"lowers the threshold from 0.6"}},
		{"same", Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Proposed: 0.6}}}, 0, []string{"leaves the threshold at 0.6"}},
		{"above one", Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "b", Proposed: 1.03}}}, 0, []string{"above 1"}},
		{"unknown", Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "zz", Proposed: 0.9}}}, 0, []string{`no benchmark "zz" in harness v3`}},
		{"twice", Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Proposed: 0.7}, {BenchmarkID: "a", Proposed: 0.9}}}, 1, []string{"second threshold change"}},
		{"remove and disable", Proposal{RemoveTests: []string{"a"}, DisableTests: []string{"b"}}, 0, []string{"removes a test", "disables a test"}},
		{"weaker gates", Proposal{Gates: &Gates{MinCitationValidity: 0.5, MaxInvalidCitations: 5}}, 0, []string{"weakens a gate (min_citation_validity 0.8 -> 0.5, max_invalid_citations 2 -> 5)"}},
		{"half-weaker gates", Proposal{Gates: &Gates{MinCitationValidity: 0.9, MaxInvalidCitations: 3}}, 0, []string{"weakens a gate (max_invalid_citations 2 -> 3)"}},
		{"stricter gates", Proposal{Gates: &Gates{MinCitationValidity: 0.9, MaxInvalidCitations: 1}}, 1, nil},
		{"new benchmark replacing one", Proposal{NewBenchmarks: []Benchmark{{ID: "b", Question: "easier", Gold: gold, Threshold: 0.1}}}, 0, []string{`id "b" already names a benchmark`}},
		{"new benchmark invalid", Proposal{NewBenchmarks: []Benchmark{{ID: "n", Question: "q", Threshold: 0.5}}}, 0, []string{"no gold facts"}},
		{"new tests", Proposal{NewBenchmarks: []Benchmark{{ID: "n", Question: "q", Gold: gold, Threshold: 0.5, Enabled: true}}, NewEdgeCases: []EdgeCase{{ID: "m", Description: "huge question"}}}, 2, nil},
		{"rewrite", Proposal{RewriteTests: []string{"a"}}, 0, []string{"add a new test instead"}},
	}
	for _, c := range cases {
		ok, refused := Filter(cur, c.p)
		kept := len(ok.ThresholdIncreases) + len(ok.NewBenchmarks) + len(ok.NewEdgeCases)
		if ok.Gates != nil {
			kept++
		}
		if kept != c.kept || len(refused) != len(c.reasons) {
			t.Errorf("%s: kept %d refused %+v", c.name, kept, refused)
			continue
		}
		for i, r := range refused {
			if !strings.Contains(r.Reason, c.reasons[i]) {
				t.Errorf("%s: reason %q, want %q", c.name, r.Reason, c.reasons[i])
			}
		}
		if err := Ratchet(cur, c.p); (err != nil) != (len(c.reasons) > 0) {
			t.Errorf("%s: Ratchet %v", c.name, err)
		}
		for _, b := range ok.NewBenchmarks {
			if b.Enabled {
				t.Errorf("%s: new benchmark kept enabled", c.name)
			}
		}
	}
	// Kept threshold increases carry the real current threshold, not the proposal's claim.
	ok, _ := Filter(cur, Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Current: 0.1, Proposed: 0.65}}})
	if ok.ThresholdIncreases[0].Current != 0.6 {
		t.Errorf("current %g", ok.ThresholdIncreases[0].Current)
	}
}

func TestApplyAndEnable(t *testing.T) {
	cur := base()
	p := Proposal{
		ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Proposed: 0.7}},
		NewBenchmarks:      []Benchmark{{ID: "n", Question: "q", Gold: gold, Threshold: 0.5, Enabled: true}},
		NewEdgeCases:       []EdgeCase{{ID: "m", Description: "huge question"}},
	}
	h, err := Apply(cur, p)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := h.Benchmark("a"); b.Threshold != 0.7 {
		t.Errorf("threshold %g", b.Threshold)
	}
	if b, _ := h.Benchmark("n"); b.Enabled {
		t.Error("new benchmark added enabled")
	}
	if b, _ := cur.Benchmark("a"); b.Threshold != 0.6 || len(cur.Benchmarks) != 3 {
		t.Error("Apply changed its input")
	}
	if !reflect.DeepEqual(p.NewTests(), []string{"n", "m"}) {
		t.Errorf("NewTests %v", p.NewTests())
	}
	h, err = Enable(h, "m")
	if err != nil || !h.EdgeCases[1].Enabled {
		t.Errorf("Enable: %v", err)
	}
	if _, err := Enable(h, "zz"); err == nil {
		t.Error("enabled an unknown test")
	}
	if _, err := Apply(cur, Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Proposed: 0.1}}}); err == nil {
		t.Error("Apply accepted a lowered threshold")
	}
}

func TestRollbackNeeded(t *testing.T) {
	cases := []struct {
		failed, total int
		want          bool
	}{{0, 0, false}, {1, 2, false}, {2, 3, true}, {2, 4, false}, {3, 4, true}, {1, 1, true}}
	for _, c := range cases {
		if got := RollbackNeeded(c.failed, c.total); got != c.want {
			t.Errorf("%d/%d: %v", c.failed, c.total, got)
		}
	}
}

func TestDeterministicProposal(t *testing.T) {
	p := DeterministicProposal(base(), map[string]float64{"a": 0.97, "b": 1.0, "c": 1.0, "zz": 1.0}, 12)
	// a: 0.6 -> 0.87, within the margin of its score; b (0.98) has no headroom, so it is not
	// at the ceiling; c is disabled; zz is unknown.
	if len(p.ThresholdIncreases) != 1 || p.ThresholdIncreases[0].BenchmarkID != "a" || p.ThresholdIncreases[0].Proposed != 0.87 {
		t.Fatalf("%+v", p.ThresholdIncreases)
	}
	if err := Ratchet(base(), p); err != nil {
		t.Error(err)
	}
	// after the raise, a is no longer at the ceiling: the proposal moves the ceiling signal
	if AtCeiling(0.97, 0.87) {
		t.Error("a raised benchmark is still at the ceiling")
	}
	if p := DeterministicProposal(base(), map[string]float64{"a": 0.95}, 1); !p.Empty() {
		t.Errorf("0.95 is not above the ceiling: %+v", p)
	}
	// a small gap still raises by at least the step
	h := base()
	h.Benchmarks[0].Threshold = 0.86
	if p := DeterministicProposal(h, map[string]float64{"a": 0.99}, 1); len(p.ThresholdIncreases) != 1 || p.ThresholdIncreases[0].Proposed != 0.91 {
		t.Errorf("step: %+v", p.ThresholdIncreases)
	}
}

func TestAtCeiling(t *testing.T) {
	for _, c := range []struct {
		score, threshold float64
		want             bool
	}{
		{1, 0.6, true},
		{0.96, 0.5, true},
		{1, 0.9, false}, // exactly the margin: the threshold is in force
		{0.97, 0.9, false},
		{0.95, 0.1, false}, // not above the ceiling score
		{1, 0.89, true},
	} {
		if got := AtCeiling(c.score, c.threshold); got != c.want {
			t.Errorf("AtCeiling(%g, %g) = %v", c.score, c.threshold, got)
		}
	}
}

func TestBaselineRollback(t *testing.T) {
	for _, c := range []struct {
		b    Baseline
		want bool
	}{
		{Baseline{NewRun: 3, NewFailed: 2}, true},
		{Baseline{NewRun: 2, NewFailed: 1}, false},
		{Baseline{RerunRun: 3, RerunFailed: 2}, true},            // a threshold-only expansion can roll back
		{Baseline{NewRun: 1, NewFailed: 1, Documented: 3}, true}, // documented edge cases do not dilute
		{Baseline{Documented: 2}, false},
		{Baseline{NewRun: 2, NewFailed: 1, RerunRun: 4, RerunFailed: 2}, false},
	} {
		if got := c.b.Rollback(); got != c.want {
			t.Errorf("%s: rollback %v", c.b, got)
		}
	}
}

func TestPending(t *testing.T) {
	h := base()
	h.EdgeCases = append(h.EdgeCases, EdgeCase{ID: "doc", Description: "d"}, EdgeCase{ID: "run", Description: "r", Question: "q", Gold: gold, Threshold: 1})
	if got := h.Pending(); strings.Join(got, ",") != "c,run" {
		t.Errorf("pending %v", got)
	}
}

func TestDiff(t *testing.T) {
	cur := base()
	next := cur.Clone()
	next.Benchmarks[0].Threshold = 0.5 // lowered
	next.Benchmarks[1].Enabled = false // disabled
	next.Benchmarks[2].Enabled = true  // enabled: fine
	next.EdgeCases = nil               // removed
	next.Benchmarks = append(next.Benchmarks, Benchmark{ID: "n", Question: "q", Gold: gold, Threshold: 0.5})
	err := Ratchet(cur, Diff(cur, next))
	for _, want := range []string{"lowers the threshold", "disable b", "remove e"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Diff/Ratchet: %v, want %q", err, want)
		}
	}
	stricter := cur.Clone()
	stricter.Benchmarks[0].Threshold = 0.8
	stricter.Benchmarks[2].Enabled = true
	stricter.RegressionTests = append(stricter.RegressionTests, "b")
	if err := Ratchet(cur, Diff(cur, stricter)); err != nil {
		t.Errorf("stricter harness refused: %v", err)
	}
	if h, err := Apply(cur, Diff(cur, stricter)); err != nil || !h.IsRegression("b") {
		t.Errorf("new regression test not applied: %v %v", h.RegressionTests, err)
	}
	// c is enabled by the same change, but only after it passes at baseline: not a regression yet
	early := stricter.Clone()
	early.RegressionTests = append(early.RegressionTests, "c")
	if err := Ratchet(cur, Diff(cur, early)); err == nil || !strings.Contains(err.Error(), "becomes a regression test only once enabled") {
		t.Errorf("regression on a disabled benchmark: %v", err)
	}
	dropped := cur.Clone()
	dropped.RegressionTests = nil
	if err := Ratchet(cur, Diff(cur, dropped)); err == nil {
		t.Error("dropping a regression test accepted")
	}
}

func TestStore(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Current(); !errors.Is(err, ErrNoHarness) {
		t.Fatalf("empty store: %v", err)
	}
	bad := base()
	bad.Benchmarks[0].Threshold = 3
	if _, _, err := s.Init(bad, now); err == nil {
		t.Fatal("Init accepted an invalid harness")
	}
	h1, created, err := s.Init(base(), now)
	if err != nil || !created || h1.Version != 1 {
		t.Fatalf("Init: %+v %v %v", h1, created, err)
	}
	if _, created, _ := s.Init(base(), now); created {
		t.Fatal("Init overwrote an existing harness")
	}
	h2in, _ := Apply(h1, Proposal{ThresholdIncreases: []ThresholdIncrease{{BenchmarkID: "a", Proposed: 0.7}}})
	h2, err := s.Commit(h2in, 1, "exp-1", now)
	if err != nil || h2.Version != 2 || h2.Parent != 1 {
		t.Fatalf("Commit: %+v %v", h2, err)
	}
	if again, err := s.Commit(h2in, 1, "exp-1", now); err != nil || again.Version != 2 {
		t.Fatalf("retried commit: %+v %v", again, err)
	}
	if _, err := s.Commit(h2in, 1, "exp-other", now); err == nil || !strings.Contains(err.Error(), "not the base v1") {
		t.Fatalf("stale base: %v", err)
	}
	invalid := h2.Clone()
	invalid.RegressionTests = []string{"nope"}
	if _, err := s.Commit(invalid, 2, "exp-2", now); err == nil {
		t.Fatal("committed an invalid harness")
	}
	if cur, err := s.Current(); err != nil || cur.Version != 2 {
		t.Fatalf("after refused commit: v%d %v", cur.Version, err)
	}
	if vs, _ := s.Versions(); !reflect.DeepEqual(vs, []int{1, 2}) {
		t.Fatalf("versions %v", vs)
	}
	// A hand-broken current.json leaves the last good version in force.
	if err := os.WriteFile(filepath.Join(dir, "current.json"), []byte(`{"version":9,"benchmarks":[{"id":"x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cur, err := s.Current()
	var stale *StaleError
	if !errors.As(err, &stale) || cur.Version != 2 || stale.Version != 2 {
		t.Fatalf("broken current: v%d %v", cur.Version, err)
	}
	// Restore v1, then the next commit skips the number 2 already archived.
	if r, err := s.Restore(1); err != nil || r.Version != 1 {
		t.Fatalf("Restore: %v", err)
	}
	h3, err := s.Commit(h2in, 1, "exp-3", now)
	if err != nil || h3.Version != 3 {
		t.Fatalf("commit after restore: %+v %v", h3, err)
	}
	if old, err := s.Version(1); err != nil || old.Benchmarks[0].Threshold != 0.6 {
		t.Fatalf("archive v1: %v", err)
	}
	if a, err := s.Archive(); err != nil || a.Version != 3 {
		t.Fatalf("Archive: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*", ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
