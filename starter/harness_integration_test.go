package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/codec"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/testenv"
	"github.com/sated-dev/sated/workflows"
)

// harnessQuestions are the Go documentation questions the harness benchmarks; the real research
// recalls gold facts for both from GOROOT/doc (in this order, the file's).
var harnessQuestions = [2]string{"mem-drf-sc", "mem-channels"}

// harnessRequireIntegration skips, or fails under SATED_REQUIRE_INTEGRATION=1, when what is missing.
func harnessRequireIntegration(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv("SATED_REQUIRE_INTEGRATION") == "1" {
		t.Fatalf("%s unavailable: %v", what, err)
	}
	t.Skipf("%s unavailable: %v", what, err)
}

// harnessResearch registers the real research workflow and its activities on w, searching an
// embedded corpus of $(go env GOROOT)/doc and writing reports under the test's temp dir.
func harnessResearch(t *testing.T, ctx context.Context, w worker.Worker) *corpus.Index {
	idx, err := corpus.Open(filepath.Join(t.TempDir(), "corpus.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	if _, err := idx.IndexPaths(ctx, []string{testenv.GoDocDir(t)}, corpus.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	w.RegisterWorkflow(workflows.ResearchWorkflow)
	w.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": idx}, Docs: idx, ReportDir: filepath.Join(t.TempDir(), "reports"),
	}))
	return idx
}

func harnessEventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(4 * time.Minute); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
	}
	t.Fatalf("timed out waiting for %s (last: %s)", what, last)
}

// harnessHistory fetches a workflow's history, replays it against the current workflow code
// and, under SATED_RECORD_HISTORY=1, writes it to workflows/testdata/name for the replay test.
func harnessHistory(t *testing.T, ctx context.Context, c client.Client, id, name string, wf any) {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		h.Events = append(h.Events, e)
	}
	replayer := codec.NewReplayer()
	replayer.RegisterWorkflow(wf)
	// the workflows derive child ids from their own id, so the replay needs the original one
	if err := replayer.ReplayWorkflowHistoryWithOptions(nil, h, worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: id}}); err != nil {
		t.Fatalf("replay %s: %v", id, err)
	}
	testenv.RecordHistory(t, h, name)
}

