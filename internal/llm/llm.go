// Package llm is the Ollama layer for every model-driven stage of sated: per-stage model
// settings, non-streaming calls with validated JSON (one repair, then a fallback signal),
// prompt-truncation detection and fitting, embeddings, image descriptions and budgets.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/sated-dev/sated/internal/research"
)

// Stage names a model-driven step; each has its own model and sampling settings.
type Stage string

// Stages.
const (
	Planner   Stage = "planner"
	Producer  Stage = "producer"
	Evaluator Stage = "evaluator"
	Embedder  Stage = "embedder"
	Vision    Stage = "vision"
)

// Task stages run on another stage's model (so the server keeps one model loaded) with the
// design's own caps: novelty is a score, the first integer of a 3-token answer at temperature
// 0; compression is a few facts, 400 tokens at 0.1. The synthesis keeps the producer's caps.
const (
	NoveltyJudge Stage = "novelty"     // the evaluator's model
	Compressor   Stage = "compression" // the producer's model
)

// Design caps of the task stages, and how much knowledge and result text their prompts show.
const (
	NoveltyMaxTokens       = 3
	CompressionMaxTokens   = 400
	CompressionTemperature = 0.1
	PromptKnowledgeChars   = 800
	PromptResultsChars     = 800
)

// StageConfig is one stage's model and sampling settings. An empty Model means the stage is
// not configured and callers use their deterministic counterpart.
type StageConfig struct {
	Model       string
	Temperature float64
	MaxTokens   int // num_predict; 0 leaves the server default
	NumCtx      int // num_ctx; 0 leaves the server default (and disables truncation checks)
	KeepAlive   time.Duration
}

// Config is the Ollama host and every stage's settings.
type Config struct {
	Host                                           string
	Planner, Producer, Evaluator, Embedder, Vision StageConfig
}

// Defaults documented in the README.
const (
	DefaultNumCtx         = 4096
	DefaultProducerNumCtx = 8192
	DefaultKeepAlive      = 10 * time.Minute
	EmbedBatch            = 32
	maxImageBytes         = 20 << 20
	maxRepairEcho         = 4000 // bytes of a broken answer quoted back in the repair prompt
)

// DefaultConfig fills the documented per-stage defaults around the given model names.
func DefaultConfig(host, planner, producer, evaluator, embedder, vision string) Config {
	st := func(model string, temp float64, maxTokens, numCtx int) StageConfig {
		return StageConfig{Model: model, Temperature: temp, MaxTokens: maxTokens, NumCtx: numCtx, KeepAlive: DefaultKeepAlive}
	}
	return Config{
		Host:      host,
		Planner:   st(planner, 0.2, 512, DefaultNumCtx),
		Producer:  st(producer, 0.3, 1500, DefaultProducerNumCtx),
		Evaluator: st(evaluator, 0, 8, DefaultNumCtx),
		Embedder:  st(embedder, 0, 0, DefaultNumCtx),
		Vision:    st(vision, 0.1, 300, DefaultNumCtx),
	}
}

// Stage returns the settings of one stage (zero for an unknown stage).
func (c Config) Stage(s Stage) StageConfig {
	switch s {
	case Planner:
		return c.Planner
	case Producer:
		return c.Producer
	case Evaluator:
		return c.Evaluator
	case Embedder:
		return c.Embedder
	case Vision:
		return c.Vision
	case NoveltyJudge:
		sc := c.Evaluator
		sc.MaxTokens, sc.Temperature = NoveltyMaxTokens, 0
		return sc
	case Compressor:
		sc := c.Producer
		sc.MaxTokens, sc.Temperature = CompressionMaxTokens, CompressionTemperature
		return sc
	}
	return StageConfig{}
}

// Client talks to one Ollama server with per-stage settings.
type Client struct {
	cfg  Config
	host string
	api  *api.Client

	mu      sync.Mutex
	trained map[string]int // model -> trained context length (0: unknown)
}

