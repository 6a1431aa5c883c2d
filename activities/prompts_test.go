package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/fetch"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/search"
)

// promptModel records every prompt a stage sends, with the caps the stage's settings give it
// under the default configuration; it answers as a well-behaved model would.
type promptModel struct {
	mu    sync.Mutex
	calls []stageCall
}

type stageCall struct {
	stage  llm.Stage
	prompt string
	sc     llm.StageConfig
}

var defaultStages = llm.DefaultConfig("h", "plan", "prod", "eval", "emb", "vis")

func (m *promptModel) record(stage llm.Stage, system, prompt string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, stageCall{stage: stage, prompt: system + "\n" + prompt, sc: defaultStages.Stage(stage)})
}

func (m *promptModel) Configured(llm.Stage) bool { return true }

func (m *promptModel) Generate(_ context.Context, stage llm.Stage, system, prompt string) (string, llm.Usage, error) {
	m.record(stage, system, prompt)
	return "7", llm.Usage{Calls: 1}, nil
}

func (m *promptModel) GenerateJSON(_ context.Context, stage llm.Stage, system, prompt string, _ json.RawMessage, out any, _ func() error) (llm.Outcome, llm.Usage, error) {
	m.record(stage, system, prompt)
	if c, ok := out.(*llm.Compression); ok {
		c.Facts = []string{"GOGC sets the heap growth target.", "The collector is concurrent."}
		return llm.Outcome{}, llm.Usage{Calls: 1}, nil
	}
	return llm.Outcome{Fallback: true, Reason: "not scripted"}, llm.Usage{Calls: 1}, nil
}

func (m *promptModel) GenerateFitted(_ context.Context, stage llm.Stage, system, question string, evidence []string, render func([]string) string) (string, llm.Usage, int, error) {
	sc := defaultStages.Stage(stage)
	prompt := func(ev []string) string { return render(ev) + "\n\n" + question }
	ev := llm.FitPrompt(system+"\n"+prompt(nil), evidence, sc.NumCtx, min(sc.MaxTokens, sc.NumCtx/2))
	m.record(stage, system, prompt(ev))
	return "GOGC sets the heap growth target [1]. The collector runs concurrently [2]. Pacing follows the heap [3].", llm.Usage{Calls: 1}, len(ev), nil
}

func (m *promptModel) Embed(context.Context, []string) ([][]float32, llm.Usage, error) {
	return nil, llm.Usage{}, fmt.Errorf("no embedder")
}

func (m *promptModel) Describe(context.Context, string) (string, llm.Usage, error) {
	return "", llm.Usage{}, fmt.Errorf("no vision")
}

// bigRound is a round as a provider with long passages returns it, and a knowledge state at
// its cap: the case where whole bodies made a 6.7K-char novelty prompt.
func bigRound() (string, []search.Result) {
	var rs []search.Result
	for i := range 8 {
		rs = append(rs, search.Result{URL: fmt.Sprintf("https://example.org/%d", i), Title: fmt.Sprintf("Page %d", i),
			Snippet: strings.Repeat(fmt.Sprintf("garbage collector pacing detail %d ", i), 60)})
	}
	return strings.Repeat("- the collector is concurrent and paced by the heap goal\n", 40), rs
}

// stageDesign is the design's prompt bound (knowledge and results at most 800 chars each,
// plus the instructions) and caps for each task stage.
var stageDesign = map[string]struct {
	stage       llm.Stage
	maxPrompt   int
	maxTokens   int
	temperature float64
}{
	"novelty":     {llm.NoveltyJudge, llm.PromptKnowledgeChars + llm.PromptResultsChars + 600, 3, 0},
	"compression": {llm.Compressor, llm.PromptKnowledgeChars + llm.PromptResultsChars + 800, 400, 0.1},
}

// stageOrder is every model stage a research run calls, in run order.
var stageOrder = []string{"planner", "gap query", "novelty", "compression", "synthesis"}

// stagePrompts runs every model-driven research activity once over bigRound and returns what
// each sent, by stage name.
func stagePrompts(t testing.TB) map[string]stageCall {
	m := &promptModel{}
	acts := NewActivities(Deps{Model: m, ReportDir: t.TempDir()})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	know, rs := bigRound()
	q := "How does GOGC tune the Go garbage collector?"
	var sources []Source
	for i, r := range rs {
		sources = append(sources, Source{N: i + 1, Result: r, Round: 1})
	}
	for _, run := range []struct {
		act any
		in  any
	}{
		{acts.PlanResearch, PlanInput{Question: q, UseModel: true}},
		{acts.PlanQuery, GapQueryInput{Question: q, Knowledge: know, Previous: []string{"gogc tuning"}, UseModel: true}},
		{acts.AssessNovelty, NoveltyInput{Method: config.NoveltyModel, Knowledge: know, Results: rs}},
		{acts.CompressKnowledge, CompressInput{Question: q, Knowledge: know, Results: rs, Cap: 1500, UseModel: true}},
		{acts.Synthesize, SynthesizeInput{WorkflowID: "bench", Question: q, Knowledge: know, Sources: sources, UseModel: true}},
	} {
		_, err := env.ExecuteActivity(run.act, run.in)
		require.NoError(t, err)
	}
	require.Len(t, m.calls, len(stageOrder))
	out := map[string]stageCall{}
	for i, name := range stageOrder {
		out[name] = m.calls[i]
	}
	return out
}

