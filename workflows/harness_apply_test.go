package workflows

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/internal/llm"
)

// The application protocol (issue 12): baseline check, rollback of threshold-only
// expansions, documented edge cases counted apart, retries of failed new tests, signals per
// harness version, and deterministic expansion that generates benchmarks from the corpus.

// apHarness has a benchmark the stand-in research answers fully (gogc), one it half answers
// (hb) and one it cannot answer (sched): a cycle that reported them all at 1.0 is not what a
// re-run at baseline finds.
func apHarness() harness.Harness {
	h := hxHarness()
	h.Benchmarks = append(h.Benchmarks, harness.Benchmark{ID: "sched", Question: "What does runtime.Gosched do?", Gold: hxFact(`yields the processor`), Threshold: 0.5, Enabled: true})
	return h
}

// apEnv is hxEnv over h, with an optional corpus and research stand-in.
func apEnv(t *testing.T, h harness.Harness, model activities.HarnessModel, corp activities.HarnessCorpus, research any) (*testsuite.TestWorkflowEnvironment, *harness.Store, *[]ExpansionEvent) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(hxQuietLogger{})
	env := s.NewTestWorkflowEnvironment()
	dir := t.TempDir()
	store := harness.NewStore(dir)
	if h.Version > 0 {
		if _, _, err := store.Init(h, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	env.RegisterActivity(activities.NewHarnessActivitiesWithCorpus(dir, nil, "q", model, corp))
	if research == nil {
		research = hxResearch
	}
	env.RegisterWorkflowWithOptions(research, workflow.RegisterOptions{Name: ResearchWorkflowName})
	env.RegisterWorkflowWithOptions(ExpansionWorkflow, workflow.RegisterOptions{Name: ExpansionWorkflowName})
	env.RegisterWorkflowWithOptions(HarnessCycleWorkflow, workflow.RegisterOptions{Name: HarnessCycleWorkflowName})
	events := &[]ExpansionEvent{}
	env.OnSignalExternalWorkflow(mock.Anything, "mon", "", MonitorExpansionEventSignal, mock.Anything).Return(
		func(ns, id, run, name string, arg any) error {
			*events = append(*events, arg.(ExpansionEvent))
			return nil
		})
	return env, store, events
}

func apApprove(env *testsuite.TestWorkflowEnvironment) {
	env.RegisterDelayedCallback(func() {
		var rejected []string
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: "ana", Reason: "ceiling"}, &rejected)
	}, time.Hour)
}

var apAllAtOne = []harness.BenchmarkScore{{ID: "gogc", Score: 1}, {ID: "memlimit", Score: 1}, {ID: "hb", Score: 1}, {ID: "sched", Score: 1}}

func TestApplyThresholdOnlyExpansionRollsBack(t *testing.T) {
	// No model and no corpus: the deterministic proposal only raises thresholds, all five to
	// 0.9 since the cycle reported 1.0 for each. The re-run at the new thresholds finds gogc
	// and memlimit at 1, hb at 0.5, sched and once at 0: three of five fail, so it rolls back
	// (before, a threshold-only expansion had no test to run and was always committed).
	h := apHarness()
	h.Benchmarks[1].Threshold = 0.5 // memlimit, now raised too, and passing at 0.9
	h.Benchmarks = append(h.Benchmarks, harness.Benchmark{ID: "once", Question: "What does sync.Once guarantee?", Gold: hxFact(`exactly once`), Threshold: 0.5, Enabled: true})
	scores := append(append([]harness.BenchmarkScore(nil), apAllAtOne...), harness.BenchmarkScore{ID: "once", Score: 1})
	env, store, events := apEnv(t, h, nil, nil, nil)
	apApprove(env)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", Benchmarks: scores, ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st := hxStatus(t, env)
	if len(st.Accepted.NewBenchmarks) != 0 || len(st.Accepted.ThresholdIncreases) != 5 {
		t.Fatalf("not a threshold-only expansion: %+v", st.Accepted)
	}
	if st.State != ExpansionRolledBack || st.Tally == nil || *st.Tally != (harness.Baseline{RerunRun: 5, RerunFailed: 3}) {
		t.Fatalf("state %s tally %+v note %q", st.State, st.Tally, st.Note)
	}
	if !strings.Contains(st.Note, "3 of 5 re-run benchmarks failed at baseline") || !strings.Contains(st.Note, "restored v1") {
		t.Errorf("note %q", st.Note)
	}
	cur, _ := store.Current()
	if b, _ := cur.Benchmark("gogc"); cur.Version != 1 || b.Threshold != 0.6 {
		t.Errorf("after the rollback: v%d gogc %g", cur.Version, b.Threshold)
	}
	if n := len(*events); n == 0 || (*events)[n-1].Kind != EventRolledBack {
		t.Errorf("events %+v", *events)
	}
}

