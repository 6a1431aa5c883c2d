package workflows

import (
	"time"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/harness"
)

// Names of the harness workflows, their handlers and the schedule, shared with the starter.
const (
	SaturationMonitorWorkflowName = "SaturationMonitorWorkflow"
	HarnessCycleWorkflowName      = "HarnessCycleWorkflow"
	ExpansionWorkflowName         = "ExpansionWorkflow"

	// SaturationMonitorID is the monitor's fixed workflow id: there is one monitor.
	SaturationMonitorID = "sated-saturation-monitor"
	// HarnessScheduleID is the id of the schedule that starts harness cycles.
	HarnessScheduleID = "sated-harness-cycle"
	// ExpansionIDPrefix starts every expansion workflow id.
	ExpansionIDPrefix = "sated-expansion-"

	MonitorRecordUpdate         = "record-cycle"
	MonitorRecordVersionUpdate  = "record-harness-version"
	MonitorTamperUpdate         = "report-harness-tamper"
	MonitorClearTamperUpdate    = "clear-harness-tamper"
	MonitorAckFlagUpdate        = "ack-flag"
	MonitorStatusQuery          = "status"
	MonitorExpansionEventSignal = "expansion-event"
	ExpansionStatusQuery        = "expansion"
	ExpansionApproveUpdate      = "approve"
	ExpansionRejectUpdate       = "reject"
)

// MonitorRef names monitor monitorID for the harness activities and the starter: the monitor
// keeps the harness's recorded hashes. An empty id names no monitor.
func MonitorRef(monitorID, taskQueue string) activities.HarnessMonitor {
	if monitorID == "" {
		return activities.HarnessMonitor{}
	}
	return activities.HarnessMonitor{ID: monitorID, WorkflowType: SaturationMonitorWorkflowName, TaskQueue: taskQueue,
		StatusQuery: MonitorStatusQuery, RecordVersionUpdate: MonitorRecordVersionUpdate, TamperUpdate: MonitorTamperUpdate}
}

// Bounds on the monitor's state, so a run carried across continue-as-new stays small.
const (
	MonitorDefaultRecordsPerRun = 500
	MonitorMaxEvents            = 200
	MonitorMaxFlags             = 100
	MonitorRecentResults        = harness.Window
	DefaultApprovalTimeout      = 30 * 24 * time.Hour
)

// MonitorInput starts or continues the saturation monitor.
type MonitorInput struct {
	State MonitorState `json:"state"`
	// RecordsPerRun is how many records and events a run handles before continuing as new;
	// 0 means MonitorDefaultRecordsPerRun.
	RecordsPerRun int `json:"records_per_run,omitempty"`
	// Expansion configures the expansion runs the monitor starts.
	Expansion ExpansionSettings `json:"expansion"`
}

// ExpansionSettings are the parts of an expansion request the monitor does not decide.
type ExpansionSettings struct {
	SkipResearch    bool            `json:"skip_research,omitempty"`
	Research        config.Research `json:"research"`
	ApprovalTimeout time.Duration   `json:"approval_timeout,omitempty"`
}

// MonitorState is everything the monitor knows; it is carried whole across continue-as-new.
type MonitorState struct {
	Cycles             int                      `json:"cycles"`
	Snapshots          []harness.Snapshot       `json:"snapshots"`
	Recent             []harness.CycleResult    `json:"recent"`
	CycleIDs           []string                 `json:"cycle_ids"` // of Recent, for duplicate records
	Events             []ExpansionEvent         `json:"events"`
	Flags              []ReviewFlag             `json:"flags"`
	OpenExpansion      string                   `json:"open_expansion,omitempty"`
	LastExpansionCycle int                      `json:"last_expansion_cycle,omitempty"`
	LastMeanScore      *float64                 `json:"last_mean_score,omitempty"`
	LastBenchmarks     []harness.BenchmarkScore `json:"last_benchmarks,omitempty"`
	Runs               int                      `json:"runs"` // continue-as-new generations
	// Ledger is the content hash of every harness version sated wrote or a person adopted,
	// kept here, outside the harness directory, so an edit on disk cannot rewrite it.
	Ledger harness.Ledger `json:"ledger,omitempty"`
	// Tamper is the last failed hash check; while set, no expansion starts.
	Tamper *harness.Tamper `json:"tamper,omitempty"`
	// PerVersion: the signals (streaks, deltas, trend) are computed over the snapshots of the
	// current harness version only (set from applyProtocolChange on).
	PerVersion bool `json:"per_version,omitempty"`
	// FlagSeq numbers the review flags, so a person can acknowledge one by its number.
	FlagSeq int `json:"flag_seq,omitempty"`
	// Gate is what the operator gate still has to send and write, and what failed.
	Gate GateState `json:"gate,omitempty"`
}

