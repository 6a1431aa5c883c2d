package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/internal/llm"
)

// HarnessModel is the narrow view of the model the harness uses: a judge and a proposer.
// *llm.Client satisfies it; nil means no model.
type HarnessModel interface {
	Configured(s llm.Stage) bool
	GenerateJSON(ctx context.Context, stage llm.Stage, system, prompt string, schema json.RawMessage, out any, validate func() error) (llm.Outcome, llm.Usage, error)
}

// HarnessActivities are the side effects of the harness: its store, the auditors' model judge,
// the expansion proposer and the calls to the saturation monitor.
type HarnessActivities struct {
	store     *harness.Store
	client    client.Client
	model     HarnessModel
	taskQueue string
	corpus    HarnessCorpus // nil: deterministic expansion only raises thresholds
	// SearchAttributes: the namespace has sated's search attributes, so the harness workflows
	// may set them (a field, not a setter: every exported method would register as an activity)
	SearchAttributes bool
}

// HarnessSearchAttributes says whether the namespace has sated's search attributes, so an
// expansion can show its state in the Temporal UI's list.
func (a *HarnessActivities) HarnessSearchAttributes(ctx context.Context, _ struct{}) (bool, error) {
	return a.SearchAttributes, nil
}

// NewHarnessActivities builds the harness activities over the store in dir. c reaches the
// monitor (nil: the monitor activities fail); model may be nil.
func NewHarnessActivities(dir string, c client.Client, taskQueue string, model HarnessModel) *HarnessActivities {
	return &HarnessActivities{store: harness.NewStore(dir), client: c, model: model, taskQueue: taskQueue}
}

// NewHarnessActivitiesWithCorpus is NewHarnessActivities whose deterministic expansion also
// generates new benchmarks from corpus c.
func NewHarnessActivitiesWithCorpus(dir string, c client.Client, taskQueue string, model HarnessModel, corp HarnessCorpus) *HarnessActivities {
	a := NewHarnessActivities(dir, c, taskQueue, model)
	a.corpus = corp
	return a
}

// NoHarness is the error type of a load with no harness initialised: an expansion then has
// nothing of sated's own to propose from.
const NoHarness = "NoHarness"

// HarnessMonitor names the saturation monitor that keeps the harness's recorded hashes. The
// names come from the workflows package, which this package cannot import. An empty ID means
// no monitor: the harness is read unverified (only tests run without one).
type HarnessMonitor struct {
	ID                  string `json:"id,omitempty"`
	WorkflowType        string `json:"workflow_type,omitempty"`
	TaskQueue           string `json:"task_queue,omitempty"`
	StatusQuery         string `json:"status_query,omitempty"`
	RecordVersionUpdate string `json:"record_version_update,omitempty"`
	TamperUpdate        string `json:"tamper_update,omitempty"`
}

// HarnessTampered is the error type of a harness file that fails its hash check: no retry can
// fix it, a person must (harness verify, harness restore).
const HarnessTampered = "HarnessTampered"

// HarnessLedger reads the recorded hashes from the monitor's status; a monitor that does not
// exist yet has recorded nothing.
func HarnessLedger(ctx context.Context, c client.Client, m HarnessMonitor) (harness.Ledger, error) {
	v, err := c.QueryWorkflow(ctx, m.ID, "", m.StatusQuery)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the recorded harness hashes from %s: %w", m.ID, err)
	}
	var st struct {
		Ledger harness.Ledger `json:"ledger"`
	}
	if err := v.Get(&st); err != nil {
		return nil, fmt.Errorf("decoding the recorded harness hashes: %w", err)
	}
	return st.Ledger, nil
}

// RecordHarnessVersion records a version's hash in the monitor, starting the monitor when
// needed; the version and hash make the update id, so a retried record lands once.
func RecordHarnessVersion(ctx context.Context, c client.Client, m HarnessMonitor, r harness.VersionRecord) error {
	if err := r.Validate(); err != nil {
		return badInput(nil, "%v", err)
	}
	id := fmt.Sprintf("harness-v%d-%s", r.Version, harness.Short(r.Hash))
	if err := updateMonitor(ctx, c, m, m.RecordVersionUpdate, id, r, nil); err != nil {
		return fmt.Errorf("recording the hash of harness v%d in %s: %w", r.Version, m.ID, err)
	}
	return nil
}

