// Package harness holds the versioned evaluation harness: its definition and validation, the
// one-way ratchet that only lets it become more rigorous, the application helpers, the
// directory store that archives every version, and the saturation score of each evaluation
// cycle that decides when the harness must grow.
package harness

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/sated-dev/sated/internal/eval"
)

// CeilingScore is the score above which a benchmark run sits at the ceiling.
const CeilingScore = 0.95

// ThresholdStep is the least a deterministic proposal raises a threshold at the ceiling.
const ThresholdStep = 0.05

// CeilingMargin is the headroom above its threshold that puts a run above CeilingScore at the
// ceiling: a benchmark whose threshold sits within CeilingMargin of what the system scores is
// not too easy, whatever the score. So raising thresholds moves the ceiling signal.
const CeilingMargin = 0.10

// AtCeiling reports whether a run scoring score against threshold sits at the ceiling: above
// CeilingScore with more than CeilingMargin of headroom (compared in hundredths, so float
// noise cannot flip it).
func AtCeiling(score, threshold float64) bool {
	return score > CeilingScore && math.Round((score-threshold)*100) > math.Round(CeilingMargin*100)
}

// Benchmark is a research question with gold facts and the recall it must reach to pass.
type Benchmark struct {
	ID        string      `json:"id"`
	Question  string      `json:"question"`
	Gold      []eval.Fact `json:"gold"`
	Threshold float64     `json:"threshold"`
	Enabled   bool        `json:"enabled"`
	// Origin says where a generated benchmark came from (its corpus passages and what the
	// expansion research found); empty for benchmarks written by people.
	Origin string `json:"origin,omitempty"`
}

// EdgeCase is an unusual input the system must handle; with a question and gold it is run
// like a benchmark, otherwise it documents a case for people.
type EdgeCase struct {
	ID          string      `json:"id"`
	Description string      `json:"description"`
	Question    string      `json:"question,omitempty"`
	Gold        []eval.Fact `json:"gold,omitempty"`
	Threshold   float64     `json:"threshold,omitempty"`
	Enabled     bool        `json:"enabled"`
}

// Gates are the harness-wide pass conditions of the citation auditor.
type Gates struct {
	// MinCitationValidity is the share of citations that must point at retrieved sources (raise only).
	MinCitationValidity float64 `json:"min_citation_validity"`
	// MaxInvalidCitations is how many citations may point nowhere (lower only).
	MaxInvalidCitations int `json:"max_invalid_citations"`
}

// Harness is one version of the harness definition.
type Harness struct {
	Version         int         `json:"version"`
	Parent          int         `json:"parent,omitempty"` // the version this one was derived from
	Created         time.Time   `json:"created"`
	Change          string      `json:"change,omitempty"` // what made this version, e.g. an expansion id
	Gates           Gates       `json:"gates"`
	Benchmarks      []Benchmark `json:"benchmarks"`
	RegressionTests []string    `json:"regression_tests"`
	EdgeCases       []EdgeCase  `json:"edge_cases"`
}

// Validate reports every problem of a harness definition in one error.
func (h Harness) Validate() error {
	var bad []string
	add := func(f string, a ...any) { bad = append(bad, fmt.Sprintf(f, a...)) }
	if h.Version < 1 {
		add("version %d must be at least 1", h.Version)
	}
	if g := h.Gates; g.MinCitationValidity < 0 || g.MinCitationValidity > 1 {
		add("gates.min_citation_validity %g not in [0,1]", g.MinCitationValidity)
	}
	if h.Gates.MaxInvalidCitations < 0 {
		add("gates.max_invalid_citations %d is negative", h.Gates.MaxInvalidCitations)
	}
	ids := map[string]bool{}
	checkID := func(kind string, i int, id string) {
		switch {
		case strings.TrimSpace(id) == "":
			add("%s[%d] has no id", kind, i)
		case ids[id]:
			add("id %q is used twice", id)
		}
		ids[id] = true
	}
	enabled := map[string]bool{}
	for i, b := range h.Benchmarks {
		checkID("benchmarks", i, b.ID)
		if err := validateTest(b.Question, b.Gold, b.Threshold, true); err != nil {
			add("benchmark %q: %v", b.ID, err)
		}
		enabled[b.ID] = b.Enabled
	}
	for i, e := range h.EdgeCases {
		checkID("edge_cases", i, e.ID)
		if strings.TrimSpace(e.Description) == "" {
			add("edge case %q has no description", e.ID)
		}
		if e.Question != "" || len(e.Gold) > 0 {
			if err := validateTest(e.Question, e.Gold, e.Threshold, true); err != nil {
				add("edge case %q: %v", e.ID, err)
			}
		}
	}
	seen := map[string]bool{}
	for _, id := range h.RegressionTests {
		on, ok := enabled[id]
		switch {
		case seen[id]:
			add("regression test %q listed twice", id)
		case !ok:
			add("regression test %q is not a benchmark", id)
		case !on:
			add("regression test %q is a disabled benchmark", id)
		}
		seen[id] = true
	}
	if len(bad) > 0 {
		return fmt.Errorf("invalid harness: %s", strings.Join(bad, "; "))
	}
	return nil
}

