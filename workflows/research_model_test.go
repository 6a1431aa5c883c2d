package workflows

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/search"
)

// brokenModel behaves like the tiny test models: JSON it cannot give, a novelty answer without
// a number, and a report citing a source that does not exist. It counts every call.
type brokenModel struct {
	mu    sync.Mutex
	calls int
	body  string
}

func (m *brokenModel) count() llm.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	return llm.Usage{Calls: 1, PromptTokens: 100, OutputTokens: 10}
}

func (m *brokenModel) Configured(llm.Stage) bool { return true }

func (m *brokenModel) Generate(ctx context.Context, _ llm.Stage, _, _ string) (string, llm.Usage, error) {
	return "Once upon a time there was a cat", m.count(), nil
}

func (m *brokenModel) GenerateJSON(ctx context.Context, _ llm.Stage, _, _ string, _ json.RawMessage, _ any, _ func() error) (llm.Outcome, llm.Usage, error) {
	u := m.count()
	u.Add(m.count()) // the answer and the repair attempt
	return llm.Outcome{Fallback: true, Reason: "unexpected end of JSON input"}, u, nil
}

func (m *brokenModel) GenerateFitted(ctx context.Context, _ llm.Stage, _, _ string, ev []string, _ func([]string) string) (string, llm.Usage, int, error) {
	return m.body, m.count(), len(ev), nil
}

func (m *brokenModel) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t) % 7), 1, float32(strings.Count(t, "a"))}
	}
	return out, m.count(), nil
}

func (m *brokenModel) Describe(ctx context.Context, _ string) (string, llm.Usage, error) {
	return "", llm.Usage{}, errors.New("not a vision model")
}

func newModelEnv(t *testing.T, model *brokenModel, batches ...[]search.Result) *researchEnv {
	h := newResearchEnv(t, batches...)
	h.env = h.NewTestWorkflowEnvironment()
	h.env.RegisterWorkflow(ResearchWorkflow)
	h.env.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": h.provider}, Model: model, ReportDir: t.TempDir()}))
	return h
}

func TestBadModelAnswersFallBackAndFabricatedCitationsAreRemoved(t *testing.T) {
	model := &brokenModel{body: "The answer [1] and a made-up claim [77] and [2, 42]."}
	r1 := novel("a")
	h := newModelEnv(t, model, r1, novel("b"), stale(r1, "c"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), Novelty: config.NoveltyModel}})
	require.Equal(t, "deterministic", rep.Plan.Planner, "an unusable model plan falls back")
	require.Contains(t, rep.Plan.FallbackReason, "unexpected end of JSON")
	all := strings.Join(rep.Fallbacks, "\n")
	require.Contains(t, all, "planner: model plan unusable")
	require.Contains(t, all, "no integer; scored 5")
	require.Contains(t, all, "compression round 2")
	require.Equal(t, 5.0, rep.Rounds[1].Novelty, "unparseable novelty scores the neutral 5")
	require.False(t, rep.Extractive, "%v", rep.Fallbacks)
	require.Equal(t, 2, rep.RemovedCitations, "[77] and [42] point at no retrieved source")
	require.NotContains(t, rep.Markdown, "[77]")
	require.Contains(t, rep.Markdown, "Citations removed: 2")
	require.Equal(t, model.calls, rep.Usage.Calls, "the ledger counts every model call")
}

func TestModelBudgetHolds(t *testing.T) {
	for _, budget := range []int{1, 3, 6, 9} {
		model := &brokenModel{body: "Body [1]."}
		h := newModelEnv(t, model, novel("a"), novel("b"), novel("c"), novel("d"), novel("e"))
		rep := h.run(t, ResearchRequest{Question: question, Seed: 7,
			Config: config.Research{MaxModelCalls: budget, Novelty: config.NoveltyEmbedding}})
		require.LessOrEqual(t, model.calls, budget, "budget %d", budget)
		require.Equal(t, model.calls, rep.Usage.Calls)
		require.NotEmpty(t, rep.Markdown, "a spent budget still ends in a report")
		if budget < 6 {
			require.Contains(t, rep.StopReason, "model budget", "budget %d", budget)
		}
	}
}

func TestEmbeddingNoveltyUsesTheEmbedder(t *testing.T) {
	model := &brokenModel{body: "Body [1]."}
	h := newModelEnv(t, model, novel("a"), novel("b"), novel("c"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 3, Novelty: config.NoveltyEmbedding}})
	for _, r := range rep.Rounds[1:] {
		require.Equal(t, config.NoveltyEmbedding, r.Method)
	}
}

// downModel is Ollama refusing connections: every call fails as unavailable.
type downModel struct {
	brokenModel
	attempts int
}

func (m *downModel) err() error {
	m.mu.Lock()
	m.attempts++
	m.mu.Unlock()
	return fmt.Errorf("ollama at http://127.0.0.1:1: model %q: %w", "planner-model", llm.ErrUnavailable)
}

func (m *downModel) Generate(context.Context, llm.Stage, string, string) (string, llm.Usage, error) {
	return "", llm.Usage{}, m.err()
}

func (m *downModel) GenerateJSON(context.Context, llm.Stage, string, string, json.RawMessage, any, func() error) (llm.Outcome, llm.Usage, error) {
	return llm.Outcome{}, llm.Usage{}, m.err()
}

func (m *downModel) GenerateFitted(context.Context, llm.Stage, string, string, []string, func([]string) string) (string, llm.Usage, int, error) {
	return "", llm.Usage{}, 0, m.err()
}