// ReportHarnessTamper records a failed hash check in the monitor, which then starts no
// expansion until a person clears it.
func ReportHarnessTamper(ctx context.Context, c client.Client, m HarnessMonitor, t harness.Tamper) error {
	return updateMonitor(ctx, c, m, m.TamperUpdate, "", t, nil)
}

// updateMonitor runs one update on the monitor through update-with-start and decodes its result
// into out (nil: ignored).
func updateMonitor(ctx context.Context, c client.Client, m HarnessMonitor, name, updateID string, arg, out any) error {
	start := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: m.ID, TaskQueue: m.TaskQueue, WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, m.WorkflowType, struct{}{})
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{UpdateID: updateID, WorkflowID: m.ID, UpdateName: name,
			Args: []any{arg}, WaitForStage: client.WorkflowUpdateStageCompleted},
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, out)
}

// verifying reports whether loads check the ledger: a monitor is named and reachable.
func (a *HarnessActivities) verifying(m HarnessMonitor) bool { return m.ID != "" && a.client != nil }

// ledger reads the recorded hashes of m; a failure to reach the monitor is retried.
func (a *HarnessActivities) ledger(ctx context.Context, m HarnessMonitor) (harness.Ledger, error) {
	if m.TaskQueue == "" {
		m.TaskQueue = a.taskQueue
	}
	return HarnessLedger(ctx, a.client, m)
}

// storeError turns a store failure into the activity's error: a failed hash check is reported to
// the monitor and stops the caller without retries; the rest is bad input.
func (a *HarnessActivities) storeError(ctx context.Context, m HarnessMonitor, err error) error {
	var te *harness.TamperError
	if !errors.As(err, &te) {
		return badInput(nil, "%v", err)
	}
	if a.verifying(m) {
		if m.TaskQueue == "" {
			m.TaskQueue = a.taskQueue
		}
		if rerr := ReportHarnessTamper(ctx, a.client, m, te.Tamper(time.Now())); rerr != nil {
			activity.GetLogger(ctx).Error("cannot report the harness tamper to the monitor", "error", rerr)
		}
	}
	return temporal.NewNonRetryableApplicationError(te.Error(), HarnessTampered, nil)
}

// HarnessLoadInput names the monitor whose recorded hashes the harness is checked against.
type HarnessLoadInput struct {
	Monitor HarnessMonitor `json:"monitor"`
}

// HarnessLoadOutput is the harness in force, with a warning when current.json was unusable.
type HarnessLoadOutput struct {
	Harness harness.Harness `json:"harness"`
	Warning string          `json:"warning,omitempty"`
}

// HarnessLoad reads the harness in force after checking current.json against the hash the
// monitor recorded for its version; a mismatch stops the caller with HarnessTampered. Without
// a monitor, a broken current.json falls back to the newest readable archive.
func (a *HarnessActivities) HarnessLoad(ctx context.Context, in HarnessLoadInput) (HarnessLoadOutput, error) {
	if a.verifying(in.Monitor) {
		l, err := a.ledger(ctx, in.Monitor)
		if err != nil {
			return HarnessLoadOutput{}, err
		}
		h, err := a.store.CurrentVerified(l)
		if errors.Is(err, harness.ErrNoHarness) {
			return HarnessLoadOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("%v in %s", err, a.store.Dir()), NoHarness, nil)
		}
		if err != nil {
			return HarnessLoadOutput{}, a.storeError(ctx, in.Monitor, err)
		}
		return HarnessLoadOutput{Harness: h}, nil
	}
	h, err := a.store.Current()
	var stale *harness.StaleError
	switch {
	case errors.As(err, &stale):
		activity.GetLogger(ctx).Warn("harness file unusable", "error", err)
		return HarnessLoadOutput{Harness: h, Warning: err.Error()}, nil
	case errors.Is(err, harness.ErrNoHarness):
		return HarnessLoadOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("%v in %s", err, a.store.Dir()), NoHarness, nil)
	case err != nil:
		return HarnessLoadOutput{}, badInput(nil, "%v", err)
	}
	return HarnessLoadOutput{Harness: h}, nil
}

// HarnessScoreInput is one run's output and the test it answers.
type HarnessScoreInput struct {
	ID        string        `json:"id"`
	Question  string        `json:"question"`
	Gold      []eval.Fact   `json:"gold"`
	Threshold float64       `json:"threshold"`
	Gates     harness.Gates `json:"gates"`
	Markdown  string        `json:"markdown"`
	Evidence  string        `json:"evidence"`
	Sources   int           `json:"sources"`
}

