package harness

// The pure math of the harness saturation monitor: the score of one cycle's signals, its
// level, the rolling aggregate over recent cycles and the decision. Research saturation is
// novelty.Gate; this scores the evaluation harness itself.

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Weights of the five signals; they sum to 1.
const (
	WeightCeiling    = 0.30
	WeightRegression = 0.25
	WeightTrend      = 0.20
	WeightProposal   = 0.15
	WeightUnanimity  = 0.10
)

// Normalisation points: a signal at or above its point contributes fully.
const (
	CeilingNorm   = 0.80
	ProposalNorm  = 0.85
	UnanimityNorm = 0.90
	// TrendMinPoints is how many improvement deltas the trend needs before it counts.
	TrendMinPoints = 5
	// SlopeEpsilon separates a real trend from noise, for deltas and for scores.
	SlopeEpsilon = 0.01
	// Window is how many recent cycles the aggregate and the trend look at.
	Window = 20
	// MinCycles is how many cycles the monitor needs before it decides anything.
	MinCycles = 10
	// CriticalStreak and HighStreak are the consecutive counts that call for expansion.
	CriticalStreak = 5
	HighStreak     = 10
	// ReviewAverage is the rolling average that, rising, flags the state for a person.
	ReviewAverage = 0.70
	// Retention is how long per-cycle snapshots beyond the last Window are kept; the last Window
	// are kept whatever their age, so a sparse schedule still fills the window.
	Retention = 90 * 24 * time.Hour
	// DetectionBound is the longest the monitor should take to call for an expansion of a harness
	// that has become too easy; schedules slower than that get a warning (ScheduleWarning).
	DetectionBound = 30 * 24 * time.Hour
)

// Level is the saturation level of one cycle.
type Level string

// Levels, in increasing order.
const (
	LevelNormal   Level = "NORMAL"
	LevelElevated Level = "ELEVATED"
	LevelHigh     Level = "HIGH"
	LevelCritical Level = "CRITICAL"
)

// Trend of the rolling scores.
const (
	TrendIncreasing = "increasing"
	TrendStable     = "stable"
	TrendDecreasing = "decreasing"
)

// Decision is what the monitor does after a cycle.
type Decision string

// Decisions.
const (
	DecisionContinue        Decision = "continue"
	DecisionExpansion       Decision = "expansion-research"
	DecisionUrgentExpansion Decision = "urgent-expansion-research"
	DecisionFlagForReview   Decision = "flag-for-human-review"
)

// BenchmarkScore is one benchmark's score in a cycle; optional, it lets expansion propose
// threshold increases for the benchmarks at the ceiling.
type BenchmarkScore struct {
	ID        string  `json:"id"`
	Score     float64 `json:"score"`
	Threshold float64 `json:"threshold,omitempty"`
}

// Metrics are one evaluation cycle's five signals, from sated's own cycle or any other harness.
type Metrics struct {
	// CycleID names the cycle; recording the same id twice is answered from the first record.
	CycleID string `json:"cycle_id,omitempty"`
	// Source names the harness that produced the metrics (sated, or another).
	Source string `json:"source,omitempty"`
	// HarnessVersion is the harness version the cycle ran, when the harness has versions.
	HarnessVersion int `json:"harness_version,omitempty"`
	// CeilingRate is the share of benchmarks scoring above the ceiling (95%).
	CeilingRate float64 `json:"ceiling_rate"`
	// RegressionPassRate is the share of regression tests passing.
	RegressionPassRate float64 `json:"regression_pass_rate"`
	// ImprovementDelta is the change of the mean score since the last cycle, in [-1,1].
	ImprovementDelta float64 `json:"improvement_delta"`
	// ProposalPassRate is the share of benchmark runs passing their threshold.
	ProposalPassRate float64 `json:"proposal_pass_rate"`
	// AuditorUnanimity is the share of runs where all auditors agree.
	AuditorUnanimity float64 `json:"auditor_unanimity"`
	// MeanScore is the cycle's mean benchmark score, kept so the next cycle can compute its delta.
	MeanScore  *float64         `json:"mean_score,omitempty"`
	Benchmarks []BenchmarkScore `json:"benchmarks,omitempty"`
}

// requiredFields are the JSON keys a metrics document must carry.
var requiredFields = []string{"ceiling_rate", "regression_pass_rate", "improvement_delta", "proposal_pass_rate", "auditor_unanimity"}

// ParseMetrics decodes a metrics document, refusing missing fields, unknown fields and
// out-of-range values with one clear error.
func ParseMetrics(data []byte) (Metrics, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Metrics{}, fmt.Errorf("metrics are not a JSON object: %v", err)
	}
	var missing []string
	for _, k := range requiredFields {
		if v, ok := raw[k]; !ok || string(v) == "null" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Metrics{}, fmt.Errorf("metrics miss required field(s): %s", strings.Join(missing, ", "))
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var m Metrics
	if err := dec.Decode(&m); err != nil {
		return Metrics{}, fmt.Errorf("metrics: %v", err)
	}
	return m, m.Validate()
}

