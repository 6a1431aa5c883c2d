package workflows

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/harness"
)

// hxMonitorRun is the outcome of feeding a monitor a list of cycles.
type hxMonitorRun struct {
	results   []harness.CycleResult
	rejected  []error
	status    MonitorStatus
	next      MonitorInput // the continue-as-new input
	expansion []ExpansionRequest
}

// hxFeed runs a monitor from in, recording each metrics document every `every`, sending
// events[i] just before record i, and letting the monitor continue as new after the last record.
func hxFeed(t *testing.T, in MonitorInput, every time.Duration, metrics []harness.Metrics, events map[int]ExpansionEvent) hxMonitorRun {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(hxQuietLogger{})
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	env.RegisterWorkflowWithOptions(SaturationMonitorWorkflow, workflow.RegisterOptions{Name: SaturationMonitorWorkflowName})
	env.RegisterActivity(activities.NewGateActivities("", "", t.TempDir())) // the gate sends nowhere here
	var run hxMonitorRun
	// The expansion is a stand-in that records what the monitor asked for and returns.
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, req ExpansionRequest) (ExpansionStatus, error) {
		run.expansion = append(run.expansion, req)
		return ExpansionStatus{}, nil
	}, workflow.RegisterOptions{Name: ExpansionWorkflowName})
	valid, seen := 0, map[string]bool{}
	for _, m := range metrics {
		if m.Validate() == nil && (m.CycleID == "" || !seen[m.CycleID]) {
			valid++
			seen[m.CycleID] = true
		}
	}
	in.RecordsPerRun = valid + len(events)
	for i, m := range metrics {
		i, m := i, m
		env.RegisterDelayedCallback(func() {
			if ev, ok := events[i]; ok {
				env.SignalWorkflow(MonitorExpansionEventSignal, ev)
			}
			env.UpdateWorkflow(MonitorRecordUpdate, fmt.Sprintf("u%d", i), &testsuite.TestUpdateCallback{
				OnReject: func(err error) { run.rejected = append(run.rejected, err) },
				OnComplete: func(v any, err error) {
					if err != nil {
						t.Errorf("record %d: %v", i, err)
						return
					}
					run.results = append(run.results, v.(harness.CycleResult))
				},
			}, m)
		}, every*time.Duration(i+1))
	}
	env.ExecuteWorkflow(SaturationMonitorWorkflowName, in)
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("monitor ended with %v, want continue-as-new", err)
	}
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &run.next); err != nil {
		t.Fatal(err)
	}
	v, err := env.QueryWorkflow(MonitorStatusQuery)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if err := v.Get(&run.status); err != nil {
		t.Fatal(err)
	}
	return run
}

// hxMetrics builds n cycles; delta(i) gives cycle i's improvement delta.
func hxMetrics(n int, m harness.Metrics, delta func(i int) float64) []harness.Metrics {
	out := make([]harness.Metrics, n)
	for i := range out {
		out[i] = m
		out[i].CycleID = fmt.Sprintf("cycle-%d", i+1)
		if delta != nil {
			out[i].ImprovementDelta = delta(i)
		}
	}
	return out
}

var hxSaturated = harness.Metrics{CeilingRate: 1, RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1}

