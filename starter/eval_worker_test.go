package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/testenv"
)

// An eval whose task queue no worker polls says so instead of waiting in silence; the runs
// stay queued for a worker that starts later.
func TestEvalSaysWhenNoWorkerPolls(t *testing.T) {
	addr := testenv.TemporalAddress(t)
	t.Setenv("TEMPORAL_ADDRESS", addr)
	t.Setenv("SATED_TASK_QUEUE", fmt.Sprintf("no-worker-%d", time.Now().UnixNano()))
	env, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	questions := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(questions, []byte(`{"id":"s-one","question":"What does the memory model guarantee?","gold":[{"fact":"f","patterns":["guarantee"]}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { workerHintAfter = d }(workerHintAfter)
	workerHintAfter = 300 * time.Millisecond
	var out, errb bytes.Buffer
	stdout, stderr = &out, &errb
	defer func() { stdout, stderr = os.Stdout, os.Stderr }()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	err = evalCmd(ctx, env, []string{questions, "--strategies", "saturation"})
	if err == nil {
		t.Fatalf("an eval no worker ran reported success:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "no worker is polling task queue \""+env.TaskQueue+"\"") {
		t.Errorf("no word of the missing worker:\n%s", errb.String())
	}
}