func TestTaskPromptsAreTrimmedAndCapped(t *testing.T) {
	got := stagePrompts(t)
	for name, want := range stageDesign {
		c := got[name]
		assert.Equal(t, want.stage, c.stage, name)
		assert.LessOrEqual(t, len(c.prompt), want.maxPrompt, "%s prompt is %d chars", name, len(c.prompt))
		assert.Equal(t, want.maxTokens, c.sc.MaxTokens, "%s token cap", name)
		assert.Equal(t, want.temperature, c.sc.Temperature, "%s temperature", name)
		assert.Contains(t, c.prompt, "[8] Page 7", "%s: every result keeps a piece", name)
	}
	syn := got["synthesis"]
	assert.Equal(t, llm.Producer, syn.stage)
	assert.Contains(t, syn.prompt, "[8] Page 7", "the synthesis prompt holds every source")
}

// The model writes from the answer's selected quotes: a quote from a section the corpus merged
// into a passage reaches it under that section's heading, one quote a line, as the extractive
// findings show it, not joined into the passage's text under the passage's title.
func TestSynthesisPromptKeepsMergedSectionHeadings(t *testing.T) {
	m := &promptModel{}
	acts := NewActivities(Deps{Model: m, ReportDir: t.TempDir()})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	src := Source{N: 1, Round: 1, Enriched: true, Result: search.Result{
		Title: "The Memory Model — Channel communication", URL: "file:///mem.html#chan", Provider: "corpus", DocID: "mem:3"},
		Text: "A send on a channel is synchronized before the receive from that channel completes.\n\n" +
			"### Locks\n\nFor any mutex variable l, call n of l.Unlock() is synchronized before call m of l.Lock() returns."}
	_, err := env.ExecuteActivity(acts.Synthesize, SynthesizeInput{WorkflowID: "sections", UseModel: true, Sources: []Source{src},
		Question: "What does the memory model say about channel communication and mutex Unlock?"})
	require.NoError(t, err)
	require.Len(t, m.calls, 1)
	prompt := m.calls[0].prompt
	assert.Contains(t, prompt, "A send on a channel is synchronized before the receive from that channel completes.\n### Locks\nFor any mutex variable l,")
}

// BenchmarkStagePrompts prints, per task stage, the prompt size and token cap sent next to
// the design's: go test ./activities -run '^$' -bench StagePrompts
func BenchmarkStagePrompts(b *testing.B) {
	var got map[string]stageCall
	for b.Loop() {
		got = stagePrompts(b)
	}
	for _, name := range stageOrder {
		c := got[name]
		design := "no design figure"
		if want, ok := stageDesign[name]; ok {
			design = fmt.Sprintf("design: prompt <= %d chars, max_tokens %d, temperature %.1f", want.maxPrompt, want.maxTokens, want.temperature)
		}
		b.Logf("%-11s prompt %5d chars  max_tokens %4d  temperature %.1f  num_ctx %d  (%s)",
			name, len(c.prompt), c.sc.MaxTokens, c.sc.Temperature, c.sc.NumCtx, design)
		key := strings.ReplaceAll(name, " ", "_")
		b.ReportMetric(float64(len(c.prompt)), key+"_prompt_chars")
		b.ReportMetric(float64(c.sc.MaxTokens), key+"_max_tokens")
	}
}

type bigPage struct{}

func (bigPage) Fetch(_ context.Context, u string) (fetch.Page, error) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "Paragraph %d on the garbage collector pacing and the heap goal.\n\n", i)
	}
	return fetch.Page{URL: u, Title: "big", Text: b.String()}, nil
}

// The chunk budget (SATED_CHUNK_BUDGET) bounds what an enriched page keeps.
func TestFetchKeepsTheChunkBudget(t *testing.T) {
	for _, budget := range []int{0, 2000} {
		acts := NewActivities(Deps{Fetcher: bigPage{}, ChunkBudget: budget})
		var s testsuite.WorkflowTestSuite
		env := s.NewTestActivityEnvironment()
		env.RegisterActivity(acts)
		v, err := env.ExecuteActivity(acts.FetchPage, FetchInput{URL: "https://example.org/big", Question: "garbage collector pacing"})
		require.NoError(t, err)
		var out FetchOutput
		require.NoError(t, v.Get(&out))
		want := budget
		if want == 0 {
			want = 12000 // the chunker's default
		}
		assert.LessOrEqual(t, len(out.Text), want, "budget %d", budget)
		assert.Greater(t, len(out.Text), want/2, "budget %d: the budget is used", budget)
	}
}
