package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/internal/saturation"
	"github.com/sated-dev/sated/workflows"
)

// harnessRequireIntegration skips, or fails under SATED_REQUIRE_INTEGRATION=1, when what is missing.
func harnessRequireIntegration(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv("SATED_REQUIRE_INTEGRATION") == "1" {
		t.Fatalf("%s unavailable: %v", what, err)
	}
	t.Skipf("%s unavailable: %v", what, err)
}

// harnessStandInResearch answers each benchmark with the passages of the Go documentation
// that state its gold facts, citing one source: the harness machinery, not research quality,
// is under test here.
func harnessStandInResearch(t *testing.T, qs []eval.Question) func(workflow.Context, workflows.ResearchRequest) (workflows.ResearchReport, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	tag := regexp.MustCompile(`<[^>]*>`)
	for _, name := range []string{"go_mem.html", "go_spec.html", "godebug.md", "asm.html"} {
		b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "doc", name))
		if err != nil {
			t.Skipf("Go documentation not available: %v", err)
		}
		docs.WriteString(tag.ReplaceAllString(string(b), " "))
	}
	text := docs.String()
	answers := map[string]string{}
	for _, q := range qs {
		var md strings.Builder
		for _, f := range q.Gold {
			for _, p := range f.Patterns {
				if loc := regexp.MustCompile("(?i)" + p).FindStringIndex(text); loc != nil {
					fmt.Fprintf(&md, "%s [1].\n", text[loc[0]:loc[1]])
					break
				}
			}
		}
		answers[q.Question] = md.String()
	}
	return func(ctx workflow.Context, req workflows.ResearchRequest) (workflows.ResearchReport, error) {
		return workflows.ResearchReport{Question: req.Question, Markdown: answers[req.Question], Sources: make([]workflows.Source, 1)}, nil
	}
}

func harnessEventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
	}
	t.Fatalf("timed out waiting for %s (last: %s)", what, last)
}