func validateTest(question string, gold []eval.Fact, threshold float64, needGold bool) error {
	if strings.TrimSpace(question) == "" {
		return fmt.Errorf("no question")
	}
	if needGold && len(gold) == 0 {
		return fmt.Errorf("no gold facts")
	}
	if err := eval.ValidateFacts(gold); err != nil {
		return err
	}
	if math.IsNaN(threshold) || threshold <= 0 || threshold > 1 {
		return fmt.Errorf("threshold %g not in (0,1]", threshold)
	}
	return nil
}

// Benchmark returns the benchmark with id.
func (h Harness) Benchmark(id string) (Benchmark, bool) {
	for _, b := range h.Benchmarks {
		if b.ID == id {
			return b, true
		}
	}
	return Benchmark{}, false
}

// IsRegression reports whether id is a regression test.
func (h Harness) IsRegression(id string) bool {
	for _, r := range h.RegressionTests {
		if r == id {
			return true
		}
	}
	return false
}

// Clone returns a deep copy, so helpers never alias a caller's slices.
func (h Harness) Clone() Harness {
	c := h
	c.Benchmarks = append([]Benchmark(nil), h.Benchmarks...)
	c.EdgeCases = append([]EdgeCase(nil), h.EdgeCases...)
	c.RegressionTests = append([]string(nil), h.RegressionTests...)
	return c
}

// FromQuestions builds a first harness from a question set: every question an enabled
// benchmark at threshold, the first nRegression of them regression tests.
func FromQuestions(qs []eval.Question, threshold float64, nRegression int) Harness {
	h := Harness{Version: 1, Change: "initial", Gates: Gates{MinCitationValidity: 0.8, MaxInvalidCitations: 2}}
	for i, q := range qs {
		h.Benchmarks = append(h.Benchmarks, Benchmark{ID: q.ID, Question: q.Question, Gold: q.Gold, Threshold: threshold, Enabled: true})
		if i < nRegression {
			h.RegressionTests = append(h.RegressionTests, q.ID)
		}
	}
	return h
}

// ThresholdIncrease proposes raising one benchmark's pass threshold.
type ThresholdIncrease struct {
	BenchmarkID string  `json:"benchmark_id"`
	Current     float64 `json:"current"`
	Proposed    float64 `json:"proposed"`
	Rationale   string  `json:"rationale"`
}

// Proposal is a set of harness changes. Removals, disablings and gate changes are listed so a
// model's or a person's attempt is recorded and refused, never silently dropped.
type Proposal struct {
	ThresholdIncreases []ThresholdIncrease `json:"threshold_increases,omitempty"`
	NewBenchmarks      []Benchmark         `json:"new_benchmarks,omitempty"`
	NewEdgeCases       []EdgeCase          `json:"new_edge_cases,omitempty"`
	EnableTests        []string            `json:"enable_tests,omitempty"`
	NewRegressionTests []string            `json:"new_regression_tests,omitempty"`
	Gates              *Gates              `json:"gates,omitempty"`
	RemoveTests        []string            `json:"remove_tests,omitempty"`
	DisableTests       []string            `json:"disable_tests,omitempty"`
	RewriteTests       []string            `json:"rewrite_tests,omitempty"`
	Rationale          string              `json:"rationale,omitempty"`
}

