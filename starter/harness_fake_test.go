package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/workflows"
)

// fakeTemporal is the part of a Temporal server the harness commands use: the monitor's
// status, its updates, expansions by id, and the start of an import.
type fakeTemporal struct {
	client.Client
	monitor    workflows.MonitorStatus
	expansions map[string]workflows.ExpansionStatus // closed expansions, by id
	started    []workflows.ExpansionRequest
	result     workflows.ExpansionStatus // what a started import returns
	cleared    []workflows.ClearTamperRequest
	acked      []workflows.AckFlagRequest
	open       string // an expansion awaiting approval
	decided    []workflows.DecideRequest
}

type fakeValue struct{ v any }

func (f fakeValue) HasValue() bool { return true }
func (f fakeValue) Get(ptr any) error {
	data, err := json.Marshal(f.v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, ptr)
}

func (f *fakeTemporal) Close() {}

func (f *fakeTemporal) QueryWorkflow(ctx context.Context, id, runID, query string, args ...any) (converter.EncodedValue, error) {
	if id == harnessMonitorID {
		return fakeValue{f.monitor}, nil
	}
	if st, ok := f.expansions[id]; ok {
		return fakeValue{st}, nil
	}
	return nil, serviceerror.NewNotFound("workflow not found for ID: " + id)
}

func (f *fakeTemporal) NewWithStartWorkflowOperation(client.StartWorkflowOptions, any, ...any) client.WithStartWorkflowOperation {
	return nil
}

type fakeUpdate struct {
	client.WorkflowUpdateHandle
	v any
}

func (u fakeUpdate) Get(ctx context.Context, ptr any) error {
	if ptr == nil {
		return nil
	}
	return fakeValue{u.v}.Get(ptr)
}

func (f *fakeTemporal) UpdateWithStartWorkflow(ctx context.Context, o client.UpdateWithStartWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	switch arg := o.UpdateOptions.Args[0].(type) {
	case harness.VersionRecord:
		f.monitor.Ledger = f.monitor.Ledger.With(arg)
	case harness.Tamper:
		f.monitor.Tamper = &arg
	}
	return fakeUpdate{v: o.UpdateOptions.Args[0]}, nil
}

func (f *fakeTemporal) UpdateWorkflow(ctx context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	if o.WorkflowID == harnessMonitorID && o.UpdateName == workflows.MonitorClearTamperUpdate {
		f.cleared = append(f.cleared, o.Args[0].(workflows.ClearTamperRequest))
		res := workflows.ClearTamperResult{Cleared: f.monitor.Tamper}
		f.monitor.Tamper = nil
		return fakeUpdate{v: res}, nil
	}
	if o.WorkflowID == harnessMonitorID && o.UpdateName == workflows.MonitorAckFlagUpdate {
		r := o.Args[0].(workflows.AckFlagRequest)
		f.acked = append(f.acked, r)
		for i, fl := range f.monitor.Flags {
			if fl.ID == r.Flag {
				f.monitor.Flags[i].Ack = &workflows.FlagAck{By: r.By, Reason: r.Reason, User: r.User, Host: r.Host}
				return fakeUpdate{v: f.monitor.Flags[i]}, nil
			}
		}
		return nil, errors.New("no review flag")
	}
	if o.WorkflowID == f.open && f.open != "" {
		r := o.Args[0].(workflows.DecideRequest)
		f.decided = append(f.decided, r)
		return fakeUpdate{v: workflows.ExpansionStatus{ID: f.open, State: workflows.ExpansionApplying,
			Decision: &workflows.ExpansionDecision{Approved: o.UpdateName == workflows.ExpansionApproveUpdate, By: r.By, Reason: r.Reason, User: r.User, Host: r.Host}}}, nil
	}
	// what the server answers for an update to a closed or unknown workflow
	return nil, serviceerror.NewNotFound("workflow execution already completed")
}

type fakeRun struct {
	client.WorkflowRun
	v any
}

func (r fakeRun) Get(ctx context.Context, ptr any) error { return fakeValue{r.v}.Get(ptr) }

func (f *fakeTemporal) ExecuteWorkflow(ctx context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	if wf != workflows.ExpansionWorkflowName || !strings.HasPrefix(o.ID, workflows.ExpansionIDPrefix+"import-") {
		return nil, errors.New("unexpected workflow " + o.ID)
	}
	f.started = append(f.started, args[0].(workflows.ExpansionRequest))
	st := f.result
	st.ID = o.ID
	return fakeRun{v: st}, nil
}

// fakeSchedules has no schedule.
type fakeSchedules struct{ client.ScheduleClient }

type fakeScheduleHandle struct{ client.ScheduleHandle }

func (fakeSchedules) GetHandle(ctx context.Context, id string) client.ScheduleHandle {
	return fakeScheduleHandle{}
}

func (fakeScheduleHandle) Describe(ctx context.Context) (*client.ScheduleDescription, error) {
	return nil, serviceerror.NewNotFound("schedule not found")
}

func (f *fakeTemporal) ScheduleClient() client.ScheduleClient { return fakeSchedules{} }
