package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sated-dev/sated/internal/eval"
)

// ledgerStore is a store initialised through InitRecorded, with the ledger its record kept.
func ledgerStore(t *testing.T) (*Store, *Ledger) {
	t.Helper()
	s := NewStore(t.TempDir())
	l := &Ledger{}
	record := func(h Harness) error { *l = l.With(Record(h, time.Now())); return nil }
	if _, _, err := s.InitRecorded(base(), time.Now(), record); err != nil {
		t.Fatal(err)
	}
	harder := base()
	harder.Benchmarks[0].Threshold = 0.7
	if _, err := s.CommitRecorded(harder, 1, "exp-1", time.Now(), *l, record); err != nil {
		t.Fatal(err)
	}
	return s, l
}

func editFile(t *testing.T, path string, edit func(*Harness)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h Harness
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	edit(&h)
	out, _ := json.MarshalIndent(h, "", "  ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEditedCurrentIsTampering is issue 11's probe: every threshold lowered, the regression
// benchmark removed and the gates zeroed in current.json used to be served as the harness.
func TestEditedCurrentIsTampering(t *testing.T) {
	s, l := ledgerStore(t)
	if h, err := s.CurrentVerified(*l); err != nil || h.Version != 2 {
		t.Fatalf("untouched store: v%d %v", h.Version, err)
	}
	// whitespace is not a change
	data, _ := os.ReadFile(filepath.Join(s.Dir(), "current.json"))
	var compact bytes.Buffer
	_ = json.Compact(&compact, data)
	os.WriteFile(filepath.Join(s.Dir(), "current.json"), compact.Bytes(), 0o644)
	if _, err := s.CurrentVerified(*l); err != nil {
		t.Fatalf("reformatted current.json: %v", err)
	}
	editFile(t, filepath.Join(s.Dir(), "current.json"), func(h *Harness) {
		for i := range h.Benchmarks {
			h.Benchmarks[i].Threshold = 0.01
		}
		h.Benchmarks = h.Benchmarks[1:] // the regression benchmark a
		h.RegressionTests = nil
		h.Gates = Gates{MinCitationValidity: 0, MaxInvalidCitations: 99}
	})
	if _, err := s.Current(); err != nil {
		t.Fatalf("the unverified read is the old behaviour: %v", err)
	}
	_, err := s.CurrentVerified(*l)
	var te *TamperError
	if !errors.As(err, &te) {
		t.Fatalf("weakened current.json served: %v", err)
	}
	want2, _ := l.Hash(2)
	for _, w := range []string{filepath.Join(s.Dir(), "current.json"), "changed outside sated", Short(want2), Short(te.Check.Found), "starter harness verify", "starter harness restore 2"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q: %v", w, err)
		}
	}
	if te.Check.State != FileModified || te.Check.Version != 2 || te.Restore != 2 {
		t.Errorf("check %+v restore %d", te.Check, te.Restore)
	}
	if _, err := s.CommitRecorded(base(), 2, "exp-2", time.Now(), *l, nil); !errors.As(err, &te) {
		t.Errorf("commit over a tampered current.json: %v", err)
	}
	if _, err := s.ArchiveVerified(*l); !errors.As(err, &te) {
		t.Errorf("archive of a tampered current.json: %v", err)
	}
	if h, err := s.RestoreVerified(2, *l); err != nil || h.Version != 2 || h.Benchmarks[0].Threshold != 0.7 {
		t.Fatalf("restore v2: %+v %v", h, err)
	}
	if _, err := s.CurrentVerified(*l); err != nil {
		t.Errorf("after restore: %v", err)
	}
}

// TestPlantedArchiveIsNotLastGood is issue 11's probe: a planted archive/v99.json used to be
// served as "the last good version" when current.json was unusable.
func TestPlantedArchiveIsNotLastGood(t *testing.T) {
	s, l := ledgerStore(t)
	planted := base()
	planted.Version = 99
	planted.Benchmarks[0].Threshold = 0.01
	if err := writeJSON(filepath.Join(s.Dir(), "archive", "v99.json"), planted); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.Dir(), "current.json"), []byte("{broken"), 0o644)
	if h, _ := s.Current(); h.Version != 99 {
		t.Fatalf("the unverified fallback was expected to take v99 (the probe), got v%d", h.Version)
	}
	_, err := s.CurrentVerified(*l)
	var te *TamperError
	if !errors.As(err, &te) || te.Restore != 2 || !strings.Contains(err.Error(), "restore 2") {
		t.Fatalf("broken current.json with a planted v99: %v", err)
	}
	if _, err := s.RestoreVerified(99, *l); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("restored the planted v99: %v", err)
	}
	os.Remove(filepath.Join(s.Dir(), "archive", "v1.json"))
	editFile(t, filepath.Join(s.Dir(), "archive", "v2.json"), func(h *Harness) { h.Gates.MaxInvalidCitations = 50 })
	checks, err := s.Verify(*l)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range checks {
		got[c.File] = c.State
	}
	want := map[string]string{"current.json": FileUnreadable, "archive/v2.json": FileModified, "archive/v99.json": FileUnknown, "archive/v1.json": FileMissing}
	for f, st := range want {
		if got[f] != st {
			t.Errorf("%s: %q, want %q (all: %v)", f, got[f], st, got)
		}
	}
	if _, err := s.CurrentVerified(*l); !errors.As(err, &te) || te.Restore != 0 || !strings.Contains(err.Error(), "no archived version verifies") {
		t.Errorf("nothing verifies: %v", err)
	}
}