// HarnessScoreOutput is the auditors' verdicts.
type HarnessScoreOutput struct {
	Score            float64  `json:"score"`
	Missing          []string `json:"missing,omitempty"`
	ValidCitations   int      `json:"valid_citations"`
	InvalidCitations int      `json:"invalid_citations"`
	Judge            *float64 `json:"judge,omitempty"`
	JudgeNote        string   `json:"judge_note,omitempty"`
	Passed           bool     `json:"passed"`
	Unanimous        bool     `json:"unanimous"`
}

// HarnessAuditors scores a run with independent auditors: fact recall, the citation check and,
// when a model is configured, a model judge. Pure apart from the judge.
func HarnessAuditors(in HarnessScoreInput, judge *float64) HarnessScoreOutput {
	rec, total, missing := eval.FactRecall(in.Markdown+"\n"+in.Evidence, in.Gold)
	valid, invalid := eval.CheckCitations(in.Markdown, in.Sources)
	out := HarnessScoreOutput{Score: eval.Recall(rec, total), Missing: missing, ValidCitations: valid, InvalidCitations: invalid, Judge: judge}
	out.Passed = out.Score >= in.Threshold
	validity := 0.0
	if valid+invalid > 0 {
		validity = float64(valid) / float64(valid+invalid)
	}
	citationsPass := validity >= in.Gates.MinCitationValidity && invalid <= in.Gates.MaxInvalidCitations
	out.Unanimous = citationsPass == out.Passed
	if judge != nil {
		out.Unanimous = out.Unanimous && (*judge >= in.Threshold) == out.Passed
	}
	return out
}

// judgeMaxChars bounds the report a judge reads.
const judgeMaxChars = 6000

var judgeSchema = json.RawMessage(`{"type":"object","properties":{"score":{"type":"integer","minimum":0,"maximum":10}},"required":["score"]}`)

// HarnessScoreRun runs the auditors over one research run.
func (a *HarnessActivities) HarnessScoreRun(ctx context.Context, in HarnessScoreInput) (HarnessScoreOutput, error) {
	if err := eval.ValidateFacts(in.Gold); err != nil || len(in.Gold) == 0 {
		return HarnessScoreOutput{}, badInput(nil, "test %q has no usable gold facts: %v", in.ID, err)
	}
	if a.model == nil || !a.model.Configured(llm.Evaluator) {
		return HarnessAuditors(in, nil), nil
	}
	facts := make([]string, len(in.Gold))
	for i, f := range in.Gold {
		facts[i] = "- " + f.Fact
	}
	report := in.Markdown
	if len(report) > judgeMaxChars {
		report = report[:judgeMaxChars]
	}
	prompt := fmt.Sprintf("Question: %s\n\nFacts a complete answer states:\n%s\n\nReport:\n%s\n\nScore 0-10: how many of the facts the report states correctly, as a share of all of them. Answer {\"score\": N}.",
		in.Question, strings.Join(facts, "\n"), report)
	var ans struct {
		Score *int `json:"score"`
	}
	outcome, _, err := a.model.GenerateJSON(ctx, llm.Evaluator, "You are a strict grader of research reports. Answer only JSON.", prompt, judgeSchema, &ans, func() error {
		if ans.Score == nil || *ans.Score < 0 || *ans.Score > 10 {
			return fmt.Errorf("score must be an integer 0-10")
		}
		return nil
	})
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			out := HarnessAuditors(in, nil)
			out.JudgeNote = "model judge: " + reason
			return out, nil
		}
		return HarnessScoreOutput{}, fmt.Errorf("model judge: %w", err)
	}
	if outcome.Fallback {
		out := HarnessAuditors(in, nil)
		out.JudgeNote = "model judge gave no valid answer: " + outcome.Reason
		return out, nil
	}
	j := float64(*ans.Score) / 10
	return HarnessAuditors(in, &j), nil
}

// HarnessProposeInput is what an expansion proposes from.
type HarnessProposeInput struct {
	Harness    harness.Harness          `json:"harness"`
	Benchmarks []harness.BenchmarkScore `json:"benchmarks"`
	Cycle      int                      `json:"cycle"`
	Research   string                   `json:"research,omitempty"`
	UseModel   bool                     `json:"use_model"`
}

