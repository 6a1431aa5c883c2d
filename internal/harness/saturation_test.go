package harness

import (
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSlope(t *testing.T) {
	cases := []struct {
		ys   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{0.3}, 0},
		{[]float64{0, 1}, 1},
		{[]float64{0.5, 0.4, 0.3, 0.2, 0.1}, -0.1},
		{[]float64{1, 3, 2}, 0.5}, // x̄=1, ȳ=2: Σ(x-x̄)(y-ȳ)=1, Σ(x-x̄)²=2
		{[]float64{0.2, 0.2, 0.2, 0.2}, 0},
	}
	for _, c := range cases {
		if got := Slope(c.ys); !near(got, c.want) {
			t.Errorf("Slope(%v) = %g, want %g", c.ys, got, c.want)
		}
	}
}

func TestTrendScore(t *testing.T) {
	cases := []struct {
		name   string
		deltas []float64
		want   float64
	}{
		{"four points are too few", []float64{0.4, 0.3, 0.2, 0.1}, 0},
		{"slope -0.02 gives 0.2", []float64{0.10, 0.08, 0.06, 0.04, 0.02}, 0.2},
		{"slope -0.1 gives 1", []float64{0.5, 0.4, 0.3, 0.2, 0.1}, 1},
		{"slope -0.2 is capped at 1", []float64{0.8, 0.6, 0.4, 0.2, 0}, 1},
		{"slope -0.005 is noise", []float64{0.02, 0.015, 0.01, 0.005, 0}, 0},
		{"rising improvement is not saturation", []float64{0, 0.1, 0.2, 0.3, 0.4}, 0},
	}
	for _, c := range cases {
		if got, _ := TrendScore(c.deltas); !near(got, c.want) {
			t.Errorf("%s: TrendScore = %g, want %g", c.name, got, c.want)
		}
	}
}

func TestScoreAndLevel(t *testing.T) {
	cases := []struct {
		name   string
		m      Metrics
		deltas []float64
		score  float64
		level  Level
	}{
		{"all at the normalisation points, no trend", Metrics{CeilingRate: 0.8, RegressionPassRate: 1, ProposalPassRate: 0.85, AuditorUnanimity: 0.9}, nil, 0.80, LevelHigh},
		// 0.30*0.5 + 0.25*0.5 + 0 + 0.15*0.5 + 0.10*0.5 = 0.15+0.125+0.075+0.05
		{"half everywhere, one regression failing", Metrics{CeilingRate: 0.4, RegressionPassRate: 0.9, ProposalPassRate: 0.425, AuditorUnanimity: 0.45}, nil, 0.40, LevelNormal},
		// 0.30 + 0.25 + 0.20*0.2 + 0.15 + 0.10
		{"saturated with slowing improvement", Metrics{CeilingRate: 1, RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1}, []float64{0.10, 0.08, 0.06, 0.04, 0.02}, 0.84, LevelHigh},
		{"fully saturated", Metrics{CeilingRate: 1, RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1}, []float64{0.5, 0.4, 0.3, 0.2, 0.1}, 1.0, LevelCritical},
		{"nothing at all", Metrics{}, nil, 0.125, LevelNormal},
		// 0.30*0.5 + 0.25 + 0 + 0.15*(0.34/0.85) + 0.10*(0.45/0.90) = 0.15+0.25+0.06+0.05
		{"elevated", Metrics{CeilingRate: 0.4, RegressionPassRate: 1, ProposalPassRate: 0.34, AuditorUnanimity: 0.45}, nil, 0.51, LevelElevated},
	}
	for _, c := range cases {
		b := Score(c.m, c.deltas)
		if !near(b.Score, c.score) || b.Level != c.level {
			t.Errorf("%s: score %g %s, want %g %s", c.name, b.Score, b.Level, c.score, c.level)
		}
		if sum := b.Ceiling + b.Regression + b.Trend + b.Proposal + b.Unanimity; !near(sum, b.Score) {
			t.Errorf("%s: components sum to %g, score %g", c.name, sum, b.Score)
		}
	}
}

func TestLevelBoundaries(t *testing.T) {
	cases := map[float64]Level{0: LevelNormal, 0.4999: LevelNormal, 0.5: LevelElevated, 0.6999: LevelElevated, 0.7: LevelHigh, 0.8499: LevelHigh, 0.85: LevelCritical, 1: LevelCritical}
	for s, want := range cases {
		if got := LevelOf(s); got != want {
			t.Errorf("LevelOf(%g) = %s, want %s", s, got, want)
		}
	}
}

