package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/plan"
)

// PlanInput asks for a research plan.
type PlanInput struct {
	Question   string   `json:"question"`
	KnownFacts []string `json:"known_facts,omitempty"`
	UseModel   bool     `json:"use_model"`
	// Provider is the search provider the plan is for: its index weighs the query words.
	Provider string `json:"provider,omitempty"`
}

// PlanOutput is the plan and what making it cost.
type PlanOutput struct {
	Plan  Plan  `json:"plan"`
	Usage Usage `json:"usage"`
}

// PlanResearch makes the plan before any search: targeted queries, never the raw question.
func (a *Activities) PlanResearch(ctx context.Context, in PlanInput) (PlanOutput, error) {
	if err := config.ValidateQuestion(in.Question); err != nil {
		return PlanOutput{}, badInput(nil, "plan: %v", err)
	}
	if in.UseModel && a.model != nil && a.model.Configured(llm.Planner) {
		return a.modelPlan(ctx, in)
	}
	p := deterministicPlan(in.Question, in.KnownFacts, a.vocabulary(ctx, in.Provider))
	if in.UseModel {
		p.FallbackReason = "no planner model configured"
	}
	return PlanOutput{Plan: p}, nil
}

// deterministicPlan splits the question into its aspects and searches each with its words that
// discriminate in the provider's index (vocab nil: every word weighs the same).
func deterministicPlan(question string, known []string, vocab plan.Vocabulary) Plan {
	qs, aspects := plan.AspectPlan(question, vocab)
	if len(qs) == 0 {
		qs = plan.Queries(question) // the index knows none of the words: search them anyway
	}
	qs = knownLast(qs, aspects, known)
	p := Plan{SearchQueries: qs, KnownFacts: known, Planner: "deterministic", Aspects: aspects}
	for _, a := range aspects {
		p.KnowledgeGaps = append(p.KnowledgeGaps, a.Text)
	}
	for _, q := range qs {
		p.Subtasks = append(p.Subtasks, "search: "+q)
	}
	return p
}

// knownLast moves the queries of aspects the recalled facts already cover to the end, so the
// rounds go first to what memory does not hold; the whole-question query stays first.
func knownLast(qs []string, aspects []plan.Aspect, known []string) []string {
	if len(known) == 0 || len(qs) < 2 {
		return qs
	}
	cov := plan.AspectCoverage(aspects, known)
	covered := map[string]bool{}
	for i, a := range aspects {
		if cov[i] >= 1 && a.Query != "" {
			covered[a.Query] = true
		}
	}
	out := []string{qs[0]}
	var later []string
	for _, q := range qs[1:] {
		if covered[q] {
			later = append(later, q)
		} else {
			out = append(out, q)
		}
	}
	return append(out, later...)
}

// docFreqs is a provider that knows its own index's document frequencies (the corpus).
type docFreqs interface {
	DocFreq(ctx context.Context, stems []string) (map[string]int, int, error)
}

// headingFreqs is a provider that also knows which words its titles and headings use.
type headingFreqs interface {
	docFreqs
	HeadingFreq(ctx context.Context, stems []string) (map[string]int, error)
}

// vocabulary is the provider's index as the planner's word weights; nil when it has none.
func (a *Activities) vocabulary(ctx context.Context, provider string) plan.Vocabulary {
	switch d := a.providers[provider].(type) {
	case headingFreqs:
		return ctxHeadingVocabulary{ctxVocabulary{ctx: ctx, d: d}, d}
	case docFreqs:
		return ctxVocabulary{ctx: ctx, d: d}
	}
	return nil
}

type ctxHeadingVocabulary struct {
	ctxVocabulary
	h headingFreqs
}

func (v ctxHeadingVocabulary) HeadingFreq(stems []string) (map[string]int, error) {
	return v.h.HeadingFreq(v.ctx, stems)
}

type ctxVocabulary struct {
	ctx context.Context
	d   docFreqs
}

func (v ctxVocabulary) DocFreq(stems []string) (map[string]int, int, error) {
	return v.d.DocFreq(v.ctx, stems)
}

