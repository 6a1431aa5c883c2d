package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/memory"
)

// damagedCorpus indexes pages into SATED_DATA_DIR's corpus and overwrites its middle.
func damagedCorpus(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	t.Setenv("SATED_DATA_DIR", data)
	p := filepath.Join(data, "corpus.db")
	x, err := corpus.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		body := strings.Repeat("The garbage collector runs concurrently with the mutator. ", 30)
		if err := x.Add(context.Background(), corpus.Document{URL: "https://example.org/p" + strings.Repeat("x", i), Title: "Page", Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	x.Close()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.WriteAt([]byte(strings.Repeat("\xff", 8*4096)), fi.Size()/2/4096*4096)
	f.Close()
	return p
}

// Every corpus command on a damaged file fails, naming the file and the command that rebuilds it.
func TestCorpusCommandsNameADamagedFile(t *testing.T) {
	p := damagedCorpus(t)
	for _, args := range [][]string{{"corpus", "stats"}, {"corpus", "search", "garbage collector"}} {
		code, out := runCLI(t, args...)
		if code != 1 || !strings.Contains(out, p) || !strings.Contains(out, "starter corpus index") {
			t.Errorf("%q: code %d, output %q; want 1, the file and the fix", args, code, out)
		}
	}
}

// memory init creates the store the worker refuses to invent; repair rebuilds a damaged
// full-text side offline, with progress, and names the store.
func TestMemoryInitAndRepair(t *testing.T) {
	data := t.TempDir()
	t.Setenv("SATED_DATA_DIR", data)
	dir := filepath.Join(data, "memory")
	code, out := runCLI(t, "memory", "init")
	if code != 0 || !strings.Contains(out, "created an empty memory store in "+dir) {
		t.Fatalf("init: code %d, output %q", code, out)
	}
	s, err := memory.Open(context.Background(), memory.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remember(context.Background(), []memory.Observation{{Fact: "GOGC sets the garbage collection target percentage.", Task: "gc"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, out = runCLI(t, "memory", "init")
	if code != 0 || !strings.Contains(out, "already exists (1 observations)") {
		t.Fatalf("second init: code %d, output %q", code, out)
	}

	if err := os.Truncate(filepath.Join(dir, "fulltext.db"), 0); err != nil {
		t.Fatal(err)
	}
	code, out = runCLI(t, "memory", "repair", "--dir", dir)
	if code != 0 || !strings.Contains(out, "1/1 observations written") || !strings.Contains(out, "repaired "+dir+": the full-text index now holds all 1 observations of the vector store (before: unreadable)") {
		t.Fatalf("repair: code %d, output %q", code, out)
	}
	s, err = memory.Open(context.Background(), memory.Options{Dir: dir})
	if err != nil {
		t.Fatalf("the repaired store does not open: %v", err)
	}
	if st := s.Stats(); st.VectorCount != 1 || st.FullTextCount != 1 {
		t.Fatalf("after repair: %+v", st)
	}
	s.Close()

	code, out = runCLI(t, "memory", "repair", "--dir", filepath.Join(data, "nope"))
	if code != 1 || !strings.Contains(out, "does not exist") {
		t.Fatalf("repair of a missing store: code %d, output %q", code, out)
	}
	code, _ = runCLI(t, "memory", "init", "extra")
	if code != 2 {
		t.Fatalf("init with an argument: code %d", code)
	}
}

// A read-only corpus command on a data directory without a corpus says how to make one and
// creates nothing.
func TestCorpusCommandsOnAMissingCorpus(t *testing.T) {
	data := filepath.Join(t.TempDir(), "typo")
	t.Setenv("SATED_DATA_DIR", data)
	for _, args := range [][]string{{"corpus", "stats"}, {"corpus", "search", "garbage collector"}} {
		code, out := runCLI(t, args...)
		if code != 1 || !strings.Contains(out, filepath.Join(data, "corpus.db")) || !strings.Contains(out, "starter corpus index") {
			t.Errorf("%q: code %d, output %q; want 1, the missing file and how to make it", args, code, out)
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the data directory %s was created (%v)", data, err)
	}
}