// Empty reports whether p changes nothing.
func (p Proposal) Empty() bool {
	return len(p.ThresholdIncreases)+len(p.NewBenchmarks)+len(p.NewEdgeCases)+len(p.EnableTests)+len(p.NewRegressionTests)+
		len(p.RemoveTests)+len(p.DisableTests)+len(p.RewriteTests) == 0 && p.Gates == nil
}

// Refusal is one change the ratchet refused, with its reason.
type Refusal struct {
	Change string `json:"change"`
	Reason string `json:"reason"`
}

// Filter is the one-way ratchet: it keeps the changes of p that make current more rigorous and
// refuses the rest with a reason.
func Filter(current Harness, p Proposal) (Proposal, []Refusal) {
	f := newFilter(current)
	f.ok.Rationale = p.Rationale
	f.thresholds(p.ThresholdIncreases)
	f.newBenchmarks(p.NewBenchmarks)
	f.newEdgeCases(p.NewEdgeCases)
	f.enables(p.EnableTests)
	f.regressions(p.NewRegressionTests)
	f.gates(p.Gates)
	f.weakenings(p)
	return f.ok, f.refused
}

// filter is one pass of the ratchet over a proposal: what it kept and what it refused.
type filter struct {
	current Harness
	ids     map[string]string // id -> kind, of current and accepted new tests
	raised  map[string]bool   // benchmarks whose threshold this proposal already raises
	ok      Proposal
	refused []Refusal
}

func newFilter(current Harness) *filter {
	f := &filter{current: current, ids: map[string]string{}, raised: map[string]bool{}}
	for _, b := range current.Benchmarks {
		f.ids[b.ID] = "benchmark"
	}
	for _, e := range current.EdgeCases {
		f.ids[e.ID] = "edge case"
	}
	return f
}

func (f *filter) refuse(change, format string, a ...any) {
	f.refused = append(f.refused, Refusal{Change: change, Reason: fmt.Sprintf(format, a...)})
}

// thresholds keeps increases of existing thresholds, at most one per benchmark, up to 1.
func (f *filter) thresholds(ts []ThresholdIncrease) {
	for _, t := range ts {
		change := fmt.Sprintf("threshold of %s to %g", t.BenchmarkID, t.Proposed)
		b, found := f.current.Benchmark(t.BenchmarkID)
		switch {
		case !found:
			f.refuse(change, "no benchmark %q in harness v%d", t.BenchmarkID, f.current.Version)
		case f.raised[t.BenchmarkID]:
			f.refuse(change, "a second threshold change for %s in the same proposal", t.BenchmarkID)
		case math.IsNaN(t.Proposed) || t.Proposed > 1:
			f.refuse(change, "threshold %g is above 1", t.Proposed)
		case t.Proposed < b.Threshold:
			f.refuse(change, "lowers the threshold from %g: the harness only becomes more rigorous", b.Threshold)
		case t.Proposed == b.Threshold:
			f.refuse(change, "leaves the threshold at %g", b.Threshold)
		default:
			t.Current = b.Threshold
			f.raised[t.BenchmarkID] = true
			f.ok.ThresholdIncreases = append(f.ok.ThresholdIncreases, t)
		}
	}
}

// newBenchmarks keeps valid benchmarks with fresh ids, disabled until the cycle enables them.
func (f *filter) newBenchmarks(bs []Benchmark) {
	for _, b := range bs {
		change := "new benchmark " + b.ID
		if err := checkNew(f.ids, b.ID); err != nil {
			f.refuse(change, "%v", err)
		} else if err := validateTest(b.Question, b.Gold, b.Threshold, true); err != nil {
			f.refuse(change, "invalid: %v", err)
		} else if bad := TrivialFacts(b.ID, b.Gold); len(bad) > 0 {
			f.refuse(change, "%s; a gold pattern must name the fact, not match any report", strings.Join(bad, "; "))
		} else {
			f.ids[b.ID] = "benchmark"
			b.Enabled = false
			f.ok.NewBenchmarks = append(f.ok.NewBenchmarks, b)
		}
	}
}

