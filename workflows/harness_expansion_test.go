package workflows

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/internal/llm"
)

// hxAnswers is what the stand-in research finds, by question.
var hxAnswers = map[string]string{
	"What is the default GOGC?":      "GOGC defaults to 100 [1].",
	"What does GOMEMLIMIT set?":      "GOMEMLIMIT sets a soft memory limit [1].",
	"What is happens-before?":        "A send happens before the receive completes [2].",
	"Is a nil map writable?":         "Writing to a nil map panics [1].",
	"What does runtime.Gosched do?":  "nothing found",
	"What does sync.Once guarantee?": "nothing found",
}

// hxResearch stands in for ResearchWorkflow: it answers from hxAnswers with two sources.
func hxResearch(ctx workflow.Context, req ResearchRequest) (ResearchReport, error) {
	md, ok := hxAnswers[req.Question]
	if !ok {
		md = "An expansion report about ceilings and edge cases [1]."
	}
	return ResearchReport{Question: req.Question, Markdown: md, Sources: make([]Source, 2)}, nil
}

func hxFact(word string) []eval.Fact {
	return []eval.Fact{{Fact: word, Patterns: []string{word}}}
}

func hxHarness() harness.Harness {
	return harness.Harness{
		Version: 1,
		Gates:   harness.Gates{MinCitationValidity: 0.8, MaxInvalidCitations: 1},
		Benchmarks: []harness.Benchmark{
			{ID: "gogc", Question: "What is the default GOGC?", Gold: hxFact(`defaults to 100`), Threshold: 0.6, Enabled: true},
			{ID: "memlimit", Question: "What does GOMEMLIMIT set?", Gold: hxFact(`soft memory limit`), Threshold: 0.9, Enabled: true},
			{ID: "hb", Question: "What is happens-before?", Gold: append(hxFact(`happens before`), hxFact(`unbuffered`)...), Threshold: 0.5, Enabled: true},
		},
		RegressionTests: []string{"gogc"},
	}
}

// hxModel is a scripted HarnessModel: canned JSON per stage.
type hxModel struct{ answers map[llm.Stage]string }

func (m hxModel) Configured(s llm.Stage) bool { _, ok := m.answers[s]; return ok }

func (m hxModel) GenerateJSON(ctx context.Context, stage llm.Stage, system, prompt string, schema json.RawMessage, out any, validate func() error) (llm.Outcome, llm.Usage, error) {
	if err := json.Unmarshal([]byte(m.answers[stage]), out); err != nil {
		return llm.Outcome{Fallback: true, Reason: err.Error()}, llm.Usage{}, nil
	}
	if err := validate(); err != nil {
		return llm.Outcome{Fallback: true, Reason: err.Error()}, llm.Usage{}, nil
	}
	return llm.Outcome{}, llm.Usage{}, nil
}

// hxEnv is a test environment with the real harness activities over a store in a temp dir and
// the stand-in research.
func hxEnv(t *testing.T, model activities.HarnessModel) (*testsuite.TestWorkflowEnvironment, *harness.Store) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(hxQuietLogger{})
	env := s.NewTestWorkflowEnvironment()
	dir := t.TempDir()
	store := harness.NewStore(dir)
	if _, _, err := store.Init(hxHarness(), time.Now()); err != nil {
		t.Fatal(err)
	}
	env.RegisterActivity(activities.NewHarnessActivities(dir, nil, "q", model))
	env.RegisterWorkflowWithOptions(hxResearch, workflow.RegisterOptions{Name: ResearchWorkflowName})
	env.RegisterWorkflowWithOptions(ExpansionWorkflow, workflow.RegisterOptions{Name: ExpansionWorkflowName})
	env.RegisterWorkflowWithOptions(HarnessCycleWorkflow, workflow.RegisterOptions{Name: HarnessCycleWorkflowName})
	return env, store
}

// hxDecide sends an approve or reject update and collects its refusal, whether the validator
// rejects it or the handler fails it.
func hxDecide(env *testsuite.TestWorkflowEnvironment, name string, r DecideRequest, rejected *[]string) {
	env.UpdateWorkflow(name, fmt.Sprint(name, r.By, r.Reason), &testsuite.TestUpdateCallback{
		OnReject: func(err error) { *rejected = append(*rejected, err.Error()) },
		OnComplete: func(_ any, err error) {
			if err != nil {
				*rejected = append(*rejected, err.Error())
			}
		},
	}, r)
}