// TestHarnessOnDevServer creates a Schedule, runs a cycle from it with the real research
// workflow over GOROOT/doc, feeds the monitor to an expansion decision and approves the
// expansion, all through the starter's functions.
func TestHarnessOnDevServer(t *testing.T) {
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if addr == "" {
		addr = "127.0.0.1:7233"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
	c, err := client.DialContext(dctx, client.Options{HostPort: addr, Logger: quietLogger{}, DataConverter: codec.DataConverter()})
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
	all, err := eval.ParseQuestions(bytes.NewReader(eval.GoQuestions))
	if err != nil {
		t.Fatal(err)
	}
	var qs []eval.Question
	for _, q := range all {
		if q.ID == harnessQuestions[0] || q.ID == harnessQuestions[1] {
			qs = append(qs, q)
		}
	}
	if len(qs) != 2 {
		t.Fatalf("questions %v not in the Go set", harnessQuestions)
	}
	store := harness.NewStore(filepath.Join(dir, "harness"))

	w := worker.New(c, tq, worker.Options{})
	w.RegisterWorkflowWithOptions(workflows.SaturationMonitorWorkflow, workflow.RegisterOptions{Name: workflows.SaturationMonitorWorkflowName})
	w.RegisterWorkflowWithOptions(workflows.HarnessCycleWorkflow, workflow.RegisterOptions{Name: workflows.HarnessCycleWorkflowName})
	w.RegisterWorkflowWithOptions(workflows.ExpansionWorkflow, workflow.RegisterOptions{Name: workflows.ExpansionWorkflowName})
	idx := harnessResearch(t, ctx, w)
	// deterministic expansion generates benchmarks from the same corpus the research reads
	ha := activities.NewHarnessActivitiesWithCorpus(store.Dir(), c, tq, nil, idx)
	if ha.SearchAttributes, err = activities.EnsureSearchAttributes(ctx, c, "default"); err != nil || !ha.SearchAttributes {
		t.Fatalf("search attributes: %v %v", ha.SearchAttributes, err)
	}
	w.RegisterActivity(ha)
	// the operator gate notifies a loopback webhook and writes its audit log beside the harness
	hook := newGateHook()
	defer hook.srv.Close()
	w.RegisterActivity(activities.NewGateActivities(hook.srv.URL+"/hook", "", store.Dir()))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	defer c.TerminateWorkflow(context.Background(), harnessMonitorID, "", "test done")
	// v1's hash is recorded in the monitor (which this starts) before the files are written
	if _, _, err := store.InitRecorded(harness.FromQuestions(qs, 0.5, 1), time.Now(), harnessRecorder(ctx, c, tq)); err != nil {
		t.Fatal(err)
	}

	// The Schedule, created idempotently, then triggered once.
	created, err := harnessSchedule(ctx, c, tq, time.Hour)
	if err != nil || !created {
		t.Fatalf("create schedule: %v %v", created, err)
	}
	defer harnessScheduleAction(context.Background(), c, "delete")
	if again, err := harnessSchedule(ctx, c, tq, 2*time.Hour); err != nil || again {
		t.Fatalf("second create: %v %v", again, err)
	}
	if every, ok := harnessScheduleInterval(ctx, c); !ok || every != 2*time.Hour {
		t.Fatalf("schedule interval %v %v, want the updated 2h", every, ok)
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
	l := st.Latest
	if l == nil || l.Metrics.Source != "sated" || len(l.Metrics.Benchmarks) != 2 {
		t.Fatalf("scheduled cycle metrics %+v", st.Latest)
	}
	// Each benchmark's score is the fact recall of its real research report over GOROOT/doc.
	ceiling, passed, recalled := 0, 0, 0
	for i, b := range l.Metrics.Benchmarks {
		var rep workflows.ResearchReport
		if err := c.GetWorkflow(ctx, l.Metrics.CycleID+"-"+b.ID, "").Get(ctx, &rep); err != nil {
			t.Fatalf("research run of %s: %v", b.ID, err)
		}
		if b.ID != qs[i].ID || len(rep.Sources) == 0 || !strings.HasPrefix(rep.Sources[0].URL, "file://") {
			t.Fatalf("benchmark %s: research gave %d sources %+v", b.ID, len(rep.Sources), rep.Sources)
		}
		rec, total, _ := eval.FactRecall(rep.Markdown+"\n"+rep.Evidence, qs[i].Gold)
		if want := eval.Recall(rec, total); b.Score != want {
			t.Errorf("benchmark %s scored %.3f; its report recalls %d of %d facts", b.ID, b.Score, rec, total)
		}
		t.Logf("benchmark %s: %d of %d gold facts recalled from %d sources in %d rounds", b.ID, rec, total, len(rep.Sources), len(rep.Rounds))
		if harness.AtCeiling(b.Score, b.Threshold) {
			ceiling++
		}
		if b.Score >= b.Threshold {
			passed++
		}
		if rec > 0 {
			recalled++
		}
	}
	if recalled == 0 {
		t.Errorf("the real research recalled no gold fact from GOROOT/doc")
	}
	if l.Metrics.CeilingRate != float64(ceiling)/2 || l.Metrics.ProposalPassRate != float64(passed)/2 {
		t.Errorf("cycle signals %+v from %d at the ceiling, %d passed", l.Metrics, ceiling, passed)
	}

	// A bad record is refused by the monitor's validator, even past the starter's own check.
	bad := harness.Metrics{CeilingRate: 3}
	uh, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: harnessMonitorID, UpdateName: workflows.MonitorRecordUpdate,
		Args: []any{bad}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = uh.Get(ctx, nil)
	}
	if err == nil || !strings.Contains(err.Error(), "ceiling_rate 3") {
		t.Errorf("bad update: %v", err)
	}

	// Saturated cycles from another harness until ten HIGH in a row call for expansion: nine
	// when the real cycle was itself HIGH, ten when it was not.
	last := 10
	if !l.Breakdown.Level.AtLeastHigh() {
		last = 11
	}
	m := harness.Metrics{CeilingRate: 1, RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1,
		Benchmarks: []harness.BenchmarkScore{{ID: qs[0].ID, Score: 1}, {ID: qs[1].ID, Score: 0.99}}}
	var res harness.CycleResult
	for i := 2; i <= last; i++ {
		m.CycleID = fmt.Sprintf("ext-%d", i)
		if res, err = harnessRecord(ctx, c, tq, m); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if i < last && res.ExpansionID != "" {
			t.Fatalf("cycle %d started an expansion early: %+v", i, res)
		}
	}
	if res.Cycle != last || res.Decision != harness.DecisionExpansion || res.ExpansionID == "" {
		t.Fatalf("cycle %d: %+v", last, res)
	}
	id := res.ExpansionID
	var exp workflows.ExpansionStatus
	harnessEventually(t, "the expansion to await approval", func() (bool, string) {
		exp, err = expansionShow(ctx, c, id)
		return err == nil && exp.State == workflows.ExpansionAwaiting, fmt.Sprint(exp.State, err)
	})
	// the Temporal UI's list finds the expansions awaiting a person by their search attribute
	harnessEventually(t, "the expansion listed as awaiting approval", func() (bool, string) {
		res, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: `SatedState="awaiting-approval"`})
		if err != nil {
			return false, err.Error()
		}
		for _, e := range res.Executions {
			if e.Execution.WorkflowId == id {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d listed", len(res.Executions))
	})
	harnessEventually(t, "the awaiting-approval notice", func() (bool, string) {
		return hook.has(activities.NoticeAwaitingApproval, id), hook.events()
	})
	// the two benchmarks the external cycles put at the ceiling are raised to within the margin
	// of their scores, and new benchmarks are generated from GOROOT/doc passages neither covers
	if len(exp.Accepted.ThresholdIncreases) != 2 || exp.ProposalSource != "deterministic" || len(exp.Accepted.NewBenchmarks) == 0 {
		t.Fatalf("proposal %+v", exp.Accepted)
	}
	for _, b := range exp.Accepted.NewBenchmarks {
		t.Logf("generated %s: %s (gold %s; %s)", b.ID, b.Question, b.Gold[0].Patterns[0], b.Origin)
	}
	if exp.ResearchWorkflowID == "" || exp.ResearchNote != "" {
		t.Errorf("expansion research %q: %s", exp.ResearchWorkflowID, exp.ResearchNote)
	}
	if _, err := expansionDecide(ctx, c, "sated-no-such-expansion-"+suffix, true, "it", ""); err == nil || !strings.Contains(err.Error(), "no expansion") {
		t.Errorf("unknown expansion: %v", err)
	}
	// approve as the README shows, with the real Temporal CLI's signal: a nameless signal is
	// recorded as ignored, the next one decides
	temporalBin, err := exec.LookPath("temporal")
	if err != nil {
		testenv.Missing(t, "temporal CLI not on PATH (make tools)")
	}
	for _, input := range []string{`{"reason":"nameless"}`, `{"by":"integration","reason":"ceiling reached"}`} {
		out, err := exec.CommandContext(ctx, temporalBin, "workflow", "signal", "--address", addr, "--workflow-id", id,
			"--name", "approve", "--input", input).CombinedOutput()
		if err != nil {
			t.Fatalf("temporal workflow signal %s: %v\n%s", input, err, out)
		}
	}
	harnessEventually(t, "the signalled approval", func() (bool, string) {
		exp, err = expansionShow(ctx, c, id)
		return err == nil && exp.Decision != nil, fmt.Sprint(exp.State, err)
	})
	if exp.Decision.By != "integration" || len(exp.IgnoredSignals) != 1 || !strings.Contains(exp.IgnoredSignals[0].Why, "must name who") {
		t.Fatalf("signalled decision %+v, ignored %+v", exp.Decision, exp.IgnoredSignals)
	}
	if _, err := expansionDecide(ctx, c, id, false, "late", "too late"); err == nil || !strings.Contains(err.Error(), "already approved by integration") {
		t.Errorf("second decision: %v", err)
	}
	// The application runs every new test and re-runs both benchmarks at their raised
	// thresholds on the real research: it commits v2 or rolls back as the baseline tally says.
	harnessEventually(t, "the expansion to be applied or rolled back", func() (bool, string) {
		exp, err = expansionShow(ctx, c, id)
		return err == nil && (exp.State == workflows.ExpansionApplied || exp.State == workflows.ExpansionRolledBack), fmt.Sprint(exp.State, exp.Note, err)
	})
	if exp.Tally == nil || exp.Tally.RerunRun != 2 || exp.Tally.NewRun != len(exp.Accepted.NewBenchmarks) || exp.Tally.Rollback() != (exp.State == workflows.ExpansionRolledBack) {
		t.Fatalf("baseline tally %+v for %s", exp.Tally, exp.State)
	}
	t.Logf("baseline check on the real research: %s -> %s", exp.Tally, exp.State)
	for _, o := range append(append([]workflows.TestOutcome(nil), exp.NewTests...), exp.Rerun...) {
		t.Logf("  %s: passed %v at %.2f %s", o.ID, o.Passed, o.Score, o.Note)
	}
	wantVersion, wantEvent := 2, workflows.EventApplied
	if exp.State == workflows.ExpansionRolledBack {
		wantVersion, wantEvent = 1, workflows.EventRolledBack
	}
	h, err := store.Current()
	if err != nil || h.Version != wantVersion {
		t.Fatalf("harness after the application: v%d %v, want v%d", h.Version, err, wantVersion)
	}
	if wantVersion == 2 && (h.Benchmarks[0].Threshold <= 0.5 || h.Change != id) {
		t.Fatalf("harness after approval: %+v", h.Benchmarks)
	}
	harnessEventually(t, "the monitor to log the closed expansion", func() (bool, string) {
		st, err = harnessStatus(ctx, c)
		return err == nil && len(st.Expansions) == 1 && st.Expansions[0].State == wantEvent && st.OpenExpansion == "", fmt.Sprint(st.Expansions, err)
	})
	if got, ok := st.Ledger.Hash(h.Version); !ok || got != harness.ContentHash(h) {
		t.Errorf("v%d in force is not recorded: %+v", h.Version, st.Ledger)
	}
	harnessEventually(t, "the applied notice", func() (bool, string) { return hook.has(activities.NoticeApplied, id), hook.events() })
	if len(st.History) != last || st.History[0].Version != 1 || st.History[last-1].Level == "" {
		t.Errorf("status history %+v", st.History)
	}
	// the signals restart with the committed version: the next saturated cycle is the first of v2
	if wantVersion == 2 {
		m.CycleID, m.HarnessVersion = "ext-after-v2", 2
		res, err := harnessRecord(ctx, c, tq, m)
		if err != nil {
			t.Fatalf("record after the expansion: %v", err)
		}
		if res.Aggregate.Cycles != 1 || res.Aggregate.ConsecutiveHigh != 1 || res.Decision != harness.DecisionContinue {
			t.Errorf("after v2 was committed the streak should restart: %+v, %s", res.Aggregate, res.Decision)
		}
		t.Logf("after the expansion: cycle %d of v2, streak %d, %s", res.Cycle, res.Aggregate.ConsecutiveHigh, res.Decision)
	}
	// A decision on the closed expansion says who decided it, not "no expansion".
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatalf("expansion result: %v", err)
	}
	if _, err := expansionDecide(ctx, c, id, true, "again", ""); err == nil || !strings.Contains(err.Error(), "was already approved by integration at") {
		t.Errorf("decision on a closed expansion: %v", err)
	}

	// current.json edited on disk: the next cycle stops at its load, the monitor records the
	// tamper state, and a restore of the verified version in force clears it.
	weak := h.Clone()
	for i := range weak.Benchmarks {
		weak.Benchmarks[i].Threshold = 0.01
	}
	weak.Gates = harness.Gates{}
	data, _ := json.MarshalIndent(weak, "", "  ")
	if err := os.WriteFile(filepath.Join(store.Dir(), "current.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tampered, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "sated-harness-tamper-test-" + suffix, TaskQueue: tq}, workflows.HarnessCycleWorkflowName,
		workflows.HarnessCycleRequest{MonitorID: harnessMonitorID})
	if err != nil {
		t.Fatal(err)
	}
	if err := tampered.Get(ctx, nil); err == nil || !strings.Contains(workflows.Readable(err), "current.json was changed outside sated") {
		t.Fatalf("cycle over an edited current.json: %v", err)
	}
	st, err = harnessStatus(ctx, c)
	if err != nil || st.Tamper == nil || st.Tamper.File != "current.json" {
		t.Fatalf("monitor tamper state %+v %v", st.Tamper, err)
	}
	env := testEnv(t)
	env.TaskQueue, env.User = tq, "integration"
	env.DataDir = dir
	if err := harnessRestoreCmd(ctx, env, []string{fmt.Sprint(h.Version)}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if st, err = harnessStatus(ctx, c); err != nil || st.Tamper != nil {
		t.Errorf("tamper state after restore: %+v %v", st.Tamper, err)
	}
	// the tamper report raised flag 1 and its webhook notice; a person acknowledges it
	harnessEventually(t, "the flag-raised notice", func() (bool, string) { return hook.has(activities.NoticeFlagRaised, ""), hook.events() })
	if _, err := harnessAck(ctx, c, 1, "integration", "restored v2 after the edit"); err != nil {
		t.Fatalf("ack: %v", err)
	}
	if _, err := harnessAck(ctx, c, 1, "integration", "again"); err == nil || !strings.Contains(err.Error(), "already acknowledged by integration") {
		t.Errorf("second ack: %v", err)
	}
	if st, err = harnessStatus(ctx, c); err != nil || len(st.Flags) == 0 || st.Flags[0].ID != 1 || st.Flags[0].Ack == nil {
		t.Errorf("flags after the ack: %+v %v", st.Flags, err)
	}

	// An imported benchmark, enabled in the file, enters disabled and is enabled only if its
	// real research run passes at baseline.
	var once eval.Question
	for _, q := range all {
		if q.ID == "mem-locks-once" {
			once = q
		}
	}
	next := h.Clone()
	next.Benchmarks = append(next.Benchmarks, harness.Benchmark{ID: once.ID, Question: once.Question, Gold: once.Gold, Threshold: 0.5, Enabled: true})
	data, _ = json.MarshalIndent(next, "", "  ")
	edit := filepath.Join(dir, "edit.json")
	if err := os.WriteFile(edit, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := harnessImportCmd(ctx, env, []string{edit}); err != nil {
		t.Fatalf("import: %v", err)
	}
	importID := workflows.ExpansionIDPrefix + "import-" + harness.Short(harness.ContentHash(next))
	imp, err := expansionShow(ctx, c, importID)
	if err != nil || len(imp.NewTests) != 1 || imp.Decision == nil || imp.Decision.By != "integration" {
		t.Fatalf("import run %+v %v", imp, err)
	}
	if st, err = harnessStatus(ctx, c); err != nil {
		t.Fatal(err)
	}
	after, err := store.CurrentVerified(st.Ledger)
	b, found := after.Benchmark(once.ID)
	switch {
	case err != nil:
		t.Fatalf("after import: %v", err)
	case imp.NewTests[0].Passed && (imp.State != workflows.ExpansionApplied || !found || !b.Enabled || after.Version != h.Version+1):
		t.Errorf("passed at baseline but not enabled: %+v v%d", imp, after.Version)
	case !imp.NewTests[0].Passed && found && b.Enabled:
		t.Errorf("failed at baseline but enabled: %+v", imp)
	}
	t.Logf("imported %s: %s at baseline (%.2f), %s", once.ID, map[bool]string{true: "passed", false: "failed"}[imp.NewTests[0].Passed], imp.NewTests[0].Score, imp.State)

	// The audit log, outside Temporal, has every version with its hash, the approval with who
	// decided, and the acknowledgement with the starter's OS user and host.
	harnessEventually(t, "the audit log", func() (bool, string) {
		st, err = harnessStatus(ctx, c)
		return err == nil && st.Outbox == 0, fmt.Sprint(st.Outbox, err)
	})
	audit, err := harness.ReadAudit(harness.AuditPath(store.Dir()))
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]harness.AuditEntry{}
	for _, e := range audit {
		if e.ExpansionID == "" || e.ExpansionID == id {
			logged[fmt.Sprint(e.Kind, e.Version)] = e
		}
	}
	u, host := starterIdentity()
	if v1, v2 := logged["version1"], logged["version2"]; v1.Hash == "" || v2.Hash != harness.ContentHash(h) {
		t.Errorf("audit versions v1 %+v v2 %+v", v1, v2)
	}
	if a := logged["expansion-approved0"]; a.By != "integration" || a.ExpansionID != id {
		t.Errorf("audit approval %+v", a)
	}
	if a := logged["expansion-applied2"]; a.Hash != harness.ContentHash(h) {
		t.Errorf("audit applied %+v", a)
	}
	if a := logged["flag-acked0"]; a.Flag != 1 || a.User != u || a.Host != host || a.Reason != "restored v2 after the edit" {
		t.Errorf("audit ack %+v", a)
	}
	if len(st.GateFailures) > 0 {
		t.Errorf("gate failures %+v", st.GateFailures)
	}
	t.Logf("webhook notices: %s; %d audit lines", hook.events(), len(audit))

	// The recorded histories replay without nondeterminism (and become the replay test's data).
	harnessHistory(t, ctx, c, l.Metrics.CycleID, "harness_cycle_history.json", workflows.HarnessCycleWorkflow)
	// harness_expansion_history.json stays the expansion from before "approval-reminder"
	harnessHistory(t, ctx, c, id, "harness_expansion_gate_history.json", workflows.ExpansionWorkflow)
	// harness_monitor_history.json stays the monitor from before recorded hashes,
	// harness_monitor_ledger_history.json the one from before "operator-gate"
	harnessHistory(t, ctx, c, harnessMonitorID, "harness_monitor_gate_history.json", workflows.SaturationMonitorWorkflow)
	harnessHistory(t, ctx, c, importID, "harness_import_history.json", workflows.ExpansionWorkflow)
}