// newEdgeCases keeps described edge cases with fresh ids (valid tests when they carry a
// question or gold), disabled until the cycle enables them.
func (f *filter) newEdgeCases(es []EdgeCase) {
	for _, e := range es {
		change := "new edge case " + e.ID
		var err error
		if err = checkNew(f.ids, e.ID); err == nil && strings.TrimSpace(e.Description) == "" {
			err = fmt.Errorf("no description")
		}
		if err == nil && (e.Question != "" || len(e.Gold) > 0) {
			err = validateTest(e.Question, e.Gold, e.Threshold, true)
		}
		if bad := TrivialFacts(e.ID, e.Gold); err == nil && len(bad) > 0 {
			err = fmt.Errorf("%s; a gold pattern must name the fact, not match any report", strings.Join(bad, "; "))
		}
		if err != nil {
			f.refuse(change, "%v", err)
		} else {
			f.ids[e.ID] = "edge case"
			e.Enabled = false
			f.ok.NewEdgeCases = append(f.ok.NewEdgeCases, e)
		}
	}
}

// enables keeps enabling any test the harness or this proposal has.
func (f *filter) enables(ids []string) {
	for _, id := range ids {
		if _, found := f.ids[id]; !found {
			f.refuse("enable "+id, "no test %q", id)
		} else {
			f.ok.EnableTests = append(f.ok.EnableTests, id)
		}
	}
}

// regressions keeps making enabled benchmarks of the harness regression tests; a test that has
// not passed at baseline yet cannot be one.
func (f *filter) regressions(ids []string) {
	for _, id := range ids {
		b, found := f.current.Benchmark(id)
		switch {
		case !found:
			f.refuse("regression "+id, "benchmark %s is not enabled yet: it becomes a regression test only after it passes at baseline and is enabled (import it first, then list it)", id)
		case !b.Enabled:
			f.refuse("regression "+id, "benchmark %s is disabled: it becomes a regression test only once enabled", id)
		case f.current.IsRegression(id):
			f.refuse("regression "+id, "%s is already a regression test", id)
		default:
			f.ok.NewRegressionTests = append(f.ok.NewRegressionTests, id)
		}
	}
}

// gates keeps a gate change that tightens or keeps every gate and changes at least one.
func (f *filter) gates(g *Gates) {
	if g == nil {
		return
	}
	cur := f.current.Gates
	var weak []string
	if g.MinCitationValidity < cur.MinCitationValidity {
		weak = append(weak, fmt.Sprintf("min_citation_validity %g -> %g", cur.MinCitationValidity, g.MinCitationValidity))
	}
	if g.MaxInvalidCitations > cur.MaxInvalidCitations {
		weak = append(weak, fmt.Sprintf("max_invalid_citations %d -> %d", cur.MaxInvalidCitations, g.MaxInvalidCitations))
	}
	switch {
	case len(weak) > 0:
		f.refuse("gates", "weakens a gate (%s)", strings.Join(weak, ", "))
	case g.MinCitationValidity > 1:
		f.refuse("gates", "min_citation_validity %g is above 1", g.MinCitationValidity)
	case g.MaxInvalidCitations < 0:
		f.refuse("gates", "max_invalid_citations %d is negative", g.MaxInvalidCitations)
	case *g != cur:
		gg := *g
		f.ok.Gates = &gg
	}
}

// weakenings refuses every removal, disabling and rewrite: they are listed only to be recorded.
func (f *filter) weakenings(p Proposal) {
	for _, id := range p.RemoveTests {
		f.refuse("remove "+id, "removes a test: the harness only becomes more rigorous")
	}
	for _, id := range p.DisableTests {
		f.refuse("disable "+id, "disables a test: the harness only becomes more rigorous")
	}
	for _, id := range p.RewriteTests {
		f.refuse("rewrite "+id, "changes an existing test's question or gold facts; add a new test instead")
	}
}

func checkNew(ids map[string]string, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("no id")
	}
	if kind, found := ids[id]; found {
		return fmt.Errorf("id %q already names a %s; a new test cannot replace one", id, kind)
	}
	return nil
}

// Ratchet refuses p as a whole when any of its changes would make current less rigorous.
func Ratchet(current Harness, p Proposal) error {
	_, refused := Filter(current, p)
	if len(refused) == 0 {
		return nil
	}
	reasons := make([]string, len(refused))
	for i, r := range refused {
		reasons[i] = r.Change + ": " + r.Reason
	}
	return fmt.Errorf("ratchet refused %d change(s): %s", len(refused), strings.Join(reasons, "; "))
}