// Expansion event kinds.
const (
	EventStarted     = "started"
	EventStartFailed = "start-failed"
	EventProposed    = "proposed"
	EventApproved    = "approved"
	EventRejected    = "rejected"
	EventApplied     = "applied"
	EventRolledBack  = "rolled-back"
	EventNothing     = "nothing-to-apply"
	EventExpired     = "expired"
	EventExpiring    = "approval-expiring"
	EventFailed      = "failed"
)

// ExpansionEvent is one line of the expansion event log.
type ExpansionEvent struct {
	At          time.Time `json:"at"`
	ExpansionID string    `json:"expansion_id"`
	Kind        string    `json:"kind"`
	Cycle       int       `json:"cycle,omitempty"`
	By          string    `json:"by,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Version     int       `json:"version,omitempty"`
	// User and Host are the OS user and host the deciding starter ran as (By is self-declared).
	User string `json:"user,omitempty"`
	Host string `json:"host,omitempty"`
	// ExpiresAt is when an expansion awaiting approval expires (proposed, approval-expiring).
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// terminal reports whether an event closes its expansion.
func (e ExpansionEvent) terminal() bool {
	switch e.Kind {
	case EventStartFailed, EventApplied, EventRolledBack, EventRejected, EventNothing, EventExpired, EventFailed:
		return true
	}
	return false
}

// ReviewFlag is a state a person should look at.
type ReviewFlag struct {
	// ID numbers the flag (harness ack ID); 0 for a flag from before the operator gate.
	ID          int       `json:"id,omitempty"`
	At          time.Time `json:"at"`
	Cycle       int       `json:"cycle"`
	Reason      string    `json:"reason"`
	ExpansionID string    `json:"expansion_id,omitempty"`
	// Ack is the person's acknowledgement; an acked flag is shown apart from the open ones.
	Ack *FlagAck `json:"ack,omitempty"`
}

// MonitorStatus is what the status query answers.
type MonitorStatus struct {
	Cycles        int                `json:"cycles"`
	Latest        *harness.Snapshot  `json:"latest,omitempty"`
	Aggregate     harness.Aggregate  `json:"aggregate"`
	Decision      harness.Decision   `json:"decision"`
	OpenExpansion string             `json:"open_expansion,omitempty"`
	Expansions    []ExpansionSummary `json:"expansions"`
	Events        []ExpansionEvent   `json:"events"`
	Flags         []ReviewFlag       `json:"flags"`
	LastMeanScore *float64           `json:"last_mean_score,omitempty"`
	// LastVersion is the harness version of the latest snapshot (0: unknown).
	LastVersion int             `json:"last_version,omitempty"`
	Snapshots   int             `json:"snapshots"`
	Runs        int             `json:"runs"`
	Ledger      harness.Ledger  `json:"ledger,omitempty"`
	Tamper      *harness.Tamper `json:"tamper,omitempty"`
	// History is the last harness.Window cycles, oldest first, for the status table and chart.
	History []CycleRow `json:"history,omitempty"`
	// Outbox counts the notifications and audit lines not yet delivered; GateFailures are the
	// last ones that failed after their retries.
	Outbox       int           `json:"outbox,omitempty"`
	GateFailures []GateFailure `json:"gate_failures,omitempty"`
}

// ClearTamperRequest is a person's word that the harness files verify again (harness verify
// or harness restore checked them).
type ClearTamperRequest struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// ClearTamperResult is the tamper state the clear removed, if any.
type ClearTamperResult struct {
	Cleared *harness.Tamper `json:"cleared,omitempty"`
}

// ExpansionSummary is one expansion's latest state, from the event log.
type ExpansionSummary struct {
	ID    string    `json:"id"`
	Cycle int       `json:"cycle"`
	State string    `json:"state"`
	At    time.Time `json:"at"`
}

// Summarize folds the event log into one line per expansion, newest first.
func Summarize(events []ExpansionEvent) []ExpansionSummary {
	idx := map[string]int{}
	var out []ExpansionSummary
	for _, e := range events {
		i, ok := idx[e.ExpansionID]
		if !ok {
			idx[e.ExpansionID] = len(out)
			out = append(out, ExpansionSummary{ID: e.ExpansionID, Cycle: e.Cycle})
			i = len(out) - 1
		}
		out[i].State, out[i].At = e.Kind, e.At
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}

// ExpansionRequest starts an expansion.
type ExpansionRequest struct {
	Cycle      int                      `json:"cycle"`
	Urgent     bool                     `json:"urgent"`
	Reason     string                   `json:"reason"`
	Aggregate  harness.Aggregate        `json:"aggregate"`
	Benchmarks []harness.BenchmarkScore `json:"benchmarks,omitempty"`
	// MonitorID receives the expansion's events; empty sends none.
	MonitorID string `json:"monitor_id,omitempty"`
	// Trigger is the monitor's state when it started the expansion (nil from older monitors).
	Trigger *ExpansionTrigger `json:"trigger,omitempty"`
	// Import, when set, makes this the application of an imported harness file: no research
	// and no proposer, the import is the proposal and its approval.
	Import *ExpansionImport `json:"import,omitempty"`
	ExpansionSettings
}

// ExpansionTrigger is what the monitor saw when it started an expansion: the score and level
// of the cycle, the streaks and the harness version they were counted on.
type ExpansionTrigger struct {
	Score               float64       `json:"score"`
	Level               harness.Level `json:"level"`
	ConsecutiveHigh     int           `json:"consecutive_high_or_above"`
	ConsecutiveCritical int           `json:"consecutive_critical"`
	HarnessVersion      int           `json:"harness_version,omitempty"`
}

// ExpansionImport is a hand-edited harness file as a proposal over the version in force. Its
// new tests enter disabled and are enabled only after they pass at baseline, like an
// expansion's.
type ExpansionImport struct {
	File     string           `json:"file"`
	By       string           `json:"by"`
	Proposal harness.Proposal `json:"proposal"`
	// User and Host are the OS user and host the importing starter ran as.
	User string `json:"user,omitempty"`
	Host string `json:"host,omitempty"`
}

// Expansion states.
const (
	ExpansionResearching = "researching"
	ExpansionProposing   = "proposing"
	ExpansionAwaiting    = "awaiting-approval"
	ExpansionApplying    = "applying"
	ExpansionApplied     = "applied"
	ExpansionRolledBack  = "rolled-back"
	ExpansionRejected    = "rejected"
	ExpansionNothing     = "nothing-to-apply"
	ExpansionExpired     = "expired"
)

// ExpansionDecision is a person's approval or rejection.
type ExpansionDecision struct {
	Approved bool      `json:"approved"`
	By       string    `json:"by"`
	Reason   string    `json:"reason,omitempty"`
	At       time.Time `json:"at"`
	User     string    `json:"user,omitempty"`
	Host     string    `json:"host,omitempty"`
}

// DecideRequest is the argument of the approve and reject updates. By is self-declared; User and
// Host are the OS user and host the starter ran as, recorded beside it.
type DecideRequest struct {
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
	User   string `json:"user,omitempty"`
	Host   string `json:"host,omitempty"`
}

// TestOutcome is a new test's baseline run while the expansion enables it.
type TestOutcome struct {
	ID        string  `json:"id"`
	Passed    bool    `json:"passed"`
	Score     float64 `json:"score"`
	Threshold float64 `json:"threshold,omitempty"`
	// Documented is an edge case with nothing to run: enabled, counted neither way.
	Documented bool   `json:"documented,omitempty"`
	Note       string `json:"note,omitempty"`
}

// ExpansionStatus is what the expansion query answers.
type ExpansionStatus struct {
	ID                 string             `json:"id"`
	Cycle              int                `json:"cycle"`
	Urgent             bool               `json:"urgent"`
	Reason             string             `json:"reason"`
	State              string             `json:"state"`
	BaseVersion        int                `json:"base_version"`
	ResearchWorkflowID string             `json:"research_workflow_id,omitempty"`
	ResearchNote       string             `json:"research_note,omitempty"`
	ProposalSource     string             `json:"proposal_source,omitempty"`
	Proposed           harness.Proposal   `json:"proposed"`
	Accepted           harness.Proposal   `json:"accepted"`
	Refusals           []harness.Refusal  `json:"refusals,omitempty"`
	Decision           *ExpansionDecision `json:"decision,omitempty"`
	NewTests           []TestOutcome      `json:"new_tests,omitempty"`
	// Rerun is the baseline check: the existing tests re-run at the new thresholds.
	Rerun []TestOutcome `json:"rerun,omitempty"`
	// Tally counts the baseline runs the commit-or-rollback rule read.
	Tally *harness.Baseline `json:"tally,omitempty"`
	// Trigger is the monitor's score, level and streaks when it started the expansion.
	Trigger          *ExpansionTrigger `json:"trigger,omitempty"`
	CommittedVersion int               `json:"committed_version,omitempty"`
	Note             string            `json:"note,omitempty"`
	// IgnoredSignals are approve/reject signals that decided nothing (invalid or late), with why.
	IgnoredSignals []IgnoredSignal `json:"ignored_signals,omitempty"`
}

// IgnoredSignal is an approve or reject signal the expansion did not act on, and why: a signal
// has no answer to carry a refusal, so the refusal is kept here for 'starter expansion show'.
type IgnoredSignal struct {
	At     time.Time `json:"at"`
	Signal string    `json:"signal"`
	By     string    `json:"by,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Why    string    `json:"why"`
}

