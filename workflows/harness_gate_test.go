package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/harness"
)

// gateHook is a loopback webhook that keeps the notices it receives; fail makes it answer 503.
type gateHook struct {
	mu      sync.Mutex
	notices []activities.Notice
	fail    bool
	srv     *httptest.Server
}

func newGateHook(t *testing.T) *gateHook {
	h := &gateHook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.fail {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var n activities.Notice
		if err := json.Unmarshal(body, &n); err != nil || r.Header.Get("X-Sated-Notice-Id") != n.ID {
			http.Error(w, "bad notice", http.StatusBadRequest)
			return
		}
		h.notices = append(h.notices, n)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *gateHook) events() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, n := range h.notices {
		out = append(out, n.Event)
	}
	return strings.Join(out, ",")
}

// gateAction is one thing sent to the monitor: an update (with the refusal expected, if any)
// or a signal.
type gateAction struct {
	update, signal string
	arg            any
	reject         string
}

// gateRun runs a monitor with the real gate activities (webhook url, audit log in a temp dir)
// through actions an hour apart, and returns the status after it continued as new, the
// updates' results and the audit log.
func gateRun(t *testing.T, url string, actions []gateAction) (MonitorStatus, []any, []harness.AuditEntry) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(hxQuietLogger{})
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	env.RegisterActivity(activities.NewGateActivities(url, "", dir))
	env.RegisterWorkflowWithOptions(SaturationMonitorWorkflow, workflow.RegisterOptions{Name: SaturationMonitorWorkflowName})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, req ExpansionRequest) (ExpansionStatus, error) {
		return ExpansionStatus{}, nil
	},
		workflow.RegisterOptions{Name: ExpansionWorkflowName})
	results := make([]any, len(actions))
	handled := 0
	for i, a := range actions {
		if a.reject == "" {
			handled++
		}
		env.RegisterDelayedCallback(func() {
			if a.signal != "" {
				env.SignalWorkflow(a.signal, a.arg)
				return
			}
			env.UpdateWorkflow(a.update, fmt.Sprintf("u%d", i), &testsuite.TestUpdateCallback{
				OnReject: func(err error) {
					if a.reject == "" || !strings.Contains(err.Error(), a.reject) {
						t.Errorf("action %d %s refused: %v", i, a.update, err)
					}
				},
				OnComplete: func(v any, err error) {
					if err != nil || a.reject != "" {
						t.Errorf("action %d %s: %v (want refusal %q)", i, a.update, err, a.reject)
					}
					results[i] = v
				},
			}, a.arg)
		}, time.Duration(i+1)*time.Hour)
	}
	env.ExecuteWorkflow(SaturationMonitorWorkflowName, MonitorInput{RecordsPerRun: handled})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("monitor ended with %v, want continue-as-new", err)
	}
	var st MonitorStatus
	if v, err := env.QueryWorkflow(MonitorStatusQuery); err != nil || v.Get(&st) != nil {
		t.Fatalf("status: %v", err)
	}
	audit, err := harness.ReadAudit(filepath.Join(dir, harness.AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	return st, results, audit
}

// gateRising are 12 cycles whose rising average flags the harness for review at cycle 10.
func gateRising() []gateAction {
	ms := hxMetrics(12, harness.Metrics{RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1}, nil)
	var out []gateAction
	for i := range ms {
		ms[i].CeilingRate = 0.4 + 0.4*float64(i)/11
		ms[i].HarnessVersion = 1
		out = append(out, gateAction{update: MonitorRecordUpdate, arg: ms[i]})
	}
	return out
}

// TestGateNotifiesEachEvent: a flag raised, an expansion awaiting approval, its approval about
// to expire, applied, and another rolled back each reach the operator's webhook once, in
// order; every version, event, approver and flag is in the audit log with the versions' hashes.
func TestGateNotifiesEachEvent(t *testing.T) {
	hook := newGateHook(t)
	h1, h2 := strings.Repeat("1a", 32), strings.Repeat("2b", 32)
	expires := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	at := time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC)
	actions := []gateAction{{update: MonitorRecordVersionUpdate, arg: harness.VersionRecord{Version: 1, Hash: h1, Change: "init"}}}
	actions = append(actions, gateRising()...)
	actions = append(actions,
		gateAction{signal: MonitorExpansionEventSignal, arg: ExpansionEvent{At: at, ExpansionID: "x1", Kind: EventProposed, Cycle: 10, Reason: "1 threshold increase(s)", ExpiresAt: &expires}},
		gateAction{signal: MonitorExpansionEventSignal, arg: ExpansionEvent{At: at, ExpansionID: "x1", Kind: EventExpiring, Cycle: 10, Reason: "no decision yet", ExpiresAt: &expires}},
		gateAction{signal: MonitorExpansionEventSignal, arg: ExpansionEvent{At: at, ExpansionID: "x1", Kind: EventApproved, Cycle: 10, By: "ana", User: "ana-os", Host: "box", Reason: "ceiling"}},
		gateAction{update: MonitorRecordVersionUpdate, arg: harness.VersionRecord{Version: 2, Hash: h2, Change: "x1"}},
		gateAction{signal: MonitorExpansionEventSignal, arg: ExpansionEvent{At: at, ExpansionID: "x1", Kind: EventApplied, Cycle: 10, By: "ana", Reason: "harness v1 -> v2", Version: 2}},
		gateAction{signal: MonitorExpansionEventSignal, arg: ExpansionEvent{At: at, ExpansionID: "x2", Kind: EventRolledBack, Cycle: 12, Reason: "2 of 3 new tests failed at baseline; restored v2", Version: 2}},
	)
	st, _, audit := gateRun(t, hook.srv.URL+"/hook", actions)

	if got, want := hook.events(), "flag-raised,awaiting-approval,approval-expiring,applied,rolled-back,flag-raised"; got != want {
		t.Fatalf("webhook got %s, want %s", got, want)
	}
	ids := map[string]bool{}
	for _, n := range hook.notices {
		if ids[n.ID] || n.Monitor == "" || n.Text == "" {
			t.Errorf("notice %+v: duplicate id, no monitor or no text", n)
		}
		ids[n.ID] = true
	}
	n := hook.notices
	if n[0].Flag != 1 || n[0].Cycle != 10 || !strings.Contains(n[0].Text, "harness ack 1") {
		t.Errorf("flag notice %+v", n[0])
	}
	if n[1].ExpansionID != "x1" || n[1].ExpiresAt == nil || !n[1].ExpiresAt.Equal(expires) || !strings.Contains(n[1].Text, "expansion diff x1") {
		t.Errorf("awaiting notice %+v", n[1])
	}
	if n[3].Version != 2 || n[3].By != "ana" || n[5].Flag != 2 || !strings.Contains(n[5].Reason, "rolled back") {
		t.Errorf("applied %+v, rollback flag %+v", n[3], n[5])
	}
	var kinds []string
	for _, e := range audit {
		kinds = append(kinds, e.Kind)
	}
	want := "version,flag-raised,expansion-proposed,expansion-approval-expiring,expansion-approved,version,expansion-applied,expansion-rolled-back,flag-raised"
	if got := strings.Join(kinds, ","); got != want {
		t.Fatalf("audit %s\nwant  %s", got, want)
	}
	if a := audit[0]; a.Version != 1 || a.Hash != h1 || a.Reason != "init" {
		t.Errorf("v1 line %+v", a)
	}
	if a := audit[4]; a.By != "ana" || a.User != "ana-os" || a.Host != "box" || a.Reason != "ceiling" {
		t.Errorf("approval line %+v", a)
	}
	if a := audit[6]; a.Version != 2 || a.Hash != h2 {
		t.Errorf("applied line %+v, want v2 with its hash", a)
	}
	if st.Outbox != 0 || len(st.GateFailures) != 0 {
		t.Errorf("outbox %d failures %+v", st.Outbox, st.GateFailures)
	}
	if len(st.History) != 12 || st.History[9].Cycle != 10 || st.History[9].Version != 1 || st.History[9].Decision != harness.DecisionFlagForReview || st.History[0].Level == "" {
		t.Errorf("history %+v", st.History)
	}
}