// TestHarnessOnDevServer creates a Schedule, runs a cycle from it, feeds the monitor to an
// expansion decision and approves the expansion, all through the starter's functions.
func TestHarnessOnDevServer(t *testing.T) {
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if addr == "" {
		addr = "127.0.0.1:7233"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
	c, err := client.DialContext(dctx, client.Options{HostPort: addr, Logger: quietLogger{}})
	dcancel()
	if err != nil {
		harnessRequireIntegration(t, "Temporal at "+addr, err)
	}
	defer c.Close()

	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	tq := "sated-harness-test-" + suffix
	harnessMonitorID, harnessScheduleID = "sated-monitor-test-"+suffix, "sated-harness-cycle-test-"+suffix
	defer func() {
		harnessMonitorID, harnessScheduleID = workflows.SaturationMonitorID, workflows.HarnessScheduleID
	}()

	dir := t.TempDir()
	qs, err := eval.ParseQuestions(bytes.NewReader(eval.GoQuestions))
	if err != nil {
		t.Fatal(err)
	}
	store := harness.NewStore(filepath.Join(dir, "harness"))
	if _, _, err := store.Init(harness.FromQuestions(qs[:2], 0.5, 1), time.Now()); err != nil {
		t.Fatal(err)
	}

	w := worker.New(c, tq, worker.Options{})
	w.RegisterWorkflowWithOptions(workflows.SaturationMonitorWorkflow, workflow.RegisterOptions{Name: workflows.SaturationMonitorWorkflowName})
	w.RegisterWorkflowWithOptions(workflows.HarnessCycleWorkflow, workflow.RegisterOptions{Name: workflows.HarnessCycleWorkflowName})
	w.RegisterWorkflowWithOptions(workflows.ExpansionWorkflow, workflow.RegisterOptions{Name: workflows.ExpansionWorkflowName})
	w.RegisterWorkflowWithOptions(harnessStandInResearch(t, qs[:2]), workflow.RegisterOptions{Name: workflows.ResearchWorkflowName})
	w.RegisterActivity(activities.NewHarnessActivities(store.Dir(), c, tq, nil))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	defer c.TerminateWorkflow(context.Background(), harnessMonitorID, "", "test done")

	// The Schedule, created idempotently, then triggered once.
	created, err := harnessSchedule(ctx, c, tq, time.Hour)
	if err != nil || !created {
		t.Fatalf("create schedule: %v %v", created, err)
	}
	defer harnessScheduleAction(context.Background(), c, "delete")
	if again, err := harnessSchedule(ctx, c, tq, 2*time.Hour); err != nil || again {
		t.Fatalf("second create: %v %v", again, err)
	}
	for _, a := range []string{"pause", "resume", "trigger"} {
		if err := harnessScheduleAction(ctx, c, a); err != nil {
			t.Fatalf("schedule %s: %v", a, err)
		}
	}
	var st workflows.MonitorStatus
	harnessEventually(t, "the scheduled cycle to reach the monitor", func() (bool, string) {
		st, err = harnessStatus(ctx, c)
		return err == nil && st.Cycles == 1, fmt.Sprint(err)
	})
	if l := st.Latest; l == nil || l.Metrics.Source != "sated" || l.Metrics.CeilingRate != 1 || l.Metrics.ProposalPassRate != 1 {
		t.Fatalf("scheduled cycle metrics %+v", st.Latest)
	}

	// A bad record is refused by the monitor's validator, even past the starter's own check.
	bad := saturation.Metrics{CeilingRate: 3}
	uh, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: harnessMonitorID, UpdateName: workflows.MonitorRecordUpdate,
		Args: []any{bad}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = uh.Get(ctx, nil)
	}
	if err == nil || !strings.Contains(err.Error(), "ceiling_rate 3") {
		t.Errorf("bad update: %v", err)
	}

	// Nine more saturated cycles from another harness: ten HIGH in a row calls for expansion.
	m := saturation.Metrics{CeilingRate: 1, RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1,
		Benchmarks: []saturation.BenchmarkScore{{ID: qs[0].ID, Score: 1}, {ID: qs[1].ID, Score: 0.99}}}
	var res saturation.CycleResult
	for i := 2; i <= 10; i++ {
		m.CycleID = fmt.Sprintf("ext-%d", i)
		if res, err = harnessRecord(ctx, c, tq, m); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if res.Cycle != 10 || res.Decision != saturation.DecisionExpansion || res.ExpansionID == "" {
		t.Fatalf("cycle 10: %+v", res)
	}
	id := res.ExpansionID
	var exp workflows.ExpansionStatus
	harnessEventually(t, "the expansion to await approval", func() (bool, string) {
		exp, err = expansionShow(ctx, c, id)
		return err == nil && exp.State == workflows.ExpansionAwaiting, fmt.Sprint(exp.State, err)
	})
	if len(exp.Accepted.ThresholdIncreases) != 2 || exp.ProposalSource != "deterministic" {
		t.Fatalf("proposal %+v", exp.Accepted)
	}
	if _, err := expansionDecide(ctx, c, "sated-no-such-expansion-"+suffix, true, "it", ""); err == nil || !strings.Contains(err.Error(), "no expansion") {
		t.Errorf("unknown expansion: %v", err)
	}
	if _, err := expansionDecide(ctx, c, id, true, "integration", "ceiling reached"); err != nil {
		t.Fatalf("approve: %v", err)
	}
	if _, err := expansionDecide(ctx, c, id, false, "late", "too late"); err == nil || !strings.Contains(err.Error(), "already approved by integration") {
		t.Errorf("second decision: %v", err)
	}
	harnessEventually(t, "the expansion to be applied", func() (bool, string) {
		exp, err = expansionShow(ctx, c, id)
		return err == nil && exp.State == workflows.ExpansionApplied, fmt.Sprint(exp.State, exp.Note, err)
	})
	h, err := store.Current()
	if err != nil || h.Version != 2 || h.Benchmarks[0].Threshold != 0.55 || h.Change != id {
		t.Fatalf("harness after approval: v%d %+v %v", h.Version, h.Benchmarks, err)
	}
	harnessEventually(t, "the monitor to log the applied expansion", func() (bool, string) {
		st, err = harnessStatus(ctx, c)
		return err == nil && len(st.Expansions) == 1 && st.Expansions[0].State == workflows.EventApplied && st.OpenExpansion == "", fmt.Sprint(st.Expansions, err)
	})
}
