package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Env is the process configuration of the worker and the starter. Every environment variable
// either command reads is read here, once, so a bad value fails before anything connects.
type Env struct {
	TemporalAddress   string // TEMPORAL_ADDRESS, default localhost:7233
	TemporalNamespace string // TEMPORAL_NAMESPACE, default "default"
	TaskQueue         string // SATED_TASK_QUEUE, default sated-research: research workflows and activities
	MemoryTaskQueue   string // SATED_MEMORY_TASK_QUEUE, default sated-memory: served by exactly one worker
	DataDir           string // SATED_DATA_DIR, default .sated, made absolute: corpus, cache, memory, reports

	OllamaHost     string      // OLLAMA_HOST; empty: no LLM configured
	PlannerModel   string      // SATED_PLANNER_MODEL; empty: the stage runs deterministically
	ProducerModel  string      // SATED_PRODUCER_MODEL
	EvaluatorModel string      // SATED_EVALUATOR_MODEL
	EmbedModel     string      // SATED_EMBED_MODEL
	VisionModel    string      // SATED_VISION_MODEL
	Tuning         ModelTuning // SATED_<STAGE>_MAX_TOKENS, _NUM_CTX, _TEMPERATURE

	MeiliURL      string   // MEILI_URL; empty: no Meilisearch
	MeiliAPIKey   string   // MEILI_API_KEY
	SearxngURL    string   // SATED_SEARXNG_URL; empty: no SearXNG provider
	DuckDuckGoURL string   // SATED_DUCKDUCKGO_URL, default DuckDuckGo's HTML endpoint
	BraveAPIKey   string   // SATED_BRAVE_API_KEY; empty: no Brave provider
	BraveURL      string   // SATED_BRAVE_URL; empty: Brave's public API
	FetchAllow    []string // SATED_FETCH_ALLOW, comma list: hosts or CIDRs the fetcher may reach although private
	FetchTimeout  time.Duration

	// SearchCache (SATED_SEARCH_CACHE: on or off, default on) serves repeated searches from
	// the cache; off asks the provider every time (the run's search record stays on).
	SearchCache bool
	// CacheTTL (SATED_SEARCH_CACHE_TTL, default 24h) is how long a cached search counts as fresh.
	CacheTTL time.Duration
	// ChunkBudget (SATED_CHUNK_BUDGET, alias HARNESS_CHUNK_BUDGET; default 12000) is how many
	// characters of an enriched page the chunker keeps.
	ChunkBudget int

	// ActivityJournal (SATED_ACTIVITY_JOURNAL) is a test hook: the file the reliability tests
	// read started and completed activities from. Empty in a deployment.
	ActivityJournal string
	// ActivityHold (SATED_ACTIVITY_HOLD, with the journal only) is a test hook: activities held
	// before or after their work so a test can kill the worker then (activities.ParseHolds).
	ActivityHold string
	// LogLevel (SATED_LOG_LEVEL: debug, info, warn or error; default info) is the worker's
	// log level; debug logs every activity the SDK runs.
	LogLevel slog.Level

	// NotifyURL (SATED_NOTIFY_URL, http or https) receives the harness gate's notifications as a
	// JSON POST; NotifyCommand (SATED_NOTIFY_COMMAND) is run by sh -c with the same JSON on stdin.
	// Both empty: nothing is sent (the events are still in harness status and the audit log).
	NotifyURL     string
	NotifyCommand string

	// CodecAddr (SATED_CODEC_ADDR, host:port) is where the worker serves the payload codec to
	// the Temporal UI, which shows the payloads the worker compressed (over 128 KB) as JSON when
	// its codec endpoint is http://CodecAddr. Empty: not served.
	CodecAddr string

	UIURL string // SATED_UI_URL, default http://localhost:8233, no trailing slash: the starter's UI links
	User  string // USER: who decides an expansion when the starter's --by is not given

	vars map[string]string // every non-empty variable read, for Var
}

// StageTuning overrides one model stage's settings; nil keeps the stage's default.
type StageTuning struct {
	MaxTokens   *int     // SATED_<STAGE>_MAX_TOKENS: num_predict, a non-negative integer
	NumCtx      *int     // SATED_<STAGE>_NUM_CTX: num_ctx, a non-negative integer
	Temperature *float64 // SATED_<STAGE>_TEMPERATURE: a number in [0,2]
}

// ModelTuning holds the overrides of every model stage.
type ModelTuning struct {
	Planner, Producer, Evaluator, Embedder, Vision StageTuning
}