// Apply makes the candidate of an accepted proposal: thresholds raised, gates tightened, tests
// enabled, new tests added disabled. It re-checks the ratchet, whoever approved p.
func Apply(current Harness, p Proposal) (Harness, error) {
	if err := Ratchet(current, p); err != nil {
		return current, err
	}
	h := current.Clone()
	for _, t := range p.ThresholdIncreases {
		for i := range h.Benchmarks {
			if h.Benchmarks[i].ID == t.BenchmarkID {
				h.Benchmarks[i].Threshold = t.Proposed
			}
		}
	}
	if p.Gates != nil {
		h.Gates = *p.Gates
	}
	for _, b := range p.NewBenchmarks {
		b.Enabled = false
		h.Benchmarks = append(h.Benchmarks, b)
	}
	for _, e := range p.NewEdgeCases {
		e.Enabled = false
		h.EdgeCases = append(h.EdgeCases, e)
	}
	for _, id := range p.EnableTests {
		h, _ = Enable(h, id)
	}
	h.RegressionTests = append(h.RegressionTests, p.NewRegressionTests...)
	return h, nil
}

// NewTests lists the ids p adds, in the order they are to be enabled.
func (p Proposal) NewTests() []string {
	var ids []string
	for _, b := range p.NewBenchmarks {
		ids = append(ids, b.ID)
	}
	for _, e := range p.NewEdgeCases {
		ids = append(ids, e.ID)
	}
	return ids
}

// Enable turns one test on.
func Enable(h Harness, id string) (Harness, error) {
	h = h.Clone()
	for i := range h.Benchmarks {
		if h.Benchmarks[i].ID == id {
			h.Benchmarks[i].Enabled = true
			return h, nil
		}
	}
	for i := range h.EdgeCases {
		if h.EdgeCases[i].ID == id {
			h.EdgeCases[i].Enabled = true
			return h, nil
		}
	}
	return h, fmt.Errorf("no test %q", id)
}

// RollbackNeeded reports whether more than half of the new tests failed at once.
func RollbackNeeded(failed, total int) bool { return total > 0 && 2*failed > total }

// Baseline is the tally of an application's baseline runs: the new (or re-enabled) tests that
// run, the existing benchmarks re-run at the new thresholds, and the documented edge cases
// that have nothing to run, counted apart so they can neither pass nor fail the rule.
type Baseline struct {
	NewRun      int `json:"new_run"`
	NewFailed   int `json:"new_failed"`
	RerunRun    int `json:"rerun_run"`
	RerunFailed int `json:"rerun_failed"`
	Documented  int `json:"documented"`
}

// Rollback reports whether the application must roll back: more than half of the new tests
// that ran, or more than half of the re-run existing benchmarks, failed.
func (b Baseline) Rollback() bool {
	return RollbackNeeded(b.NewFailed, b.NewRun) || RollbackNeeded(b.RerunFailed, b.RerunRun)
}

// String says what failed, for the expansion's note and log.
func (b Baseline) String() string {
	return fmt.Sprintf("%d of %d new tests and %d of %d re-run benchmarks failed at baseline; %d documented edge case(s) not counted",
		b.NewFailed, b.NewRun, b.RerunFailed, b.RerunRun, b.Documented)
}

// RetryPerCycle bounds how many disabled tests (new tests that failed at baseline) a cycle
// retries, so a long backlog cannot double a cycle's cost.
const RetryPerCycle = 3

