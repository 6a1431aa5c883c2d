package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/workflows"
)

// TestHarnessGateArgs: the gate's commands refuse bad arguments before dialling.
func TestHarnessGateArgs(t *testing.T) {
	t.Setenv("SATED_DATA_DIR", t.TempDir())
	t.Setenv("USER", "ana")
	dialled := false
	harnessDial = func(context.Context, config.Env) (client.Client, error) {
		dialled = true
		return nil, errors.New("dialled")
	}
	defer func() { harnessDial = dialTemporal }()
	cases := []struct {
		cmd  commandFunc
		args []string
		want string
	}{
		{harnessCmd, []string{"ack"}, "needs one FLAG number"},
		{harnessCmd, []string{"ack", "first", "--reason", "x"}, `"first" is not a flag number`},
		{harnessCmd, []string{"ack", "1"}, "needs --reason"},
		{harnessCmd, []string{"ack", "1", "--reason", "x", "--by", " "}, "needs --reason TEXT (and --by NAME"},
		{harnessCmd, []string{"audit", "extra"}, "takes no arguments"},
		{expansionCmd, []string{"diff"}, "needs one expansion ID"},
	}
	for _, c := range cases {
		err := c.cmd(context.Background(), testEnv(t), c.args)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("%v: %v, want usage error %q", c.args, err, c.want)
		}
	}
	if dialled {
		t.Error("a bad command dialled Temporal")
	}
}

func gateRows(n int) []workflows.CycleRow {
	rows := make([]workflows.CycleRow, n)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		s := 0.3 + 0.6*float64(i)/float64(n-1)
		rows[i] = workflows.CycleRow{Cycle: i + 1, At: at.Add(time.Duration(i) * 24 * time.Hour), Score: s, Level: harness.LevelOf(s), Version: 1 + i/10}
	}
	rows[n-1].Decision = harness.DecisionExpansion
	return rows
}

// TestHarnessAckAndStatus: ack sends the flag number, who, why and the starter's OS user and
// host; status shows open and acknowledged flags apart, the last cycles as a table with bars and
// a sparkline, and --svg writes the chart.
func TestHarnessAckAndStatus(t *testing.T) {
	t.Setenv("SATED_DATA_DIR", t.TempDir())
	t.Setenv("USER", "ana")
	fake := &fakeTemporal{monitor: workflows.MonitorStatus{Cycles: 20, History: gateRows(20), Flags: []workflows.ReviewFlag{
		{ID: 1, Cycle: 10, Reason: "rolling average 0.72 with an increasing trend"},
		{ID: 2, Cycle: 14, Reason: "expansion rolled back: 2 of 3 failed", ExpansionID: "x2"},
	}}}
	withFakeTemporal(t, fake)
	out := captureStdout(t)
	if err := harnessCmd(context.Background(), testEnv(t), []string{"ack", "1", "--reason", "expected after the new corpus"}); err != nil {
		t.Fatal(err)
	}
	if len(fake.acked) != 1 {
		t.Fatalf("acks sent %+v", fake.acked)
	}
	u, h := starterIdentity()
	if a := fake.acked[0]; a.Flag != 1 || a.By != "ana" || a.Reason != "expected after the new corpus" || a.User != u || a.Host != h || u == "" {
		t.Errorf("ack sent %+v (identity %s@%s)", a, u, h)
	}
	if !strings.Contains(out.String(), "flag 1 (cycle 10: rolling average") || !strings.Contains(out.String(), "acknowledged by ana") {
		t.Errorf("ack printed %s", out.String())
	}
	out.Reset()
	svg := filepath.Join(t.TempDir(), "chart.svg")
	if err := harnessCmd(context.Background(), testEnv(t), []string{"status", "--svg", svg}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	open, acked := strings.Index(got, "flagged for review"), strings.Index(got, "acknowledged flags:")
	if open < 0 || acked < open || !strings.Contains(got[open:acked], "[2] cycle 14") || strings.Contains(got[open:acked], "[1]") ||
		!strings.Contains(got[acked:], "[1] cycle 10") || !strings.Contains(got[acked:], "acked by ana") {
		t.Errorf("flags not shown apart:\n%s", got)
	}
	row := ""
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "20 ") {
			row = strings.Join(strings.Fields(l), " ")
		}
	}
	if !strings.Contains(got, "last 20 cycles") || row != "20 2026-11-20 00:00 v2 0.900 CRITICAL expansion-research ##################" {
		t.Errorf("history row %q in:\n%s", row, got)
	}
	if !strings.Contains(got, "scores: ▃") || !strings.Contains(got, "▇  (cycle 1 to 20)") {
		t.Errorf("sparkline:\n%s", got)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	checkSVG(t, data, 20)
}

// checkSVG parses the chart as XML and counts its points and level bands.
func checkSVG(t *testing.T, data []byte, points int) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(data)))
	circles, rects := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "circle":
				circles++
			case "rect":
				rects++
			}
		}
	}
	if circles != points || rects != 5 { // the background and four level bands
		t.Errorf("SVG has %d points and %d rects, want %d and 5", circles, rects, points)
	}
	for _, l := range []string{"NORMAL", "ELEVATED", "HIGH", "CRITICAL"} {
		if !strings.Contains(string(data), ">"+l+"<") {
			t.Errorf("SVG lacks the %s band label", l)
		}
	}
}

