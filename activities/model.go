package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/knowledge"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// Model is the narrow view of the Ollama client the activities use; *llm.Client satisfies it.
type Model interface {
	Configured(s llm.Stage) bool
	Generate(ctx context.Context, stage llm.Stage, system, prompt string) (string, llm.Usage, error)
	GenerateJSON(ctx context.Context, stage llm.Stage, system, prompt string, schema json.RawMessage, out any, validate func() error) (llm.Outcome, llm.Usage, error)
	GenerateFitted(ctx context.Context, stage llm.Stage, system, question string, evidence []string, render func(evidence []string) string) (string, llm.Usage, int, error)
	Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error)
	Describe(ctx context.Context, imagePath string) (string, llm.Usage, error)
}

// Capabilities says which model stages this worker has, so the workflow decides once, in
// recorded history, which stages run on a model.
type Capabilities struct {
	Planner     bool   `json:"planner"`
	Producer    bool   `json:"producer"`
	Evaluator   bool   `json:"evaluator"`
	Embedder    bool   `json:"embedder"`
	Vision      bool   `json:"vision"`
	Memory      bool   `json:"memory"`
	MemoryQueue string `json:"memory_queue,omitempty"`
}

// Any reports whether any generation stage is configured.
func (c Capabilities) Any() bool { return c.Planner || c.Producer || c.Evaluator }

// CapabilitiesInput is empty: one struct in, so fields can be added.
type CapabilitiesInput struct{}

// WorkerCapabilities reports the configured stages.
func (a *Activities) WorkerCapabilities(ctx context.Context, _ CapabilitiesInput) (Capabilities, error) {
	has := func(s llm.Stage) bool { return a.model != nil && a.model.Configured(s) }
	return Capabilities{Planner: has(llm.Planner), Producer: has(llm.Producer), Evaluator: has(llm.Evaluator),
		Embedder: has(llm.Embedder), Vision: has(llm.Vision), Memory: a.memoryQueue != "", MemoryQueue: a.memoryQueue}, nil
}

func promptSources(rs []search.Result) []llm.PromptSource {
	out := make([]llm.PromptSource, len(rs))
	for i, r := range rs {
		out[i] = llm.PromptSource{Title: r.Title, URL: r.URL, Text: r.Snippet}
	}
	return out
}

func (a *Activities) modelNovelty(ctx context.Context, in NoveltyInput, text string) (NoveltyOutput, error) {
	system, prompt := llm.NoveltyPrompt(in.Knowledge, promptSources(in.Results))
	answer, u, err := a.model.Generate(ctx, llm.Evaluator, system, prompt)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return NoveltyOutput{Score: novelty.Heuristic(text, in.Knowledge), Method: config.NoveltyHeuristic, Fallback: reason, Usage: u}, nil
		}
		return NoveltyOutput{}, err
	}
	score, ok := llm.ParseNovelty(answer)
	out := NoveltyOutput{Score: score, Method: config.NoveltyModel, Usage: u}
	if !ok {
		out.Score = llm.NeutralNovelty
		out.Fallback = fmt.Sprintf("evaluator answered %q with no integer; scored %d", search.Truncate(strings.TrimSpace(answer), 60), llm.NeutralNovelty)
	}
	return out, nil
}

func (a *Activities) embeddingNovelty(ctx context.Context, in NoveltyInput) (NoveltyOutput, error) {
	known := knowledge.Bullets(in.Knowledge)
	texts := make([]string, 0, len(in.Results)+len(known))
	for _, r := range in.Results {
		texts = append(texts, r.Title+". "+r.Snippet)
	}
	texts = append(texts, known...)
	vecs, u, err := a.model.Embed(ctx, texts)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return NoveltyOutput{Score: novelty.Heuristic(ResultsText(in.Results), in.Knowledge), Method: config.NoveltyHeuristic, Fallback: reason, Usage: u}, nil
		}
		return NoveltyOutput{}, err
	}
	if len(vecs) != len(texts) {
		return NoveltyOutput{Score: novelty.Heuristic(ResultsText(in.Results), in.Knowledge), Method: config.NoveltyHeuristic, Usage: u,
			Fallback: fmt.Sprintf("embedder returned %d vectors for %d texts; scored heuristically", len(vecs), len(texts))}, nil
	}
	n := len(in.Results)
	return NoveltyOutput{Score: novelty.Embedding(vecs[:n], vecs[n:]), Method: config.NoveltyEmbedding, Usage: u}, nil
}

func (a *Activities) modelCompress(ctx context.Context, in CompressInput) (CompressOutput, error) {
	system, prompt := llm.CompressionPrompt(in.Question, in.Knowledge, promptSources(in.Results))
	var c llm.Compression
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Producer, system, prompt, llm.CompressionSchema, &c, c.Validate)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return CompressOutput{Knowledge: knowledge.Compress(in.Knowledge, in.Results, in.Cap), Compressor: "deterministic", Fallback: reason, Usage: u}, nil
		}
		return CompressOutput{}, err
	}
	if outcome.Fallback {
		return CompressOutput{Knowledge: knowledge.Compress(in.Knowledge, in.Results, in.Cap), Compressor: "deterministic",
			Fallback: "model answer unusable: " + outcome.Reason, Usage: u}, nil
	}
	out := CompressOutput{Knowledge: knowledge.Join(c.Facts, in.Cap), Compressor: "model", Usage: u}
	if outcome.Repaired {
		out.Fallback = "repaired: " + outcome.Reason
	}
	return out, nil
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

// ModelAttempts is how many times a model stage is tried before it falls back: the workflow's
// retry policy for model activities allows exactly this many.
const ModelAttempts = 3

// lastAttemptDown says whether a model error should end in the deterministic fallback: Temporal
// has retried the stage as often as the workflow allows, so a run never fails because of its
// model. The reason names host and model (the llm errors carry both).
func lastAttemptDown(ctx context.Context, err error) (string, bool) {
	if ctx.Err() != nil || activity.GetInfo(ctx).Attempt < ModelAttempts {
		return "", false
	}
	what := "failed"
	if llm.IsUnavailable(err) || llm.IsModelMissing(err) {
		what = "unavailable"
	}
	return fmt.Sprintf("model %s after %d attempts, deterministic fallback: %v", what, ModelAttempts, err), true
}

// PrepareTask is the vision bridge: local image paths in the task are replaced by
// "[Image: description]" from the vision model. URLs and missing files stay as they are.
func (a *Activities) PrepareTask(ctx context.Context, in PrepareInput) (PrepareOutput, error) {
	paths := llm.FindImagePaths(in.Question)
	out := PrepareOutput{Task: in.Question}
	if len(paths) == 0 {
		return out, nil
	}
	if !in.UseModel || a.model == nil || !a.model.Configured(llm.Vision) {
		out.Notes = append(out.Notes, fmt.Sprintf("%d local image(s) in the task were left as paths: no vision model configured", len(paths)))
		return out, nil
	}
	desc := map[string]string{}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if in.MaxCalls > 0 && out.Images >= in.MaxCalls {
			out.Notes = append(out.Notes, fmt.Sprintf("image %s left as a path: model budget", p))
			continue
		}
		d, u, err := a.model.Describe(ctx, p)
		out.Usage.Add(u)
		if err != nil {
			return PrepareOutput{}, err
		}
		desc[p] = strings.TrimSpace(d)
		out.Images++
	}
	out.Task = llm.ReplaceImages(in.Question, desc)
	out.Notes = append(out.Notes, fmt.Sprintf("vision bridge described %d image(s)", out.Images))
	return out, nil
}
