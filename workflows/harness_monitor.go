package workflows

import (
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/internal/harness"
)

// monitor is the running state of SaturationMonitorWorkflow.
type monitor struct {
	in      MonitorInput
	st      *MonitorState
	handled int
	id      string
	// gate is on from operatorGateChange version 1 (harness_gate.go); gatePrefix starts the ids
	// of its notices and audit lines.
	gate       bool
	gatePrefix string
}

// SaturationMonitorWorkflow receives each harness cycle's metrics, scores saturation, keeps
// the snapshots, the rolling aggregate and the expansion event log, and starts expansion
// research when the harness has been saturated for long enough.
func SaturationMonitorWorkflow(ctx workflow.Context, in MonitorInput) error {
	m := &monitor{in: in, st: &in.State, id: workflow.GetInfo(ctx).WorkflowExecution.ID}
	if workflow.GetVersion(ctx, operatorGateChange, workflow.DefaultVersion, 1) >= 1 {
		if err := m.startGate(ctx); err != nil {
			return err
		}
	}
	if err := workflow.SetQueryHandler(ctx, MonitorStatusQuery, func() (MonitorStatus, error) { return m.status(), nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, MonitorRecordUpdate, m.record, workflow.UpdateHandlerOptions{
		Validator: func(ctx workflow.Context, metrics harness.Metrics) error { return metrics.Validate() },
	}); err != nil {
		return err
	}
	if err := m.registerLedger(ctx); err != nil {
		return err
	}
	events := workflow.GetSignalChannel(ctx, MonitorExpansionEventSignal)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var ev ExpansionEvent
			events.Receive(ctx, &ev)
			m.onEvent(ev)
		}
	})
	limit := in.RecordsPerRun
	if limit <= 0 {
		limit = MonitorDefaultRecordsPerRun
	}
	if err := workflow.Await(ctx, func() bool {
		return m.handled >= limit || workflow.GetInfo(ctx).GetContinueAsNewSuggested()
	}); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && m.gateIdle() }); err != nil {
		return err
	}
	for {
		var ev ExpansionEvent
		if !events.ReceiveAsync(&ev) {
			break
		}
		m.onEvent(ev)
	}
	m.st.Runs++
	return workflow.NewContinueAsNewError(ctx, SaturationMonitorWorkflowName, MonitorInput{State: *m.st, RecordsPerRun: in.RecordsPerRun, Expansion: in.Expansion})
}

// keepHistoryChange: from version 1 the monitor keeps the last harness.Window cycles whatever
// their age (before, cycles older than 90 days were dropped, so sparse schedules never filled
// the window and the monitor never decided anything).
const keepHistoryChange = "keep-history-window"

// record scores one cycle and acts on the decision. State changes happen before the only
// blocking call (starting an expansion), so concurrent records cannot interleave them.
func (m *monitor) record(ctx workflow.Context, metrics harness.Metrics) (harness.CycleResult, error) {
	st := m.st
	if metrics.CycleID != "" {
		for i, id := range st.CycleIDs {
			if id == metrics.CycleID {
				r := st.Recent[i]
				r.Duplicate = true
				return r, nil
			}
		}
	}
	m.handled++
	now := workflow.Now(ctx)
	st.Cycles++
	snap := harness.Snapshot{Cycle: st.Cycles, At: now, Metrics: metrics}
	if workflow.GetVersion(ctx, applyProtocolChange, workflow.DefaultVersion, 1) >= 1 {
		st.PerVersion, snap.Version = true, m.versionOf(metrics)
	}
	window := harness.Recent(m.signalSpan(append(append([]harness.Snapshot(nil), st.Snapshots...), snap)))
	snap.Breakdown = harness.Score(metrics, harness.Deltas(window))
	if workflow.GetVersion(ctx, keepHistoryChange, workflow.DefaultVersion, 1) >= 1 {
		st.Snapshots = harness.KeepHistory(append(st.Snapshots, snap), now)
	} else {
		st.Snapshots = harness.Prune(append(st.Snapshots, snap), now)
	}
	agg := harness.AggregateOf(m.signalSpan(st.Snapshots))
	res := harness.CycleResult{Cycle: st.Cycles, Breakdown: snap.Breakdown, Aggregate: agg, Decision: harness.Decide(agg)}
	if metrics.MeanScore != nil {
		v := *metrics.MeanScore
		st.LastMeanScore = &v
	}
	if len(metrics.Benchmarks) > 0 {
		st.LastBenchmarks = metrics.Benchmarks
	}
	prev := harness.DecisionContinue
	if n := len(st.Recent); n > 0 {
		prev = st.Recent[n-1].Decision
	}

	start := m.act(ctx, &res, prev, now)
	st.Recent = append(st.Recent, res)
	st.CycleIDs = append(st.CycleIDs, metrics.CycleID)
	if n := len(st.Recent); n > MonitorRecentResults {
		st.Recent, st.CycleIDs = st.Recent[n-MonitorRecentResults:], st.CycleIDs[n-MonitorRecentResults:]
	}
	if start != nil {
		m.startExpansion(ctx, res.ExpansionID, *start)
	}
	return res, nil
}

