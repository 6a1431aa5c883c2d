package investigate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/plan"
)

// QueryEvent is one query of one source loop, as shown in progress and the report's appendix.
type QueryEvent struct {
	Task       string `json:"task"`
	Hypothesis string `json:"hypothesis"`
	Source     string `json:"source"`
	N          int    `json:"n"` // query number within this source loop
	Query      string `json:"query"`
	Results    int    `json:"results"`
	New        int    `json:"new"`
	Duplicates int    `json:"duplicates"`
	// Incremental is the share of this query's results that were new, in percent.
	Incremental float64 `json:"incremental"`
	Reasoning   string  `json:"reasoning"`
	Decider     string  `json:"decider"` // model, heuristic, breadcrumb, entity
	Expected    string  `json:"expected_new_results,omitempty"`
	Fallback    string  `json:"fallback,omitempty"`
	Error       string  `json:"error,omitempty"`
	Cached      bool    `json:"cached,omitempty"`
}

// Deciders.
const (
	DeciderModel      = "model"
	DeciderHeuristic  = "heuristic"
	DeciderBreadcrumb = "breadcrumb"
	DeciderEntity     = "entity"
	// DeciderConfirmation is a search of the official sources for a contested claim.
	DeciderConfirmation = "confirmation"
)

// DuplicateStopShare: the heuristic stops a source when more than this share of its last
// query's results were already seen.
const DuplicateStopShare = 0.8

// Incremental is the percentage of results that were new.
func Incremental(results, fresh int) float64 {
	if results == 0 {
		return 0
	}
	return novelty.Round2(100 * float64(fresh) / float64(results))
}

// HeuristicStop says whether a source loop should stop before its next query: at the ceiling,
// when the last query's results were more than 80% duplicates, or after two empty answers.
func HeuristicStop(history []QueryEvent, ceiling int) (bool, string) {
	if len(history) >= ceiling {
		return true, fmt.Sprintf("ceiling of %d queries reached", ceiling)
	}
	var done []QueryEvent
	for _, e := range history {
		if e.Error == "" {
			done = append(done, e)
		}
	}
	if len(done) == 0 {
		return false, ""
	}
	last := done[len(done)-1]
	if last.Results > 0 && float64(last.Duplicates) > DuplicateStopShare*float64(last.Results) {
		return true, fmt.Sprintf("saturated: %d of %d results of query %d were duplicates (> %.0f%%)",
			last.Duplicates, last.Results, last.N, 100*DuplicateStopShare)
	}
	if len(done) >= 2 && last.Results == 0 && done[len(done)-2].Results == 0 {
		return true, "the last two queries returned nothing"
	}
	return false, ""
}

// DecisionContext is everything the per-query decision sees.
type DecisionContext struct {
	Question        string       `json:"question"`
	Task            string       `json:"task"`
	Hypothesis      string       `json:"hypothesis"`
	Source          string       `json:"source"`
	Characteristics string       `json:"characteristics"`
	History         []QueryEvent `json:"history"`
	UniqueSoFar     int          `json:"unique_so_far"`
	Ceiling         int          `json:"ceiling"`
	OpenGaps        []string     `json:"open_gaps,omitempty"`
	// SeedQueries are the hypothesis's planned queries, asked first by the heuristic.
	SeedQueries []string `json:"seed_queries,omitempty"`
	// Seen is bounded text of the source's results so far (titles and snippets), for gap terms.
	Seen string `json:"seen,omitempty"`
	// RecentTitles are the titles of the last query's new results, for query expansion.
	RecentTitles []string `json:"recent_titles,omitempty"`
	// Asked are the queries this source already ran for earlier hypotheses: never repeated.
	Asked []string `json:"asked,omitempty"`
}

// Previous lists the queries this source already ran, earlier hypotheses included.
func (c DecisionContext) Previous() []string {
	out := append([]string{}, c.Asked...)
	for _, e := range c.History {
		out = append(out, e.Query)
	}
	return out
}

// Decision is the model's answer before each query, validated before use.
type Decision struct {
	Action                 string `json:"action"` // continue or stop
	Reasoning              string `json:"reasoning"`
	NextQuery              string `json:"next_query"`
	QueryRationale         string `json:"query_rationale"`
	ExpectedNewResults     string `json:"expected_new_results"` // high, medium, low
	ConfidenceGapsFillable int    `json:"confidence_gaps_fillable"`
}