func TestMonitorUrgentExpansion(t *testing.T) {
	// Improvement shrinking by 0.05 a cycle: from the fifth cycle the trend adds 0.10 and the
	// score is 0.90 CRITICAL; before that 0.80 HIGH.
	ms := hxMetrics(12, hxSaturated, func(i int) float64 { return 0.5 - 0.05*float64(i) })
	ms[0].Benchmarks = []harness.BenchmarkScore{{ID: "gc", Score: 0.99}}
	run := hxFeed(t, MonitorInput{}, time.Hour, ms, nil)
	if len(run.results) != 12 {
		t.Fatalf("%d results", len(run.results))
	}
	for i, r := range run.results[:9] {
		if r.Decision != harness.DecisionContinue || r.ExpansionID != "" {
			t.Errorf("cycle %d: %s with fewer than 10 cycles", i+1, r.Decision)
		}
	}
	if l := run.results[3].Breakdown.Level; l != harness.LevelHigh {
		t.Errorf("cycle 4 level %s", l)
	}
	r10 := run.results[9]
	if r10.Breakdown.Level != harness.LevelCritical || r10.Aggregate.ConsecutiveCritical != 6 || r10.Decision != harness.DecisionUrgentExpansion {
		t.Errorf("cycle 10: %+v", r10)
	}
	if r10.ExpansionID != ExpansionID("default-test-workflow-id", 10) || len(run.expansion) != 1 || !run.expansion[0].Urgent || run.expansion[0].Benchmarks[0].ID != "gc" {
		t.Errorf("expansion not started as asked: %q %+v", r10.ExpansionID, run.expansion)
	}
	if r := run.results[10]; r.ExpansionID != "" || !strings.Contains(r.Note, "still open") {
		t.Errorf("cycle 11 started a second expansion: %+v", r)
	}
	if run.status.OpenExpansion != r10.ExpansionID || len(run.status.Events) != 1 || run.status.Events[0].Kind != EventStarted {
		t.Errorf("status %+v", run.status)
	}
}

func TestMonitorExpansionAfterTenHigh(t *testing.T) {
	// Flat saturation without a falling trend: 0.80 HIGH every cycle.
	ms := hxMetrics(11, hxSaturated, nil)
	// The expansion closes before cycle 11, which is HIGH again but the streak was acted on.
	events := map[int]ExpansionEvent{10: {ExpansionID: ExpansionID("default-test-workflow-id", 10), Kind: EventRejected, By: "ana", Reason: "not now"}}
	run := hxFeed(t, MonitorInput{}, time.Hour, ms, events)
	r10 := run.results[9]
	if r10.Decision != harness.DecisionExpansion || r10.Aggregate.ConsecutiveHigh != 10 || r10.Aggregate.ConsecutiveCritical != 0 || run.expansion[0].Urgent {
		t.Fatalf("cycle 10: %+v", r10)
	}
	r11 := run.results[10]
	if r11.ExpansionID != "" || !strings.Contains(r11.Note, "acted on at cycle 10") {
		t.Errorf("cycle 11: %+v", r11)
	}
	if run.status.OpenExpansion != "" {
		t.Errorf("rejected expansion still open: %q", run.status.OpenExpansion)
	}
	sum := Summarize(run.status.Events)
	if len(sum) != 1 || sum[0].State != EventRejected || len(run.status.Events) != 2 || run.status.Events[0].Kind != EventStarted {
		t.Errorf("summary %+v", sum)
	}
}

func TestMonitorFlagsRisingAverage(t *testing.T) {
	// score = 0.5 + 0.375*ceiling: ceiling 0.4 -> 0.8 over 12 cycles gives 0.65 -> 0.80.
	ms := hxMetrics(12, harness.Metrics{RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1}, nil)
	for i := range ms {
		ms[i].CeilingRate = 0.4 + 0.4*float64(i)/11
	}
	run := hxFeed(t, MonitorInput{}, time.Hour, ms, nil)
	r10 := run.results[9]
	if r10.Decision != harness.DecisionFlagForReview || r10.Aggregate.Trend != harness.TrendIncreasing || r10.Aggregate.Average < 0.7 || r10.Aggregate.ConsecutiveHigh >= 10 {
		t.Fatalf("cycle 10: %+v", r10)
	}
	if len(run.expansion) != 0 {
		t.Error("a review flag started an expansion")
	}
	if len(run.status.Flags) != 1 || run.status.Flags[0].Cycle != 10 {
		t.Errorf("flags %+v, want one for cycle 10 however long it lasts", run.status.Flags)
	}
}