func snaps(scores ...float64) []Snapshot {
	out := make([]Snapshot, len(scores))
	for i, s := range scores {
		out[i] = Snapshot{Cycle: i + 1, Breakdown: Breakdown{Score: s, Level: LevelOf(s)}}
	}
	return out
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestAggregate(t *testing.T) {
	cases := []struct {
		name     string
		scores   []float64
		cycles   int
		avg      float64
		trend    string
		high, cr int
	}{
		{"empty", nil, 0, 0, TrendStable, 0, 0},
		{"rising", []float64{0.1, 0.2, 0.3, 0.4, 0.5}, 5, 0.3, TrendIncreasing, 0, 0},
		{"falling", []float64{0.9, 0.8, 0.7}, 3, 0.8, TrendDecreasing, 3, 0},
		{"flat", []float64{0.6, 0.6, 0.6}, 3, 0.6, TrendStable, 0, 0},
		// newest back: 0.9 CRITICAL, 0.86 CRITICAL, 0.75 HIGH, then 0.4 breaks the streak;
		// slope = Σ(x-2)(y-0.762)/10 = (-1.8-0.4+0+0.86+1.8)/10 = 0.046
		{"streak from the newest", []float64{0.9, 0.4, 0.75, 0.86, 0.9}, 5, 0.762, TrendIncreasing, 3, 2},
		// 25 cycles: only the last 20 (all 0.9 after five 0.1) count
		{"window of 20", append(repeat(0.1, 5), repeat(0.9, 20)...), 20, 0.9, TrendStable, 20, 20},
	}
	for _, c := range cases {
		a := AggregateOf(snaps(c.scores...))
		if a.Cycles != c.cycles || !near(a.Average, c.avg) || a.Trend != c.trend || a.ConsecutiveHigh != c.high || a.ConsecutiveCritical != c.cr {
			t.Errorf("%s: got %+v", c.name, a)
		}
	}
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name string
		a    Aggregate
		want Decision
	}{
		{"nine critical cycles are too few", Aggregate{Cycles: 9, Average: 0.95, Trend: TrendIncreasing, ConsecutiveHigh: 9, ConsecutiveCritical: 9}, DecisionContinue},
		{"five critical", Aggregate{Cycles: 10, Average: 0.8, ConsecutiveHigh: 5, ConsecutiveCritical: 5}, DecisionUrgentExpansion},
		{"four critical, ten high", Aggregate{Cycles: 12, Average: 0.8, ConsecutiveHigh: 10, ConsecutiveCritical: 4}, DecisionExpansion},
		{"nine high, rising average 0.7", Aggregate{Cycles: 12, Average: 0.7, Trend: TrendIncreasing, ConsecutiveHigh: 9}, DecisionFlagForReview},
		{"average 0.7 but stable", Aggregate{Cycles: 12, Average: 0.72, Trend: TrendStable, ConsecutiveHigh: 9}, DecisionContinue},
		{"rising but below 0.7", Aggregate{Cycles: 12, Average: 0.69, Trend: TrendIncreasing}, DecisionContinue},
	}
	for _, c := range cases {
		if got := Decide(c.a); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestDecideFromScores(t *testing.T) {
	// Ten cycles rising from 0.55 to 0.82: average 0.685 → continue; two more → flag.
	var s []float64
	for i := 0; i < 12; i++ {
		s = append(s, 0.55+0.03*float64(i))
	}
	if d := Decide(AggregateOf(snaps(s[:10]...))); d != DecisionContinue {
		t.Errorf("10 rising cycles averaging 0.685: %s", d)
	}
	if d := Decide(AggregateOf(snaps(s...))); d != DecisionFlagForReview {
		t.Errorf("12 rising cycles averaging 0.715: %s", d)
	}
}

func TestPrune(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	in := []Snapshot{{Cycle: 1, At: now.Add(-100 * 24 * time.Hour)}, {Cycle: 2, At: now.Add(-90 * 24 * time.Hour)}, {Cycle: 3, At: now}}
	out := Prune(in, now)
	if len(out) != 2 || out[0].Cycle != 2 {
		t.Fatalf("Prune kept %+v", out)
	}
}

func TestParseMetrics(t *testing.T) {
	good := `{"ceiling_rate":0.5,"regression_pass_rate":1,"improvement_delta":-0.02,"proposal_pass_rate":0.7,"auditor_unanimity":0.9,"benchmarks":[{"id":"gc","score":0.97}]}`
	m, err := ParseMetrics([]byte(good))
	if err != nil || m.ImprovementDelta != -0.02 || len(m.Benchmarks) != 1 {
		t.Fatalf("good metrics: %+v %v", m, err)
	}
	bad := []struct{ doc, want string }{
		{`[1,2]`, "not a JSON object"},
		{`{"ceiling_rate":0.5}`, "regression_pass_rate, improvement_delta, proposal_pass_rate, auditor_unanimity"},
		{`{"ceiling_rate":1.5,"regression_pass_rate":1,"improvement_delta":0,"proposal_pass_rate":0.7,"auditor_unanimity":0.9}`, "ceiling_rate 1.5 not in [0,1]"},
		{`{"ceiling_rate":0.5,"regression_pass_rate":-0.1,"improvement_delta":0,"proposal_pass_rate":0.7,"auditor_unanimity":0.9}`, "regression_pass_rate -0.1"},
		{`{"ceiling_rate":0.5,"regression_pass_rate":1,"improvement_delta":-2,"proposal_pass_rate":0.7,"auditor_unanimity":0.9}`, "improvement_delta -2 not in [-1,1]"},
		{`{"ceiling_rate":0.5,"regression_pass_rate":1,"improvement_delta":0,"proposal_pass_rate":0.7,"auditor_unanimity":null}`, "auditor_unanimity"},
		{`{"ceiling_rate":0.5,"regression_pass_rate":1,"improvement_delta":0,"proposal_pass_rate":0.7,"auditor_unanimity":0.9,"ceiling":1}`, "unknown field"},
		{`{"ceiling_rate":0.5,"regression_pass_rate":1,"improvement_delta":0,"proposal_pass_rate":0.7,"auditor_unanimity":0.9,"benchmarks":[{"score":2}]}`, "benchmarks[0] has no id"},
	}
	for _, b := range bad {
		_, err := ParseMetrics([]byte(b.doc))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want it to mention %q", b.doc, err, b.want)
		}
	}
}

// BenchmarkRecordMath is the per-cycle math the monitor does: score with the window's deltas,
// prune, aggregate and decide over 90 days of daily snapshots.
func BenchmarkRecordMath(b *testing.B) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var s []Snapshot
	for i := 0; i < 90; i++ {
		s = append(s, Snapshot{Cycle: i, At: now.Add(time.Duration(i-89) * 24 * time.Hour), Breakdown: Breakdown{Score: 0.8, Level: LevelHigh}})
	}
	m := Metrics{CeilingRate: 1, RegressionPassRate: 1, ProposalPassRate: 1, AuditorUnanimity: 1}
	b.ReportAllocs()
	for b.Loop() {
		Score(m, Deltas(Recent(s)))
		Decide(AggregateOf(Prune(s, now)))
	}
}

