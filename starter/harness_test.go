package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/harness"
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

func TestHarnessInitShowImport(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	var out bytes.Buffer
	stdout = &out
	defer func() { stdout = os.Stdout }()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"init", "--regression", "2"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "harness v1 created") || !strings.Contains(out.String(), "8 benchmarks, 2 regression tests") {
		t.Errorf("init: %s", out.String())
	}
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"init"}); err != nil || !strings.Contains(out.String(), "already at v1") {
		t.Errorf("second init: %v %s", err, out.String())
	}
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"show"}); err != nil || !strings.Contains(out.String(), "mem-drf-sc") || !strings.Contains(out.String(), "regression") {
		t.Errorf("show: %v %s", err, out.String())
	}
	store := harness.NewStore(filepath.Join(dir, "harness"))
	cur, _ := store.Current()
	write := func(h harness.Harness) string {
		out.Reset()
		if err := harnessJSON(&out, h); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "edit.json")
		os.WriteFile(p, out.Bytes(), 0o644)
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
	harder := cur.Clone()
	harder.Benchmarks[0].Threshold = 0.8
	if err := harnessCmd(context.Background(), testEnv(t), []string{"import", write(harder)}); err != nil {
		t.Fatal(err)
	}
	if h, _ := store.Current(); h.Version != 2 || h.Benchmarks[0].Threshold != 0.8 {
		t.Errorf("after import: v%d", h.Version)
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