func TestMonitorContinuesRetainsAndRejects(t *testing.T) {
	normal := harness.Metrics{CeilingRate: 0.1, RegressionPassRate: 0.8, ProposalPassRate: 0.3, AuditorUnanimity: 0.5}
	ms := hxMetrics(12, normal, nil)
	// A bad record between cycles is refused by the validator and changes nothing.
	bad := ms[5]
	bad.CeilingRate, bad.CycleID = 1.7, "bad"
	ms = append(ms[:6], append([]harness.Metrics{bad}, ms[6:]...)...)
	dup := ms[2] // the same cycle id again is answered from the first record
	ms = append(ms[:9], append([]harness.Metrics{dup}, ms[9:]...)...)
	mean := 0.42
	ms[len(ms)-1].MeanScore = &mean
	// Every 10 days: by the last record the first cycles are older than 90 days.
	run := hxFeed(t, MonitorInput{}, 10*24*time.Hour, ms, nil)
	if len(run.rejected) != 1 || !strings.Contains(run.rejected[0].Error(), "ceiling_rate 1.7 not in [0,1]") {
		t.Fatalf("rejections %v", run.rejected)
	}
	if d := run.results[8]; !d.Duplicate || d.Cycle != 3 || len(run.results) != 13 {
		t.Errorf("duplicate record: %+v", d)
	}
	for _, r := range run.results {
		if r.Decision != harness.DecisionContinue || r.Breakdown.Level != harness.LevelNormal {
			t.Errorf("cycle %d: %s %s", r.Cycle, r.Decision, r.Breakdown.Level)
		}
	}
	st := run.status
	// Records land on days 10..140 (bad on day 70, duplicate on day 100). The last 20 cycles are
	// kept whatever their age (before keep-history-window, the 90-day cut left 8 of them).
	if st.Cycles != 12 || st.Snapshots != 12 {
		t.Errorf("cycles %d snapshots %d: want 12 cycles and all 12 snapshots kept", st.Cycles, st.Snapshots)
	}
	if st.LastMeanScore == nil || *st.LastMeanScore != 0.42 {
		t.Errorf("last mean score %v", st.LastMeanScore)
	}
	// The continue-as-new input carries the whole state; a new run goes on counting.
	if run.next.State.Cycles != 12 || run.next.State.Runs != 1 || len(run.next.State.Snapshots) != st.Snapshots {
		t.Fatalf("carried state %+v", run.next.State)
	}
	more := normal
	more.CycleID = "cycle-13"
	again := hxFeed(t, run.next, time.Hour, []harness.Metrics{more}, nil)
	if again.results[0].Cycle != 13 || again.next.State.Runs != 2 {
		t.Errorf("after continue-as-new: %+v", again.results[0])
	}
}

// hxQuietLogger keeps the test environment's debug lines out of test output.
type hxQuietLogger struct{}

func (hxQuietLogger) Debug(string, ...any) {}
func (hxQuietLogger) Info(string, ...any)  {}
func (hxQuietLogger) Warn(string, ...any)  {}
func (hxQuietLogger) Error(string, ...any) {}

// Cycles 14 days apart (slower than the 90-day retention allows ten of) still fill the window:
// the monitor keeps the last 20 recorded cycles whatever their age, so ten HIGH cycles call for
// an expansion as they do on a daily schedule.
func TestMonitorSparseScheduleStillDecides(t *testing.T) {
	ms := hxMetrics(14, hxSaturated, nil)
	run := hxFeed(t, MonitorInput{}, 14*24*time.Hour, ms, nil)
	r10 := run.results[9]
	if r10.Aggregate.Cycles != 10 || r10.Decision != harness.DecisionExpansion {
		t.Fatalf("cycle 10 of a 14-day schedule: window %d, decision %s; want 10 cycles and an expansion", r10.Aggregate.Cycles, r10.Decision)
	}
	if len(run.expansion) != 1 {
		t.Errorf("want one expansion, got %d", len(run.expansion))
	}
	if got := run.results[13].Aggregate.Cycles; got != 14 {
		t.Errorf("cycle 14: window %d, want 14", got)
	}
}