// HarnessProposeOutput is the raw proposal, before the ratchet.
type HarnessProposeOutput struct {
	Proposal harness.Proposal `json:"proposal"`
	Source   string           `json:"source"` // model or deterministic
	Note     string           `json:"note,omitempty"`
}

var proposalSchema = json.RawMessage(`{"type":"object","properties":{
"rationale":{"type":"string"},
"threshold_increases":{"type":"array","items":{"type":"object","properties":{"benchmark_id":{"type":"string"},"proposed":{"type":"number"},"rationale":{"type":"string"}},"required":["benchmark_id","proposed","rationale"]}},
"new_benchmarks":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"question":{"type":"string"},"threshold":{"type":"number"},"gold":{"type":"array","items":{"type":"object","properties":{"fact":{"type":"string"},"patterns":{"type":"array","items":{"type":"string"}}},"required":["fact","patterns"]}}},"required":["id","question","threshold","gold"]}},
"new_edge_cases":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"description":{"type":"string"}},"required":["id","description"]}}
},"required":["threshold_increases","new_benchmarks","new_edge_cases"]}`)

// HarnessPropose proposes harness changes: from the model as validated JSON when asked and
// configured, otherwise (or when the model fails) deterministically from the cycle data.
func (a *HarnessActivities) HarnessPropose(ctx context.Context, in HarnessProposeInput) (HarnessProposeOutput, error) {
	scores := map[string]float64{}
	for _, b := range in.Benchmarks {
		scores[b.ID] = b.Score
	}
	det := HarnessProposeOutput{Proposal: harness.DeterministicProposal(in.Harness, scores, in.Cycle), Source: "deterministic"}
	if !in.UseModel || a.model == nil || !a.model.Configured(llm.Planner) {
		if err := a.generated(ctx, in, &det); err != nil {
			return HarnessProposeOutput{}, err
		}
		if det.Proposal.Empty() && len(in.Benchmarks) == 0 {
			det.Note = "nothing I can propose for an external harness: record per-benchmark scores (metrics.benchmarks), or index documents in the corpus so new benchmarks can be generated"
		}
		return det, nil
	}
	cur, _ := json.Marshal(in.Harness.Benchmarks)
	sc, _ := json.Marshal(in.Benchmarks)
	research := in.Research
	if len(research) > judgeMaxChars {
		research = research[:judgeMaxChars]
	}
	prompt := fmt.Sprintf("The evaluation harness is saturated: the system keeps hitting the ceiling.\nBenchmarks: %s\nLast scores: %s\nExpansion research:\n%s\n\n"+
		"Propose ONLY more rigorous changes: raise thresholds of benchmarks at the ceiling (proposed above current, at most 1), add new harder benchmarks (id, question, threshold, gold facts with case-insensitive regex patterns), add new edge cases. Never lower, remove or disable anything.",
		cur, sc, research)
	var p harness.Proposal
	outcome, _, err := a.model.GenerateJSON(ctx, llm.Planner, "You design evaluation benchmarks. Answer only JSON.", prompt, proposalSchema, &p, func() error {
		for _, t := range p.ThresholdIncreases {
			if t.BenchmarkID == "" || t.Proposed <= 0 || t.Proposed > 1 {
				return fmt.Errorf("threshold increase needs benchmark_id and proposed in (0,1]")
			}
		}
		for _, b := range p.NewBenchmarks {
			if b.ID == "" || b.Question == "" || b.Threshold <= 0 || b.Threshold > 1 || len(b.Gold) == 0 {
				return fmt.Errorf("new benchmark needs id, question, threshold in (0,1] and gold facts")
			}
			if err := eval.ValidateFacts(b.Gold); err != nil {
				return fmt.Errorf("new benchmark %s: %v", b.ID, err)
			}
		}
		for _, e := range p.NewEdgeCases {
			if e.ID == "" || e.Description == "" {
				return fmt.Errorf("new edge case needs id and description")
			}
		}
		return nil
	})
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			det.Note = "model proposer: " + reason
			return det, a.generated(ctx, in, &det)
		}
		return HarnessProposeOutput{}, fmt.Errorf("model proposer: %w", err)
	}
	if outcome.Fallback {
		det.Note = "model gave no valid proposal, used deterministic proposals: " + outcome.Reason
		return det, a.generated(ctx, in, &det)
	}
	return HarnessProposeOutput{Proposal: p, Source: "model"}, nil
}

// HarnessArchiveInput names the monitor whose recorded hashes the harness is checked against.
type HarnessArchiveInput struct {
	Monitor HarnessMonitor `json:"monitor"`
}

