package activities

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/internal/llm"
)

// harnessFakeModel answers GenerateJSON with canned JSON per stage.
type harnessFakeModel map[llm.Stage]string

func (m harnessFakeModel) Configured(s llm.Stage) bool { _, ok := m[s]; return ok }

func (m harnessFakeModel) GenerateJSON(ctx context.Context, stage llm.Stage, system, prompt string, schema json.RawMessage, out any, validate func() error) (llm.Outcome, llm.Usage, error) {
	if err := json.Unmarshal([]byte(m[stage]), out); err != nil {
		return llm.Outcome{Fallback: true, Reason: err.Error()}, llm.Usage{}, nil
	}
	if err := validate(); err != nil {
		return llm.Outcome{Fallback: true, Reason: err.Error()}, llm.Usage{}, nil
	}
	return llm.Outcome{}, llm.Usage{}, nil
}

var harnessTestGold = []eval.Fact{{Fact: "default", Patterns: []string{`GOGC\W+defaults?\W+to\W+100`}}, {Fact: "limit", Patterns: []string{`GOMEMLIMIT`}}}

func harnessTestStore(t *testing.T) (string, harness.Harness) {
	dir := t.TempDir()
	h := harness.Harness{Version: 1, Gates: harness.Gates{MinCitationValidity: 0.8, MaxInvalidCitations: 0},
		Benchmarks:      []harness.Benchmark{{ID: "gc", Question: "How is the GC tuned?", Gold: harnessTestGold, Threshold: 0.5, Enabled: true}},
		RegressionTests: []string{"gc"}}
	h, _, err := harness.NewStore(dir).Init(h, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return dir, h
}

func harnessActEnv(dir string, model HarnessModel) *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(NewHarnessActivities(dir, nil, "q", model))
	return env
}

