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
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: childID, WorkflowExecutionTimeout: harnessResearchTimeout})
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
// cycle's mean score (nil for the first cycle: delta 0).
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
		if r.Score > harness.CeilingScore {
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
	for _, t := range tests {
		rep.Results = append(rep.Results, runHarnessTest(ctx, t, h.Gates, cfg, id+"-"+t.ID))
	}
	rep.Metrics = CycleMetrics(rep.Results, prev.LastMeanScore)
	rep.Metrics.CycleID, rep.Metrics.Source = id, "sated"
	rep.Metrics.HarnessVersion = h.Version
	err := workflow.ExecuteActivity(cctx, harnessActs.HarnessRecordCycle, activities.HarnessRecordInput{
		MonitorID: monitorID, WorkflowType: SaturationMonitorWorkflowName, UpdateName: MonitorRecordUpdate,
		TaskQueue: workflow.GetInfo(ctx).TaskQueueName, Metrics: rep.Metrics,
	}).Get(ctx, &rep.Recorded)
	return rep, err
}