// HarnessCycleRequest starts a harness cycle; the schedule sends the zero value.
type HarnessCycleRequest struct {
	Research config.Research `json:"research"`
	// MonitorID receives the cycle's metrics; empty means SaturationMonitorID.
	MonitorID string `json:"monitor_id,omitempty"`
}

// BenchmarkResult is one benchmark or edge case run, scored by the auditors.
type BenchmarkResult struct {
	ID               string   `json:"id"`
	Regression       bool     `json:"regression,omitempty"`
	WorkflowID       string   `json:"workflow_id"`
	Score            float64  `json:"score"` // fact recall
	Threshold        float64  `json:"threshold"`
	Missing          []string `json:"missing,omitempty"`
	ValidCitations   int      `json:"valid_citations"`
	InvalidCitations int      `json:"invalid_citations"`
	Judge            *float64 `json:"judge,omitempty"`
	Passed           bool     `json:"passed"`
	Unanimous        bool     `json:"unanimous"`
	Error            string   `json:"error,omitempty"`
}

// HarnessCycleReport is the output of HarnessCycleWorkflow.
type HarnessCycleReport struct {
	HarnessVersion int                 `json:"harness_version"`
	Warning        string              `json:"warning,omitempty"`
	Results        []BenchmarkResult   `json:"results"`
	Metrics        harness.Metrics     `json:"metrics"`
	Recorded       harness.CycleResult `json:"recorded"`
	// Retries are the disabled new tests this cycle ran again; those that passed are
	// RetryEnabled, committed as RetryVersion.
	Retries      []BenchmarkResult `json:"retries,omitempty"`
	RetryEnabled []string          `json:"retry_enabled,omitempty"`
	RetryVersion int               `json:"retry_version,omitempty"`
}