// signalSpan is the part of the snapshots the signals are computed over: since PerVersion,
// only those of the current harness version, so streaks and deltas restart with each version.
func (m *monitor) signalSpan(snaps []harness.Snapshot) []harness.Snapshot {
	if m.st.PerVersion {
		return harness.SameVersion(snaps)
	}
	return snaps
}

// versionOf is the harness version metrics measured: their own, else the newest version the
// ledger recorded (metrics from another harness name none).
func (m *monitor) versionOf(metrics harness.Metrics) int {
	if metrics.HarnessVersion > 0 {
		return metrics.HarnessVersion
	}
	v := 0
	for _, r := range m.st.Ledger {
		v = max(v, r.Version)
	}
	return v
}

// trigger is what the monitor saw when it decided to expand.
func (m *monitor) trigger(res *harness.CycleResult) *ExpansionTrigger {
	t := &ExpansionTrigger{Score: res.Breakdown.Score, Level: res.Breakdown.Level,
		ConsecutiveHigh: res.Aggregate.ConsecutiveHigh, ConsecutiveCritical: res.Aggregate.ConsecutiveCritical}
	if n := len(m.st.Snapshots); n > 0 {
		t.HarnessVersion = m.st.Snapshots[n-1].Version
	}
	return t
}

// act carries out a cycle's decision on the state: an expansion to start (returned) unless one
// is open or the streak was already acted on, or a review flag when the trend first turns up.
func (m *monitor) act(ctx workflow.Context, res *harness.CycleResult, prev harness.Decision, now time.Time) *ExpansionRequest {
	st, agg := m.st, res.Aggregate
	switch res.Decision {
	case harness.DecisionExpansion, harness.DecisionUrgentExpansion:
		urgent := res.Decision == harness.DecisionUrgentExpansion
		streak := harness.HighStreak
		if urgent {
			streak = harness.CriticalStreak
		}
		switch {
		case st.Tamper != nil:
			res.Note = "no expansion while the harness files fail their hash check: " + st.Tamper.Message
		case st.OpenExpansion != "":
			res.Note = "expansion " + st.OpenExpansion + " is still open"
		case st.LastExpansionCycle > 0 && st.Cycles-st.LastExpansionCycle < streak:
			res.Note = fmt.Sprintf("the streak was acted on at cycle %d; waiting for %d new cycles", st.LastExpansionCycle, streak)
		default:
			res.ExpansionID = ExpansionID(workflow.GetInfo(ctx).WorkflowExecution.ID, st.Cycles)
			st.OpenExpansion, st.LastExpansionCycle = res.ExpansionID, st.Cycles
			return &ExpansionRequest{Cycle: st.Cycles, Urgent: urgent, Reason: string(res.Decision), Aggregate: agg,
				Benchmarks: st.LastBenchmarks, MonitorID: workflow.GetInfo(ctx).WorkflowExecution.ID, ExpansionSettings: m.in.Expansion,
				Trigger: m.trigger(res)}
		}
	case harness.DecisionFlagForReview:
		if prev != harness.DecisionFlagForReview {
			m.flag(ReviewFlag{At: now, Cycle: st.Cycles, Reason: fmt.Sprintf("rolling average %.2f with an increasing trend", agg.Average)})
		}
	}
	return nil
}

// ExpansionID names the expansion a monitor starts at a cycle; a monitor other than the
// default one prefixes its own id, so test monitors never collide with the real one.
func ExpansionID(monitorID string, cycle int) string {
	if monitorID == SaturationMonitorID {
		return fmt.Sprintf("%sc%d", ExpansionIDPrefix, cycle)
	}
	return fmt.Sprintf("%s-expansion-c%d", monitorID, cycle)
}

// startExpansion starts the expansion as an abandoned child, so it outlives continue-as-new and
// waits for its person however long the monitor keeps rolling over.
func (m *monitor) startExpansion(ctx workflow.Context, id string, req ExpansionRequest) {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            id,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         uiSummary(fmt.Sprintf("harness expansion after cycle %d: ", req.Cycle), req.Reason+" (approve: starter expansion approve "+id+")"),
	})
	m.addEvent(ExpansionEvent{At: workflow.Now(ctx), ExpansionID: id, Kind: EventStarted, Cycle: req.Cycle, Reason: req.Reason})
	if err := workflow.ExecuteChildWorkflow(cctx, ExpansionWorkflowName, req).GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		m.addEvent(ExpansionEvent{At: workflow.Now(ctx), ExpansionID: id, Kind: EventStartFailed, Cycle: req.Cycle, Reason: err.Error()})
	}
}