// TestGateFailedNotificationIsRecorded: a webhook that keeps failing is retried, then recorded
// in the status; the monitor records its cycles and writes its audit log as ever.
func TestGateFailedNotificationIsRecorded(t *testing.T) {
	hook := newGateHook(t)
	hook.fail = true
	st, results, audit := gateRun(t, hook.srv.URL, gateRising())
	if r := results[9].(harness.CycleResult); r.Decision != harness.DecisionFlagForReview || st.Cycles != 12 {
		t.Fatalf("cycle 10 %+v, %d cycles", r, st.Cycles)
	}
	if len(st.GateFailures) != 1 || st.GateFailures[0].What != "notify flag-raised" || !strings.Contains(st.GateFailures[0].Error, "503") {
		t.Fatalf("failures %+v", st.GateFailures)
	}
	if len(audit) != 1 || audit[0].Kind != "flag-raised" || audit[0].Flag != 1 {
		t.Errorf("audit %+v", audit)
	}
}

// TestMonitorAckFlag: a person acknowledges a flag by its number, with who and why; the status
// keeps it apart, a second acknowledgement and an unknown flag are refused, and the
// acknowledgement is audited with the starter's OS user and host.
func TestMonitorAckFlag(t *testing.T) {
	tamper := harness.Tamper{File: "current.json", Version: 1, Expected: strings.Repeat("ab", 32), Found: strings.Repeat("cd", 32), Message: "current.json was changed outside sated"}
	actions := []gateAction{
		{update: MonitorTamperUpdate, arg: tamper},
		{update: MonitorClearTamperUpdate, arg: ClearTamperRequest{By: "ana", Reason: "harness verify"}},
		{update: MonitorAckFlagUpdate, arg: AckFlagRequest{Flag: 1, By: "ana"}, reject: "who acknowledges it and why"},
		{update: MonitorAckFlagUpdate, arg: AckFlagRequest{Flag: 7, By: "ana", Reason: "seen"}, reject: "no review flag 7"},
		{update: MonitorAckFlagUpdate, arg: AckFlagRequest{Flag: 1, By: "ana", Reason: "restored v1, checked the diff", User: "ana-os", Host: "box"}},
		{update: MonitorAckFlagUpdate, arg: AckFlagRequest{Flag: 1, By: "bo", Reason: "again"}, reject: "flag 1 was already acknowledged by ana"},
	}
	st, results, audit := gateRun(t, "", actions)
	if f := results[4].(ReviewFlag); f.ID != 1 || f.Ack == nil || f.Ack.By != "ana" {
		t.Fatalf("ack answered %+v", f)
	}
	if len(st.Flags) != 2 || st.Flags[0].Ack == nil || st.Flags[0].Ack.Reason != "restored v1, checked the diff" || st.Flags[1].ID != 2 || st.Flags[1].Ack != nil {
		t.Fatalf("flags %+v", st.Flags)
	}
	last := audit[len(audit)-1]
	if last.Kind != "flag-acked" || last.Flag != 1 || last.User != "ana-os" || last.Host != "box" || last.By != "ana" {
		t.Errorf("audit %+v", audit)
	}
}