func TestApplyBaselineCheckRollsBackPassingNewTests(t *testing.T) {
	// The new benchmark passes at baseline, but the raised thresholds of hb and sched fail on
	// the re-run, and so does memlimit's raise to 1 when the system now finds nothing for it:
	// the baseline check rolls the expansion back though every new test passed.
	proposal := `{"rationale": "harder", "new_edge_cases": [], "threshold_increases": [
{"benchmark_id": "hb", "proposed": 0.9, "rationale": "at ceiling"}, {"benchmark_id": "sched", "proposed": 0.9, "rationale": "at ceiling"}],
"new_benchmarks": [{"id": "nilmap", "question": "Is a nil map writable?", "threshold": 0.5, "gold": [{"fact": "panics", "patterns": ["nil map panics"]}]}]}`
	env, store, _ := apEnv(t, apHarness(), hxModel{answers: map[llm.Stage]string{llm.Planner: proposal}}, nil, nil)
	apApprove(env)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", Benchmarks: apAllAtOne, ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st := hxStatus(t, env)
	if len(st.NewTests) != 1 || !st.NewTests[0].Passed {
		t.Fatalf("new tests %+v", st.NewTests)
	}
	// re-run: gogc 1 >= 0.6, memlimit 1 >= 0.9, hb 0.5 < 0.9, sched 0 < 0.9: two of four fail,
	// not more than half; so this commits, and the next case (three of four) does not.
	if st.State != ExpansionApplied || st.Tally.RerunFailed != 2 || st.Tally.RerunRun != 4 {
		t.Fatalf("state %s tally %+v", st.State, st.Tally)
	}
	if len(st.Rerun) != 4 || st.Rerun[2].ID != "hb" || st.Rerun[2].Passed || st.Rerun[2].Threshold != 0.9 || !strings.Contains(st.Rerun[2].Note, "below its threshold 0.90") {
		t.Errorf("rerun %+v", st.Rerun)
	}

	proposal = strings.Replace(proposal, `"threshold_increases": [`, `"threshold_increases": [{"benchmark_id": "memlimit", "proposed": 1, "rationale": "at ceiling"}, `, 1)
	h := apHarness()
	h.Benchmarks[1].Question = "What does sync.Once guarantee?" // the system no longer answers it
	env, store, _ = apEnv(t, h, hxModel{answers: map[llm.Stage]string{llm.Planner: proposal}}, nil, nil)
	apApprove(env)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", Benchmarks: apAllAtOne, ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st = hxStatus(t, env)
	if st.State != ExpansionRolledBack || *st.Tally != (harness.Baseline{NewRun: 1, RerunRun: 4, RerunFailed: 3}) {
		t.Fatalf("state %s tally %+v", st.State, st.Tally)
	}
	if cur, _ := store.Current(); cur.Version != 1 {
		t.Errorf("v%d in force after the rollback", cur.Version)
	}
}