// Defaults of the variables that have one.
const (
	DefaultFetchTimeout = 20 * time.Second // SATED_FETCH_TIMEOUT
	DefaultCacheTTL     = 24 * time.Hour   // SATED_SEARCH_CACHE_TTL
	DefaultChunkBudget  = 12000            // SATED_CHUNK_BUDGET, the chunker's default budget
	maxChunkBudget      = 10_000_000
)

// FromEnv reads the process configuration. Every variable is documented in the README. A
// malformed value is a one-line error naming the variable and the value.
func FromEnv() (Env, error) { return fromLookup(os.Getenv) }

func fromLookup(lookup func(string) string) (Env, error) {
	vars := map[string]string{}
	getenv := func(k, def string) string {
		v := strings.TrimSpace(lookup(k))
		if v == "" {
			return def
		}
		vars[k] = v
		return v
	}
	e := Env{
		TemporalAddress:   getenv("TEMPORAL_ADDRESS", "localhost:7233"),
		TemporalNamespace: getenv("TEMPORAL_NAMESPACE", "default"),
		TaskQueue:         getenv("SATED_TASK_QUEUE", "sated-research"),
		MemoryTaskQueue:   getenv("SATED_MEMORY_TASK_QUEUE", "sated-memory"),
		DataDir:           getenv("SATED_DATA_DIR", ".sated"),
		OllamaHost:        getenv("OLLAMA_HOST", ""),
		PlannerModel:      getenv("SATED_PLANNER_MODEL", ""),
		ProducerModel:     getenv("SATED_PRODUCER_MODEL", ""),
		EvaluatorModel:    getenv("SATED_EVALUATOR_MODEL", ""),
		EmbedModel:        getenv("SATED_EMBED_MODEL", ""),
		VisionModel:       getenv("SATED_VISION_MODEL", ""),
		MeiliURL:          getenv("MEILI_URL", ""),
		MeiliAPIKey:       getenv("MEILI_API_KEY", ""),
		SearxngURL:        getenv("SATED_SEARXNG_URL", ""),
		DuckDuckGoURL:     getenv("SATED_DUCKDUCKGO_URL", "https://html.duckduckgo.com/html/"),
		BraveAPIKey:       getenv("SATED_BRAVE_API_KEY", ""),
		BraveURL:          getenv("SATED_BRAVE_URL", ""),
		FetchAllow:        splitList(getenv("SATED_FETCH_ALLOW", "")),
		ActivityJournal:   getenv("SATED_ACTIVITY_JOURNAL", ""),
		ActivityHold:      getenv("SATED_ACTIVITY_HOLD", ""),
		NotifyCommand:     getenv("SATED_NOTIFY_COMMAND", ""),
		vars:              vars,
	}
	var err error
	if e.FetchTimeout, err = positiveDuration("SATED_FETCH_TIMEOUT", getenv("SATED_FETCH_TIMEOUT", ""), DefaultFetchTimeout); err != nil {
		return Env{}, err
	}
	if e.SearchCache, err = onOff("SATED_SEARCH_CACHE", getenv("SATED_SEARCH_CACHE", "on")); err != nil {
		return Env{}, err
	}
	if e.CacheTTL, err = positiveDuration("SATED_SEARCH_CACHE_TTL", getenv("SATED_SEARCH_CACHE_TTL", ""), DefaultCacheTTL); err != nil {
		return Env{}, err
	}
	if e.ChunkBudget, err = chunkBudget(getenv); err != nil {
		return Env{}, err
	}
	if e.LogLevel, err = logLevel(getenv("SATED_LOG_LEVEL", "info")); err != nil {
		return Env{}, err
	}
	if e.NotifyURL, err = notifyURL(getenv("SATED_NOTIFY_URL", "")); err != nil {
		return Env{}, err
	}
	if e.CodecAddr, err = hostPort("SATED_CODEC_ADDR", getenv("SATED_CODEC_ADDR", "")); err != nil {
		return Env{}, err
	}
	if e.Tuning, err = readTuning(getenv); err != nil {
		return Env{}, err
	}
	e.UIURL, e.User = readStarterOnly(getenv)
	if abs, err := filepath.Abs(e.DataDir); err == nil {
		e.DataDir = abs
	}
	return e, nil
}

// hostPort checks a listen address: empty, or host:port with a numeric port.
func hostPort(name, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	_, port, err := net.SplitHostPort(v)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%s=%q: want host:port, e.g. 127.0.0.1:8239", name, v)
	}
	return v, nil
}