func TestKeepHistory(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var in []Snapshot
	for i := 0; i < 30; i++ { // one cycle a month, the last one now
		in = append(in, Snapshot{Cycle: i + 1, At: now.Add(-time.Duration(29-i) * 30 * 24 * time.Hour)})
	}
	out := KeepHistory(in, now)
	if len(out) != Window || out[0].Cycle != 11 || out[Window-1].Cycle != 30 {
		t.Fatalf("a monthly schedule keeps the last %d cycles whatever their age; kept %d from cycle %d", Window, len(out), out[0].Cycle)
	}
	// daily cycles: everything younger than Retention stays, beyond the window too
	in = nil
	for i := 0; i < 100; i++ {
		in = append(in, Snapshot{Cycle: i + 1, At: now.Add(-time.Duration(99-i) * 24 * time.Hour)})
	}
	out = KeepHistory(in, now)
	if len(out) != 91 || out[0].Cycle != 10 {
		t.Fatalf("daily: kept %d from cycle %d, want 91 from cycle 10", len(out), out[0].Cycle)
	}
	if got := KeepHistory(in[:5], now); len(got) != 5 {
		t.Fatalf("short history: %d", len(got))
	}
}

func TestScheduleWarning(t *testing.T) {
	for _, c := range []struct {
		every time.Duration
		warn  bool
	}{
		{time.Hour, false}, {24 * time.Hour, false}, {3 * 24 * time.Hour, false},
		{4 * 24 * time.Hour, true}, {14 * 24 * time.Hour, true}, {0, false},
	} {
		w := ScheduleWarning(c.every)
		if (w != "") != c.warn {
			t.Errorf("every %v: warning %q, want %v", c.every, w, c.warn)
		}
	}
	w := ScheduleWarning(14 * 24 * time.Hour)
	for _, want := range []string{"14 days", "10 cycles", "140 days", "30 days", "every 3 days"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}
