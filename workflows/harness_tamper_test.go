package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/harness"
)

// hxStep is one update sent to the monitor.
type hxStep struct {
	name   string
	arg    any
	reject string // the validator's refusal expected, if any
}

// hxUpdates runs a monitor through steps an hour apart and returns each accepted update's
// result, the status at the end and the expansions it started.
func hxUpdates(t *testing.T, steps []hxStep) ([]any, MonitorStatus, []ExpansionRequest) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(hxQuietLogger{})
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(SaturationMonitorWorkflow, workflow.RegisterOptions{Name: SaturationMonitorWorkflowName})
	env.RegisterActivity(activities.NewGateActivities("", "", t.TempDir())) // the gate sends nowhere here
	var started []ExpansionRequest
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, req ExpansionRequest) (ExpansionStatus, error) {
		started = append(started, req)
		return ExpansionStatus{}, nil
	}, workflow.RegisterOptions{Name: ExpansionWorkflowName})
	results := make([]any, len(steps))
	accepted := 0
	for _, st := range steps {
		if st.reject == "" {
			accepted++
		}
	}
	for i, st := range steps {
		i, st := i, st
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(st.name, fmt.Sprintf("u%d", i), &testsuite.TestUpdateCallback{
				OnReject: func(err error) {
					if st.reject == "" || !strings.Contains(err.Error(), st.reject) {
						t.Errorf("step %d %s rejected: %v", i, st.name, err)
					}
				},
				OnComplete: func(v any, err error) {
					if err != nil || st.reject != "" {
						t.Errorf("step %d %s: %v (want rejection %q)", i, st.name, err, st.reject)
					}
					results[i] = v
				},
			}, st.arg)
		}, time.Duration(i+1)*time.Hour)
	}
	env.ExecuteWorkflow(SaturationMonitorWorkflowName, MonitorInput{RecordsPerRun: accepted})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("monitor ended with %v", err)
	}
	var status MonitorStatus
	v, err := env.QueryWorkflow(MonitorStatusQuery)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Get(&status); err != nil {
		t.Fatal(err)
	}
	return results, status, started
}

// TestMonitorStopsExpansionsOnTamper: a failed hash check reported by a harness load keeps the
// monitor from starting expansions, however saturated, until a person clears it.
func TestMonitorStopsExpansionsOnTamper(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	tamper := harness.Tamper{File: "current.json", Version: 2, Expected: hash, Found: strings.Repeat("cd", 32), Message: "current.json was changed outside sated"}
	steps := []hxStep{
		{name: MonitorRecordVersionUpdate, arg: harness.VersionRecord{Version: 2, Hash: "not-a-hash"}, reject: "not a sha256"},
		{name: MonitorRecordVersionUpdate, arg: harness.VersionRecord{Version: 2, Hash: hash, Change: "exp-1"}},
		{name: MonitorTamperUpdate, arg: harness.Tamper{}, reject: "names the file"},
		{name: MonitorTamperUpdate, arg: tamper},
	}
	for _, m := range hxMetrics(10, hxSaturated, nil) {
		steps = append(steps, hxStep{name: MonitorRecordUpdate, arg: m})
	}
	steps = append(steps,
		hxStep{name: MonitorClearTamperUpdate, arg: ClearTamperRequest{By: "ana"}, reject: "who clears it and why"},
		hxStep{name: MonitorClearTamperUpdate, arg: ClearTamperRequest{By: "ana", Reason: "harness verify: every file ok"}},
		hxStep{name: MonitorRecordUpdate, arg: harness.Metrics{CycleID: "cycle-11", CeilingRate: 1, RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1}},
	)
	results, status, started := hxUpdates(t, steps)
	r10 := results[13].(harness.CycleResult)
	if r10.Decision != harness.DecisionExpansion || r10.ExpansionID != "" || !strings.Contains(r10.Note, "fail their hash check: current.json was changed outside sated") {
		t.Errorf("cycle 10 while tampered: %+v", r10)
	}
	if c := results[15].(ClearTamperResult); c.Cleared == nil || c.Cleared.File != "current.json" {
		t.Errorf("clear: %+v", c)
	}
	r11 := results[16].(harness.CycleResult)
	if r11.ExpansionID == "" || len(started) != 1 {
		t.Errorf("cycle 11 after the clear: %+v, %d started", r11, len(started))
	}
	if status.Tamper != nil || len(status.Ledger) != 1 || status.Ledger[0].Hash != hash {
		t.Errorf("status tamper %+v ledger %+v", status.Tamper, status.Ledger)
	}
	if len(status.Flags) != 2 || !strings.Contains(status.Flags[0].Reason, "hash check") || !strings.Contains(status.Flags[1].Reason, "cleared by ana") {
		t.Errorf("flags %+v", status.Flags)
	}
}

// TestCycleStopsOnTamper: a harness load that fails its hash check ends the cycle at once with
// the load's message: no retry, no research run, nothing recorded in the monitor.
func TestCycleStopsOnTamper(t *testing.T) {
	env, _ := hxEnv(t, nil)
	msg := "/data/harness/current.json was changed outside sated: v2 was recorded with hash abababababab, the file now has cdcdcdcdcdcd; harness cycles and expansions are stopped"
	loads := 0
	var sent activities.HarnessLoadInput
	env.OnActivity(harnessActs.HarnessLoad, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.HarnessLoadInput) (activities.HarnessLoadOutput, error) {
			loads++
			sent = in
			return activities.HarnessLoadOutput{}, temporal.NewNonRetryableApplicationError(msg, activities.HarnessTampered, nil)
		})
	env.OnActivity(harnessActs.HarnessMonitorStatus, mock.Anything, mock.Anything).Return(activities.HarnessMonitorStatusOutput{}, nil).Maybe()
	recorded := false
	env.OnActivity(harnessActs.HarnessRecordCycle, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.HarnessRecordInput) (harness.CycleResult, error) {
			recorded = true
			return harness.CycleResult{}, nil
		}).Maybe()
	env.ExecuteWorkflow(HarnessCycleWorkflowName, HarnessCycleRequest{})
	err := env.GetWorkflowError()
	if err == nil || Readable(err) != msg {
		t.Fatalf("cycle over a tampered harness: %v", err)
	}
	if loads != 1 || recorded {
		t.Errorf("%d loads, recorded %v", loads, recorded)
	}
	if sent.Monitor.ID != SaturationMonitorID || sent.Monitor.TamperUpdate != MonitorTamperUpdate || sent.Monitor.StatusQuery != MonitorStatusQuery {
		t.Errorf("load checked against %+v", sent.Monitor)
	}
}
