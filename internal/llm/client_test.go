package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeReply is one scripted /api/chat answer.
type fakeReply struct {
	content    string
	doneReason string
	promptEval int // 0: computed from the prompt as bytes/3, capped at num_ctx like Ollama
	status     int // non-zero: answer with this status and errMsg
	errMsg     string
}

// fakeOllama speaks the /api/chat and /api/embed JSON of a real Ollama server.
type fakeOllama struct {
	t       *testing.T
	mu      sync.Mutex
	replies []fakeReply
	chats   []map[string]any // raw request bodies, to check exact wire fields
	embeds  []api.EmbedRequest
	dim     int
	short   bool // embed: return one vector too few
	trained int  // context_length reported by /api/show; 0: not reported
	shows   int
	srv     *httptest.Server
}

func newFake(t *testing.T, replies ...fakeReply) *fakeOllama {
	f := &fakeOllama{t: t, replies: replies, dim: 4}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", f.chat)
	mux.HandleFunc("POST /api/embed", f.embed)
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.shows++
		info := map[string]any{"general.architecture": "llama"}
		if f.trained > 0 {
			info["llama.context_length"] = f.trained
		}
		f.mu.Unlock()
		writeJSON(w, 200, api.ShowResponse{ModelInfo: info})
	})
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, api.ListResponse{Models: []api.ListModelResponse{
			{Name: "plan-m:latest", Model: "plan-m:latest"}, {Name: "prod-m:q4", Model: "prod-m:q4"}, {Name: "embed-m:latest", Model: "embed-m:latest"},
		}})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeOllama) chat(w http.ResponseWriter, r *http.Request) {
	var raw map[string]any
	var req api.ChatRequest
	dec := json.NewDecoder(r.Body)
	var rawMsg json.RawMessage
	if err := dec.Decode(&rawMsg); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	_ = json.Unmarshal(rawMsg, &raw)
	_ = json.Unmarshal(rawMsg, &req)
	f.mu.Lock()
	f.chats = append(f.chats, raw)
	var rep fakeReply
	if len(f.replies) > 0 {
		rep = f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
	}
	f.mu.Unlock()
	if rep.status != 0 {
		writeJSON(w, rep.status, map[string]string{"error": rep.errMsg})
		return
	}
	pe := rep.promptEval
	if pe == 0 {
		n := 0
		for _, m := range req.Messages {
			n += len(m.Content)
		}
		pe = n / 3
		if ctx, ok := req.Options["num_ctx"].(float64); ok && pe > int(ctx) {
			pe = int(ctx)
		}
	}
	writeJSON(w, 200, api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now(),
		Message:    api.Message{Role: "assistant", Content: rep.content},
		Done:       true,
		DoneReason: cmp(rep.doneReason, "stop"),
		Metrics:    api.Metrics{PromptEvalCount: pe, EvalCount: len(rep.content)/4 + 1},
	})
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (f *fakeOllama) embed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	f.mu.Lock()
	f.embeds = append(f.embeds, req)
	f.mu.Unlock()
	if req.Model == "absent" {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", req.Model)})
		return
	}
	inputs, _ := req.Input.([]any)
	var vecs [][]float32
	for _, in := range inputs {
		s, _ := in.(string)
		v := make([]float32, f.dim)
		v[0] = float32(len(s))
		fmt.Sscanf(s, "text %f", &v[1])
		vecs = append(vecs, v)
	}
	if f.short {
		vecs = vecs[1:]
	}
	writeJSON(w, 200, api.EmbedResponse{Model: req.Model, Embeddings: vecs, PromptEvalCount: 2 * len(inputs)})
}

func (f *fakeOllama) client(t *testing.T) *Client {
	cfg := DefaultConfig(f.srv.URL, "plan-m", "prod-m", "eval-m", "embed-m", "vision-m")
	c, err := New(cfg, f.srv.Client())
	require.NoError(t, err)
	return c
}

func (f *fakeOllama) request(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Greater(f.t, len(f.chats), i, "request %d was not sent", i)
	return f.chats[i]
}

func msgs(req map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range req["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

func TestNewHost(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434", ""},
		{"127.0.0.1:11434", "http://127.0.0.1:11434", ""},
		{"localhost", "http://localhost:11434", ""},
		{"http://h:1/", "http://h:1", ""},
		{"https://ollama.internal", "https://ollama.internal", ""},
		{"", "", "no Ollama host"},
		{"ftp://x", "", "bad Ollama host"},
	} {
		c, err := New(Config{Host: tc.in}, nil)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, c.Host(), tc.in)
	}
}

