package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/harness"
)

// The operator gate: the monitor tells its people about flags and expansions without being
// asked (a webhook and/or a command hook), lets them acknowledge flags, and writes every
// harness version, decision, approver and reason to an audit log outside Temporal.

// operatorGateChange: from version 1 the monitor numbers its flags, takes acknowledgements,
// and queues notices and audit lines that a goroutine delivers through activities.
const operatorGateChange = "operator-gate"

// approvalReminderChange: from version 1 an expansion awaiting approval reminds its people
// ApprovalReminderLead before the approval expires (through the monitor's notices).
const approvalReminderChange = "approval-reminder"

// ApprovalReminderLead is how long before an approval expires the reminder goes out.
const ApprovalReminderLead = 3 * 24 * time.Hour

// monitorMaxGateFailures bounds the failed deliveries the monitor keeps for status.
const monitorMaxGateFailures = 20

// startGate turns the gate on for this run: numbers any flags from before it, registers the
// acknowledgement and starts the delivery goroutine over the outbox carried in the state.
func (m *monitor) startGate(ctx workflow.Context) error {
	info := workflow.GetInfo(ctx)
	m.gate, m.gatePrefix = true, info.WorkflowExecution.ID+"/"+info.FirstRunID+"/"
	for i := range m.st.Flags {
		if m.st.Flags[i].ID == 0 {
			m.st.FlagSeq++
			m.st.Flags[i].ID = m.st.FlagSeq
		}
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, MonitorAckFlagUpdate, m.ack,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r AckFlagRequest) error { _, err := m.ackable(r); return err }}); err != nil {
		return err
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			if err := workflow.Await(ctx, func() bool { return len(m.st.Gate.Outbox) > 0 }); err != nil {
				return
			}
			m.deliver(ctx, m.st.Gate.Outbox[0])
			m.st.Gate.Outbox = m.st.Gate.Outbox[1:]
		}
	})
	return nil
}

// gateIdle reports whether nothing is queued or being delivered; the run continues as new only
// then, so no delivery is cut off halfway and sent twice.
func (m *monitor) gateIdle() bool { return !m.gate || len(m.st.Gate.Outbox) == 0 }

// ackable finds the flag r acknowledges, refusing an unknown or acked flag and a nameless or
// reasonless acknowledgement.
func (m *monitor) ackable(r AckFlagRequest) (int, error) {
	if strings.TrimSpace(r.By) == "" || strings.TrimSpace(r.Reason) == "" {
		return 0, fmt.Errorf("acknowledging a flag names who acknowledges it and why")
	}
	for i, f := range m.st.Flags {
		if f.ID != r.Flag {
			continue
		}
		if f.Ack != nil {
			return 0, fmt.Errorf("flag %d was already acknowledged by %s at %s", f.ID, f.Ack.By, f.Ack.At.UTC().Format(time.RFC3339))
		}
		return i, nil
	}
	return 0, fmt.Errorf("no review flag %d (the monitor keeps the last %d)", r.Flag, MonitorMaxFlags)
}

// ack records a person's acknowledgement of a flag, and audits it.
func (m *monitor) ack(ctx workflow.Context, r AckFlagRequest) (ReviewFlag, error) {
	i, err := m.ackable(r) // two acks delivered together both pass validation; the first one wins
	if err != nil {
		return ReviewFlag{}, err
	}
	m.handled++
	f := &m.st.Flags[i]
	f.Ack = &FlagAck{By: strings.TrimSpace(r.By), Reason: strings.TrimSpace(r.Reason), At: workflow.Now(ctx), User: r.User, Host: r.Host}
	m.audit(harness.AuditEntry{At: f.Ack.At, Kind: "flag-acked", Flag: f.ID, Cycle: f.Cycle, ExpansionID: f.ExpansionID,
		By: f.Ack.By, User: r.User, Host: r.Host, Reason: f.Ack.Reason})
	return *f, nil
}

