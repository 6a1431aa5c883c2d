// Package testenv holds what integration tests share: the rule that a missing server or model
// skips a test, unless SATED_REQUIRE_INTEGRATION=1 makes it a failure.
package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// Required reports whether integration tests must run (CI sets SATED_REQUIRE_INTEGRATION=1).
func Required() bool { return os.Getenv("SATED_REQUIRE_INTEGRATION") == "1" }

// Missing skips the test, or fails it when integration is required.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf("integration required (SATED_REQUIRE_INTEGRATION=1) but: "+format, args...)
	}
	t.Skipf(format, args...)
}

// TemporalAddress returns the dev server's address, or skips/fails when none answers.
func TemporalAddress(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if addr == "" {
		addr = "127.0.0.1:7233"
	}
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		Missing(t, "no Temporal server at %s (start one with 'make test' or scripts/services.sh start temporal): %v", addr, err)
		return ""
	}
	conn.Close()
	return addr
}

// OllamaHost returns the Ollama server's URL, or skips/fails when none answers.
func OllamaHost(t testing.TB) string {
	t.Helper()
	host := os.Getenv("OLLAMA_HOST")
	if host == "" {
		host = "http://127.0.0.1:11434"
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	hp := strings.TrimPrefix(strings.TrimPrefix(host, "http://"), "https://")
	conn, err := net.DialTimeout("tcp", hp, 2*time.Second)
	if err != nil {
		Missing(t, "no Ollama server at %s: %v", host, err)
		return ""
	}
	conn.Close()
	return host
}

// ModuleRoot is the repository root (the directory holding go.mod).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Build compiles a main package of this module into dir and returns the binary's path.
func Build(t testing.TB, pkg, dir string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./"+pkg)
	cmd.Dir = ModuleRoot(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// TemporalCLI is the temporal CLI that starts dev servers: the one 'make tools' installs in
// .tools/bin, else one on PATH; a test without one skips (fails when integration is required).
func TemporalCLI(t testing.TB) string {
	t.Helper()
	if p := filepath.Join(ModuleRoot(t), ".tools", "bin", "temporal"); isExecutable(p) {
		return p
	}
	p, err := exec.LookPath("temporal")
	if err != nil {
		Missing(t, "no temporal CLI in .tools/bin or on PATH (make tools installs it)")
		return ""
	}
	return p
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// GoDocDir is $(go env GOROOT)/doc, the real documents the tests research.
func GoDocDir(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "doc")
}

// RecordHistory writes h to workflows/testdata/name under SATED_RECORD_HISTORY=1, for the
// replay tests there; otherwise it does nothing.
func RecordHistory(t testing.TB, h *historypb.History, name string) {
	t.Helper()
	if os.Getenv("SATED_RECORD_HISTORY") != "1" {
		return
	}
	b, err := protojson.MarshalOptions{Indent: " "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(ModuleRoot(t), "workflows", "testdata", name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s (%d events)", p, len(h.Events))
}