// Pending lists the disabled tests with a question, oldest first: new tests that failed at
// baseline and wait for a retry.
func (h Harness) Pending() []string {
	var ids []string
	for _, b := range h.Benchmarks {
		if !b.Enabled {
			ids = append(ids, b.ID)
		}
	}
	for _, e := range h.EdgeCases {
		if !e.Enabled && e.Question != "" {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// DeterministicProposal raises the threshold of every enabled benchmark at the ceiling
// (AtCeiling against its threshold in force) to CeilingMargin below its last score, and at
// least by ThresholdStep, up to 1: after it the benchmark is no longer at the ceiling. The
// fallback when no model is configured; generated benchmarks are added by the activity.
func DeterministicProposal(h Harness, scores map[string]float64, cycle int) Proposal {
	var p Proposal
	ids := make([]string, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		b, ok := h.Benchmark(id)
		if !ok || !b.Enabled || !AtCeiling(scores[id], b.Threshold) || b.Threshold >= 1 {
			continue
		}
		proposed := math.Min(1, math.Max(hundredths(b.Threshold+ThresholdStep), hundredths(scores[id]-CeilingMargin)))
		p.ThresholdIncreases = append(p.ThresholdIncreases, ThresholdIncrease{
			BenchmarkID: id, Current: b.Threshold, Proposed: proposed,
			Rationale: fmt.Sprintf("scored %.2f in cycle %d, above the %.2f ceiling with %.2f of headroom over its threshold", scores[id], cycle, CeilingScore, scores[id]-b.Threshold),
		})
	}
	if len(p.ThresholdIncreases) > 0 {
		p.Rationale = "deterministic: raise the thresholds of benchmarks at the ceiling to within the ceiling margin of their scores"
	}
	return p
}

func hundredths(v float64) float64 { return math.Round(v*100) / 100 }

// Diff expresses next as a proposal over current, so a hand-edited harness goes through the
// same ratchet as an expansion.
func Diff(current, next Harness) Proposal {
	var p Proposal
	nextB := map[string]Benchmark{}
	for _, b := range next.Benchmarks {
		nextB[b.ID] = b
	}
	nextE := map[string]EdgeCase{}
	for _, e := range next.EdgeCases {
		nextE[e.ID] = e
	}
	p.diffBenchmarks(current.Benchmarks, nextB)
	p.diffEdgeCases(current.EdgeCases, nextE)
	for _, b := range next.Benchmarks {
		if _, added := nextB[b.ID]; added {
			p.NewBenchmarks = append(p.NewBenchmarks, b)
		}
	}
	for _, e := range next.EdgeCases {
		if _, added := nextE[e.ID]; added {
			p.NewEdgeCases = append(p.NewEdgeCases, e)
		}
	}
	for _, id := range current.RegressionTests {
		if !next.IsRegression(id) {
			p.RemoveTests = append(p.RemoveTests, id+" (regression)")
		}
	}
	for _, id := range next.RegressionTests {
		if !current.IsRegression(id) {
			p.NewRegressionTests = append(p.NewRegressionTests, id)
		}
	}
	if next.Gates != current.Gates {
		g := next.Gates
		p.Gates = &g
	}
	return p
}

// diffBenchmarks records how each current benchmark changed in next, deleting it from next
// so what remains there is new.
func (p *Proposal) diffBenchmarks(current []Benchmark, next map[string]Benchmark) {
	for _, b := range current {
		n, ok := next[b.ID]
		switch {
		case !ok:
			p.RemoveTests = append(p.RemoveTests, b.ID)
			continue
		case n.Question != b.Question || fmt.Sprint(n.Gold) != fmt.Sprint(b.Gold):
			p.RewriteTests = append(p.RewriteTests, b.ID)
		}
		if n.Threshold != b.Threshold {
			p.ThresholdIncreases = append(p.ThresholdIncreases, ThresholdIncrease{BenchmarkID: b.ID, Current: b.Threshold, Proposed: n.Threshold, Rationale: "edited"})
		}
		p.diffEnabled(b.ID, b.Enabled, n.Enabled)
		delete(next, b.ID)
	}
}

// diffEdgeCases is diffBenchmarks for edge cases, whose thresholds cannot be raised by a
// proposal: a lowered one is a rewrite.
func (p *Proposal) diffEdgeCases(current []EdgeCase, next map[string]EdgeCase) {
	for _, e := range current {
		n, ok := next[e.ID]
		switch {
		case !ok:
			p.RemoveTests = append(p.RemoveTests, e.ID)
			continue
		case n.Question != e.Question || fmt.Sprint(n.Gold) != fmt.Sprint(e.Gold) || n.Threshold < e.Threshold:
			p.RewriteTests = append(p.RewriteTests, e.ID)
		}
		p.diffEnabled(e.ID, e.Enabled, n.Enabled)
		delete(next, e.ID)
	}
}

func (p *Proposal) diffEnabled(id string, was, is bool) {
	if was && !is {
		p.DisableTests = append(p.DisableTests, id)
	} else if !was && is {
		p.EnableTests = append(p.EnableTests, id)
	}
}