func (m *monitor) nextID() string {
	m.st.Gate.Seq++
	return fmt.Sprintf("%s%d", m.gatePrefix, m.st.Gate.Seq)
}

func (m *monitor) audit(e harness.AuditEntry) {
	if !m.gate {
		return
	}
	e.ID = m.nextID()
	m.st.Gate.Outbox = append(m.st.Gate.Outbox, GateItem{Audit: &e})
}

func (m *monitor) notify(n activities.Notice) {
	if !m.gate {
		return
	}
	n.ID, n.Monitor = m.nextID(), m.id
	m.st.Gate.Outbox = append(m.st.Gate.Outbox, GateItem{Notice: &n})
}

// gateFlag audits and announces a raised flag.
func (m *monitor) gateFlag(f ReviewFlag) {
	m.audit(harness.AuditEntry{At: f.At, Kind: "flag-raised", Flag: f.ID, Cycle: f.Cycle, ExpansionID: f.ExpansionID, Reason: f.Reason})
	m.notify(activities.Notice{Event: activities.NoticeFlagRaised, At: f.At, Cycle: f.Cycle, Flag: f.ID, ExpansionID: f.ExpansionID, Reason: f.Reason,
		Text: fmt.Sprintf("sated harness: review flag %d at cycle %d: %s (acknowledge: starter harness ack %d --reason ...)", f.ID, f.Cycle, f.Reason, f.ID)})
}

// gateVersion audits a harness version the monitor recorded, with its content hash.
func (m *monitor) gateVersion(at time.Time, r harness.VersionRecord) {
	if r.At.IsZero() {
		r.At = at
	}
	m.audit(harness.AuditEntry{At: r.At, Kind: "version", Version: r.Version, Hash: r.Hash, Reason: r.Change})
}

// gateEvent audits every expansion event and announces those a person acts on or should know.
func (m *monitor) gateEvent(ev ExpansionEvent) {
	e := harness.AuditEntry{At: ev.At, Kind: "expansion-" + ev.Kind, ExpansionID: ev.ExpansionID, Cycle: ev.Cycle, Version: ev.Version,
		By: ev.By, User: ev.User, Host: ev.Host, Reason: ev.Reason}
	if ev.Version > 0 {
		e.Hash, _ = m.st.Ledger.Hash(ev.Version)
	}
	m.audit(e)
	n := activities.Notice{At: ev.At, ExpansionID: ev.ExpansionID, Cycle: ev.Cycle, Version: ev.Version, By: ev.By, Reason: ev.Reason, ExpiresAt: ev.ExpiresAt}
	switch ev.Kind {
	case EventProposed:
		n.Event = activities.NoticeAwaitingApproval
		n.Text = fmt.Sprintf("sated harness: expansion %s awaits approval (%s)%s; see: starter expansion diff %s", ev.ExpansionID, ev.Reason, expiry(ev.ExpiresAt), ev.ExpansionID)
	case EventExpiring:
		n.Event = activities.NoticeApprovalExpiring
		n.Text = fmt.Sprintf("sated harness: expansion %s still awaits approval%s; approve or reject it before then", ev.ExpansionID, expiry(ev.ExpiresAt))
	case EventApplied:
		n.Event = activities.NoticeApplied
		n.Text = fmt.Sprintf("sated harness: expansion %s applied (%s), approved by %s", ev.ExpansionID, ev.Reason, ev.By)
	case EventRolledBack:
		n.Event = activities.NoticeRolledBack
		n.Text = fmt.Sprintf("sated harness: expansion %s rolled back: %s", ev.ExpansionID, ev.Reason)
	default:
		return
	}
	m.notify(n)
}

func expiry(at *time.Time) string {
	if at == nil {
		return ""
	}
	return "; it expires at " + at.UTC().Format(time.RFC3339)
}