func TestGenerateSendsStreamFalseOptionsAndKeepAlive(t *testing.T) {
	f := newFake(t, fakeReply{content: "  a short answer \n", promptEval: 42})
	c := f.client(t)
	out, u, err := c.Generate(context.Background(), Planner, "be brief", "say hi")
	require.NoError(t, err)
	assert.Equal(t, "a short answer", out)
	assert.Equal(t, Usage{Calls: 1, PromptTokens: 42, OutputTokens: len("  a short answer \n")/4 + 1}, u)

	req := f.request(0)
	assert.Equal(t, false, req["stream"], "stream must be sent as false, not omitted")
	assert.Equal(t, "plan-m", req["model"])
	assert.Equal(t, "10m0s", req["keep_alive"])
	assert.Equal(t, map[string]any{"temperature": 0.2, "num_predict": 512.0, "num_ctx": 4096.0}, req["options"])
	assert.NotContains(t, req, "format")
	m := msgs(req)
	require.Len(t, m, 2)
	assert.Equal(t, "system", m[0]["role"])
	assert.Equal(t, "be brief", m[0]["content"])
	assert.Equal(t, "user", m[1]["role"])
	assert.Equal(t, "say hi", m[1]["content"])
}

func TestEvaluatorSendsTemperatureZero(t *testing.T) {
	f := newFake(t, fakeReply{content: "7"})
	_, _, err := f.client(t).Generate(context.Background(), Evaluator, "", "score")
	require.NoError(t, err)
	req := f.request(0)
	assert.Equal(t, map[string]any{"temperature": 0.0, "num_predict": 8.0, "num_ctx": 4096.0}, req["options"])
	assert.Len(t, msgs(req), 1, "no empty system message")
}

const goodPlan = `{"search_queries":["go history","go 1.0 release date","go designers"],"known_facts":[],"knowledge_gaps":["why"],"subtasks":["origins"]}`

func TestGenerateJSONValidFirstTime(t *testing.T) {
	f := newFake(t, fakeReply{content: goodPlan})
	var p Plan
	task := "history of go"
	o, u, err := f.client(t).GenerateJSON(context.Background(), Planner, "s", "p", PlanSchema, &p, func() error { return p.Validate(task) })
	require.NoError(t, err)
	assert.Equal(t, Outcome{}, o)
	assert.Equal(t, 1, u.Calls)
	assert.Equal(t, []string{"go history", "go 1.0 release date", "go designers"}, p.SearchQueries)
	req := f.request(0)
	assert.Equal(t, false, req["stream"])
	format, err := json.Marshal(req["format"])
	require.NoError(t, err)
	assert.JSONEq(t, string(PlanSchema), string(format), "the schema is sent as format")
}

func TestGenerateJSONRepair(t *testing.T) {
	broken := "Sure! ```json\n{\"search_queries\": [\"go history\", \"go rel"
	f := newFake(t,
		fakeReply{content: broken, doneReason: "length"},
		fakeReply{content: "Here you go:\n```json\n" + goodPlan + "\n```"},
	)
	var p Plan
	o, u, err := f.client(t).GenerateJSON(context.Background(), Planner, "sys", "plan it", PlanSchema, &p, func() error { return p.Validate("x") })
	require.NoError(t, err)
	assert.True(t, o.Repaired)
	assert.False(t, o.Fallback)
	assert.Contains(t, o.Reason, "no complete JSON object")
	assert.Contains(t, o.Reason, "cut at num_predict")
	assert.Equal(t, 2, u.Calls)
	assert.Len(t, p.SearchQueries, 3)

	m := msgs(f.request(1))
	require.Len(t, m, 4, "system, prompt, broken answer, repair request")
	assert.Equal(t, "plan it", m[1]["content"])
	assert.Equal(t, "assistant", m[2]["role"])
	assert.Equal(t, broken, m[2]["content"])
	assert.Equal(t, "user", m[3]["role"])
	assert.Contains(t, m[3]["content"], "no complete JSON object")
	assert.Contains(t, m[3]["content"], string(PlanSchema))
	assert.NotNil(t, f.request(1)["format"])
}