// New parses the host ("http://h:11434", "h:11434" or "h") and builds a client. A nil
// httpClient gets one without a timeout: the caller's context bounds every call.
func New(cfg Config, httpClient *http.Client) (*Client, error) {
	h := strings.TrimSpace(cfg.Host)
	if h == "" {
		return nil, errors.New("llm: no Ollama host configured (set OLLAMA_HOST)")
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("llm: bad Ollama host %q (want http://host:port)", cfg.Host)
	}
	if u.Port() == "" && u.Scheme == "http" {
		u.Host += ":11434"
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	return &Client{cfg: cfg, host: u.String(), api: api.NewClient(u, httpClient), trained: map[string]int{}}, nil
}

// Host is the server URL the client talks to.
func (c *Client) Host() string { return c.host }

// Config is the configuration the client was built with.
func (c *Client) Config() Config { return c.cfg }

// Configured reports whether a stage has a model; a nil client has none.
func (c *Client) Configured(s Stage) bool { return c != nil && c.cfg.Stage(s).Model != "" }

// Usage counts model calls and tokens so budgets and reports can add them up; it is the run's
// usage type, defined once in the research data model.
type Usage = research.Usage

// Outcome says how a structured answer was obtained.
type Outcome struct {
	Repaired bool   `json:"repaired,omitempty"` // the first answer was bad, the repair was good
	Fallback bool   `json:"fallback,omitempty"` // both were bad: use the deterministic counterpart
	Reason   string `json:"reason,omitempty"`   // what was wrong with the bad answer(s)
}

// Budget caps model use for one run; 0 means unlimited.
type Budget struct {
	MaxCalls  int `json:"max_calls,omitempty"`
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Exceeded reports whether u has used up the budget, with a reason for the report.
func (b Budget) Exceeded(u Usage) (bool, string) {
	if b.MaxCalls > 0 && u.Calls >= b.MaxCalls {
		return true, fmt.Sprintf("model budget reached: %d/%d calls", u.Calls, b.MaxCalls)
	}
	if b.MaxTokens > 0 && u.Tokens() >= b.MaxTokens {
		return true, fmt.Sprintf("model budget reached: %d/%d tokens", u.Tokens(), b.MaxTokens)
	}
	return false, ""
}

// Sentinel kinds for errors.Is; the returned errors carry host and model in their text.
var (
	ErrModelMissing  = errors.New("model not found")
	ErrUnavailable   = errors.New("ollama unavailable")
	ErrNotConfigured = errors.New("stage not configured")
)

// IsModelMissing reports whether the server does not have the model.
func IsModelMissing(err error) bool { return errors.Is(err, ErrModelMissing) }

// IsUnavailable reports whether the server could not be reached or failed (5xx).
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

type callError struct {
	msg  string
	kind error // nil for errors of no particular kind
	err  error
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.kind, e.err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// wrap turns a transport or API error into one that names the host and the model ("" for
// calls about no model).
func (c *Client) wrap(ctx context.Context, model string, err error) error {
	subject := fmt.Sprintf("model %q", model)
	if model == "" {
		subject = "request"
	}
	if ctx.Err() != nil {
		return &callError{msg: fmt.Sprintf("ollama at %s: %s: %v", c.host, subject, ctx.Err()), err: err}
	}
	var se api.StatusError
	if errors.As(err, &se) {
		switch {
		case se.StatusCode == http.StatusNotFound && model != "":
			return &callError{msg: fmt.Sprintf("ollama at %s: model %q not found (run 'ollama pull %s')", c.host, model, model), kind: ErrModelMissing, err: err}
		case se.StatusCode >= 500:
			return &callError{msg: fmt.Sprintf("ollama at %s: server error %d for %s: %s", c.host, se.StatusCode, subject, se.ErrorMessage), kind: ErrUnavailable, err: err}
		default:
			return &callError{msg: fmt.Sprintf("ollama at %s: %s rejected (%d): %s", c.host, subject, se.StatusCode, se.ErrorMessage), err: err}
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return &callError{msg: fmt.Sprintf("ollama at %s is unreachable (is 'ollama serve' running?): %v", c.host, ue.Err), kind: ErrUnavailable, err: err}
	}
	return &callError{msg: fmt.Sprintf("ollama at %s: %s: %v", c.host, subject, err), err: err}
}

func (c *Client) stage(s Stage) (StageConfig, error) {
	sc := c.cfg.Stage(s)
	if sc.Model == "" {
		return sc, fmt.Errorf("llm: %s stage has no model configured: %w", s, ErrNotConfigured)
	}
	return sc, nil
}

func options(sc StageConfig) map[string]any {
	o := map[string]any{"temperature": sc.Temperature}
	if sc.MaxTokens > 0 {
		o["num_predict"] = sc.MaxTokens
	}
	if sc.NumCtx > 0 {
		o["num_ctx"] = sc.NumCtx
	}
	return o
}

func keepAlive(sc StageConfig) *api.Duration {
	if sc.KeepAlive == 0 {
		return nil
	}
	return &api.Duration{Duration: sc.KeepAlive}
}

// reserve is the output room kept free of prompt: MaxTokens, but at most half the window.
func reserve(sc StageConfig) int { return max(0, min(sc.MaxTokens, sc.NumCtx/2)) }

// promptCut reports whether Ollama probably cut the prompt: it filled the window left after
// the output reserve (Ollama truncates silently; only PromptEvalCount shows it).
func promptCut(sc StageConfig, promptTokens int) bool {
	return sc.NumCtx > 0 && promptTokens >= sc.NumCtx-reserve(sc)
}

// window returns sc with NumCtx clamped to the model's trained context length, as Ollama
// does silently when it loads the model. The length is asked once per model and cached.
func (c *Client) window(ctx context.Context, sc StageConfig) StageConfig {
	if sc.NumCtx <= 0 {
		return sc
	}
	c.mu.Lock()
	n, ok := c.trained[sc.Model]
	c.mu.Unlock()
	if !ok {
		resp, err := c.api.Show(ctx, &api.ShowRequest{Model: sc.Model})
		if err != nil {
			return sc // the call itself will report the problem
		}
		arch, _ := resp.ModelInfo["general.architecture"].(string)
		if v, ok := resp.ModelInfo[arch+".context_length"].(float64); ok {
			n = int(v)
		}
		c.mu.Lock()
		c.trained[sc.Model] = n
		c.mu.Unlock()
	}
	if n > 0 && n < sc.NumCtx {
		sc.NumCtx = n
	}
	return sc
}

// reply is one finished non-streaming chat answer.
type reply struct {
	text       string
	doneReason string
}

// chat makes one non-streaming /api/chat call.
func (c *Client) chat(ctx context.Context, sc StageConfig, msgs []api.Message, format json.RawMessage) (reply, Usage, error) {
	sc = c.window(ctx, sc)
	stream := false
	req := &api.ChatRequest{
		Model:     sc.Model,
		Messages:  msgs,
		Stream:    &stream,
		Format:    format,
		KeepAlive: keepAlive(sc),
		Options:   options(sc),
	}
	var r reply
	var u Usage
	var b strings.Builder
	err := c.api.Chat(ctx, req, func(resp api.ChatResponse) error {
		b.WriteString(resp.Message.Content)
		if resp.Done {
			r.doneReason = resp.DoneReason
			u.PromptTokens += resp.PromptEvalCount
			u.OutputTokens += resp.EvalCount
		}
		return nil
	})
	if err != nil {
		return r, Usage{}, c.wrap(ctx, sc.Model, err)
	}
	u.Calls = 1
	u.Truncated = promptCut(sc, u.PromptTokens)
	r.text = b.String()
	return r, u, nil
}

func messages(system, prompt string) []api.Message {
	var m []api.Message
	if system != "" {
		m = append(m, api.Message{Role: "system", Content: system})
	}
	return append(m, api.Message{Role: "user", Content: prompt})
}

// Generate asks a stage's model for free text.
func (c *Client) Generate(ctx context.Context, stage Stage, system, prompt string) (string, Usage, error) {
	sc, err := c.stage(stage)
	if err != nil {
		return "", Usage{}, err
	}
	r, u, err := c.chat(ctx, sc, messages(system, prompt), nil)
	return strings.TrimSpace(r.text), u, err
}

// GenerateJSON asks for JSON constrained by schema, decodes it into out (a non-nil pointer) and runs
// validate (nil: none). A bad answer gets one repair attempt; if that is bad too the Outcome
// says Fallback with a nil error. Only transport and server errors are returned as errors.
func (c *Client) GenerateJSON(ctx context.Context, stage Stage, system, prompt string, schema json.RawMessage, out any, validate func() error) (Outcome, Usage, error) {
	sc, err := c.stage(stage)
	if err != nil {
		return Outcome{}, Usage{}, err
	}
	msgs := messages(system, prompt)
	r, total, err := c.chat(ctx, sc, msgs, schema)
	if err != nil {
		return Outcome{}, total, err
	}
	first := decode(r, out, validate)
	if first == nil {
		return Outcome{}, total, nil
	}
	msgs = append(msgs,
		api.Message{Role: "assistant", Content: clip(r.text, maxRepairEcho)},
		api.Message{Role: "user", Content: repairPrompt(first, schema)})
	r, u, err := c.chat(ctx, sc, msgs, schema)
	total.Add(u)
	if err != nil {
		return Outcome{}, total, err
	}
	if second := decode(r, out, validate); second != nil {
		reflect.ValueOf(out).Elem().SetZero()
		return Outcome{Fallback: true, Reason: fmt.Sprintf("%v; after repair: %v", first, second)}, total, nil
	}
	return Outcome{Repaired: true, Reason: first.Error()}, total, nil
}

// decode resets out, extracts the JSON object from the answer, unmarshals and validates it.
func decode(r reply, out any, validate func() error) error {
	reflect.ValueOf(out).Elem().SetZero()
	cut := ""
	if r.doneReason == "length" {
		cut = " (answer cut at num_predict)"
	}
	js, ok := ExtractJSON(r.text)
	if !ok {
		return fmt.Errorf("no complete JSON object in the answer%s", cut)
	}
	if err := json.Unmarshal([]byte(js), out); err != nil {
		return fmt.Errorf("JSON does not match the schema: %v%s", err, cut)
	}
	if validate != nil {
		if err := validate(); err != nil {
			return fmt.Errorf("invalid answer: %v", err)
		}
	}
	return nil
}

func repairPrompt(problem error, schema json.RawMessage) string {
	return "Your previous answer could not be used: " + problem.Error() + ".\n" +
		"Reply again with only one JSON object, no prose and no code fences, that follows this JSON schema and its limits:\n" +
		string(schema)
}

// GenerateFitted drops or shortens evidence so system, render(evidence) and question fit the
// model's real window (num_ctx clamped to its trained length) with room left for the answer.
// The prompt is render(evidence) then the question, which is never cut. If the server still
// reports a cut prompt, it retries once with each source in half the room. It returns the answer, the
// usage of both calls (Truncated from the last) and how many evidence items the answer saw.
func (c *Client) GenerateFitted(ctx context.Context, stage Stage, system, question string, evidence []string, render func(evidence []string) string) (string, Usage, int, error) {
	sc, err := c.stage(stage)
	if err != nil {
		return "", Usage{}, 0, err
	}
	sc = c.window(ctx, sc)
	prompt := func(ev []string) string { return render(ev) + "\n\n" + question }
	ev := FitPrompt(system+"\n"+prompt(nil), evidence, sc.NumCtx, reserve(sc))
	r, total, err := c.chat(ctx, sc, messages(system, prompt(ev)), nil)
	if err != nil || !total.Truncated || len(ev) == 0 {
		return strings.TrimSpace(r.text), total, len(ev), err
	}
	// still cut: every source keeps half its room
	ev = fitRoom(evidence, (sc.NumCtx-reserve(sc)-EstimateTokens(system+"\n"+prompt(nil)))/2)
	r, u, err := c.chat(ctx, sc, messages(system, prompt(ev)), nil)
	total.Add(u)
	total.Truncated = u.Truncated
	return strings.TrimSpace(r.text), total, len(ev), err
}

// Embed embeds texts with the embedder model through /api/embed, EmbedBatch texts per call.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	sc, err := c.stage(Embedder)
	if err != nil {
		return nil, Usage{}, err
	}
	// the same clamped window as chat calls: a different num_ctx would make Ollama reload the model
	sc = c.window(ctx, sc)
	var total Usage
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += EmbedBatch {
		batch := texts[start:min(start+EmbedBatch, len(texts))]
		req := &api.EmbedRequest{Model: sc.Model, Input: batch, KeepAlive: keepAlive(sc)}
		if sc.NumCtx > 0 {
			req.Options = map[string]any{"num_ctx": sc.NumCtx}
		}
		resp, err := c.api.Embed(ctx, req)
		if err != nil {
			return nil, total, c.wrap(ctx, sc.Model, err)
		}
		total.Add(Usage{Calls: 1, PromptTokens: resp.PromptEvalCount})
		if len(resp.Embeddings) != len(batch) {
			return nil, total, fmt.Errorf("ollama at %s: model %q returned %d embeddings for %d inputs", c.host, sc.Model, len(resp.Embeddings), len(batch))
		}
		out = append(out, resp.Embeddings...)
	}
	return out, total, nil
}

// CheckModels fails with an ErrModelMissing error naming every configured stage model the
// server lacks, so a worker can refuse to start instead of failing mid-run.
func (c *Client) CheckModels(ctx context.Context) error {
	list, err := c.api.List(ctx)
	if err != nil {
		return c.wrap(ctx, "", err)
	}
	tag := func(m string) string {
		if strings.Contains(m, ":") {
			return m
		}
		return m + ":latest"
	}
	have := map[string]bool{}
	for _, m := range list.Models {
		have[tag(m.Name)], have[tag(m.Model)] = true, true
	}
	var missing []string
	for _, s := range []Stage{Planner, Producer, Evaluator, Embedder, Vision} {
		if m := c.cfg.Stage(s).Model; m != "" && !have[tag(m)] && !slices.Contains(missing, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &callError{
		msg:  fmt.Sprintf("ollama at %s: models not found: %s (run 'ollama pull %s')", c.host, strings.Join(missing, ", "), strings.Join(missing, "' and 'ollama pull ")),
		kind: ErrModelMissing,
	}
}

// Describe sends an image file to the vision model and returns its short description.
func (c *Client) Describe(ctx context.Context, imagePath string) (string, Usage, error) {
	sc, err := c.stage(Vision)
	if err != nil {
		return "", Usage{}, err
	}
	st, err := os.Stat(imagePath)
	if err != nil {
		return "", Usage{}, fmt.Errorf("llm: image: %w", err)
	}
	if st.Size() > maxImageBytes {
		return "", Usage{}, fmt.Errorf("llm: image %s is %d bytes; the limit is %d", imagePath, st.Size(), maxImageBytes)
	}
	img, err := os.ReadFile(imagePath)
	if err != nil {
		return "", Usage{}, fmt.Errorf("llm: image: %w", err)
	}
	msgs := []api.Message{{Role: "user", Content: VisionPrompt, Images: []api.ImageData{img}}}
	r, u, err := c.chat(ctx, sc, msgs, nil)
	return strings.TrimSpace(r.text), u, err
}

// ApplyEnv overrides stage settings from the environment: SATED_<STAGE>_MAX_TOKENS,
// SATED_<STAGE>_TEMPERATURE and SATED_<STAGE>_NUM_CTX (STAGE is PLANNER, PRODUCER, EVALUATOR,
// EMBEDDER or VISION). A malformed value is an error naming the variable.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	for _, st := range []struct {
		name string
		sc   *StageConfig
	}{{"PLANNER", &c.Planner}, {"PRODUCER", &c.Producer}, {"EVALUATOR", &c.Evaluator}, {"EMBEDDER", &c.Embedder}, {"VISION", &c.Vision}} {
		for _, f := range []struct {
			suffix string
			set    func(string) error
		}{
			{"MAX_TOKENS", func(v string) error { return atoiInto(v, &st.sc.MaxTokens) }},
			{"NUM_CTX", func(v string) error { return atoiInto(v, &st.sc.NumCtx) }},
			{"TEMPERATURE", func(v string) error {
				t, err := strconv.ParseFloat(v, 64)
				if err != nil || !(t >= 0 && t <= 2) { // NaN fails every comparison
					return fmt.Errorf("want a number in [0,2]")
				}
				st.sc.Temperature = t
				return nil
			}},
		} {
			name := "SATED_" + st.name + "_" + f.suffix
			if v := strings.TrimSpace(getenv(name)); v != "" {
				if err := f.set(v); err != nil {
					return fmt.Errorf("%s=%q: %v", name, v, err)
				}
			}
		}
	}
	return nil
}

func atoiInto(v string, dst *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want a non-negative integer")
	}
	*dst = n
	return nil
}