// TestExpansionRemindsBeforeApprovalExpires: with the default 30-day approval timeout, an
// undecided expansion tells its monitor 3 days before the end (time skipped), then expires.
func TestExpansionRemindsBeforeApprovalExpires(t *testing.T) {
	env, _ := hxEnv(t, nil)
	type seen struct {
		ev ExpansionEvent
		at time.Time
	}
	var events []seen
	env.OnSignalExternalWorkflow(mock.Anything, "mon", "", MonitorExpansionEventSignal, mock.Anything).Return(
		func(ns, id, run, name string, arg any) error {
			events = append(events, seen{arg.(ExpansionEvent), env.Now()})
			return nil
		})
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", Benchmarks: hxCeilingScores})
	if st := hxStatus(t, env); st.State != ExpansionExpired {
		t.Fatalf("status %+v", st)
	}
	if len(events) != 3 || events[0].ev.Kind != EventProposed || events[1].ev.Kind != EventExpiring || events[2].ev.Kind != EventExpired {
		t.Fatalf("events %+v", events)
	}
	proposed, reminder, expired := events[0], events[1], events[2]
	if d := reminder.at.Sub(proposed.at); d != DefaultApprovalTimeout-ApprovalReminderLead {
		t.Errorf("reminder %s after the proposal, want 27 days", d)
	}
	if expired.at.Sub(proposed.at) != DefaultApprovalTimeout {
		t.Errorf("expired %s after the proposal", expired.at.Sub(proposed.at))
	}
	if proposed.ev.ExpiresAt == nil || reminder.ev.ExpiresAt == nil || !reminder.ev.ExpiresAt.Equal(*proposed.ev.ExpiresAt) || !proposed.ev.ExpiresAt.Equal(proposed.at.Add(DefaultApprovalTimeout)) {
		t.Errorf("expiry times: proposed %v, reminder %v", proposed.ev.ExpiresAt, reminder.ev.ExpiresAt)
	}
}

// TestExpansionDecidedAfterReminderRecordsIdentity: a decision after the reminder still
// decides; the approval carries the deciding starter's OS user and host beside --by.
func TestExpansionDecidedAfterReminderRecordsIdentity(t *testing.T) {
	env, _ := hxEnv(t, nil)
	var events []ExpansionEvent
	env.OnSignalExternalWorkflow(mock.Anything, "mon", "", MonitorExpansionEventSignal, mock.Anything).Return(
		func(ns, id, run, name string, arg any) error {
			events = append(events, arg.(ExpansionEvent))
			return nil
		})
	var rejected []string
	env.RegisterDelayedCallback(func() {
		hxDecide(env, ExpansionApproveUpdate, DecideRequest{By: "ana", Reason: "ok", User: "ana-os", Host: "box"}, &rejected)
	}, 28*24*time.Hour)
	env.ExecuteWorkflow(ExpansionWorkflowName, ExpansionRequest{Cycle: 10, MonitorID: "mon", Benchmarks: hxCeilingScores})
	st := hxStatus(t, env)
	if st.State != ExpansionApplied || st.Decision == nil || st.Decision.User != "ana-os" || st.Decision.Host != "box" || len(rejected) > 0 {
		t.Fatalf("status %+v %v", st, rejected)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, ","); got != "proposed,approval-expiring,approved,applied" {
		t.Fatalf("events %s", got)
	}
	if a := events[2]; a.By != "ana" || a.User != "ana-os" || a.Host != "box" {
		t.Errorf("approved event %+v", a)
	}
}