// onEvent logs an expansion's event; a terminal one closes it, a rollback flags it for review.
func (m *monitor) onEvent(ev ExpansionEvent) {
	m.handled++
	m.addEvent(ev)
	if ev.Kind == EventRolledBack {
		m.flag(ReviewFlag{At: ev.At, Cycle: ev.Cycle, ExpansionID: ev.ExpansionID, Reason: "expansion rolled back: " + ev.Reason})
	}
}

func (m *monitor) addEvent(ev ExpansionEvent) {
	st := m.st
	st.Events = append(st.Events, ev)
	m.gateEvent(ev)
	if n := len(st.Events); n > MonitorMaxEvents {
		st.Events = st.Events[n-MonitorMaxEvents:]
	}
	if ev.terminal() && st.OpenExpansion == ev.ExpansionID {
		st.OpenExpansion = ""
	}
}

func (m *monitor) flag(f ReviewFlag) {
	if m.gate {
		m.st.FlagSeq++
		f.ID = m.st.FlagSeq
		m.gateFlag(f)
	}
	m.st.Flags = append(m.st.Flags, f)
	if n := len(m.st.Flags); n > MonitorMaxFlags {
		m.st.Flags = m.st.Flags[n-MonitorMaxFlags:]
	}
}

func (m *monitor) status() MonitorStatus {
	st := m.st
	s := MonitorStatus{Cycles: st.Cycles, Aggregate: harness.AggregateOf(m.signalSpan(st.Snapshots)), Decision: harness.DecisionContinue,
		OpenExpansion: st.OpenExpansion, Expansions: Summarize(st.Events), Events: st.Events, Flags: st.Flags,
		LastMeanScore: st.LastMeanScore, Snapshots: len(st.Snapshots), Runs: st.Runs, Ledger: st.Ledger, Tamper: st.Tamper,
		History: m.history(), Outbox: len(st.Gate.Outbox), GateFailures: st.Gate.Failures}
	if n := len(st.Snapshots); n > 0 {
		latest := st.Snapshots[n-1]
		s.Latest, s.LastVersion = &latest, latest.Version
	}
	if n := len(st.Recent); n > 0 {
		s.Decision = st.Recent[n-1].Decision
	}
	return s
}

// registerLedger registers the handlers of the harness's recorded hashes: the path that writes
// a version records its hash, a failed check stops expansions, a person's verify clears it.
func (m *monitor) registerLedger(ctx workflow.Context) error {
	if err := workflow.SetUpdateHandlerWithOptions(ctx, MonitorRecordVersionUpdate, func(ctx workflow.Context, r harness.VersionRecord) (harness.VersionRecord, error) {
		m.handled++
		m.st.Ledger = m.st.Ledger.With(r)
		if m.gate {
			m.gateVersion(workflow.Now(ctx), r)
		}
		return r, nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r harness.VersionRecord) error { return r.Validate() }}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, MonitorTamperUpdate, func(ctx workflow.Context, t harness.Tamper) (harness.Tamper, error) {
		m.handled++
		if m.st.Tamper == nil || m.st.Tamper.Message != t.Message {
			m.flag(ReviewFlag{At: t.At, Cycle: m.st.Cycles, Reason: "harness files fail their hash check: " + t.Message})
		}
		m.st.Tamper = &t
		return t, nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, t harness.Tamper) error {
		if t.File == "" || t.Message == "" {
			return fmt.Errorf("a tamper report names the file and says what is wrong")
		}
		return nil
	}}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, MonitorClearTamperUpdate, func(ctx workflow.Context, r ClearTamperRequest) (ClearTamperResult, error) {
		m.handled++
		res := ClearTamperResult{Cleared: m.st.Tamper}
		if m.st.Tamper != nil {
			m.flag(ReviewFlag{At: workflow.Now(ctx), Cycle: m.st.Cycles, Reason: fmt.Sprintf("harness hash check cleared by %s: %s", r.By, r.Reason)})
		}
		m.st.Tamper = nil
		return res, nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r ClearTamperRequest) error {
		if strings.TrimSpace(r.By) == "" || strings.TrimSpace(r.Reason) == "" {
			return fmt.Errorf("clearing a harness tamper state names who clears it and why")
		}
		return nil
	}})
}

// signalMonitor sends an expansion event to the monitor; a missing monitor is not an error
// worth failing an expansion for.
func signalMonitor(ctx workflow.Context, monitorID string, ev ExpansionEvent) {
	if monitorID == "" {
		return
	}
	err := workflow.SignalExternalWorkflow(ctx, monitorID, "", MonitorExpansionEventSignal, ev).Get(ctx, nil)
	if err != nil && !temporal.IsCanceledError(err) {
		workflow.GetLogger(ctx).Warn("cannot signal the monitor", "monitor", monitorID, "error", err)
	}
}
