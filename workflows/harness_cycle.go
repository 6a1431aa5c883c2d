package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
)

// harnessResearchTimeout bounds one benchmark's research run.
const harnessResearchTimeout = 30 * time.Minute

// harnessTest is a benchmark or a runnable edge case.
type harnessTest struct {
	ID         string
	Question   string
	Gold       []eval.Fact
	Threshold  float64
	Regression bool
}

// enabledTests lists the enabled benchmarks and the enabled edge cases that have a question.
func enabledTests(h harness.Harness) []harnessTest {
	var ts []harnessTest
	for _, b := range h.Benchmarks {
		if b.Enabled {
			ts = append(ts, harnessTest{ID: b.ID, Question: b.Question, Gold: b.Gold, Threshold: b.Threshold, Regression: h.IsRegression(b.ID)})
		}
	}
	for _, e := range h.EdgeCases {
		if e.Enabled && e.Question != "" {
			ts = append(ts, harnessTest{ID: e.ID, Question: e.Question, Gold: e.Gold, Threshold: e.Threshold})
		}
	}
	return ts
}

// testByID finds a test among all of h's benchmarks and edge cases, enabled or not.
func testByID(h harness.Harness, id string) (harnessTest, bool) {
	for _, b := range h.Benchmarks {
		if b.ID == id {
			return harnessTest{ID: b.ID, Question: b.Question, Gold: b.Gold, Threshold: b.Threshold}, true
		}
	}
	for _, e := range h.EdgeCases {
		if e.ID == id {
			return harnessTest{ID: e.ID, Question: e.Question, Gold: e.Gold, Threshold: e.Threshold}, true
		}
	}
	return harnessTest{}, false
}

// runHarnessTest runs one test as a child research run and scores it; a failed run scores 0.
func runHarnessTest(ctx workflow.Context, t harnessTest, gates harness.Gates, cfg config.Research, childID string) BenchmarkResult {
	res := BenchmarkResult{ID: t.ID, Regression: t.Regression, WorkflowID: childID, Threshold: t.Threshold}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: childID, WorkflowExecutionTimeout: harnessResearchTimeout,
		StaticSummary: uiSummary("benchmark "+t.ID+": ", t.Question)})
	var rep ResearchReport
	if err := workflow.ExecuteChildWorkflow(cctx, ResearchWorkflowName, ResearchRequest{Question: t.Question, Config: cfg, Eval: true}).Get(ctx, &rep); err != nil {
		res.Error = "research failed: " + Readable(err)
		res.Unanimous = true // every auditor fails a run that produced nothing
		return res
	}
	var out activities.HarnessScoreOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, harnessModelOptions), harnessActs.HarnessScoreRun, activities.HarnessScoreInput{
		ID: t.ID, Question: t.Question, Gold: t.Gold, Threshold: t.Threshold, Gates: gates,
		Markdown: rep.Markdown, Evidence: rep.Evidence, Sources: len(rep.Sources),
	}).Get(ctx, &out)
	if err != nil {
		res.Error = "scoring failed: " + Readable(err)
		return res
	}
	res.Score, res.Missing, res.Passed, res.Unanimous, res.Judge = out.Score, out.Missing, out.Passed, out.Unanimous, out.Judge
	res.ValidCitations, res.InvalidCitations = out.ValidCitations, out.InvalidCitations
	return res
}

// CycleMetrics computes the five signals of a cycle from its scored runs and the previous
// cycle's mean score (nil for the first cycle of a harness version: delta 0). A run is at the
// ceiling against its own threshold (harness.AtCeiling), so raising thresholds lowers it.
func CycleMetrics(results []BenchmarkResult, prevMean *float64) harness.Metrics {
	var m harness.Metrics
	n := float64(len(results))
	if n == 0 {
		return m
	}
	var ceiling, passed, unanimous, regs, regPassed int
	var sum float64
	for _, r := range results {
		sum += r.Score
		if harness.AtCeiling(r.Score, r.Threshold) {
			ceiling++
		}
		if r.Passed {
			passed++
		}
		if r.Unanimous {
			unanimous++
		}
		if r.Regression {
			regs++
			if r.Passed {
				regPassed++
			}
		}
		m.Benchmarks = append(m.Benchmarks, harness.BenchmarkScore{ID: r.ID, Score: r.Score, Threshold: r.Threshold})
	}
	mean := sum / n
	m.MeanScore = &mean
	m.CeilingRate = float64(ceiling) / n
	m.ProposalPassRate = float64(passed) / n
	m.AuditorUnanimity = float64(unanimous) / n
	m.RegressionPassRate = 1
	if regs > 0 {
		m.RegressionPassRate = float64(regPassed) / float64(regs)
	}
	if prevMean != nil {
		m.ImprovementDelta = mean - *prevMean
	}
	return m
}