func TestApplyDocumentedEdgeCasesDoNotDilute(t *testing.T) {
	// One runnable new benchmark fails; two documented edge cases have nothing to run. Counted
	// as passes they made it 1 of 3 (commit); counted apart it is 1 of 1 (rollback).
	proposal := `{"rationale": "harder", "threshold_increases": [],
"new_benchmarks": [{"id": "once", "question": "What does sync.Once guarantee?", "threshold": 0.5, "gold": [{"fact": "once", "patterns": ["exactly once"]}]}],
"new_edge_cases": [{"id": "empty", "description": "an empty question is refused"}, {"id": "huge", "description": "a 10 MB page is cut"}]}`
	env, _, _ := apEnv(t, hxHarness(), hxModel{answers: map[llm.Stage]string{llm.Planner: proposal}}, nil, nil)
	apApprove(env)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st := hxStatus(t, env)
	if st.State != ExpansionRolledBack || *st.Tally != (harness.Baseline{NewRun: 1, NewFailed: 1, RerunRun: 3, Documented: 2}) {
		t.Fatalf("state %s tally %+v", st.State, st.Tally)
	}
	if !st.NewTests[1].Documented || !strings.Contains(st.Note, "2 documented edge case(s) not counted") {
		t.Errorf("new tests %+v note %q", st.NewTests, st.Note)
	}
}

func TestCycleRetriesFailedNewTests(t *testing.T) {
	// An expansion left nilmap and once disabled (they failed at baseline). The next cycle
	// runs them again: nilmap now passes and is enabled in v2, once stays disabled.
	h := hxHarness()
	h.Benchmarks = append(h.Benchmarks,
		harness.Benchmark{ID: "nilmap", Question: "Is a nil map writable?", Gold: hxFact(`nil map panics`), Threshold: 0.5},
		harness.Benchmark{ID: "once", Question: "What does sync.Once guarantee?", Gold: hxFact(`exactly once`), Threshold: 0.5})
	env, store, _ := apEnv(t, h, nil, nil, nil)
	env.OnActivity(harnessActs.HarnessMonitorStatus, mock.Anything, mock.Anything).Return(activities.HarnessMonitorStatusOutput{Running: true}, nil)
	var sent activities.HarnessRecordInput
	env.OnActivity(harnessActs.HarnessRecordCycle, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.HarnessRecordInput) (harness.CycleResult, error) {
			sent = in
			return harness.CycleResult{Cycle: 3}, nil
		})
	env.ExecuteWorkflow(HarnessCycleWorkflowName, HarnessCycleRequest{})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var rep HarnessCycleReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 3 || len(rep.Retries) != 2 || !rep.Retries[0].Passed || rep.Retries[1].Passed {
		t.Fatalf("results %d retries %+v", len(rep.Results), rep.Retries)
	}
	if fmt.Sprint(rep.RetryEnabled) != "[nilmap]" || rep.RetryVersion != 2 {
		t.Errorf("enabled %v in v%d", rep.RetryEnabled, rep.RetryVersion)
	}
	// the retries are reported with the cycle but are not among its signals
	if len(sent.Metrics.Retries) != 2 || len(sent.Metrics.Benchmarks) != 3 || sent.Metrics.HarnessVersion != 1 {
		t.Errorf("metrics %+v", sent.Metrics)
	}
	cur, _ := store.Current()
	nm, _ := cur.Benchmark("nilmap")
	on, _ := cur.Benchmark("once")
	if cur.Version != 2 || !nm.Enabled || on.Enabled {
		t.Errorf("v%d nilmap %v once %v", cur.Version, nm.Enabled, on.Enabled)
	}
}

func TestExpansionWithoutHarnessEndsWithANote(t *testing.T) {
	env, _, events := apEnv(t, harness.Harness{}, nil, nil, nil)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st := hxStatus(t, env)
	if st.State != ExpansionNothing || !strings.Contains(st.Note, "no harness of its own yet") || !strings.Contains(st.Note, "per-benchmark scores") {
		t.Fatalf("status %+v", st)
	}
	if n := len(*events); n != 1 || (*events)[0].Kind != EventNothing {
		t.Errorf("events %+v", *events)
	}
}