// Validate checks every rate is in [0,1] and the delta in [-1,1].
func (m Metrics) Validate() error {
	var bad []string
	check := func(name string, v, lo float64) {
		if math.IsNaN(v) || v < lo || v > 1 {
			bad = append(bad, fmt.Sprintf("%s %g not in [%g,1]", name, v, lo))
		}
	}
	check("ceiling_rate", m.CeilingRate, 0)
	check("regression_pass_rate", m.RegressionPassRate, 0)
	check("improvement_delta", m.ImprovementDelta, -1)
	check("proposal_pass_rate", m.ProposalPassRate, 0)
	check("auditor_unanimity", m.AuditorUnanimity, 0)
	if m.MeanScore != nil {
		check("mean_score", *m.MeanScore, 0)
	}
	for i, b := range m.Benchmarks {
		if strings.TrimSpace(b.ID) == "" {
			bad = append(bad, fmt.Sprintf("benchmarks[%d] has no id", i))
		}
		check(fmt.Sprintf("benchmarks[%d].score", i), b.Score, 0)
		check(fmt.Sprintf("benchmarks[%d].threshold", i), b.Threshold, 0)
	}
	if len(bad) > 0 {
		return fmt.Errorf("invalid metrics: %s", strings.Join(bad, "; "))
	}
	return nil
}

// Breakdown is a cycle's score with each weighted component, so the status can explain it.
type Breakdown struct {
	Ceiling    float64 `json:"ceiling"`
	Regression float64 `json:"regression"`
	Trend      float64 `json:"trend"`
	Proposal   float64 `json:"proposal"`
	Unanimity  float64 `json:"unanimity"`
	Slope      float64 `json:"slope"`
	Score      float64 `json:"score"`
	Level      Level   `json:"level"`
}