// HarnessCycleWorkflow runs the enabled benchmarks as child research runs, scores them with the
// auditors, computes the five signals and records them in the saturation monitor.
func HarnessCycleWorkflow(ctx workflow.Context, req HarnessCycleRequest) (HarnessCycleReport, error) {
	monitorID := req.MonitorID
	if monitorID == "" {
		monitorID = SaturationMonitorID
	}
	cfg := req.Research.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return HarnessCycleReport{}, temporal.NewNonRetryableApplicationError("invalid research config: "+err.Error(), badInput, err)
	}
	sctx := workflow.WithActivityOptions(ctx, harnessStoreOptions)
	var loaded activities.HarnessLoadOutput
	if err := workflow.ExecuteActivity(sctx, harnessActs.HarnessLoad, activities.HarnessLoadInput{Monitor: MonitorRef(monitorID, workflow.GetInfo(ctx).TaskQueueName)}).Get(ctx, &loaded); err != nil {
		return HarnessCycleReport{}, err
	}
	h := loaded.Harness
	rep := HarnessCycleReport{HarnessVersion: h.Version, Warning: loaded.Warning}
	tests := enabledTests(h)
	if len(tests) == 0 {
		return rep, temporal.NewNonRetryableApplicationError(fmt.Sprintf("harness v%d has no enabled benchmarks", h.Version), badInput, nil)
	}
	cctx := workflow.WithActivityOptions(ctx, harnessClientOptions)
	var prev activities.HarnessMonitorStatusOutput
	if err := workflow.ExecuteActivity(cctx, harnessActs.HarnessMonitorStatus, activities.HarnessMonitorStatusInput{MonitorID: monitorID, QueryName: MonitorStatusQuery}).Get(ctx, &prev); err != nil {
		return rep, err
	}
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	protocol := workflow.GetVersion(ctx, applyProtocolChange, workflow.DefaultVersion, 1)
	for _, t := range tests {
		rep.Results = append(rep.Results, runHarnessTest(ctx, t, h.Gates, cfg, id+"-"+t.ID))
	}
	prevMean := prev.LastMeanScore
	if protocol >= 1 {
		if prev.LastVersion != h.Version {
			prevMean = nil // deltas are compared within one harness version
		}
		rep.Retries = retryPending(ctx, h, cfg, id)
	}
	rep.Metrics = CycleMetrics(rep.Results, prevMean)
	rep.Metrics.CycleID, rep.Metrics.Source = id, "sated"
	if protocol >= 1 {
		rep.Metrics.HarnessVersion = h.Version
		for _, r := range rep.Retries {
			rep.Metrics.Retries = append(rep.Metrics.Retries, harness.BenchmarkScore{ID: r.ID, Score: r.Score, Threshold: r.Threshold})
		}
	}
	err := workflow.ExecuteActivity(cctx, harnessActs.HarnessRecordCycle, activities.HarnessRecordInput{
		MonitorID: monitorID, WorkflowType: SaturationMonitorWorkflowName, UpdateName: MonitorRecordUpdate,
		TaskQueue: workflow.GetInfo(ctx).TaskQueueName, Metrics: rep.Metrics,
	}).Get(ctx, &rep.Recorded)
	if err != nil || protocol < 1 {
		return rep, err
	}
	return rep, enableRetried(ctx, &rep, h, monitorID)
}

// retryPending runs again, at baseline, up to harness.RetryPerCycle of the disabled new tests
// (those that failed when their expansion applied), oldest first.
func retryPending(ctx workflow.Context, h harness.Harness, cfg config.Research, cycleID string) []BenchmarkResult {
	var out []BenchmarkResult
	for _, id := range h.Pending() {
		if len(out) == harness.RetryPerCycle {
			break
		}
		t, _ := testByID(h, id)
		out = append(out, runHarnessTest(ctx, t, h.Gates, cfg, cycleID+"-retry-"+id))
	}
	return out
}

// enableRetried commits a new version with the retried tests that passed enabled; the
// signals of the following cycles then restart on that version.
func enableRetried(ctx workflow.Context, rep *HarnessCycleReport, h harness.Harness, monitorID string) error {
	var passed []string
	for _, r := range rep.Retries {
		if r.Passed {
			passed = append(passed, r.ID)
		}
	}
	if len(passed) == 0 {
		return nil
	}
	mon := MonitorRef(monitorID, workflow.GetInfo(ctx).TaskQueueName)
	sctx := workflow.WithActivityOptions(ctx, harnessStoreOptions)
	var archived activities.HarnessArchiveOutput
	if err := workflow.ExecuteActivity(sctx, harnessActs.HarnessArchive, activities.HarnessArchiveInput{Monitor: mon}).Get(ctx, &archived); err != nil {
		return err
	}
	if archived.Harness.Version != h.Version {
		return nil // the harness changed while the cycle ran; the next cycle retries on it
	}
	cand := archived.Harness
	for _, id := range passed {
		cand, _ = harness.Enable(cand, id)
	}
	var committed activities.HarnessCommitOutput
	change := workflow.GetInfo(ctx).WorkflowExecution.ID + " retry"
	if err := workflow.ExecuteActivity(sctx, harnessActs.HarnessCommit, activities.HarnessCommitInput{Harness: cand, Base: h.Version, Change: change, Monitor: mon}).Get(ctx, &committed); err != nil {
		return err
	}
	rep.RetryEnabled, rep.RetryVersion = passed, committed.Version
	return nil
}