func TestGenerateJSONValidationFailureIsRepaired(t *testing.T) {
	task := "history of go"
	bad := `{"search_queries":["History of  Go","a","b"],"known_facts":[],"knowledge_gaps":[],"subtasks":[]}`
	f := newFake(t, fakeReply{content: bad}, fakeReply{content: goodPlan})
	var p Plan
	o, _, err := f.client(t).GenerateJSON(context.Background(), Planner, "", "p", PlanSchema, &p, func() error { return p.Validate(task) })
	require.NoError(t, err)
	assert.True(t, o.Repaired)
	assert.Contains(t, o.Reason, "repeats the task")
	assert.Contains(t, msgs(f.request(1))[1]["content"], "History of  Go", "no system message: user, assistant, user")
	assert.Equal(t, "go history", p.SearchQueries[0])
}

func TestGenerateJSONFallback(t *testing.T) {
	f := newFake(t,
		fakeReply{content: "Once upon a time there was a little dog"},
		fakeReply{content: `{"facts": []}`},
	)
	c := Compression{Facts: []string{"stale"}}
	o, u, err := f.client(t).GenerateJSON(context.Background(), Producer, "", "compress", CompressionSchema, &c, c.Validate)
	require.NoError(t, err, "bad model output is not an error")
	assert.True(t, o.Fallback)
	assert.False(t, o.Repaired)
	assert.Contains(t, o.Reason, "no complete JSON object")
	assert.Contains(t, o.Reason, "after repair: invalid answer: want 1-8 facts, got 0")
	assert.Equal(t, 2, u.Calls)
	assert.Empty(t, c.Facts, "out is reset on fallback")
}

func TestGenerateJSONWrongTypesFallBack(t *testing.T) {
	f := newFake(t, fakeReply{content: `{"query": 12}`})
	var g GapQuery
	o, _, err := f.client(t).GenerateJSON(context.Background(), Planner, "", "gap", GapQuerySchema, &g, g.Validate)
	require.NoError(t, err)
	assert.True(t, o.Fallback)
	assert.Contains(t, o.Reason, "does not match the schema")
}

func TestTruncationDetected(t *testing.T) {
	for _, tc := range []struct {
		pe   int
		want bool
	}{{3000, false}, {3583, false}, {3584, true}, {4096, true}} {
		f := newFake(t, fakeReply{content: "ok", promptEval: tc.pe})
		_, u, err := f.client(t).Generate(context.Background(), Planner, "", "p")
		require.NoError(t, err)
		assert.Equal(t, tc.want, u.Truncated, tc.pe)
	}
}

func TestGenerateFittedRetriesWithHalfTheRoom(t *testing.T) {
	// The fake counts a token per 3 bytes (denser than the 3.5 estimate), so a prompt fitted
	// by estimate still fills the window and reads as cut; each source in half the room then fits.
	f := newFake(t, fakeReply{content: "report one"}, fakeReply{content: "report two"})
	c := f.client(t)
	var sources []PromptSource
	for i := range 12 {
		sources = append(sources, PromptSource{Title: fmt.Sprintf("S%d", i+1), URL: "u", Text: strings.Repeat("word ", 600)})
	}
	question := SynthesisQuestion("compare the sources")
	out, u, used, err := c.GenerateFitted(context.Background(), Producer, SynthesisSystem, question, SourceEvidence(sources), SynthesisRender("", nil))
	require.NoError(t, err)
	assert.Equal(t, "report two", out)
	assert.Equal(t, 2, u.Calls)
	assert.False(t, u.Truncated, "the retry fit")
	assert.Equal(t, 12, used, "every source kept, each trimmed")

	first := msgs(f.request(0))[1]["content"].(string)
	second := msgs(f.request(1))[1]["content"].(string)
	for i := range sources {
		assert.Contains(t, first, fmt.Sprintf("[%d] S%d", i+1, i+1))
		assert.Contains(t, second, fmt.Sprintf("[%d] S%d", i+1, i+1))
	}
	assert.Less(t, len(first), 12*3000, "fitting trimmed the sources before the first call")
	assert.Less(t, len(second), len(first)*2/3, "the retry halved the room")
	assert.True(t, strings.HasSuffix(first, question))
	assert.True(t, strings.HasSuffix(second, question))
	assert.LessOrEqual(t, EstimateTokens(SynthesisSystem+first), 8192-1500+8, "first prompt fits by estimate")
}