// logLevel parses SATED_LOG_LEVEL.
func logLevel(v string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		return 0, fmt.Errorf("SATED_LOG_LEVEL=%q: want debug, info, warn or error", v)
	}
	return l, nil
}

// readStarterOnly reads the variables only the starter uses. The worker never reads them, so
// docker-compose.yml (which sets every variable the worker reads) leaves them out.
func readStarterOnly(get func(k, def string) string) (uiURL, user string) {
	return strings.TrimRight(get("SATED_UI_URL", "http://localhost:8233"), "/"), get("USER", "")
}

// readTuning reads SATED_<STAGE>_MAX_TOKENS, _NUM_CTX and _TEMPERATURE for every model stage.
func readTuning(getenv func(k, def string) string) (ModelTuning, error) {
	var m ModelTuning
	for _, st := range []struct {
		name string
		t    *StageTuning
	}{{"PLANNER", &m.Planner}, {"PRODUCER", &m.Producer}, {"EVALUATOR", &m.Evaluator}, {"EMBEDDER", &m.Embedder}, {"VISION", &m.Vision}} {
		prefix := "SATED_" + st.name + "_"
		var err error
		if st.t.MaxTokens, err = optionalCount(prefix+"MAX_TOKENS", getenv(prefix+"MAX_TOKENS", "")); err != nil {
			return m, err
		}
		if st.t.NumCtx, err = optionalCount(prefix+"NUM_CTX", getenv(prefix+"NUM_CTX", "")); err != nil {
			return m, err
		}
		if st.t.Temperature, err = optionalTemperature(prefix+"TEMPERATURE", getenv(prefix+"TEMPERATURE", "")); err != nil {
			return m, err
		}
	}
	return m, nil
}

// notifyURL checks SATED_NOTIFY_URL: an absolute http or https URL with a host. The operator
// chose it, so a loopback or private address is allowed.
func notifyURL(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", badValue("SATED_NOTIFY_URL", v, "not an http or https URL with a host")
	}
	return v, nil
}

// badValue is the one error shape for a malformed variable.
func badValue(name, v, why string) error { return fmt.Errorf("%s=%q: %s", name, v, why) }

func positiveDuration(name, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, badValue(name, v, "not a duration")
	}
	if d <= 0 {
		return 0, badValue(name, v, "not a positive duration")
	}
	return d, nil
}

// onOff parses a switch: on, off, true, false, 1 or 0.
func onOff(name, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "true", "1":
		return true, nil
	case "off", "false", "0":
		return false, nil
	}
	return false, badValue(name, v, "want on or off")
}

// chunkBudget reads SATED_CHUNK_BUDGET, or the design's name HARNESS_CHUNK_BUDGET when only
// that is set; an error names the variable that was read.
func chunkBudget(getenv func(k, def string) string) (int, error) {
	name, v := "SATED_CHUNK_BUDGET", getenv("SATED_CHUNK_BUDGET", "")
	if alias := getenv("HARNESS_CHUNK_BUDGET", ""); v == "" && alias != "" {
		name, v = "HARNESS_CHUNK_BUDGET", alias
	}
	if v == "" {
		return DefaultChunkBudget, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > maxChunkBudget {
		return 0, badValue(name, v, fmt.Sprintf("not a positive integer up to %d (characters)", maxChunkBudget))
	}
	return n, nil
}

func optionalCount(name, v string) (*int, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return nil, badValue(name, v, "not a non-negative integer")
	}
	return &n, nil
}

func optionalTemperature(name, v string) (*float64, error) {
	if v == "" {
		return nil, nil
	}
	t, err := strconv.ParseFloat(v, 64)
	if err != nil || !(t >= 0 && t <= 2) { // NaN fails every comparison
		return nil, badValue(name, v, "not a number in [0,2]")
	}
	return &t, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Var returns the value FromEnv read for a variable it owns (trimmed; empty when unset or not
// a variable of this package), for code that names variables, such as a source's API key.
func (e Env) Var(name string) string { return e.vars[name] }

// Paths under the data directory.
func (e Env) CorpusPath() string { return filepath.Join(e.DataDir, "corpus.db") }
func (e Env) CachePath() string  { return filepath.Join(e.DataDir, "search-cache.db") }
func (e Env) MemoryDir() string  { return filepath.Join(e.DataDir, "memory") }
func (e Env) ReportDir() string  { return filepath.Join(e.DataDir, "reports") }
func (e Env) HarnessDir() string { return filepath.Join(e.DataDir, "harness") }