func TestUnrecordedHarnessNeedsAdoption(t *testing.T) {
	s := NewStore(t.TempDir())
	if _, err := s.CurrentVerified(nil); !errors.Is(err, ErrNoHarness) {
		t.Errorf("empty store: %v", err)
	}
	if _, _, err := s.Init(base(), time.Now()); err != nil {
		t.Fatal(err)
	}
	_, err := s.CurrentVerified(nil)
	var te *TamperError
	if !errors.As(err, &te) || te.Check.State != FileUnknown || !strings.Contains(err.Error(), "verify --adopt") {
		t.Errorf("unrecorded harness: %v", err)
	}
}

func TestTrivialPattern(t *testing.T) {
	for _, p := range []string{"", " ", ".", ".*", `\w`, "[a-z]", "e", "the", "a|b", `\s`, "x?", "(?s).+", `[^0-9]`} {
		if TrivialPattern(p) == "" {
			t.Errorf("%q passed as a specific pattern", p)
		}
	}
	for _, p := range []string{`GOGC\W+defaults?\W+to\W+100`, "GOMEMLIMIT", "x", "happens[- ]before", `sync\.Mutex`} {
		if why := TrivialPattern(p); why != "" {
			t.Errorf("%q refused: %s", p, why)
		}
	}
	// the built-in question set is specific
	qs, err := eval.ParseQuestions(bytes.NewReader(eval.GoQuestions))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if bad := TrivialFacts(q.ID, q.Gold); len(bad) > 0 {
			t.Errorf("built-in question: %v", bad)
		}
	}
}

// TestFilterRefusesTrivialNewTests is issue 11's probe: a benchmark with pattern "." was
// accepted as a new test.
func TestFilterRefusesTrivialNewTests(t *testing.T) {
	p := Proposal{
		NewBenchmarks: []Benchmark{{ID: "dot", Question: "q", Gold: []eval.Fact{{Fact: "anything", Patterns: []string{"."}}}, Threshold: 0.01, Enabled: true},
			{ID: "ok", Question: "q", Gold: []eval.Fact{{Fact: "limit", Patterns: []string{"GOMEMLIMIT"}}}, Threshold: 0.5, Enabled: true}},
		NewEdgeCases: []EdgeCase{{ID: "edge", Description: "d", Question: "q", Gold: []eval.Fact{{Fact: "f", Patterns: []string{".*"}}}, Threshold: 0.5}},
	}
	ok, refused := Filter(base(), p)
	if len(refused) != 2 || !strings.Contains(refused[0].Reason, `test dot, fact "anything": pattern "." is trivial`) || !strings.Contains(refused[1].Reason, `pattern ".*" is trivial`) {
		t.Errorf("refused %+v", refused)
	}
	if len(ok.NewBenchmarks) != 1 || ok.NewBenchmarks[0].ID != "ok" || ok.NewBenchmarks[0].Enabled {
		t.Errorf("kept %+v", ok.NewBenchmarks)
	}
}