func TestGenerateFittedNoRetryWhenItFits(t *testing.T) {
	f := newFake(t, fakeReply{content: "fine"})
	sources := []PromptSource{{"A", "https://a", "alpha"}, {"B", "https://b", "beta"}}
	question := SynthesisQuestion("q")
	out, u, used, err := f.client(t).GenerateFitted(context.Background(), Producer, SynthesisSystem, question, SourceEvidence(sources), SynthesisRender("k", []string{"p"}))
	require.NoError(t, err)
	assert.Equal(t, "fine", out)
	assert.Equal(t, 1, u.Calls)
	assert.Equal(t, 2, used)
	_, want := SynthesisPrompt("q", sources, "k", []string{"p"})
	assert.Equal(t, want, msgs(f.request(0))[1]["content"], "SynthesisPrompt is what GenerateFitted sends when all fits")
}

func TestModelNotFound(t *testing.T) {
	f := newFake(t, fakeReply{status: 404, errMsg: `model "plan-m" not found, try pulling it first`})
	c := f.client(t)
	_, _, err := c.Generate(context.Background(), Planner, "", "p")
	require.Error(t, err)
	assert.Equal(t, fmt.Sprintf(`ollama at %s: model "plan-m" not found (run 'ollama pull plan-m')`, f.srv.URL), err.Error())
	assert.True(t, IsModelMissing(err))
	assert.False(t, IsUnavailable(err))

	var p Plan
	_, _, err = c.GenerateJSON(context.Background(), Planner, "", "p", PlanSchema, &p, nil)
	assert.True(t, IsModelMissing(err), "GenerateJSON returns transport errors, not a fallback")

	cfg := c.Config()
	cfg.Embedder.Model = "absent"
	c2, err := New(cfg, nil)
	require.NoError(t, err)
	_, _, err = c2.Embed(context.Background(), []string{"x"})
	assert.True(t, IsModelMissing(err))
	assert.Contains(t, err.Error(), `model "absent" not found`)
}

func TestServerErrorIsUnavailable(t *testing.T) {
	f := newFake(t, fakeReply{status: 500, errMsg: "llama runner process has terminated"})
	_, _, err := f.client(t).Generate(context.Background(), Producer, "", "p")
	require.Error(t, err)
	assert.True(t, IsUnavailable(err))
	assert.False(t, IsModelMissing(err))
	assert.Contains(t, err.Error(), f.srv.URL)
	assert.Contains(t, err.Error(), `"prod-m"`)
	assert.Contains(t, err.Error(), "llama runner process has terminated")
}

func TestBadRequestIsNeitherKind(t *testing.T) {
	f := newFake(t, fakeReply{status: 400, errMsg: "invalid format"})
	_, _, err := f.client(t).Generate(context.Background(), Producer, "", "p")
	require.Error(t, err)
	assert.False(t, IsUnavailable(err))
	assert.False(t, IsModelMissing(err))
	assert.Contains(t, err.Error(), "invalid format")
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	host := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	c, err := New(DefaultConfig(host, "m", "", "", "e", ""), nil)
	require.NoError(t, err)
	_, _, err = c.Generate(context.Background(), Planner, "", "p")
	require.Error(t, err)
	assert.True(t, IsUnavailable(err))
	assert.Contains(t, err.Error(), "ollama at "+host+" is unreachable")
	assert.Contains(t, err.Error(), "connection refused")
	_, _, err = c.Embed(context.Background(), []string{"x"})
	assert.True(t, IsUnavailable(err))
}

func TestCanceledContextIsNotUnavailable(t *testing.T) {
	f := newFake(t, fakeReply{content: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := f.client(t).Generate(ctx, Planner, "", "p")
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, IsUnavailable(err))
}

func TestNotConfigured(t *testing.T) {
	f := newFake(t)
	c, err := New(DefaultConfig(f.srv.URL, "", "", "", "", ""), nil)
	require.NoError(t, err)
	assert.False(t, c.Configured(Planner))
	_, _, err = c.Generate(context.Background(), Planner, "", "p")
	assert.ErrorIs(t, err, ErrNotConfigured)
	_, _, err = c.Embed(context.Background(), []string{"a"})
	assert.ErrorIs(t, err, ErrNotConfigured)
	_, _, err = c.Describe(context.Background(), "x.png")
	assert.ErrorIs(t, err, ErrNotConfigured)
	assert.Empty(t, f.chats, "nothing sent")
	var nilClient *Client
	assert.False(t, nilClient.Configured(Producer))
	assert.True(t, f.client(t).Configured(Producer))
}

func TestEmbedBatches(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	var texts []string
	for i := range 70 {
		texts = append(texts, fmt.Sprintf("text %d", i))
	}
	vecs, u, err := c.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, 70)
	for i, v := range vecs {
		assert.Equal(t, float32(i), v[1], "vector %d out of order", i)
		assert.Len(t, v, 4)
	}
	assert.Equal(t, Usage{Calls: 3, PromptTokens: 140}, u)
	require.Len(t, f.embeds, 3)
	for i, want := range []int{32, 32, 6} {
		assert.Len(t, f.embeds[i].Input, want)
		assert.Equal(t, "embed-m", f.embeds[i].Model)
		require.NotNil(t, f.embeds[i].KeepAlive)
		assert.Equal(t, 10*time.Minute, f.embeds[i].KeepAlive.Duration)
	}

	vecs, u, err = c.Embed(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, vecs)
	assert.Equal(t, 0, u.Calls)
}