// deliver runs one outbox item's activity; a failure after the retries is recorded and the
// item dropped, so a broken webhook never stops the monitor.
func (m *monitor) deliver(ctx workflow.Context, it GateItem) {
	var err error
	var id, what string
	switch {
	case it.Audit != nil:
		id, what = it.Audit.ID, "audit "+it.Audit.Kind
		err = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(auditOptions, "audit: %s", it.Audit.Kind)),
			gateActs.AppendHarnessAudit, activities.AuditInput{Entry: *it.Audit}).Get(ctx, nil)
	case it.Notice != nil:
		id, what = it.Notice.ID, "notify "+it.Notice.Event
		err = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(notifyOptions, "notify: %s", it.Notice.Event)),
			gateActs.Notify, activities.NotifyInput{Notice: *it.Notice}).Get(ctx, nil)
	default:
		return
	}
	if err == nil {
		return
	}
	workflow.GetLogger(ctx).Warn("operator gate delivery failed", "id", id, "what", what, "error", err)
	g := &m.st.Gate
	g.Failures = append(g.Failures, GateFailure{At: workflow.Now(ctx), ID: id, What: what, Error: Readable(err)})
	if n := len(g.Failures); n > monitorMaxGateFailures {
		g.Failures = g.Failures[n-monitorMaxGateFailures:]
	}
}

// history is the last harness.Window cycles as rows, with each one's decision when known.
func (m *monitor) history() []CycleRow {
	snaps := harness.Recent(m.st.Snapshots)
	decisions := map[int]harness.Decision{}
	for _, r := range m.st.Recent {
		decisions[r.Cycle] = r.Decision
	}
	rows := make([]CycleRow, len(snaps))
	for i, s := range snaps {
		rows[i] = CycleRow{Cycle: s.Cycle, At: s.At, Score: s.Breakdown.Score, Level: s.Breakdown.Level, Version: s.Metrics.HarnessVersion, Decision: decisions[s.Cycle]}
	}
	return rows
}

// awaitDecided waits for a decision until timeout; from approvalReminderChange on, an expansion
// with a monitor tells it ApprovalReminderLead before the end, and the monitor notifies.
func (x *expansion) awaitDecided(ctx workflow.Context, timeout time.Duration) (bool, error) {
	decided := func() bool { return x.s.Decision != nil }
	if workflow.GetVersion(ctx, approvalReminderChange, workflow.DefaultVersion, 1) < 1 || timeout <= ApprovalReminderLead || x.req.MonitorID == "" {
		return workflow.AwaitWithTimeout(ctx, timeout, decided)
	}
	expires := workflow.Now(ctx).Add(timeout)
	if ok, err := workflow.AwaitWithTimeout(ctx, timeout-ApprovalReminderLead, decided); ok || err != nil {
		return ok, err
	}
	signalMonitor(ctx, x.req.MonitorID, ExpansionEvent{At: workflow.Now(ctx), ExpansionID: x.s.ID, Kind: EventExpiring, Cycle: x.req.Cycle,
		Reason: "no decision yet", ExpiresAt: &expires})
	return workflow.AwaitWithTimeout(ctx, expires.Sub(workflow.Now(ctx)), decided)
}

// approvalTimeout is how long the expansion waits for its person.
func (x *expansion) approvalTimeout() time.Duration {
	if x.req.ApprovalTimeout > 0 {
		return x.req.ApprovalTimeout
	}
	return DefaultApprovalTimeout
}

// withIdentity adds to an expansion's event what the gate needs beside the self-declared name:
// the deciding starter's OS user and host, and when an awaited approval expires.
func (x *expansion) withIdentity(ctx workflow.Context, ev ExpansionEvent) ExpansionEvent {
	switch ev.Kind {
	case EventApproved, EventRejected:
		if d := x.s.Decision; d != nil {
			ev.User, ev.Host = d.User, d.Host
		}
	case EventProposed:
		at := workflow.Now(ctx).Add(x.approvalTimeout())
		ev.ExpiresAt = &at
	}
	return ev
}
