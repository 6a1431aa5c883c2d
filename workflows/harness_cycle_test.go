package workflows

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/harness"
)

func TestCycleMetrics(t *testing.T) {
	prev := 0.5
	cases := []struct {
		name    string
		results []BenchmarkResult
		prev    *float64
		want    harness.Metrics
		mean    float64
	}{
		{"empty", nil, nil, harness.Metrics{}, 0},
		{"mixed", []BenchmarkResult{
			{ID: "a", Score: 1, Passed: true, Unanimous: true, Regression: true},
			{ID: "b", Score: 0.96, Passed: true, Unanimous: false},
			{ID: "c", Score: 0.95, Passed: false, Unanimous: true, Regression: true},
			{ID: "d", Score: 0.29, Passed: false, Unanimous: true},
		}, &prev, harness.Metrics{CeilingRate: 0.5, RegressionPassRate: 0.5, ImprovementDelta: 0.3, ProposalPassRate: 0.5, AuditorUnanimity: 0.75}, 0.8},
		{"no regression tests count as passing", []BenchmarkResult{{ID: "a", Score: 0.4}}, nil,
			harness.Metrics{RegressionPassRate: 1}, 0.4},
	}
	for _, c := range cases {
		got := CycleMetrics(c.results, c.prev)
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		if !near(got.CeilingRate, c.want.CeilingRate) || !near(got.RegressionPassRate, c.want.RegressionPassRate) ||
			!near(got.ImprovementDelta, c.want.ImprovementDelta) || !near(got.ProposalPassRate, c.want.ProposalPassRate) ||
			!near(got.AuditorUnanimity, c.want.AuditorUnanimity) {
			t.Errorf("%s: %+v", c.name, got)
		}
		if len(c.results) > 0 && (got.MeanScore == nil || !near(*got.MeanScore, c.mean) || len(got.Benchmarks) != len(c.results)) {
			t.Errorf("%s: mean %v benchmarks %d", c.name, got.MeanScore, len(got.Benchmarks))
		}
		if err := got.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestHarnessCycleWorkflow(t *testing.T) {
	env, _ := hxEnv(t, nil)
	prev := 0.5
	env.OnActivity(harnessActs.HarnessMonitorStatus, mock.Anything, mock.Anything).Return(activities.HarnessMonitorStatusOutput{Running: true, LastMeanScore: &prev, LastVersion: 1}, nil)
	var sent activities.HarnessRecordInput
	env.OnActivity(harnessActs.HarnessRecordCycle, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.HarnessRecordInput) (harness.CycleResult, error) {
			sent = in
			return harness.CycleResult{Cycle: 7, Decision: harness.DecisionContinue}, nil
		})
	env.ExecuteWorkflow(HarnessCycleWorkflowName, HarnessCycleRequest{})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var rep HarnessCycleReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	// gogc and memlimit recall their one fact (1.0, above the ceiling); hb recalls one of two
	// (0.5, exactly its threshold). Citations all point at the two sources. Only gogc is at the
	// ceiling: memlimit's threshold 0.9 leaves no more than the margin.
	if len(rep.Results) != 3 || rep.Results[2].Score != 0.5 || !rep.Results[2].Passed || !rep.Results[0].Regression {
		t.Fatalf("results %+v", rep.Results)
	}
	m := sent.Metrics
	if sent.MonitorID != SaturationMonitorID || sent.WorkflowType != SaturationMonitorWorkflowName || sent.UpdateName != MonitorRecordUpdate {
		t.Errorf("record sent to %+v", sent)
	}
	if math.Abs(m.CeilingRate-1.0/3) > 1e-9 || m.HarnessVersion != 1 || m.RegressionPassRate != 1 || m.ProposalPassRate != 1 || m.AuditorUnanimity != 1 ||
		math.Abs(m.ImprovementDelta-(2.5/3-0.5)) > 1e-9 || m.CycleID == "" || m.Source != "sated" {
		t.Errorf("metrics %+v", m)
	}
	if rep.Recorded.Cycle != 7 || rep.HarnessVersion != 1 {
		t.Errorf("report %+v", rep)
	}
}

func TestExpansionID(t *testing.T) {
	if got := ExpansionID(SaturationMonitorID, 12); got != "sated-expansion-c12" {
		t.Errorf("default monitor: %s", got)
	}
	if got := ExpansionID("mon-test", 3); got != "mon-test-expansion-c3" {
		t.Errorf("other monitor: %s", got)
	}
}
