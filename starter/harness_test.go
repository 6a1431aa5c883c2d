package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/workflows"
)

// testEnv is the process configuration from the test's environment.
func testEnv(t *testing.T) config.Env {
	t.Helper()
	env, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestHarnessArgs checks bad arguments fail with a usage error before anything is dialled.
func TestHarnessArgs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	t.Setenv("USER", "ana")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"ceiling_rate":1.2,"regression_pass_rate":1,"improvement_delta":0,"proposal_pass_rate":1,"auditor_unanimity":1}`), 0o644)
	missing := filepath.Join(dir, "missing.json")
	os.WriteFile(missing, []byte(`{"ceiling_rate":0.2}`), 0o644)
	dialled := false
	harnessDial = func(context.Context, config.Env) (client.Client, error) {
		dialled = true
		return nil, errors.New("dialled")
	}
	defer func() { harnessDial = dialTemporal }()
	cases := []struct {
		cmd   commandFunc
		args  []string
		usage bool
		want  string
	}{
		{harnessCmd, nil, true, "usage: starter harness"},
		{harnessCmd, []string{"bogus"}, true, `unknown harness command "bogus"`},
		{harnessCmd, []string{"record"}, true, "needs one METRICS.json"},
		{harnessCmd, []string{"record", bad}, false, "ceiling_rate 1.2 not in [0,1]"},
		{harnessCmd, []string{"record", missing}, false, "miss required field(s): regression_pass_rate"},
		{harnessCmd, []string{"record", filepath.Join(dir, "nope.json")}, false, "no such file"},
		{harnessCmd, []string{"status", "extra"}, true, "takes no arguments"},
		{harnessCmd, []string{"schedule"}, true, "needs --every"},
		{harnessCmd, []string{"schedule", "--every", "soon"}, true, "invalid value"},
		{harnessCmd, []string{"schedule", "--every", "10s"}, true, "too short"},
		{harnessCmd, []string{"schedule", "use"}, true, `unknown harness schedule command "use"`},
		{harnessCmd, []string{"schedule", "pause", "--every", "1h"}, true, "unknown harness schedule command"},
		{harnessCmd, []string{"init", "--threshold", "0"}, true, "--threshold 0 not in (0,1]"},
		{harnessCmd, []string{"show"}, false, "no harness yet"},
		{harnessCmd, []string{"import"}, true, "needs one harness FILE"},
		{harnessCmd, []string{"import", filepath.Join(dir, "nope.json")}, false, "no such file"},
		{harnessCmd, []string{"verify", "extra"}, true, "takes no arguments"},
		{harnessCmd, []string{"restore"}, true, "needs one VERSION"},
		{harnessCmd, []string{"restore", "latest"}, true, `"latest" is not a version number`},
		{expansionCmd, nil, true, "usage: starter expansion"},
		{expansionCmd, []string{"approve"}, true, "needs one expansion ID"},
		{expansionCmd, []string{"approve", "x", "--by", ""}, true, "needs --by NAME"},
		{expansionCmd, []string{"reject", "x", "--by", "ana"}, true, "needs --reason"},
		{expansionCmd, []string{"merge", "x"}, true, `unknown expansion command "merge"`},
	}
	env := testEnv(t)
	for _, c := range cases {
		err := c.cmd(context.Background(), env, c.args)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &ue) != c.usage {
			t.Errorf("%v: %v (usage %v), want %q", c.args, err, errors.As(err, &ue), c.want)
		}
	}
	if dialled {
		t.Error("a bad command dialled Temporal")
	}
}

// withFakeTemporal makes the harness commands dial f.
func withFakeTemporal(t *testing.T, f *fakeTemporal) {
	harnessDial = func(context.Context, config.Env) (client.Client, error) { return f, nil }
	t.Cleanup(func() { harnessDial = dialTemporal })
}

// captureStdout collects what the commands print.
func captureStdout(t *testing.T) *bytes.Buffer {
	var out bytes.Buffer
	stdout = &out
	t.Cleanup(func() { stdout = os.Stdout })
	return &out
}

func TestHarnessInitShowImport(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	t.Setenv("USER", "ana")
	fake := &fakeTemporal{result: workflows.ExpansionStatus{State: workflows.ExpansionApplied, BaseVersion: 1, CommittedVersion: 2}}
	withFakeTemporal(t, fake)
	out := captureStdout(t)
	if err := harnessCmd(context.Background(), testEnv(t), []string{"init", "--regression", "2"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "harness v1 created") || !strings.Contains(out.String(), "8 benchmarks, 2 regression tests") {
		t.Errorf("init: %s", out.String())
	}
	store := harness.NewStore(filepath.Join(dir, "harness"))
	cur, _ := store.Current()
	if h, ok := fake.monitor.Ledger.Hash(1); !ok || h != harness.ContentHash(cur) {
		t.Errorf("init recorded %+v", fake.monitor.Ledger)
	}
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"init"}); err != nil || !strings.Contains(out.String(), "already at v1") {
		t.Errorf("second init: %v %s", err, out.String())
	}
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"show"}); err != nil || !strings.Contains(out.String(), "mem-drf-sc") || !strings.Contains(out.String(), "regression") {
		t.Errorf("show: %v %s", err, out.String())
	}
	write := func(h harness.Harness) string {
		var buf bytes.Buffer
		if err := harnessJSON(&buf, h); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "edit.json")
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	easier := cur.Clone()
	easier.Benchmarks[0].Threshold = 0.2
	if err := harnessCmd(context.Background(), testEnv(t), []string{"import", write(easier)}); err == nil || !strings.Contains(err.Error(), "lowers the threshold") {
		t.Errorf("easier import: %v", err)
	}
	broken := cur.Clone()
	broken.RegressionTests = []string{"nope"}
	if err := harnessCmd(context.Background(), testEnv(t), []string{"import", write(broken)}); err == nil || !strings.Contains(err.Error(), "stays at its last good version") {
		t.Errorf("invalid import: %v", err)
	}
	// issue 11: a benchmark matching any text, at threshold 0.01, enabled at once
	trivial := cur.Clone()
	trivial.Benchmarks = append(trivial.Benchmarks, harness.Benchmark{ID: "anything", Question: "Anything?", Gold: []eval.Fact{{Fact: "any", Patterns: []string{"."}}}, Threshold: 0.01, Enabled: true})
	if err := harnessCmd(context.Background(), testEnv(t), []string{"import", write(trivial)}); err == nil || !strings.Contains(err.Error(), `new benchmark anything: test anything, fact "any": pattern "." is trivial`) {
		t.Errorf("trivial import: %v", err)
	}
	if len(fake.started) != 0 {
		t.Fatalf("a refused import started %+v", fake.started)
	}
	harder := cur.Clone()
	harder.Benchmarks[0].Threshold = 0.8
	harder.Benchmarks = append(harder.Benchmarks, harness.Benchmark{ID: "gomemlimit", Question: "What does GOMEMLIMIT set?", Gold: []eval.Fact{{Fact: "soft limit", Patterns: []string{"soft memory limit"}}}, Threshold: 0.5, Enabled: true})
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"import", write(harder)}); err != nil {
		t.Fatal(err)
	}
	if len(fake.started) != 1 {
		t.Fatalf("import started %d expansions", len(fake.started))
	}
	req := fake.started[0]
	if req.Import == nil || req.Import.By != "ana" || req.MonitorID != harnessMonitorID || len(req.Import.Proposal.ThresholdIncreases) != 1 || len(req.Import.Proposal.NewBenchmarks) != 1 {
		t.Fatalf("import request %+v", req)
	}
	if u, h := starterIdentity(); req.Import.User != u || req.Import.Host != h {
		t.Errorf("import identity %s@%s, want the starter's %s@%s", req.Import.User, req.Import.Host, u, h)
	}
	// the new benchmark enters disabled; the expansion enables it only after it passes at baseline
	if h, err := harness.Apply(cur, req.Import.Proposal); err != nil || h.Benchmarks[len(h.Benchmarks)-1].Enabled {
		t.Errorf("imported benchmark enabled at once: %v", err)
	}
	if !strings.Contains(out.String(), "1 test(s) enter disabled and run at baseline first") || !strings.Contains(out.String(), "harness v2 committed from v1") {
		t.Errorf("import output: %s", out.String())
	}
}

// TestHarnessTamperVerifyRestore is issue 11's probe at the command line: current.json edited
// on disk (thresholds lowered, the regression benchmark removed, gates zeroed) and a planted
// archive/v99.json; import refuses the tampered base, verify names every file, restore brings
// the verified version back and clears the monitor's tamper state.
func TestHarnessTamperVerifyRestore(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	t.Setenv("USER", "ana")
	fake := &fakeTemporal{}
	withFakeTemporal(t, fake)
	out := captureStdout(t)
	if err := harnessCmd(context.Background(), testEnv(t), []string{"init", "--regression", "1"}); err != nil {
		t.Fatal(err)
	}
	store := harness.NewStore(filepath.Join(dir, "harness"))
	cur, _ := store.Current()
	weak := cur.Clone()
	for i := range weak.Benchmarks {
		weak.Benchmarks[i].Threshold = 0.01
	}
	weak.Benchmarks, weak.RegressionTests, weak.Gates = weak.Benchmarks[1:], nil, harness.Gates{}
	data, _ := json.MarshalIndent(weak, "", "  ")
	os.WriteFile(filepath.Join(store.Dir(), "current.json"), data, 0o644)
	planted := cur.Clone()
	planted.Version = 99
	data, _ = json.MarshalIndent(planted, "", "  ")
	os.WriteFile(filepath.Join(store.Dir(), "archive", "v99.json"), data, 0o644)

	harder := cur.Clone()
	harder.Benchmarks[0].Threshold = 0.9
	var buf bytes.Buffer
	harnessJSON(&buf, harder)
	edit := filepath.Join(dir, "edit.json")
	os.WriteFile(edit, buf.Bytes(), 0o644)
	err := harnessCmd(context.Background(), testEnv(t), []string{"import", edit})
	if err == nil || !strings.Contains(err.Error(), "current.json was changed outside sated") || !strings.Contains(err.Error(), "starter harness restore 1") {
		t.Errorf("import over a tampered harness: %v", err)
	}
	fake.monitor.Tamper = &harness.Tamper{File: "current.json", Message: "changed"}
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"status"}); err != nil || !strings.Contains(out.String(), "HARNESS TAMPERED") {
		t.Errorf("status: %v %s", err, out.String())
	}
	out.Reset()
	err = harnessCmd(context.Background(), testEnv(t), []string{"verify"})
	if err == nil || !strings.Contains(err.Error(), "2 harness file(s) fail verification") || !strings.Contains(err.Error(), "'starter harness restore 1'") {
		t.Errorf("verify: %v", err)
	}
	for _, want := range []string{"current.json      v1       modified", "archive/v1.json   v1       ok", "archive/v99.json  v99      unknown", "planted"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("verify output lacks %q:\n%s", want, out.String())
		}
	}
	if fake.monitor.Tamper == nil || len(fake.cleared) != 0 {
		t.Error("a failed verify cleared the tamper state")
	}
	if err := harnessCmd(context.Background(), testEnv(t), []string{"restore", "99"}); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("restore of the planted v99: %v", err)
	}
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"restore", "1"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "harness v1 (hash ") || !strings.Contains(out.String(), "cleared the monitor's tamper state") || fake.monitor.Tamper != nil || fake.cleared[0].By != "ana" {
		t.Errorf("restore: %s %+v", out.String(), fake.cleared)
	}
	if h, err := store.CurrentVerified(fake.monitor.Ledger); err != nil || h.Benchmarks[0].Threshold != cur.Benchmarks[0].Threshold {
		t.Errorf("after restore: %v", err)
	}
	os.Remove(filepath.Join(store.Dir(), "archive", "v99.json"))
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"verify"}); err != nil || strings.Count(out.String(), " ok ") != 2 {
		t.Errorf("verify after restore: %v\n%s", err, out.String())
	}
}

func TestHarnessAdoptOnlyWithoutRecords(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	t.Setenv("USER", "ana")
	fake := &fakeTemporal{}
	withFakeTemporal(t, fake)
	captureStdout(t)
	// a harness written before hashes were recorded
	store := harness.NewStore(filepath.Join(dir, "harness"))
	if _, _, err := store.Init(hxTestHarness(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := harnessCmd(context.Background(), testEnv(t), []string{"verify"}); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("unrecorded harness verified: %v", err)
	}
	if err := harnessCmd(context.Background(), testEnv(t), []string{"verify", "--adopt"}); err != nil {
		t.Fatalf("adopt: %v", err)
	}
	if _, ok := fake.monitor.Ledger.Hash(1); !ok {
		t.Errorf("ledger %+v", fake.monitor.Ledger)
	}
	if err := harnessCmd(context.Background(), testEnv(t), []string{"verify", "--adopt"}); err == nil || !strings.Contains(err.Error(), "already records 1 harness version") {
		t.Errorf("second adopt: %v", err)
	}
}

func hxTestHarness() harness.Harness {
	return harness.Harness{Version: 1, Gates: harness.Gates{MinCitationValidity: 0.8},
		Benchmarks: []harness.Benchmark{{ID: "gc", Question: "q", Gold: []eval.Fact{{Fact: "f", Patterns: []string{"GOMEMLIMIT"}}}, Threshold: 0.5, Enabled: true}}}
}

// TestExpansionDecideClosed is issue 11's probe: approving an expansion already decided (its
// workflow closed) said "no expansion ..." though expansion list showed it; a rejection
// printed "rejectd".
func TestExpansionDecideClosed(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	fake := &fakeTemporal{expansions: map[string]workflows.ExpansionStatus{
		"sated-expansion-c10": {ID: "sated-expansion-c10", State: workflows.ExpansionApplied, Decision: &workflows.ExpansionDecision{Approved: true, By: "ops", At: at}},
		"sated-expansion-c20": {ID: "sated-expansion-c20", State: workflows.ExpansionExpired},
	}}
	ctx := context.Background()
	if _, err := expansionDecide(ctx, fake, "sated-expansion-c10", true, "ana", ""); err == nil || err.Error() != "expansion sated-expansion-c10 was already approved by ops at 2026-11-20T09:30:00Z; it is applied now" {
		t.Errorf("decided expansion: %v", err)
	}
	if _, err := expansionDecide(ctx, fake, "sated-expansion-c20", false, "ana", "late"); err == nil || !strings.Contains(err.Error(), "ended expired without a decision") {
		t.Errorf("expired expansion: %v", err)
	}
	if _, err := expansionDecide(ctx, fake, "sated-expansion-c99", true, "ana", ""); err == nil || !strings.Contains(err.Error(), "no expansion sated-expansion-c99") {
		t.Errorf("unknown expansion: %v", err)
	}
	got := expansionDecided(workflows.ExpansionStatus{ID: "x", Decision: &workflows.ExpansionDecision{By: "bo", At: at}})
	if got != "expansion x rejected by bo at 2026-11-20T09:30:00Z" {
		t.Errorf("rejection message %q", got)
	}
}

func TestExpansionDeciderDefaultsToUSER(t *testing.T) {
	x, err := parseExpansion([]string{"approve", "exp-1"}, "ada")
	if err != nil || x.by != "ada" || x.id != "exp-1" {
		t.Fatalf("%+v %v", x, err)
	}
	if x, err = parseExpansion([]string{"approve", "exp-1", "--by", "bo"}, "ada"); err != nil || x.by != "bo" {
		t.Fatalf("%+v %v", x, err)
	}
	if _, err = parseExpansion([]string{"approve", "exp-1"}, ""); err == nil || !strings.Contains(err.Error(), "needs --by NAME") {
		t.Fatalf("no USER and no --by: %v", err)
	}
}
