package llm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tiny real models of ../shared/models, registered under these names (see its README).
const (
	storiesModel = "sated-test-stories"
	randomModel  = "sated-test-random"
)

// requireIntegration skips, or fails when SATED_REQUIRE_INTEGRATION=1, for a missing server.
func requireIntegration(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("SATED_REQUIRE_INTEGRATION") == "1" {
		t.Fatalf("integration required but %s", what)
	}
	t.Skipf("skipping: %s", what)
}

// realClient connects to OLLAMA_HOST and checks both test models are there. Output is capped
// at maxTokens: the tiny models ramble to num_predict, slowly on a busy 2-core machine.
func realClient(t *testing.T, planner, producer, embedder string, maxTokens int) *Client {
	t.Helper()
	host := os.Getenv("OLLAMA_HOST")
	if host == "" {
		requireIntegration(t, "OLLAMA_HOST is not set")
	}
	cfg := DefaultConfig(host, planner, producer, storiesModel, embedder, "")
	cfg.Planner.MaxTokens, cfg.Producer.MaxTokens = maxTokens, maxTokens
	c, err := New(cfg, nil)
	require.NoError(t, err)
	probe, err := New(DefaultConfig(host, storiesModel, randomModel, "", "", ""), nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := probe.CheckModels(ctx); err != nil {
		requireIntegration(t, err.Error())
	}
	return c
}

func realCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestRealOllamaGenerate(t *testing.T) {
	c := realClient(t, storiesModel, storiesModel, storiesModel, 48)
	out, u, err := c.Generate(realCtx(t), Planner, "", "Once upon a time")
	require.NoError(t, err)
	t.Logf("stories answer (%d prompt / %d output tokens): %.200q", u.PromptTokens, u.OutputTokens, out)
	assert.Equal(t, 1, u.Calls)
	assert.Positive(t, u.PromptTokens)
	assert.Positive(t, u.OutputTokens)
	assert.LessOrEqual(t, u.OutputTokens, c.Config().Planner.MaxTokens, "num_predict is honoured")
	assert.False(t, u.Truncated)
}

func TestRealOllamaGenerateJSON(t *testing.T) {
	for _, model := range []string{storiesModel, randomModel} {
		t.Run(model, func(t *testing.T) {
			c := realClient(t, model, model, storiesModel, 160)
			task := "What is the history of the Go programming language?"
			sys, prompt := PlanPrompt(task, []string{"Go was announced in 2009"})
			var p Plan
			o, u, err := c.GenerateJSON(realCtx(t), Planner, sys, prompt, PlanSchema, &p, func() error { return p.Validate(task) })
			require.NoError(t, err, "broken model output must never be an error")
			t.Logf("outcome %+v, usage %+v, plan %+v", o, u, p)
			assert.False(t, o.Repaired && o.Fallback)
			switch {
			case o.Fallback:
				assert.NotEmpty(t, o.Reason)
				assert.Equal(t, 2, u.Calls)
				assert.Empty(t, p.SearchQueries, "out is reset on fallback")
			default:
				assert.NoError(t, p.Validate(task))
			}

			var g GapQuery
			sys, prompt = GapQueryPrompt(task, "Go was announced in 2009.", []string{"who designed it"}, []string{"go history"})
			o, u, err = c.GenerateJSON(realCtx(t), Producer, sys, prompt, GapQuerySchema, &g, g.Validate)
			require.NoError(t, err)
			t.Logf("gap outcome %+v, usage %+v, query %.120q", o, u, g.Query)
			if !o.Fallback {
				assert.NoError(t, g.Validate())
			}
		})
	}
}

func TestRealOllamaNovelty(t *testing.T) {
	c := realClient(t, storiesModel, storiesModel, storiesModel, 48)
	sys, prompt := NoveltyPrompt("Go was announced in 2009.", []PromptSource{{Title: "Go 1.0", URL: "https://go.dev", Text: "Go 1.0 was released in March 2012."}})
	out, u, err := c.Generate(realCtx(t), Evaluator, sys, prompt)
	require.NoError(t, err)
	score, ok := ParseNovelty(out)
	t.Logf("evaluator answer %q -> score %v parsed %v (usage %+v)", out, score, ok, u)
	assert.LessOrEqual(t, u.OutputTokens, 8)
	if ok {
		assert.True(t, score >= 0 && score <= 10)
	}
}

func TestRealOllamaEmbed(t *testing.T) {
	c := realClient(t, storiesModel, storiesModel, storiesModel, 48)
	texts := make([]string, EmbedBatch+3)
	for i := range texts {
		texts[i] = fmt.Sprintf("The little dog number %d ran to the park.", i)
	}
	vecs, u, err := c.Embed(realCtx(t), texts)
	require.NoError(t, err)
	require.Len(t, vecs, len(texts))
	assert.Equal(t, 2, u.Calls, "batched by EmbedBatch")
	dim := len(vecs[0])
	assert.Positive(t, dim)
	for i, v := range vecs {
		assert.Len(t, v, dim, "vector %d", i)
	}
	assert.NotEqual(t, vecs[0], vecs[1], "different texts, different vectors")
	t.Logf("embedding dimension %d, usage %+v", dim, u)

	cfg := c.Config()
	cfg.Embedder.Model = "sated-test-absent"
	missing, err := New(cfg, nil)
	require.NoError(t, err)
	_, _, err = missing.Embed(realCtx(t), []string{"x"})
	require.Error(t, err)
	t.Logf("missing model error: %v", err)
	assert.True(t, IsModelMissing(err))
	assert.Contains(t, err.Error(), `model "sated-test-absent" not found`)
}

func TestRealOllamaTruncationDetected(t *testing.T) {
	c := realClient(t, storiesModel, storiesModel, storiesModel, 48)
	cfg := c.Config()
	cfg.Planner.NumCtx, cfg.Planner.MaxTokens = 256, 16
	small, err := New(cfg, nil)
	require.NoError(t, err)
	long := strings.Repeat("The cat sat on the mat and looked at the sun. ", 200) // ~2,000 tokens
	_, u, err := small.Generate(realCtx(t), Planner, "", long)
	if err != nil {
		t.Logf("server refused the over-long prompt: %v", err)
		return
	}
	t.Logf("over-long prompt: usage %+v", u)
	assert.True(t, u.Truncated, "a prompt of ~2,000 tokens in num_ctx 256 must read as truncated")

	_, u, err = small.Generate(realCtx(t), Planner, "", "The cat sat.")
	require.NoError(t, err)
	assert.False(t, u.Truncated, "a short prompt is not truncated: %+v", u)
}

func TestRealOllamaGenerateFitted(t *testing.T) {
	c := realClient(t, storiesModel, storiesModel, storiesModel, 48)
	var sources []PromptSource
	for i := range 20 {
		sources = append(sources, PromptSource{Title: fmt.Sprintf("Story %d", i+1), URL: "https://example.org", Text: strings.Repeat("The little dog ran to the park and played with a red ball. ", 25)})
	}
	question := SynthesisQuestion("What did the dog do?")
	out, u, used, err := c.GenerateFitted(realCtx(t), Producer, SynthesisSystem, question, SourceEvidence(sources), SynthesisRender("", nil))
	require.NoError(t, err)
	t.Logf("used %d of %d sources, usage %+v, answer %.120q", used, len(sources), u, out)
	assert.Positive(t, used)
	// 20 sources of ~430 tokens cannot fit the 2048-token window whole: each is trimmed to its
	// share, none is dropped
	assert.Equal(t, len(sources), used, "sources are trimmed, not dropped")
	assert.LessOrEqual(t, u.PromptTokens/u.Calls, 2048, "the server never evaluates more than the trained window")
}