func TestSparkline(t *testing.T) {
	if got := Sparkline([]float64{0, 0.5, 1, 2, -1}); got != "▁▅██▁" {
		t.Errorf("sparkline %q", got)
	}
	checkSVG(t, HistoryChartSVG(nil), 0)
	checkSVG(t, HistoryChartSVG(gateRows(2)[:1]), 1)
}

// TestHarnessAuditPrints: the audit command prints every line of the log with the version's
// short hash and the approver's OS user and host.
func TestHarnessAuditPrints(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	out := captureStdout(t)
	if err := harnessCmd(context.Background(), testEnv(t), []string{"audit"}); err != nil || !strings.Contains(out.String(), "no audit entries") {
		t.Fatalf("empty audit: %v %s", err, out.String())
	}
	path := harness.AuditPath(filepath.Join(dir, "harness"))
	hash := strings.Repeat("ab", 32)
	for _, e := range []harness.AuditEntry{
		{ID: "1", Kind: "version", Version: 2, Hash: hash, Reason: "sated-expansion-c10"},
		{ID: "2", Kind: "expansion-approved", ExpansionID: "sated-expansion-c10", By: "ana", User: "ana-os", Host: "box", Reason: "ceiling"},
	} {
		if _, err := harness.AppendAudit(path, e); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if err := harnessCmd(context.Background(), testEnv(t), []string{"audit"}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "version") || !strings.Contains(got, harness.Short(hash)) || !strings.Contains(got, "ana (ana-os@box)") || !strings.Contains(got, "ceiling") {
		t.Errorf("audit printed:\n%s", got)
	}
}

// TestExpansionDiffAndIdentity: diff shows thresholds old -> new from the base version, the new
// tests, enables and gates, and what was refused; approve sends the OS user and host.
func TestExpansionDiffAndIdentity(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SATED_DATA_DIR", dir)
	t.Setenv("USER", "ana")
	store := harness.NewStore(filepath.Join(dir, "harness"))
	base := harness.Harness{Version: 1, Gates: harness.Gates{MinCitationValidity: 0.8, MaxInvalidCitations: 1},
		Benchmarks: []harness.Benchmark{{ID: "gogc", Question: "q", Gold: []eval.Fact{{Fact: "f", Patterns: []string{"GOGC"}}}, Threshold: 0.5, Enabled: true}}}
	if _, _, err := store.Init(base, time.Now()); err != nil {
		t.Fatal(err)
	}
	st := workflows.ExpansionStatus{ID: "sated-expansion-c10", State: workflows.ExpansionApplied, BaseVersion: 1, CommittedVersion: 2,
		Accepted: harness.Proposal{
			ThresholdIncreases: []harness.ThresholdIncrease{{BenchmarkID: "gogc", Current: 0.5, Proposed: 0.55, Rationale: "at the ceiling"}},
			NewBenchmarks:      []harness.Benchmark{{ID: "once", Question: "What does sync.Once guarantee?", Threshold: 0.5, Gold: []eval.Fact{{Fact: "once"}}}},
			EnableTests:        []string{"old"},
			Gates:              &harness.Gates{MinCitationValidity: 0.9, MaxInvalidCitations: 0},
		},
		Refusals: []harness.Refusal{{Change: "remove gogc", Reason: "removals are refused"}},
		NewTests: []workflows.TestOutcome{{ID: "once", Passed: true, Score: 1}},
		Decision: &workflows.ExpansionDecision{Approved: true, By: "ana"},
	}
	fake := &fakeTemporal{expansions: map[string]workflows.ExpansionStatus{st.ID: st}, open: "sated-expansion-c11"}
	withFakeTemporal(t, fake)
	out := captureStdout(t)
	if err := expansionCmd(context.Background(), testEnv(t), []string{"diff", st.ID}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"over harness v1, applied as v2, approved by ana",
		"~ threshold gogc: 0.50 -> 0.55  (at the ceiling)",
		"+ benchmark once (threshold 0.50, 1 gold facts, enters disabled): What does sync.Once guarantee?",
		"+ enable old",
		"~ gates: citation validity >= 0.80 -> 0.90, invalid citations <= 1 -> 0",
		"once: passed at baseline, enabled",
		"x refused remove gogc: removals are refused",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	if err := expansionCmd(context.Background(), testEnv(t), []string{"approve", "sated-expansion-c11", "--reason", "ok"}); err != nil {
		t.Fatal(err)
	}
	u, h := starterIdentity()
	if len(fake.decided) != 1 || fake.decided[0].By != "ana" || fake.decided[0].User != u || fake.decided[0].Host != h {
		t.Errorf("decision sent %+v, want the OS identity %s@%s", fake.decided, u, h)
	}
}

// gateHook is a loopback webhook keeping the notices it receives.
type gateHook struct {
	mu      sync.Mutex
	notices []activities.Notice
	srv     *httptest.Server
}

func newGateHook() *gateHook {
	h := &gateHook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n activities.Notice
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.notices = append(h.notices, n)
	}))
	return h
}

// has reports whether a notice of kind event (about expansion id, when given) arrived.
func (h *gateHook) has(event, id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.notices {
		if n.Event == event && (id == "" || n.ExpansionID == id) {
			return true
		}
	}
	return false
}

func (h *gateHook) events() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, n := range h.notices {
		out = append(out, n.Event+" "+n.ExpansionID)
	}
	return strings.Join(out, ", ")
}