func TestEmbedCountMismatch(t *testing.T) {
	f := newFake(t)
	f.short = true
	_, _, err := f.client(t).Embed(context.Background(), []string{"a", "b"})
	assert.ErrorContains(t, err, "returned 1 embeddings for 2 inputs")
}

func TestDescribeSendsImageBytes(t *testing.T) {
	f := newFake(t, fakeReply{content: "A line chart of rising sales.\n"})
	img := []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3, 255}
	p := filepath.Join(t.TempDir(), "chart.png")
	require.NoError(t, os.WriteFile(p, img, 0o644))
	out, u, err := f.client(t).Describe(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, "A line chart of rising sales.", out)
	assert.Equal(t, 1, u.Calls)

	req := f.request(0)
	assert.Equal(t, "vision-m", req["model"])
	assert.Equal(t, map[string]any{"temperature": 0.1, "num_predict": 300.0, "num_ctx": 4096.0}, req["options"])
	m := msgs(req)
	require.Len(t, m, 1)
	assert.Equal(t, VisionPrompt, m[0]["content"])
	var sent api.Message
	b, _ := json.Marshal(m[0])
	require.NoError(t, json.Unmarshal(b, &sent))
	require.Len(t, sent.Images, 1)
	assert.Equal(t, img, []byte(sent.Images[0]), "image bytes arrive intact (base64 on the wire)")

	_, _, err = f.client(t).Describe(context.Background(), filepath.Join(t.TempDir(), "missing.png"))
	assert.ErrorContains(t, err, "no such file")
}

func TestCheckModels(t *testing.T) {
	f := newFake(t)
	ctx := context.Background()
	ok, err := New(DefaultConfig(f.srv.URL, "plan-m", "prod-m:q4", "plan-m:latest", "embed-m", ""), nil)
	require.NoError(t, err)
	assert.NoError(t, ok.CheckModels(ctx))

	err = f.client(t).CheckModels(ctx) // prod-m (= prod-m:latest), eval-m and vision-m are absent
	require.Error(t, err)
	assert.True(t, IsModelMissing(err))
	assert.Equal(t, fmt.Sprintf("ollama at %s: models not found: prod-m, eval-m, vision-m (run 'ollama pull prod-m' and 'ollama pull eval-m' and 'ollama pull vision-m')", f.srv.URL), err.Error())

	f.srv.Close()
	err = ok.CheckModels(ctx)
	assert.True(t, IsUnavailable(err), "%v", err)
}

func TestTrainedContextClampsTheWindow(t *testing.T) {
	// Ollama silently lowers num_ctx to the model's trained length; a prompt that fills that
	// smaller window must read as truncated even though it is far below the configured 4096.
	f := newFake(t, fakeReply{content: "a", promptEval: 300}, fakeReply{content: "b", promptEval: 200})
	f.trained = 512
	c := f.client(t)
	_, u, err := c.Generate(context.Background(), Planner, "", "p")
	require.NoError(t, err)
	assert.True(t, u.Truncated, "300 >= 512 - min(512, 512/2)")
	assert.Equal(t, 512.0, f.request(0)["options"].(map[string]any)["num_ctx"])
	_, u, err = c.Generate(context.Background(), Planner, "", "p")
	require.NoError(t, err)
	assert.False(t, u.Truncated)
	assert.Equal(t, 1, f.shows, "the trained length is asked once per model")

	ev := []string{strings.Repeat("x", 3000), strings.Repeat("y", 3000)}
	_, _, used, err := c.GenerateFitted(context.Background(), Producer, "", "q", ev, func(e []string) string { return strings.Join(e, "\n") })
	require.NoError(t, err)
	assert.Equal(t, 2, used, "fitting uses the clamped window: 256 tokens of room hold both items, shortened")
	assert.Less(t, len(msgs(f.request(2))[0]["content"].(string)), 1000)
}
