package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAppendAuditIsIdempotentAndAppendOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "harness", AuditFile)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	a := AuditEntry{ID: "m/r/1", At: at, Kind: "version", Version: 1, Hash: strings.Repeat("a", 64)}
	b := AuditEntry{ID: "m/r/2", At: at, Kind: "approved", ExpansionID: "x", By: "ann", User: "ann", Host: "h", Reason: "ok"}
	for i, c := range []struct {
		e     AuditEntry
		wrote bool
	}{{a, true}, {a, false}, {b, true}, {a, false}} {
		wrote, err := AppendAudit(path, c.e)
		if err != nil || wrote != c.wrote {
			t.Fatalf("append %d: wrote %v %v, want %v", i, wrote, err, c.wrote)
		}
	}
	before, _ := os.ReadFile(path)
	got, err := ReadAudit(path)
	if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("log %+v %v", got, err)
	}
	if _, err := AppendAudit(path, AuditEntry{ID: "m/r/3", Kind: "flag"}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), string(before)) {
		t.Fatal("an append rewrote earlier lines")
	}
	if _, err := AppendAudit(path, AuditEntry{Kind: "flag"}); err == nil {
		t.Fatal("an entry without an id was written")
	}
	if err := os.WriteFile(path, append(after, []byte("not json\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAudit(path); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("a damaged line: %v", err)
	}
	if got, err := ReadAudit(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || got != nil {
		t.Fatalf("missing log: %v %v", got, err)
	}
}