func hxStatus(t *testing.T, env *testsuite.TestWorkflowEnvironment) ExpansionStatus {
	t.Helper()
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("expansion failed: %v", err)
	}
	var st ExpansionStatus
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

var hxCeilingScores = []harness.BenchmarkScore{{ID: "gogc", Score: 1}, {ID: "memlimit", Score: 0.97}, {ID: "hb", Score: 0.5}}

func TestExpansionApprovedDeterministic(t *testing.T) {
	env, store := hxEnv(t, nil)
	var rejected []string
	env.RegisterDelayedCallback(func() {
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: ""}, &rejected)
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: "ana", Reason: "ceiling reached"}, &rejected)
		hxDecide(env, ExpansionRejectUpdate, DecideRequest{By: "bo", Reason: "late"}, &rejected)
	}, time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, Reason: "expansion-research", Benchmarks: hxCeilingScores})
	st := hxStatus(t, env)
	if len(rejected) != 2 || !strings.Contains(rejected[0], "must name who") || !strings.Contains(rejected[1], "already approved by ana") {
		t.Errorf("rejections %q", rejected)
	}
	if st.State != ExpansionApplied || st.ProposalSource != "deterministic" || st.CommittedVersion != 2 || st.Decision.By != "ana" {
		t.Fatalf("status %+v", st)
	}
	// gogc was at the ceiling: 0.6 -> 0.9, within the margin of its score; memlimit (0.97
	// against 0.9) has no headroom and hb scored 0.5, so neither was.
	if n := len(st.Accepted.ThresholdIncreases); n != 1 {
		t.Fatalf("%d increases: %+v", n, st.Accepted)
	}
	h, err := store.Current()
	if err != nil || h.Version != 2 || h.Parent != 1 || h.Change != st.ID {
		t.Fatalf("store: v%d %v", h.Version, err)
	}
	for id, want := range map[string]float64{"gogc": 0.9, "memlimit": 0.9, "hb": 0.5} {
		if b, _ := h.Benchmark(id); b.Threshold != want {
			t.Errorf("%s threshold %g, want %g", id, b.Threshold, want)
		}
	}
	if _, err := store.Version(1); err != nil {
		t.Errorf("v1 not archived: %v", err)
	}
}

const hxModelProposal = `{
 "rationale": "harder",
 "threshold_increases": [{"benchmark_id": "gogc", "proposed": 0.4, "rationale": "easier"}, {"benchmark_id": "memlimit", "proposed": 1, "rationale": "at ceiling"}],
 "new_benchmarks": [%s],
 "new_edge_cases": [{"id": "empty-question", "description": "an empty question is refused"}],
 "remove_tests": ["hb"],
 "gates": {"min_citation_validity": 0.5, "max_invalid_citations": 1}
}`

func TestExpansionRatchetRefusesAndApplies(t *testing.T) {
	newB := `{"id": "nilmap", "question": "Is a nil map writable?", "threshold": 0.5, "gold": [{"fact": "panics", "patterns": ["nil map panics"]}]}`
	env, store := hxEnv(t, hxModel{answers: map[llm.Stage]string{llm.Planner: fmt.Sprintf(hxModelProposal, newB)}})
	var rejected []string
	env.RegisterDelayedCallback(func() {
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: "ana"}, &rejected)
	}, time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 12, Urgent: true, Benchmarks: hxCeilingScores})
	st := hxStatus(t, env)
	if st.ProposalSource != "model" || st.State != ExpansionApplied {
		t.Fatalf("status %+v", st)
	}
	reasons := fmt.Sprint(st.Refusals)
	for _, want := range []string{"lowers the threshold from 0.6", "removes a test", "weakens a gate (min_citation_validity 0.8 -> 0.5)"} {
		if !strings.Contains(reasons, want) {
			t.Errorf("refusals %s lack %q", reasons, want)
		}
	}
	h, _ := store.Current()
	if b, _ := h.Benchmark("gogc"); b.Threshold != 0.6 {
		t.Errorf("lowered threshold applied: %g", b.Threshold)
	}
	if b, _ := h.Benchmark("memlimit"); b.Threshold != 1 {
		t.Errorf("raise not applied: %g", b.Threshold)
	}
	if _, ok := h.Benchmark("hb"); !ok || h.Gates.MinCitationValidity != 0.8 {
		t.Error("a removal or a weaker gate got through")
	}
	// The new benchmark passed at baseline (the stand-in says nil map panics) and is enabled;
	// the documented edge case has nothing to run and is enabled too.
	if b, ok := h.Benchmark("nilmap"); !ok || !b.Enabled || len(h.EdgeCases) != 1 || !h.EdgeCases[0].Enabled {
		t.Errorf("new tests: %+v %+v", b, h.EdgeCases)
	}
}