func (m *downModel) Embed(context.Context, []string) ([][]float32, llm.Usage, error) {
	return nil, llm.Usage{}, m.err()
}

func TestOllamaDownIsRetriedThenFallsBackKeepingTheEvidence(t *testing.T) {
	model := &downModel{}
	r1 := novel("a")
	h := newResearchEnv(t, r1, novel("b"), stale(r1, "c"))
	h.env = h.NewTestWorkflowEnvironment()
	h.env.RegisterWorkflow(ResearchWorkflow)
	h.env.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": h.provider}, Model: model, ReportDir: t.TempDir()}))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Epsilon: f(0), Novelty: config.NoveltyModel}})
	require.Contains(t, rep.Plan.FallbackReason, "model unavailable after 3 attempts")
	require.Contains(t, rep.Plan.FallbackReason, "http://127.0.0.1:1")
	require.True(t, rep.Extractive, "the report falls back to extractive and keeps the evidence")
	require.NotEmpty(t, rep.Sources)
	require.Contains(t, strings.Join(rep.Fallbacks, "\n"), "synthesis: extractive report written instead: model unavailable after 3 attempts")
	require.GreaterOrEqual(t, model.attempts, 3*3, "each model stage was retried before falling back")
}

// storyModel is the tiny test model as synthesis producer: it writes children's-story text
// with no citation, from a prompt that held held sources (-1: all).
type storyModel struct {
	brokenModel
	held int
}

func (m *storyModel) GenerateFitted(_ context.Context, _ llm.Stage, _, _ string, ev []string, _ func([]string) string) (string, llm.Usage, int, error) {
	n := len(ev)
	if m.held >= 0 {
		n = m.held
	}
	return "Once upon a time there was a little cat. She liked to play in the sun with her friend the dog.", m.count(), n, nil
}

// A synthesis not grounded in the sources (written from none of them, or citing none) is
// refused: the extractive answer is written instead, the reason is in the report, and every
// source is listed.
func TestUngroundedSynthesisIsRefused(t *testing.T) {
	for _, tc := range []struct {
		held int
		why  string
	}{
		{held: 0, why: "the prompt held 0 of 9 sources to fit the model's context (at least 3 needed)"},
		{held: -1, why: "only 0 of 2 sentences of the model's answer cite a source"},
	} {
		model := &storyModel{held: tc.held}
		h := newResearchEnv(t, novel("a"), novel("b"), novel("c"))
		h.env = h.NewTestWorkflowEnvironment()
		h.env.RegisterWorkflow(ResearchWorkflow)
		h.env.RegisterActivity(activities.NewActivities(activities.Deps{
			Providers: map[string]search.Provider{"corpus": h.provider}, Model: model, ReportDir: t.TempDir()}))
		rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 3}})
		require.True(t, rep.Extractive, "held %d: %v", tc.held, rep.Fallbacks)
		require.Contains(t, strings.Join(rep.Fallbacks, "\n"), "synthesis: model report refused, extractive report written instead: "+tc.why)
		require.NotContains(t, rep.Markdown, "Once upon a time")
		require.Contains(t, rep.Markdown, "> Extractive report: model report refused")
		require.Contains(t, rep.Markdown, tc.why, "the saved report names the reason")
		require.Len(t, rep.Sources, 9)
		for _, s := range rep.Sources {
			require.Contains(t, rep.Markdown, fmt.Sprintf("- [%d] ", s.N)+s.Title, "every source is listed")
		}
		require.Contains(t, rep.Markdown, "[1]", "the extractive answer cites")
	}
}

// seeingModel describes images and records the question the report writer was given.
type seeingModel struct {
	brokenModel
	asked string
}

func (m *seeingModel) Describe(ctx context.Context, _ string) (string, llm.Usage, error) {
	return "Text: GOGC=50. Data: heap target halves. Layout: one line chart. Objects: none", m.count(), nil
}

func (m *seeingModel) GenerateFitted(ctx context.Context, stage llm.Stage, system, question string, ev []string, render func([]string) string) (string, llm.Usage, int, error) {
	m.mu.Lock()
	m.asked = question
	m.mu.Unlock()
	return m.brokenModel.GenerateFitted(ctx, stage, system, question, ev, render)
}

// What the vision model read from an image reaches the report writer: synthesis answers the
// task with its "[Image: ...]" description, not the question with a bare file path.
func TestVisionDescriptionReachesSynthesis(t *testing.T) {
	img := filepath.Join(t.TempDir(), "gc-chart.png")
	require.NoError(t, os.WriteFile(img, pngBytes(), 0o644))
	model := &seeingModel{brokenModel: brokenModel{body: "GOGC=50 halves the heap target [1]. The chart shows it [2]. Lower values collect more often [1]."}}
	h := newResearchEnv(t, novel("a"), novel("b"), novel("c"))
	h.env = h.NewTestWorkflowEnvironment()
	h.env.RegisterWorkflow(ResearchWorkflow)
	h.env.RegisterActivity(activities.NewActivities(activities.Deps{
		Providers: map[string]search.Provider{"corpus": h.provider}, Model: model, ReportDir: t.TempDir()}))
	rep := h.run(t, ResearchRequest{Question: "What does the chart " + img + " say about GOGC?", Seed: 7,
		Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 2}})
	require.Contains(t, model.asked, "[Image: Text: GOGC=50.", "synthesis got %q", model.asked)
	require.NotContains(t, model.asked, img)
	require.Contains(t, strings.Join(rep.Notes, "\n"), "vision bridge described 1 image")
}

// pngBytes is a small real PNG.
func pngBytes() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}