func TestExpansionForExternalMetricsSaysWhatItNeeds(t *testing.T) {
	// Metrics from another harness carry no per-benchmark scores, and there is no corpus to
	// generate from: nothing to propose, and the note says what would help.
	env, _, events := apEnv(t, hxHarness(), nil, nil, nil)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", ExpansionSettings: ExpansionSettings{SkipResearch: true}})
	st := hxStatus(t, env)
	if st.State != ExpansionNothing || !strings.Contains(st.Note, "nothing I can propose for an external harness: record per-benchmark scores") {
		t.Fatalf("status %+v", st)
	}
	if n := len(*events); n != 1 || !strings.Contains((*events)[0].Reason, "record per-benchmark scores") {
		t.Errorf("events %+v", *events)
	}
}

// apDocs are corpus pages none of hxHarness's benchmarks cover.
var apDocs = []corpus.Document{
	{URL: "https://go.dev/doc/gc-guide", Title: "A Guide to the Go Garbage Collector", Format: corpus.FormatMarkdown, Body: `# A Guide to the Go Garbage Collector

## Understanding costs

The Go garbage collector is a tracing collector that runs concurrently with the program and marks every reachable object before the sweep phase frees memory.
` + apFiller},
	{URL: "https://go.dev/ref/mem", Title: "The Go Memory Model", Format: corpus.FormatMarkdown, Body: `# The Go Memory Model

## Channels

A send on a buffered channel with capacity C is synchronized before the completion of the matching receive from that channel.
` + apFiller},
	{URL: "https://go.dev/doc/effective_go", Title: "Effective Go", Format: corpus.FormatMarkdown, Body: `# Effective Go

## Defer

Deferred functions are executed in last-in-first-out order when the surrounding function returns to its caller.
` + apFiller},
}

const apFiller = "\nMore words follow here so that the passage reaches the size the splitter wants for a passage of its own, with some padding sentences about nothing in particular, repeated to reach eighty words in all, which keeps the section whole and searchable as one unit in the corpus index used by these tests today.\n"

// apCorpus opens a corpus over apDocs.
func apCorpus(t *testing.T) *corpus.Index {
	t.Helper()
	x, err := corpus.Open(t.TempDir() + "/corpus.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	for _, d := range apDocs {
		if err := x.Add(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func TestDeterministicExpansionGeneratesValidatedBenchmarks(t *testing.T) {
	// The research stand-in answers from the corpus (its top passages), so a generated
	// question is answerable exactly when its passage is found. The expansion research reports
	// on buffered channels; the generated benchmarks cite it.
	x := apCorpus(t)
	research := func(ctx workflow.Context, req ResearchRequest) (ResearchReport, error) {
		if strings.HasPrefix(req.Question, "Expansion research") {
			return ResearchReport{Markdown: "A send on a buffered channel is synchronized before the matching receive completes [1]."}, nil
		}
		if md, ok := hxAnswers[req.Question]; ok {
			return ResearchReport{Question: req.Question, Markdown: md, Sources: make([]Source, 2)}, nil
		}
		var md string
		if err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute}),
			func(ctx context.Context, q string) (string, error) {
				rs, err := x.Search(ctx, q, 2)
				var b strings.Builder
				for _, r := range rs {
					if p, err := x.Passage(ctx, r.DocID); err == nil {
						b.WriteString(p.Text + " [1]\n")
					}
				}
				return b.String(), err
			}, req.Question).Get(ctx, &md); err != nil {
			return ResearchReport{}, err
		}
		return ResearchReport{Question: req.Question, Markdown: md, Sources: make([]Source, 2)}, nil
	}
	env, store, _ := apEnv(t, hxHarness(), nil, x, research)
	apApprove(env)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon"})
	st := hxStatus(t, env)
	nb := st.Accepted.NewBenchmarks
	if len(nb) != 4 || !strings.HasPrefix(nb[3].ID, "gen-multi-") || len(nb[3].Gold) != 2 {
		t.Fatalf("generated %+v", nb)
	}
	if !strings.Contains(nb[0].Origin, "The Go Memory Model > Channels") || !strings.Contains(nb[0].Origin, "expansion research found: A send on a buffered channel") {
		t.Errorf("the first benchmark does not cite the research: %q", nb[0].Origin)
	}
	if !strings.Contains(st.Accepted.Rationale, "led to by the expansion research") {
		t.Errorf("rationale %q", st.Accepted.Rationale)
	}
	if st.State != ExpansionApplied || st.Tally.NewRun != 4 || st.Tally.NewFailed != 0 {
		t.Fatalf("state %s tally %+v new %+v", st.State, st.Tally, st.NewTests)
	}
	cur, _ := store.Current()
	for _, b := range nb {
		if got, _ := cur.Benchmark(b.ID); !got.Enabled || got.Origin == "" {
			t.Errorf("%s not enabled with its origin: %+v", b.ID, got)
		}
	}
}