func TestExpansionAllRefusedNeedsNoPerson(t *testing.T) {
	only := `{"rationale": "x", "threshold_increases": [{"benchmark_id": "gogc", "proposed": 0.1, "rationale": "easier"}], "new_benchmarks": [], "new_edge_cases": [], "disable_tests": ["memlimit"]}`
	env, store := hxEnv(t, hxModel{answers: map[llm.Stage]string{llm.Planner: only}})
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 12, ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st := hxStatus(t, env)
	if st.State != ExpansionNothing || len(st.Refusals) != 2 || st.ResearchWorkflowID != "" {
		t.Fatalf("status %+v", st)
	}
	if h, _ := store.Current(); h.Version != 1 {
		t.Errorf("harness changed to v%d", h.Version)
	}
}

func TestExpansionRejected(t *testing.T) {
	env, store := hxEnv(t, nil)
	var rejected []string
	env.RegisterDelayedCallback(func() {
		hxDecide(env, ExpansionRejectUpdate, DecideRequest{By: "bo"}, &rejected)
		hxDecide(env, ExpansionRejectUpdate, DecideRequest{By: "bo", Reason: "thresholds are fine"}, &rejected)
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: "ana"}, &rejected)
	}, 48*time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, Benchmarks: hxCeilingScores})
	st := hxStatus(t, env)
	// The late approval is refused, or arrives after the workflow closed; either way it is not applied.
	if len(rejected) == 0 || !strings.Contains(rejected[0], "needs a reason") || len(rejected) == 2 && !strings.Contains(rejected[1], "already rejected by bo") {
		t.Errorf("rejections %q", rejected)
	}
	if st.State != ExpansionRejected || st.Decision.Approved || st.Decision.By != "bo" || st.Decision.Reason != "thresholds are fine" {
		t.Fatalf("status %+v", st)
	}
	if vs, _ := store.Versions(); len(vs) != 1 {
		t.Errorf("versions %v after a rejection", vs)
	}
}

func TestExpansionExpires(t *testing.T) {
	env, _ := hxEnv(t, nil)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, Benchmarks: hxCeilingScores, ExpansionSettings: ExpansionSettings{ApprovalTimeout: 24 * time.Hour}})
	if st := hxStatus(t, env); st.State != ExpansionExpired {
		t.Fatalf("status %+v", st)
	}
}

func TestExpansionRollsBack(t *testing.T) {
	// Two of three new benchmarks fail at baseline (the stand-in finds nothing for them).
	proposal := `{"rationale": "harder", "threshold_increases": [{"benchmark_id": "memlimit", "proposed": 1, "rationale": "at ceiling"}], "new_edge_cases": [], "new_benchmarks": [
{"id": "gosched", "question": "What does runtime.Gosched do?", "threshold": 0.5, "gold": [{"fact": "yields", "patterns": ["yields the processor"]}]},
{"id": "once", "question": "What does sync.Once guarantee?", "threshold": 0.5, "gold": [{"fact": "once", "patterns": ["exactly once"]}]},
{"id": "nilmap", "question": "Is a nil map writable?", "threshold": 0.5, "gold": [{"fact": "panics", "patterns": ["nil map panics"]}]}]}`
	env, store := hxEnv(t, hxModel{answers: map[llm.Stage]string{llm.Planner: proposal}})
	var events []ExpansionEvent
	env.OnSignalExternalWorkflow(mock.Anything, "mon", "", MonitorExpansionEventSignal, mock.Anything).Return(
		func(ns, id, run, name string, arg any) error {
			events = append(events, arg.(ExpansionEvent))
			return nil
		})
	var rejected []string
	env.RegisterDelayedCallback(func() {
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: "ana"}, &rejected)
	}, time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 12, MonitorID: "mon", Benchmarks: hxCeilingScores})
	st := hxStatus(t, env)
	if st.State != ExpansionRolledBack || st.CommittedVersion != 0 || !strings.Contains(st.Note, "2 of 3 new tests and 0 of 3 re-run benchmarks failed at baseline; 0 documented edge case(s) not counted; restored v1") {
		t.Fatalf("status %+v", st)
	}
	if len(st.NewTests) != 3 || st.NewTests[0].Passed || st.NewTests[1].Passed || !st.NewTests[2].Passed {
		t.Fatalf("new tests %+v", st.NewTests)
	}
	h, _ := store.Current()
	if b, _ := h.Benchmark("memlimit"); h.Version != 1 || b.Threshold != 0.9 {
		t.Errorf("harness v%d memlimit %g after rollback", h.Version, b.Threshold)
	}
	if vs, _ := store.Versions(); len(vs) != 1 {
		t.Errorf("versions %v", vs)
	}
	if n := len(events); n == 0 || events[n-1].Kind != EventRolledBack {
		t.Errorf("monitor not told of the rollback: %+v", events)
	}
}