// Slope is the least-squares slope of ys against 0..n-1; 0 for fewer than two points.
func Slope(ys []float64) float64 {
	n := float64(len(ys))
	if len(ys) < 2 {
		return 0
	}
	var sx, sy, sxy, sxx float64
	for i, y := range ys {
		x := float64(i)
		sx += x
		sy += y
		sxy += x * y
		sxx += x * x
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// TrendScore turns the improvement deltas (oldest first) into [0,1]: shrinking improvement is
// a sign of saturation.
func TrendScore(deltas []float64) (score, slope float64) {
	if len(deltas) < TrendMinPoints {
		return 0, 0
	}
	slope = Slope(deltas)
	if slope < -SlopeEpsilon {
		return math.Min(1, math.Abs(slope)*10), slope
	}
	return 0, slope
}

func capped(v, norm float64) float64 { return math.Min(1, v/norm) }

// Score computes the saturation score of m; deltas are the improvement deltas of the recent
// cycles, oldest first, ending with m's own.
func Score(m Metrics, deltas []float64) Breakdown {
	reg := 0.5
	if m.RegressionPassRate >= 1 {
		reg = 1
	}
	trend, slope := TrendScore(deltas)
	b := Breakdown{
		Ceiling:    WeightCeiling * capped(m.CeilingRate, CeilingNorm),
		Regression: WeightRegression * reg,
		Trend:      WeightTrend * trend,
		Proposal:   WeightProposal * capped(m.ProposalPassRate, ProposalNorm),
		Unanimity:  WeightUnanimity * capped(m.AuditorUnanimity, UnanimityNorm),
		Slope:      slope,
	}
	b.Score = b.Ceiling + b.Regression + b.Trend + b.Proposal + b.Unanimity
	b.Level = LevelOf(b.Score)
	return b
}

// LevelOf maps a score to its level.
func LevelOf(score float64) Level {
	switch {
	case score < 0.5:
		return LevelNormal
	case score < 0.7:
		return LevelElevated
	case score < 0.85:
		return LevelHigh
	default:
		return LevelCritical
	}
}

// AtLeastHigh reports whether l is HIGH or CRITICAL.
func (l Level) AtLeastHigh() bool { return l == LevelHigh || l == LevelCritical }

// Snapshot is one recorded cycle.
type Snapshot struct {
	Cycle     int       `json:"cycle"`
	At        time.Time `json:"at"`
	Metrics   Metrics   `json:"metrics"`
	Breakdown Breakdown `json:"breakdown"`
}

// Aggregate summarises the last Window cycles.
type Aggregate struct {
	Cycles              int     `json:"cycles"`
	Average             float64 `json:"average"`
	Slope               float64 `json:"slope"`
	Trend               string  `json:"trend"`
	ConsecutiveHigh     int     `json:"consecutive_high_or_above"`
	ConsecutiveCritical int     `json:"consecutive_critical"`
}

// Recent returns the last Window snapshots, oldest first.
func Recent(snaps []Snapshot) []Snapshot {
	if len(snaps) > Window {
		return snaps[len(snaps)-Window:]
	}
	return snaps
}

// Deltas returns the improvement deltas of snaps, oldest first.
func Deltas(snaps []Snapshot) []float64 {
	out := make([]float64, len(snaps))
	for i, s := range snaps {
		out[i] = s.Metrics.ImprovementDelta
	}
	return out
}

// AggregateOf summarises the last Window of snaps (oldest first).
func AggregateOf(snaps []Snapshot) Aggregate {
	w := Recent(snaps)
	a := Aggregate{Cycles: len(w), Trend: TrendStable}
	if len(w) == 0 {
		return a
	}
	scores := make([]float64, len(w))
	for i, s := range w {
		scores[i] = s.Breakdown.Score
		a.Average += s.Breakdown.Score
	}
	a.Average /= float64(len(w))
	a.Slope = Slope(scores)
	switch {
	case a.Slope > SlopeEpsilon:
		a.Trend = TrendIncreasing
	case a.Slope < -SlopeEpsilon:
		a.Trend = TrendDecreasing
	}
	for i := len(w) - 1; i >= 0 && w[i].Breakdown.Level.AtLeastHigh(); i-- {
		a.ConsecutiveHigh++
	}
	for i := len(w) - 1; i >= 0 && w[i].Breakdown.Level == LevelCritical; i-- {
		a.ConsecutiveCritical++
	}
	return a
}

// Decide applies the consistency rules to an aggregate, most urgent first.
func Decide(a Aggregate) Decision {
	switch {
	case a.Cycles < MinCycles:
		return DecisionContinue
	case a.ConsecutiveCritical >= CriticalStreak:
		return DecisionUrgentExpansion
	case a.ConsecutiveHigh >= HighStreak:
		return DecisionExpansion
	case a.Average >= ReviewAverage && a.Trend == TrendIncreasing:
		return DecisionFlagForReview
	default:
		return DecisionContinue
	}
}

// KeepHistory keeps the last Window snapshots whatever their age, and older ones while they are
// younger than Retention, in order: the aggregate always sees the last Window recorded cycles,
// however far apart they were.
func KeepHistory(snaps []Snapshot, now time.Time) []Snapshot {
	keep := len(snaps) - Window
	if keep <= 0 {
		return append([]Snapshot(nil), snaps...)
	}
	older := Prune(snaps[:keep], now)
	return append(older, snaps[keep:]...)
}

// DetectionDelay is how long a harness that has become too easy waits for its first expansion
// when cycles come every interval: HighStreak consecutive HIGH cycles (MinCycles is fewer).
func DetectionDelay(interval time.Duration) time.Duration {
	return time.Duration(max(HighStreak, MinCycles)) * interval
}

// ScheduleWarning is what to tell someone whose cycle interval makes detection slower than
// DetectionBound; empty when it does not.
func ScheduleWarning(interval time.Duration) string {
	if interval <= 0 || DetectionDelay(interval) <= DetectionBound {
		return ""
	}
	return fmt.Sprintf("warning: with a cycle every %s, a harness that has become too easy is detected after %d cycles, %s; "+
		"the bound is %s: schedule cycles at least every %s", days(interval), max(HighStreak, MinCycles), days(DetectionDelay(interval)),
		days(DetectionBound), days(DetectionBound/time.Duration(max(HighStreak, MinCycles))))
}

// days renders a duration in days when it is one or more, else as Go does.
func days(d time.Duration) string {
	if d >= 24*time.Hour {
		return fmt.Sprintf("%.3g days", d.Hours()/24)
	}
	return d.String()
}

// Prune drops snapshots older than Retention before now, keeping order. Kept for histories
// recorded before KeepHistory; new cycles use KeepHistory.
func Prune(snaps []Snapshot, now time.Time) []Snapshot {
	cut := now.Add(-Retention)
	i := sort.Search(len(snaps), func(i int) bool { return !snaps[i].At.Before(cut) })
	return append([]Snapshot(nil), snaps[i:]...)
}

// CycleResult is what recording a cycle answers.
type CycleResult struct {
	Cycle       int       `json:"cycle"`
	Breakdown   Breakdown `json:"breakdown"`
	Aggregate   Aggregate `json:"aggregate"`
	Decision    Decision  `json:"decision"`
	ExpansionID string    `json:"expansion_id,omitempty"`
	// Note explains an action not taken (an expansion already open, a streak already acted on).
	Note      string `json:"note,omitempty"`
	Duplicate bool   `json:"duplicate,omitempty"`
}