// FlagAck is a person's acknowledgement of a review flag.
type FlagAck struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	User   string    `json:"user,omitempty"`
	Host   string    `json:"host,omitempty"`
}

// AckFlagRequest acknowledges review flag Flag; By and Reason are required.
type AckFlagRequest struct {
	Flag   int    `json:"flag"`
	By     string `json:"by"`
	Reason string `json:"reason"`
	User   string `json:"user,omitempty"`
	Host   string `json:"host,omitempty"`
}

// CycleRow is one recorded cycle as the status table and chart show it.
type CycleRow struct {
	Cycle    int              `json:"cycle"`
	At       time.Time        `json:"at"`
	Score    float64          `json:"score"`
	Level    harness.Level    `json:"level"`
	Version  int              `json:"version,omitempty"`
	Decision harness.Decision `json:"decision,omitempty"`
}

// GateState is the operator gate's outbox: notices and audit lines are queued in the monitor's
// durable state and sent one at a time, so a slow webhook never holds a record or an update.
type GateState struct {
	Seq      int           `json:"seq,omitempty"`
	Outbox   []GateItem    `json:"outbox,omitempty"`
	Failures []GateFailure `json:"failures,omitempty"`
}

// GateItem is one notice or one audit line to deliver.
type GateItem struct {
	Notice *activities.Notice  `json:"notice,omitempty"`
	Audit  *harness.AuditEntry `json:"audit,omitempty"`
}

// GateFailure is a notice or audit line that still failed after its retries: recorded, never a
// failure of the harness.
type GateFailure struct {
	At    time.Time `json:"at"`
	ID    string    `json:"id"`
	What  string    `json:"what"`
	Error string    `json:"error"`
}