func TestHarnessLoad(t *testing.T) {
	var a *HarnessActivities
	env := harnessActEnv(t.TempDir(), nil)
	if _, err := env.ExecuteActivity(a.HarnessLoad, HarnessLoadInput{}); err == nil || !strings.Contains(err.Error(), "no harness yet") {
		t.Errorf("empty store: %v", err)
	}
	dir, _ := harnessTestStore(t)
	if err := os.WriteFile(filepath.Join(dir, "current.json"), []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := harnessActEnv(dir, nil).ExecuteActivity(a.HarnessLoad, HarnessLoadInput{})
	if err != nil {
		t.Fatal(err)
	}
	var out HarnessLoadOutput
	_ = v.Get(&out)
	if out.Harness.Version != 1 || !strings.Contains(out.Warning, "last good version v1") {
		t.Errorf("broken current.json: %+v", out)
	}
}

func TestHarnessScoreRun(t *testing.T) {
	var a *HarnessActivities
	dir, h := harnessTestStore(t)
	in := HarnessScoreInput{ID: "gc", Question: "q", Gold: harnessTestGold, Threshold: 0.5, Gates: h.Gates,
		Markdown: "GOGC defaults to 100 [1]. See also [3].", Evidence: "GOMEMLIMIT sets a soft limit", Sources: 2}
	cases := []struct {
		name      string
		model     HarnessModel
		judge     *float64
		unanimous bool
	}{
		// recall 2/2 passes; one citation of two points nowhere: the citation auditor fails.
		{"no model", nil, nil, false},
		{"judge agrees with recall, citations still disagree", harnessFakeModel{llm.Evaluator: `{"score": 9}`}, harnessPtr(0.9), false},
		{"judge without a valid answer is left out", harnessFakeModel{llm.Evaluator: `{"score": 11}`}, nil, false},
	}
	for _, c := range cases {
		v, err := harnessActEnv(dir, c.model).ExecuteActivity(a.HarnessScoreRun, in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var out HarnessScoreOutput
		_ = v.Get(&out)
		if out.Score != 1 || !out.Passed || out.ValidCitations != 1 || out.InvalidCitations != 1 || out.Unanimous != c.unanimous ||
			(c.judge == nil) != (out.Judge == nil) || c.judge != nil && *out.Judge != *c.judge {
			t.Errorf("%s: %+v", c.name, out)
		}
	}
	clean := in
	clean.Markdown = "GOGC defaults to 100 [1]."
	v, _ := harnessActEnv(dir, harnessFakeModel{llm.Evaluator: `{"score": 2}`}).ExecuteActivity(a.HarnessScoreRun, clean)
	var out HarnessScoreOutput
	_ = v.Get(&out)
	if !out.Passed || out.Unanimous || *out.Judge != 0.2 {
		t.Errorf("a judge that disagrees must break unanimity: %+v", out)
	}
	bad := in
	bad.Gold = []eval.Fact{{Fact: "x", Patterns: []string{"(["}}}
	if _, err := harnessActEnv(dir, nil).ExecuteActivity(a.HarnessScoreRun, bad); err == nil || !strings.Contains(err.Error(), ErrBadInput) {
		t.Errorf("bad gold: %v", err)
	}
}

func harnessPtr(f float64) *float64 { return &f }

func TestHarnessPropose(t *testing.T) {
	var a *HarnessActivities
	dir, h := harnessTestStore(t)
	in := HarnessProposeInput{Harness: h, Benchmarks: []harness.BenchmarkScore{{ID: "gc", Score: 1}}, Cycle: 4, UseModel: true}
	cases := []struct {
		name, source, note string
		model              HarnessModel
	}{
		{"no model", "deterministic", "", nil},
		{"model", "model", "", harnessFakeModel{llm.Planner: `{"threshold_increases":[{"benchmark_id":"gc","proposed":0.9,"rationale":"r"}],"new_benchmarks":[],"new_edge_cases":[]}`}},
		{"model with a bad regex", "deterministic", "no valid proposal", harnessFakeModel{llm.Planner: `{"threshold_increases":[],"new_benchmarks":[{"id":"n","question":"q","threshold":0.5,"gold":[{"fact":"f","patterns":["(["]}]}],"new_edge_cases":[]}`}},
	}
	for _, c := range cases {
		v, err := harnessActEnv(dir, c.model).ExecuteActivity(a.HarnessPropose, in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var out HarnessProposeOutput
		_ = v.Get(&out)
		if out.Source != c.source || !strings.Contains(out.Note, c.note) || len(out.Proposal.ThresholdIncreases) != 1 {
			t.Errorf("%s: %+v", c.name, out)
		}
	}
}

func TestHarnessCommitKeepsTheRatchet(t *testing.T) {
	var a *HarnessActivities
	dir, h := harnessTestStore(t)
	env := harnessActEnv(dir, nil)
	easier := h.Clone()
	easier.Benchmarks[0].Threshold = 0.1
	if _, err := env.ExecuteActivity(a.HarnessCommit, HarnessCommitInput{Harness: easier, Base: 1, Change: "x"}); err == nil || !strings.Contains(err.Error(), "lowers the threshold") {
		t.Errorf("lowered commit: %v", err)
	}
	harder := h.Clone()
	harder.Benchmarks[0].Threshold = 0.7
	v, err := env.ExecuteActivity(a.HarnessCommit, HarnessCommitInput{Harness: harder, Base: 1, Change: "y"})
	if err != nil {
		t.Fatal(err)
	}
	var out HarnessCommitOutput
	_ = v.Get(&out)
	if out.Version != 2 {
		t.Errorf("version %d", out.Version)
	}
	v, err = env.ExecuteActivity(a.HarnessRestore, HarnessRestoreInput{Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cur, _ := harness.NewStore(dir).Current(); cur.Version != 1 {
		t.Errorf("restore left v%d", cur.Version)
	}
}

func TestRecordHarnessCycleRefusesBadMetrics(t *testing.T) {
	_, err := RecordHarnessCycle(context.Background(), nil, HarnessRecordInput{Metrics: harness.Metrics{CeilingRate: 2}})
	if err == nil || !strings.Contains(err.Error(), "ceiling_rate 2 not in [0,1]") {
		t.Errorf("bad metrics: %v", err)
	}
	var a *HarnessActivities
	if _, err := harnessActEnv(t.TempDir(), nil).ExecuteActivity(a.HarnessRecordCycle, HarnessRecordInput{}); err == nil {
		t.Error("recorded without a client")
	}
}