func (a *Activities) modelPlan(ctx context.Context, in PlanInput) (PlanOutput, error) {
	system, prompt := llm.PlanPrompt(in.Question, in.KnownFacts)
	var p llm.Plan
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Planner, system, prompt, llm.PlanSchema, &p,
		func() error { return p.Validate(in.Question) })
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			d := deterministicPlan(in.Question, in.KnownFacts, a.vocabulary(ctx, in.Provider))
			d.FallbackReason = reason
			return PlanOutput{Plan: d, Usage: u}, nil
		}
		return PlanOutput{}, err
	}
	if outcome.Fallback {
		d := deterministicPlan(in.Question, in.KnownFacts, a.vocabulary(ctx, in.Provider))
		d.FallbackReason = "model plan unusable: " + outcome.Reason
		return PlanOutput{Plan: d, Usage: u}, nil
	}
	// the raw question is never a query, whatever the model says
	var qs []string
	for _, q := range p.SearchQueries {
		if !plan.SameAsQuestion(q, in.Question) {
			qs = append(qs, strings.TrimSpace(q))
		}
	}
	_, aspects := plan.AspectPlan(in.Question, a.vocabulary(ctx, in.Provider))
	out := Plan{SearchQueries: qs, KnownFacts: in.KnownFacts, KnowledgeGaps: p.KnowledgeGaps, Subtasks: p.Subtasks,
		Planner: "model", Aspects: aspects}
	if len(out.KnownFacts) == 0 {
		out.KnownFacts = p.KnownFacts
	}
	if outcome.Repaired {
		out.FallbackReason = "repaired: " + outcome.Reason
	}
	return PlanOutput{Plan: out, Usage: u}, nil
}

// GapQueryInput asks for the next query for what the knowledge state does not yet cover.
type GapQueryInput struct {
	Question  string   `json:"question"`
	Knowledge string   `json:"knowledge"`
	Previous  []string `json:"previous"`
	UseModel  bool     `json:"use_model"`
	// Evidence (title and snippet of every source so far) lets the deterministic planner ask
	// the question's best-supported terms with words the passages most like the question share
	// (pseudo-relevance feedback); without it it falls back to the question's missing words.
	// Aspects are passed on to the planner (the feedback does not use them today).
	Aspects  []plan.Aspect `json:"aspects,omitempty"`
	Evidence []string      `json:"evidence,omitempty"`
	Provider string        `json:"provider,omitempty"`
}

// GapQueryOutput is the planned query; empty when nothing new can be asked.
type GapQueryOutput struct {
	Query    string `json:"query"`
	Planner  string `json:"planner"`
	Fallback string `json:"fallback,omitempty"`
	Usage    Usage  `json:"usage"`
}

// PlanQuery plans a gap-filling query for rounds past the planned ones.
func (a *Activities) PlanQuery(ctx context.Context, in GapQueryInput) (GapQueryOutput, error) {
	if in.UseModel && a.model != nil && a.model.Configured(llm.Planner) {
		return a.modelGapQuery(ctx, in)
	}
	out := GapQueryOutput{Query: a.deterministicGap(ctx, in), Planner: "deterministic"}
	if in.UseModel {
		out.Fallback = "no planner model configured"
	}
	return out, nil
}

// deterministicGap is the feedback query when the run passes its evidence, else the question's
// words the knowledge state lacks.
func (a *Activities) deterministicGap(ctx context.Context, in GapQueryInput) string {
	if len(in.Evidence) > 0 {
		if q := plan.FeedbackQuery(in.Question, in.Aspects, in.Evidence, in.Previous, a.vocabulary(ctx, in.Provider)); q != "" {
			return q
		}
	}
	return plan.GapQuery(in.Question, in.Knowledge, in.Previous)
}

func (a *Activities) modelGapQuery(ctx context.Context, in GapQueryInput) (GapQueryOutput, error) {
	system, prompt := llm.GapQueryPrompt(in.Question, in.Knowledge, nil, in.Previous)
	var g llm.GapQuery
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Planner, system, prompt, llm.GapQuerySchema, &g, g.Validate)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return GapQueryOutput{Query: a.deterministicGap(ctx, in), Planner: "deterministic", Fallback: reason, Usage: u}, nil
		}
		return GapQueryOutput{}, err
	}
	det := func(reason string) (GapQueryOutput, error) {
		return GapQueryOutput{Query: a.deterministicGap(ctx, in), Planner: "deterministic",
			Fallback: reason, Usage: u}, nil
	}
	if outcome.Fallback {
		return det("model query unusable: " + outcome.Reason)
	}
	q := strings.TrimSpace(g.Query)
	if plan.SameAsQuestion(q, in.Question) {
		return det("model query was the raw question; replaced")
	}
	for _, p := range in.Previous {
		if plan.Normalize(p) == plan.Normalize(q) {
			return det(fmt.Sprintf("model query %q repeats an earlier one; replaced", q))
		}
	}
	out := GapQueryOutput{Query: q, Planner: "model", Usage: u}
	if outcome.Repaired {
		out.Fallback = "repaired: " + outcome.Reason
	}
	return out, nil
}