func TestMonitorSignalsRestartPerVersion(t *testing.T) {
	// Nine saturated cycles on v1, then three on v2: the streak counts only v2's three, the
	// deltas of v1 are not compared with v2's, and nothing is decided on three cycles.
	ms := hxMetrics(12, hxSaturated, func(i int) float64 { return 0.1 - 0.01*float64(i) })
	for i := range ms {
		ms[i].HarnessVersion = 1
		if i >= 9 {
			ms[i].HarnessVersion = 2
		}
	}
	run := hxFeed(t, MonitorInput{}, time.Hour, ms, nil)
	if a := run.status.Aggregate; a.Cycles != 3 || a.ConsecutiveHigh != 3 || run.status.LastVersion != 2 {
		t.Fatalf("aggregate %+v version %d", a, run.status.LastVersion)
	}
	if len(run.expansion) != 0 {
		t.Errorf("an expansion started on three cycles of v2: %+v", run.expansion)
	}
	if last := run.results[11]; last.Breakdown.Trend != 0 || last.Decision != harness.DecisionContinue {
		t.Errorf("v2's third cycle: %+v", last)
	}
}

func TestMonitorRecordsTheTrigger(t *testing.T) {
	ms := hxMetrics(10, hxSaturated, nil)
	for i := range ms {
		ms[i].HarnessVersion = 4
	}
	run := hxFeed(t, MonitorInput{}, time.Hour, ms, nil)
	if len(run.expansion) != 1 || run.expansion[0].Trigger == nil {
		t.Fatalf("expansions %+v", run.expansion)
	}
	tr := run.expansion[0].Trigger
	if tr.ConsecutiveHigh != 10 || tr.HarnessVersion != 4 || tr.Level != run.results[9].Breakdown.Level || tr.Score != run.results[9].Breakdown.Score {
		t.Errorf("trigger %+v, cycle %+v", tr, run.results[9].Breakdown)
	}
}

func TestExpansionStopsWhenItsResearchFails(t *testing.T) {
	// The research's findings lead the proposal: a failed research run is a failed expansion
	// with the reason, not a proposal made as if nothing had been looked for.
	failing := func(ctx workflow.Context, req ResearchRequest) (ResearchReport, error) {
		return ResearchReport{}, temporal.NewNonRetryableApplicationError("no search provider answered", "BadInput", nil)
	}
	env, store, events := apEnv(t, hxHarness(), nil, nil, failing)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", Benchmarks: hxCeilingScores})
	if err := env.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), "expansion research failed") {
		t.Fatalf("expansion ended with %v", err)
	}
	var st ExpansionStatus
	v, err := env.QueryWorkflow(ExpansionStatusQuery)
	if err != nil || v.Get(&st) != nil {
		t.Fatal(err)
	}
	if st.State != ExpansionFailed || !strings.Contains(st.Note, "no search provider answered") || !st.Proposed.Empty() {
		t.Errorf("status %+v", st)
	}
	if n := len(*events); n != 1 || (*events)[0].Kind != EventFailed {
		t.Errorf("events %+v", *events)
	}
	if vs, _ := store.Versions(); len(vs) != 1 {
		t.Errorf("versions %v", vs)
	}
}