// HarnessArchiveOutput is the archived version in force.
type HarnessArchiveOutput struct {
	Harness harness.Harness `json:"harness"`
}

// HarnessArchive makes sure the version in force is archived before a change, and returns it;
// with a monitor, only after current.json passes its hash check.
func (a *HarnessActivities) HarnessArchive(ctx context.Context, in HarnessArchiveInput) (HarnessArchiveOutput, error) {
	if !a.verifying(in.Monitor) {
		h, err := a.store.Archive()
		if err != nil {
			return HarnessArchiveOutput{}, badInput(nil, "cannot archive the harness: %v", err)
		}
		return HarnessArchiveOutput{Harness: h}, nil
	}
	l, err := a.ledger(ctx, in.Monitor)
	if err != nil {
		return HarnessArchiveOutput{}, err
	}
	h, err := a.store.ArchiveVerified(l)
	if err != nil {
		return HarnessArchiveOutput{}, a.storeError(ctx, in.Monitor, err)
	}
	return HarnessArchiveOutput{Harness: h}, nil
}

// HarnessCommitInput is a candidate harness derived from Base by Change.
type HarnessCommitInput struct {
	Harness harness.Harness `json:"harness"`
	Base    int             `json:"base"`
	Change  string          `json:"change"`
	Monitor HarnessMonitor  `json:"monitor"`
}

// HarnessCommitOutput is the committed version.
type HarnessCommitOutput struct {
	Version int    `json:"version"`
	Hash    string `json:"hash,omitempty"`
}

// HarnessCommit stores the candidate as the next version, re-checking the ratchet against the
// base in force; an invalid or less rigorous candidate leaves the harness as it is. With a
// monitor, the base must pass its hash check and the new version's hash is recorded before
// its files are written.
func (a *HarnessActivities) HarnessCommit(ctx context.Context, in HarnessCommitInput) (HarnessCommitOutput, error) {
	var l harness.Ledger
	var err error
	verify := a.verifying(in.Monitor)
	if verify {
		if in.Monitor.TaskQueue == "" {
			in.Monitor.TaskQueue = a.taskQueue
		}
		if l, err = a.ledger(ctx, in.Monitor); err != nil {
			return HarnessCommitOutput{}, err
		}
	}
	var cur harness.Harness
	if verify {
		cur, err = a.store.CurrentVerified(l)
	} else {
		cur, err = a.store.Current()
	}
	if err != nil {
		return HarnessCommitOutput{}, a.storeError(ctx, in.Monitor, err)
	}
	if cur.Version == in.Base {
		if err := harness.Ratchet(cur, harness.Diff(cur, in.Harness)); err != nil {
			return HarnessCommitOutput{}, badInput(nil, "%v", err)
		}
	}
	var h harness.Harness
	if verify {
		h, err = a.store.CommitRecorded(in.Harness, in.Base, in.Change, time.Now(), l, func(h harness.Harness) error {
			if err := RecordHarnessVersion(ctx, a.client, in.Monitor, harness.Record(h, time.Now())); err != nil {
				return recordFailed{err}
			}
			return nil
		})
	} else {
		h, err = a.store.Commit(in.Harness, in.Base, in.Change, time.Now())
	}
	var te *harness.TamperError
	var rf recordFailed
	switch {
	case errors.As(err, &te):
		return HarnessCommitOutput{}, a.storeError(ctx, in.Monitor, err)
	case errors.As(err, &rf):
		return HarnessCommitOutput{}, rf.err // nothing was written; Temporal retries
	case err != nil:
		return HarnessCommitOutput{}, badInput(nil, "commit refused: %v", err)
	}
	return HarnessCommitOutput{Version: h.Version, Hash: harness.ContentHash(h)}, nil
}

// recordFailed is a hash the monitor did not record: the commit wrote nothing and may be retried.
type recordFailed struct{ err error }

func (r recordFailed) Error() string { return r.err.Error() }

// HarnessRestoreInput names the version to put back in force.
type HarnessRestoreInput struct {
	Version int            `json:"version"`
	Monitor HarnessMonitor `json:"monitor"`
}

// HarnessRestoreOutput is the version in force after the restore.
type HarnessRestoreOutput struct {
	Version int `json:"version"`
}

