package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/config"
)

// The worker refuses to serve memory from a directory nobody created: a mistyped
// SATED_DATA_DIR must not look like a memory that forgot everything.
func TestWorkerRefusesAMissingMemoryStore(t *testing.T) {
	env := config.Env{DataDir: t.TempDir()}
	s, err := openMemory(context.Background(), env, nil, nil)
	if err == nil {
		s.Close()
		t.Fatal("opened a memory store that does not exist")
	}
	if !strings.Contains(err.Error(), env.MemoryDir()) || !strings.Contains(err.Error(), "starter memory init") {
		t.Fatalf("the error does not name the directory and the fix: %v", err)
	}
	if _, err := os.Stat(env.MemoryDir()); !os.IsNotExist(err) {
		t.Fatalf("the worker created the directory: %v", err)
	}
}