// Actions.
const (
	ActionContinue = "continue"
	ActionStop     = "stop"
)

// MaxQueryChars bounds a query the model proposes.
const MaxQueryChars = 200

// DecisionSchema constrains the model's answer (Ollama `format`).
var DecisionSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["continue", "stop"]},
    "reasoning": {"type": "string", "maxLength": 400},
    "next_query": {"type": "string", "maxLength": 200},
    "query_rationale": {"type": "string", "maxLength": 300},
    "expected_new_results": {"type": "string", "enum": ["high", "medium", "low"]},
    "confidence_gaps_fillable": {"type": "integer", "minimum": 0, "maximum": 100}
  },
  "required": ["action", "reasoning", "next_query", "query_rationale", "expected_new_results", "confidence_gaps_fillable"]
}`)

// Validate checks a decision against its context: a known action, a usable query that is
// neither the raw question nor a repeat when continuing, values in range.
func (d *Decision) Validate(c DecisionContext) error {
	d.Action = strings.ToLower(strings.TrimSpace(d.Action))
	d.NextQuery = strings.TrimSpace(d.NextQuery)
	d.ExpectedNewResults = strings.ToLower(strings.TrimSpace(d.ExpectedNewResults))
	switch d.Action {
	case ActionContinue, ActionStop:
	default:
		return fmt.Errorf("action %q is not continue or stop", d.Action)
	}
	if strings.TrimSpace(d.Reasoning) == "" {
		return errors.New("reasoning is empty")
	}
	switch d.ExpectedNewResults {
	case "high", "medium", "low":
	default:
		return fmt.Errorf("expected_new_results %q is not high, medium or low", d.ExpectedNewResults)
	}
	if d.ConfidenceGapsFillable < 0 || d.ConfidenceGapsFillable > 100 {
		return fmt.Errorf("confidence_gaps_fillable %d out of range [0,100]", d.ConfidenceGapsFillable)
	}
	if d.Action == ActionStop {
		return nil
	}
	if plan.Normalize(d.NextQuery) == "" {
		return errors.New("next_query is empty while continuing")
	}
	if len(d.NextQuery) > MaxQueryChars {
		return fmt.Errorf("next_query is %d chars; the limit is %d", len(d.NextQuery), MaxQueryChars)
	}
	if plan.SameAsQuestion(d.NextQuery, c.Question) {
		return errors.New("next_query is the raw question")
	}
	for _, p := range c.Previous() {
		if plan.Normalize(p) == plan.Normalize(d.NextQuery) {
			return fmt.Errorf("next_query %q repeats an earlier query", d.NextQuery)
		}
	}
	return nil
}

// DecisionSystem is the system prompt of the per-query decision.
const DecisionSystem = `You direct one search source in an investigation. Before each query you decide whether this source can still yield new, relevant results for the hypothesis. Continue while queries keep finding new results; stop when the source is saturated (mostly duplicates), off-topic, or the open gaps cannot be filled here. When continuing, propose one short keyword query (not the question itself, never a repeat) that targets what is still missing. Answer with one JSON object only.`

// DecisionPrompt renders the per-query decision prompt.
func DecisionPrompt(c DecisionContext) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\nTask: %s\nHypothesis: %s\n", c.Question, c.Task, c.Hypothesis)
	fmt.Fprintf(&b, "Source: %s\nSource characteristics: %s\n", c.Source, c.Characteristics)
	fmt.Fprintf(&b, "Query ceiling for this source: %d (used %d)\nUnique results so far: %d\n", c.Ceiling, len(c.History), c.UniqueSoFar)
	b.WriteString("This source's query history:\n")
	if len(c.History) == 0 {
		b.WriteString("  (none yet: this is the first query)\n")
	}
	for _, e := range c.History {
		if e.Error != "" {
			fmt.Fprintf(&b, "  %d. %q -> failed: %s\n", e.N, e.Query, e.Error)
			continue
		}
		fmt.Fprintf(&b, "  %d. %q -> %d results, %d new, %d duplicates (%.0f%% new); reasoning: %s\n",
			e.N, e.Query, e.Results, e.New, e.Duplicates, e.Incremental, oneLine(e.Reasoning))
	}
	if len(c.OpenGaps) > 0 {
		b.WriteString("Open gaps:\n")
		for _, g := range c.OpenGaps {
			fmt.Fprintf(&b, "  - %s\n", g)
		}
	}
	if len(c.RecentTitles) > 0 {
		fmt.Fprintf(&b, "Titles of the last new results: %s\n", strings.Join(c.RecentTitles, " | "))
	}
	b.WriteString(`Reply with JSON: {"action":"continue|stop","reasoning":"...","next_query":"...","query_rationale":"...","expected_new_results":"high|medium|low","confidence_gaps_fillable":0-100}`)
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// HeuristicDecision is the deterministic counterpart of the model's decision.
func HeuristicDecision(c DecisionContext) Decision {
	if stop, why := HeuristicStop(c.History, c.Ceiling); stop {
		return Decision{Action: ActionStop, Reasoning: why, ExpectedNewResults: "low"}
	}
	q, why := NextQuery(c)
	if q == "" {
		return Decision{Action: ActionStop, Reasoning: "no new query left to ask", ExpectedNewResults: "low"}
	}
	reason := "first query of this source"
	expected := "high"
	if n := len(c.History); n > 0 {
		last := c.History[n-1]
		reason = fmt.Sprintf("last query found %d new of %d (%.0f%% new): not saturated", last.New, last.Results, last.Incremental)
		expected = "medium"
		if last.Incremental < 50 {
			expected = "low"
		}
	}
	return Decision{Action: ActionContinue, Reasoning: reason, NextQuery: q, QueryRationale: why,
		ExpectedNewResults: expected, ConfidenceGapsFillable: 100 - 10*min(len(c.History), 10)}
}

// NextQuery plans the next query deterministically: the hypothesis's planned queries first,
// then, alternating, the hypothesis terms the results do not cover yet and the hypothesis's
// anchor term with new words from the latest result titles. It never repeats a query and never
// returns the raw question.
func NextQuery(c DecisionContext) (string, string) {
	prev := c.Previous()
	used := make(map[string]bool, len(prev))
	for _, p := range prev {
		used[plan.Normalize(p)] = true
	}
	ok := func(q string) bool {
		n := plan.Normalize(q)
		return n != "" && !used[n] && !plan.SameAsQuestion(q, c.Question) && len(q) <= MaxQueryChars
	}
	for _, q := range c.SeedQueries {
		if ok(q) {
			return q, "planned query for the hypothesis"
		}
	}
	gap := plan.GapQuery(c.Hypothesis, c.Seen, c.Previous())
	first, second := gap, expansionQuery(c, prev)
	firstWhy, secondWhy := "hypothesis terms the results do not cover yet", "new terms from the latest result titles"
	if len(c.History)%2 == 1 {
		first, second, firstWhy, secondWhy = second, first, secondWhy, firstWhy
	}
	if ok(first) {
		return first, firstWhy
	}
	if ok(second) {
		return second, secondWhy
	}
	return "", ""
}

// expansionQuery anchors the hypothesis's most salient term with up to two terms from the
// latest result titles that neither the hypothesis nor an earlier query used.
func expansionQuery(c DecisionContext, prev []string) string {
	terms := plan.Terms(c.Hypothesis)
	if len(terms) == 0 {
		return ""
	}
	anchor := Salient(terms, 1)[0]
	have := map[string]bool{}
	for _, t := range terms {
		have[strings.ToLower(t)] = true
	}
	for _, p := range prev {
		for _, w := range strings.Fields(plan.Normalize(p)) {
			have[w] = true
		}
	}
	var extra []string
	for _, title := range c.RecentTitles {
		for _, t := range plan.Terms(title) {
			lt := strings.ToLower(t)
			if have[lt] || len(lt) < 3 || isNumber(lt) {
				continue
			}
			have[lt] = true
			extra = append(extra, t)
			if len(extra) == 2 {
				return anchor + " " + strings.Join(extra, " ")
			}
		}
	}
	if len(extra) > 0 {
		return anchor + " " + strings.Join(extra, " ")
	}
	return ""
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' && r != '-' {
			return false
		}
	}
	return true
}

// Salient returns the n most salient terms (identifiers, acronyms, long words first), in
// their original order.
func Salient(terms []string, n int) []string {
	if len(terms) <= n {
		return terms
	}
	score := func(t string) int {
		s := len(t)
		for _, r := range t {
			if unicode.IsUpper(r) || unicode.IsDigit(r) {
				s += 3
			}
		}
		return s
	}
	keep := make([]bool, len(terms))
	for k := 0; k < n; k++ {
		best := -1
		for i, t := range terms {
			if !keep[i] && (best < 0 || score(t) > score(terms[best])) {
				best = i
			}
		}
		keep[best] = true
	}
	var out []string
	for i, t := range terms {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}

// Coverage is the assessment after a hypothesis: is the next one worth running?
type Coverage struct {
	Continue     bool     `json:"continue"`
	Reason       string   `json:"reason"`
	NewUnique    int      `json:"new_unique"`
	Uncovered    []string `json:"uncovered,omitempty"` // question terms no result mentions yet
	CoveredTerms int      `json:"covered_terms"`
	TotalTerms   int      `json:"total_terms"`
}

// MinNewForNext: a hypothesis that added fewer new unique results than this, with every
// question term already covered, means the next hypothesis is not worth running.
const MinNewForNext = 3

// AssessCoverage decides whether the next hypothesis is worth running from what the last one
// added and which question terms the results still do not mention.
func AssessCoverage(question, seen string, newUnique, remaining int) Coverage {
	terms := plan.Terms(question)
	known := novelty.WordSet(seen)
	c := Coverage{NewUnique: newUnique, TotalTerms: len(terms)}
	for _, t := range terms {
		if known[strings.ToLower(t)] {
			c.CoveredTerms++
		} else {
			c.Uncovered = append(c.Uncovered, t)
		}
	}
	switch {
	case remaining == 0:
		c.Reason = "no hypothesis left"
	case newUnique >= MinNewForNext:
		c.Continue = true
		c.Reason = fmt.Sprintf("the last hypothesis added %d new unique results: the topic is not exhausted", newUnique)
	case len(c.Uncovered) > 0:
		c.Continue = true
		c.Reason = fmt.Sprintf("question terms not covered yet: %s", strings.Join(c.Uncovered, ", "))
	default:
		c.Reason = fmt.Sprintf("the last hypothesis added only %d new unique results and every question term is covered", newUnique)
	}
	return c
}

// Budget is the circuit breaker over the whole investigation; 0 means unlimited.
type Budget struct {
	MaxModelCalls  int `json:"max_model_calls,omitempty"`
	MaxSearchCalls int `json:"max_search_calls,omitempty"`
}

// Spend is what the investigation has used.
type Spend struct {
	ModelCalls  int `json:"model_calls"`
	SearchCalls int `json:"search_calls"`
}

// Add accumulates o into s.
func (s *Spend) Add(o Spend) {
	s.ModelCalls += o.ModelCalls
	s.SearchCalls += o.SearchCalls
}

// Tripped reports whether the spend has reached a limit, with the reason for the report.
func (b Budget) Tripped(s Spend) (bool, string) {
	if b.MaxSearchCalls > 0 && s.SearchCalls >= b.MaxSearchCalls {
		return true, fmt.Sprintf("search budget reached: %d/%d calls", s.SearchCalls, b.MaxSearchCalls)
	}
	if b.MaxModelCalls > 0 && s.ModelCalls >= b.MaxModelCalls {
		return true, fmt.Sprintf("model budget reached: %d/%d calls", s.ModelCalls, b.MaxModelCalls)
	}
	return false, ""
}

// ModelCallsPerDecision is the most one decision can cost: the answer and one repair.
const ModelCallsPerDecision = 2

// ModelFits reports whether one more decision, repair included, fits the model budget; a
// negative limit means none is left.
func (b Budget) ModelFits(s Spend) bool {
	return b.MaxModelCalls == 0 || b.MaxModelCalls > 0 && s.ModelCalls+ModelCallsPerDecision <= b.MaxModelCalls
}

// Split divides what is left of the budget among n parallel loops so that together they never
// exceed it; ok[i] is false for a loop that gets nothing (it is not started).
func (b Budget) Split(s Spend, n int) (shares []Budget, ok []bool) {
	part := func(max, used, i int) (int, bool) {
		if max == 0 {
			return 0, true
		}
		left := max - used
		if left <= 0 {
			return 0, false
		}
		share := left / n
		if i < left%n {
			share++
		}
		return share, share > 0
	}
	shares, ok = make([]Budget, n), make([]bool, n)
	for i := range n {
		m, mok := part(b.MaxModelCalls, s.ModelCalls, i)
		q, qok := part(b.MaxSearchCalls, s.SearchCalls, i)
		if b.MaxModelCalls > 0 && !mok {
			m = -1 // no model calls left for this loop: it decides heuristically
		}
		shares[i], ok[i] = Budget{MaxModelCalls: m, MaxSearchCalls: q}, qok
	}
	return shares, ok
}