// HarnessRestore puts an archived version back in force (the rollback); with a monitor, only an
// archive that passes its hash check.
func (a *HarnessActivities) HarnessRestore(ctx context.Context, in HarnessRestoreInput) (HarnessRestoreOutput, error) {
	var h harness.Harness
	var err error
	if a.verifying(in.Monitor) {
		var l harness.Ledger
		if l, err = a.ledger(ctx, in.Monitor); err != nil {
			return HarnessRestoreOutput{}, err
		}
		h, err = a.store.RestoreVerified(in.Version, l)
	} else {
		h, err = a.store.Restore(in.Version)
	}
	if err != nil {
		return HarnessRestoreOutput{}, badInput(nil, "%v", err)
	}
	return HarnessRestoreOutput{Version: h.Version}, nil
}

// HarnessRecordInput sends one cycle's metrics to the monitor, starting it when needed. The
// names come from the workflows package, which this package cannot import.
type HarnessRecordInput struct {
	MonitorID    string          `json:"monitor_id"`
	WorkflowType string          `json:"workflow_type"`
	UpdateName   string          `json:"update_name"`
	TaskQueue    string          `json:"task_queue,omitempty"`
	Metrics      harness.Metrics `json:"metrics"`
}

// HarnessRecordCycle records a cycle in the monitor through update-with-start.
func (a *HarnessActivities) HarnessRecordCycle(ctx context.Context, in HarnessRecordInput) (harness.CycleResult, error) {
	if a.client == nil {
		return harness.CycleResult{}, badInput(nil, "no Temporal client to reach the monitor")
	}
	if in.TaskQueue == "" {
		in.TaskQueue = a.taskQueue
	}
	return RecordHarnessCycle(ctx, a.client, in)
}

// RecordHarnessCycle validates metrics and records them in the monitor with update-with-start,
// so the first record starts the monitor. The cycle id doubles as the update id: a retried
// record is answered once. Used by the activity and by `starter harness record`.
func RecordHarnessCycle(ctx context.Context, c client.Client, in HarnessRecordInput) (harness.CycleResult, error) {
	if err := in.Metrics.Validate(); err != nil {
		return harness.CycleResult{}, badInput(nil, "%v", err)
	}
	start := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       in.MonitorID,
		TaskQueue:                in.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, in.WorkflowType, struct{}{})
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateID:     in.Metrics.CycleID,
			WorkflowID:   in.MonitorID,
			UpdateName:   in.UpdateName,
			Args:         []any{in.Metrics},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		return harness.CycleResult{}, fmt.Errorf("recording the cycle in %s: %w", in.MonitorID, err)
	}
	var res harness.CycleResult
	if err := h.Get(ctx, &res); err != nil {
		return harness.CycleResult{}, fmt.Errorf("monitor refused the cycle: %s", Readable(err))
	}
	return res, nil
}

// HarnessMonitorStatusInput names the monitor and its status query.
type HarnessMonitorStatusInput struct {
	MonitorID string `json:"monitor_id"`
	QueryName string `json:"query_name"`
}

// HarnessMonitorStatusOutput is the part of the monitor's status a cycle needs.
type HarnessMonitorStatusOutput struct {
	Running       bool     `json:"running"`
	LastMeanScore *float64 `json:"last_mean_score,omitempty"`
	// LastVersion is the harness version of that mean score (0: unknown).
	LastVersion int `json:"last_version,omitempty"`
}

// HarnessMonitorStatus reads the previous cycle's mean score, so a cycle can compute its delta.
func (a *HarnessActivities) HarnessMonitorStatus(ctx context.Context, in HarnessMonitorStatusInput) (HarnessMonitorStatusOutput, error) {
	if a.client == nil {
		return HarnessMonitorStatusOutput{}, nil
	}
	v, err := a.client.QueryWorkflow(ctx, in.MonitorID, "", in.QueryName)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return HarnessMonitorStatusOutput{}, nil
	}
	if err != nil {
		return HarnessMonitorStatusOutput{}, fmt.Errorf("querying %s: %w", in.MonitorID, err)
	}
	var st struct {
		LastMeanScore *float64 `json:"last_mean_score"`
		LastVersion   int      `json:"last_version"`
	}
	if err := v.Get(&st); err != nil {
		return HarnessMonitorStatusOutput{}, fmt.Errorf("decoding the monitor status: %w", err)
	}
	return HarnessMonitorStatusOutput{Running: true, LastMeanScore: st.LastMeanScore, LastVersion: st.LastVersion}, nil
}
