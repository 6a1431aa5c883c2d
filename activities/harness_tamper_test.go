package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/harness"
)

// fakeMonitor is the part of a Temporal client the harness activities use to reach the
// monitor: its status query and its update-with-start, over an in-memory ledger.
type fakeMonitor struct {
	client.Client
	ledger  harness.Ledger
	tampers []harness.Tamper
	down    bool
}

var fakeRef = HarnessMonitor{ID: "monitor", WorkflowType: "M", TaskQueue: "q", StatusQuery: "status", RecordVersionUpdate: "record", TamperUpdate: "tamper"}

type jsonValue struct{ v any }

func (j jsonValue) HasValue() bool { return true }
func (j jsonValue) Get(ptr any) error {
	data, err := json.Marshal(j.v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, ptr)
}

func (f *fakeMonitor) QueryWorkflow(ctx context.Context, id, runID, query string, args ...any) (converter.EncodedValue, error) {
	if f.down {
		return nil, errors.New("connection refused")
	}
	return jsonValue{map[string]any{"ledger": f.ledger}}, nil
}

func (f *fakeMonitor) NewWithStartWorkflowOperation(client.StartWorkflowOptions, any, ...any) client.WithStartWorkflowOperation {
	return nil
}

type doneUpdate struct{ client.WorkflowUpdateHandle }

func (doneUpdate) Get(context.Context, any) error { return nil }

func (f *fakeMonitor) UpdateWithStartWorkflow(ctx context.Context, o client.UpdateWithStartWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	if f.down {
		return nil, errors.New("connection refused")
	}
	switch arg := o.UpdateOptions.Args[0].(type) {
	case harness.VersionRecord:
		f.ledger = f.ledger.With(arg)
	case harness.Tamper:
		f.tampers = append(f.tampers, arg)
	}
	return doneUpdate{}, nil
}

func monitoredEnv(dir string, mon *fakeMonitor) *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(NewHarnessActivities(dir, mon, "q", nil))
	return env
}

// recordedStore is a store whose v1 the fake monitor recorded.
func recordedStore(t *testing.T) (string, *fakeMonitor) {
	dir, h := harnessTestStore(t)
	return dir, &fakeMonitor{ledger: harness.Ledger{harness.Record(h, time.Now())}}
}

// TestHarnessLoadRefusesEditedFile is issue 11's probe through the activity a cycle and an
// expansion start with: lowered thresholds, the regression benchmark removed and the gates
// zeroed in current.json used to be loaded as the harness.
func TestHarnessLoadRefusesEditedFile(t *testing.T) {
	var a *HarnessActivities
	dir, mon := recordedStore(t)
	env := monitoredEnv(dir, mon)
	if _, err := env.ExecuteActivity(a.HarnessLoad, HarnessLoadInput{Monitor: fakeRef}); err != nil {
		t.Fatalf("recorded harness: %v", err)
	}
	path := filepath.Join(dir, "current.json")
	data, _ := os.ReadFile(path)
	var h harness.Harness
	_ = json.Unmarshal(data, &h)
	h.Benchmarks = append(h.Benchmarks, harness.Benchmark{ID: "easy", Question: "q", Gold: harnessTestGold, Threshold: 0.01, Enabled: true})
	h.Benchmarks = h.Benchmarks[1:]
	h.RegressionTests = nil
	h.Gates = harness.Gates{}
	edited, _ := json.MarshalIndent(h, "", "  ")
	os.WriteFile(path, edited, 0o644)

	_, err := env.ExecuteActivity(a.HarnessLoad, HarnessLoadInput{Monitor: fakeRef})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != HarnessTampered || !ae.NonRetryable() {
		t.Fatalf("edited current.json: %v", err)
	}
	for _, w := range []string{path, "changed outside sated", mon.ledger[0].Hash[:12], "starter harness verify", "starter harness restore 1"} {
		if !strings.Contains(ae.Message(), w) {
			t.Errorf("message lacks %q: %s", w, ae.Message())
		}
	}
	if len(mon.tampers) != 1 || mon.tampers[0].File != "current.json" || mon.tampers[0].Version != 1 {
		t.Errorf("tamper reported to the monitor: %+v", mon.tampers)
	}
	if _, err := env.ExecuteActivity(a.HarnessArchive, HarnessArchiveInput{Monitor: fakeRef}); !errors.As(err, &ae) || ae.Type() != HarnessTampered {
		t.Errorf("archive of an edited current.json: %v", err)
	}
	// The verified archive comes back; the load passes again.
	if _, err := env.ExecuteActivity(a.HarnessRestore, HarnessRestoreInput{Version: 1, Monitor: fakeRef}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.ExecuteActivity(a.HarnessLoad, HarnessLoadInput{Monitor: fakeRef}); err != nil {
		t.Errorf("after restore: %v", err)
	}
}

// TestHarnessCommitRecordsBeforeWriting: the version a commit writes is recorded first, so the
// next load verifies it; an unreachable monitor writes nothing and is retried.
func TestHarnessCommitRecordsBeforeWriting(t *testing.T) {
	var a *HarnessActivities
	dir, mon := recordedStore(t)
	env := monitoredEnv(dir, mon)
	cur, _ := harness.NewStore(dir).Current()
	harder := cur.Clone()
	harder.Benchmarks[0].Threshold = 0.7
	mon.down = true
	if _, err := env.ExecuteActivity(a.HarnessCommit, HarnessCommitInput{Harness: harder, Base: 1, Change: "x", Monitor: fakeRef}); err == nil {
		t.Fatal("committed with the monitor down")
	}
	if now, _ := harness.NewStore(dir).Current(); now.Version != 1 {
		t.Fatalf("wrote v%d without recording it", now.Version)
	}
	mon.down = false
	v, err := env.ExecuteActivity(a.HarnessCommit, HarnessCommitInput{Harness: harder, Base: 1, Change: "x", Monitor: fakeRef})
	if err != nil {
		t.Fatal(err)
	}
	var out HarnessCommitOutput
	_ = v.Get(&out)
	if got, ok := mon.ledger.Hash(2); out.Version != 2 || !ok || got != out.Hash {
		t.Errorf("commit %+v, ledger %+v", out, mon.ledger)
	}
	if _, err := env.ExecuteActivity(a.HarnessLoad, HarnessLoadInput{Monitor: fakeRef}); err != nil {
		t.Errorf("load after commit: %v", err)
	}
}

// TestHarnessRestoreRefusesPlantedArchive is issue 11's probe: a planted archive/v99.json is no
// version to roll back to.
func TestHarnessRestoreRefusesPlantedArchive(t *testing.T) {
	var a *HarnessActivities
	dir, mon := recordedStore(t)
	env := monitoredEnv(dir, mon)
	cur, _ := harness.NewStore(dir).Current()
	cur.Version = 99
	data, _ := json.Marshal(cur)
	os.WriteFile(filepath.Join(dir, "archive", "v99.json"), data, 0o644)
	if _, err := env.ExecuteActivity(a.HarnessRestore, HarnessRestoreInput{Version: 99, Monitor: fakeRef}); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("restored a planted archive: %v", err)
	}
}

func TestReadable(t *testing.T) {
	app := temporal.NewNonRetryableApplicationError("current.json was changed outside sated", HarnessTampered, nil)
	cases := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("plain"), "plain"},
		{app, "current.json was changed outside sated"},
		{fmt.Errorf("activity error (type: HarnessLoad): %w", app), "current.json was changed outside sated"},
	}
	for _, c := range cases {
		if got := Readable(c.err); got != c.want {
			t.Errorf("Readable(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