func TestExpansionSignalsMonitor(t *testing.T) {
	env, _ := hxEnv(t, nil)
	var events []ExpansionEvent
	env.OnSignalExternalWorkflow(mock.Anything, "mon", "", MonitorExpansionEventSignal, mock.Anything).Return(
		func(ns, id, run, name string, arg any) error {
			events = append(events, arg.(ExpansionEvent))
			return nil
		})
	var rejected []string
	env.RegisterDelayedCallback(func() {
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: "ana"}, &rejected)
	}, time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", Benchmarks: hxCeilingScores})
	hxStatus(t, env)
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, ","); got != "proposed,approved,applied" {
		t.Errorf("events %s", got)
	}
}

// Approve and reject also arrive as signals (the Temporal CLI's 'workflow signal', the UI's
// signal dialog): a valid one decides as the update does, and the ones that decide nothing are
// recorded with why instead of vanishing.
func TestExpansionDecidedBySignal(t *testing.T) {
	env, store := hxEnv(t, nil)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(ExpansionApproveUpdate, DecideRequest{Reason: "nameless"})
		env.SignalWorkflow(ExpansionApproveUpdate, DecideRequest{By: "ops", Reason: "ceiling reached"})
		env.SignalWorkflow(ExpansionRejectUpdate, DecideRequest{By: "bo", Reason: "too late"})
	}, time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, Reason: "expansion-research", Benchmarks: hxCeilingScores})
	st := hxStatus(t, env)
	if st.State != ExpansionApplied || st.Decision == nil || st.Decision.By != "ops" || !st.Decision.Approved {
		t.Fatalf("status %+v", st)
	}
	if h, err := store.Current(); err != nil || h.Version != 2 {
		t.Fatalf("store: v%d %v", h.Version, err)
	}
	if len(st.IgnoredSignals) != 2 {
		t.Fatalf("ignored signals %+v, want the nameless and the late one", st.IgnoredSignals)
	}
	if s := st.IgnoredSignals[0]; s.Signal != "approve" || !strings.Contains(s.Why, "must name who") {
		t.Errorf("nameless signal: %+v", s)
	}
	if s := st.IgnoredSignals[1]; s.Signal != "reject" || s.By != "bo" || !strings.Contains(s.Why, "already approved by ops") {
		t.Errorf("late signal: %+v", s)
	}
}

// A rejection by signal needs its reason, like the update.
func TestExpansionRejectedBySignal(t *testing.T) {
	env, store := hxEnv(t, nil)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(ExpansionRejectUpdate, DecideRequest{By: "bo"})
		env.SignalWorkflow(ExpansionRejectUpdate, DecideRequest{By: "bo", Reason: "thresholds are fine"})
	}, 2*time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, Benchmarks: hxCeilingScores})
	st := hxStatus(t, env)
	if st.State != ExpansionRejected || st.Decision == nil || st.Decision.Reason != "thresholds are fine" {
		t.Fatalf("status %+v", st)
	}
	if len(st.IgnoredSignals) != 1 || !strings.Contains(st.IgnoredSignals[0].Why, "needs a reason") {
		t.Errorf("ignored %+v", st.IgnoredSignals)
	}
	if vs, _ := store.Versions(); len(vs) != 1 {
		t.Errorf("versions %v after a rejection", vs)
	}
}
