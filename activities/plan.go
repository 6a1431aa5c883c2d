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
	p := deterministicPlan(in.Question, in.KnownFacts)
	if in.UseModel {
		p.FallbackReason = "no planner model configured"
	}
	return PlanOutput{Plan: p}, nil
}

func deterministicPlan(question string, known []string) Plan {
	qs := plan.Queries(question)
	p := Plan{SearchQueries: qs, KnownFacts: known, Planner: "deterministic"}
	terms := plan.Terms(question)
	for _, t := range terms {
		p.KnowledgeGaps = append(p.KnowledgeGaps, "what the sources say about "+t)
		if len(p.KnowledgeGaps) == 3 {
			break
		}
	}
	for _, q := range qs {
		p.Subtasks = append(p.Subtasks, "search: "+q)
	}
	return p
}

func (a *Activities) modelPlan(ctx context.Context, in PlanInput) (PlanOutput, error) {
	system, prompt := llm.PlanPrompt(in.Question, in.KnownFacts)
	var p llm.Plan
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Planner, system, prompt, llm.PlanSchema, &p,
		func() error { return p.Validate(in.Question) })
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			d := deterministicPlan(in.Question, in.KnownFacts)
			d.FallbackReason = reason
			return PlanOutput{Plan: d, Usage: u}, nil
		}
		return PlanOutput{}, err
	}
	if outcome.Fallback {
		d := deterministicPlan(in.Question, in.KnownFacts)
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
	out := Plan{SearchQueries: qs, KnownFacts: in.KnownFacts, KnowledgeGaps: p.KnowledgeGaps, Subtasks: p.Subtasks, Planner: "model"}
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
	out := GapQueryOutput{Query: plan.GapQuery(in.Question, in.Knowledge, in.Previous), Planner: "deterministic"}
	if in.UseModel {
		out.Fallback = "no planner model configured"
	}
	return out, nil
}

func (a *Activities) modelGapQuery(ctx context.Context, in GapQueryInput) (GapQueryOutput, error) {
	system, prompt := llm.GapQueryPrompt(in.Question, in.Knowledge, nil, in.Previous)
	var g llm.GapQuery
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Planner, system, prompt, llm.GapQuerySchema, &g, g.Validate)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return GapQueryOutput{Query: plan.GapQuery(in.Question, in.Knowledge, in.Previous), Planner: "deterministic", Fallback: reason, Usage: u}, nil
		}
		return GapQueryOutput{}, err
	}
	det := func(reason string) (GapQueryOutput, error) {
		return GapQueryOutput{Query: plan.GapQuery(in.Question, in.Knowledge, in.Previous), Planner: "deterministic",
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
