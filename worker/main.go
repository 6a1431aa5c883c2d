// Command worker is the composition root: configuration, clients, registration, run.
// It serves the research task queue and, unless -memory=false, the memory task queue
// (chromem-go lives in one process, so exactly one worker should serve memory).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	tlog "go.temporal.io/sdk/log"

	"go.temporal.io/sdk/interceptor"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/codec"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/fetch"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/meili"
	"github.com/sated-dev/sated/internal/memory"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/workflows"
)

func main() {
	serveMemory := flag.Bool("memory", true, "also serve the memory task queue (run exactly one such worker)")
	flag.Parse()
	if err := run(*serveMemory); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

// fileJournal appends one JSON line per started and per completed activity; the reliability
// tests read it.
type fileJournal struct {
	mu sync.Mutex
	f  *os.File
}

func (j *fileJournal) Started(ctx context.Context, name string) { j.write(ctx, "started", name, "") }

func (j *fileJournal) Completed(ctx context.Context, name, detail string) {
	j.write(ctx, "completed", name, detail)
}

func (j *fileJournal) write(ctx context.Context, event, name, detail string) {
	info := activity.GetInfo(ctx)
	line, _ := json.Marshal(map[string]any{"event": event, "activity": name, "detail": detail, "workflow_id": info.WorkflowExecution.ID,
		"run_id": info.WorkflowExecution.RunID, "activity_id": info.ActivityID, "attempt": info.Attempt, "pid": os.Getpid(),
		"at": time.Now().UnixMilli()})
	j.mu.Lock()
	defer j.mu.Unlock()
	j.f.Write(append(line, '\n'))
	j.f.Sync()
}

// run reads the configuration, opens the clients the activities stand on, registers one worker
// per task queue and serves until SIGINT or SIGTERM. A bad configuration value fails first,
// before anything is opened or dialled.
func run(serveMemory bool) error {
	env, err := config.FromEnv()
	if err != nil {
		return err
	}
	cl, err := openClients(context.Background(), env, serveMemory)
	if err != nil {
		return err
	}
	defer cl.close()
	c, err := client.Dial(client.Options{HostPort: env.TemporalAddress, Namespace: env.TemporalNamespace,
		Interceptors: cl.interceptors,
		// payloads over 128 KB compressed (internal/codec): what grows with a run's work
		DataConverter: codec.DataConverter(),
		Logger:        tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: env.LogLevel})))})
	if err != nil {
		return fmt.Errorf("cannot reach Temporal at %s: %w", env.TemporalAddress, err)
	}
	defer c.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cl.deps.SearchAttributes, err = activities.EnsureSearchAttributes(sctx, c, env.TemporalNamespace)
	cancel()
	if err != nil {
		log.Printf("search attributes unavailable, runs will not show strategy and state in the Temporal UI's list: %v", err)
	}
	if env.CodecAddr != "" {
		stop, err := serveCodec(env.CodecAddr)
		if err != nil {
			return err
		}
		defer stop()
	}
	workers := newWorkers(c, env, cl)
	log.Printf("sated worker: temporal %s, queue %s, data %s, providers %s, model %v",
		env.TemporalAddress, env.TaskQueue, env.DataDir, strings.Join(keys(cl.deps.Providers), ","), cl.model != nil)
	return serve(workers)
}

// clients are what the activities stand on: stores, search providers, the model, the journal.
type clients struct {
	deps  activities.Deps
	model *llm.Client // nil without OLLAMA_HOST
	// interceptors heartbeat for running activities and journal completed ones for the crash
	// test (SATED_ACTIVITY_JOURNAL)
	interceptors []interceptor.ClientInterceptor
	memory       *memory.Store // nil when this worker does not serve the memory queue
	closers      []func() error
}

// openClients opens everything, or nothing: on an error what was opened is closed again.
func openClients(ctx context.Context, env config.Env, serveMemory bool) (*clients, error) {
	cl := &clients{}
	if err := cl.open(ctx, env, serveMemory); err != nil {
		cl.close()
		return nil, err
	}
	return cl, nil
}

func (cl *clients) open(ctx context.Context, env config.Env, serveMemory bool) error {
	cl.interceptors = []interceptor.ClientInterceptor{activities.NewHeartbeatInterceptor()}
	if err := os.MkdirAll(env.DataDir, 0o755); err != nil {
		return fmt.Errorf("data dir %s: %w", env.DataDir, err)
	}
	idx, err := corpus.Open(env.CorpusPath())
	if err != nil {
		return err
	}
	cl.closers = append(cl.closers, idx.Close)
	cache, err := search.OpenCache(env.CachePath(), env.CacheTTL)
	if err != nil {
		return err
	}
	cl.closers = append(cl.closers, cache.Close)
	providers, meiliClient, err := searchProviders(ctx, env, idx)
	if err != nil {
		return err
	}
	cl.deps = activities.Deps{
		Providers:   providers,
		Record:      cache, // the run's search record stays on with the cache off: a retry never re-asks
		Docs:        idx,
		Fetcher:     fetch.New(fetch.Fetcher{Allow: env.FetchAllow, Timeout: env.FetchTimeout}),
		ReportDir:   env.ReportDir(),
		ChunkBudget: env.ChunkBudget,
	}
	if env.SearchCache {
		cl.deps.Cache = cache
	}
	if cl.model, err = newModel(env); err != nil {
		return err
	}
	if cl.model != nil {
		cl.deps.Model = cl.model
	}
	if p := env.ActivityJournal; p != "" {
		holds, err := activities.ParseHolds(env.ActivityHold)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("activity journal %s: %w", p, err)
		}
		cl.closers = append(cl.closers, f.Close)
		cl.interceptors = append(cl.interceptors, activities.NewJournalInterceptor(&fileJournal{f: f}, holds))
	}
	if !serveMemory {
		return nil
	}
	if cl.memory, err = openMemory(ctx, env, cl.model, meiliClient); err != nil {
		return err
	}
	cl.closers = append(cl.closers, cl.memory.Close)
	if st := cl.memory.Stats(); st.Note != "" {
		log.Printf("memory %s: %s", st.Dir, st.Note)
	}
	cl.deps.MemoryQueue = env.MemoryTaskQueue
	return nil
}

// close releases the clients in the reverse order of opening.
func (cl *clients) close() {
	for i := len(cl.closers) - 1; i >= 0; i-- {
		cl.closers[i]()
	}
}

// searchProviders are the configured search sources by name; the embedded corpus is always one.
// The Meilisearch client is returned too: memory uses it for its full-text side.
func searchProviders(ctx context.Context, env config.Env, idx *corpus.Index) (map[string]search.Provider, *meili.Client, error) {
	providers := map[string]search.Provider{"corpus": idx}
	if env.SearxngURL != "" {
		providers["searxng"] = search.NewSearXNG(env.SearxngURL, nil)
	}
	if env.BraveAPIKey != "" {
		b, err := search.NewBrave(env.BraveAPIKey, env.BraveURL, nil)
		if err != nil {
			return nil, nil, err
		}
		providers["brave"] = b
	}
	if env.DuckDuckGoURL != "" {
		providers["duckduckgo"] = search.NewDuckDuckGo(env.DuckDuckGoURL, nil)
	}
	if env.MeiliURL == "" {
		return providers, nil, nil
	}
	meiliClient := meili.New(env.MeiliURL, env.MeiliAPIKey)
	if err := meiliClient.Health(ctx); err != nil {
		log.Printf("meilisearch at %s unreachable (%v): the embedded index answers until it is back", env.MeiliURL, err)
	}
	providers["meilisearch"] = meiliClient.Corpus(meili.CorpusIndex)
	return providers, meiliClient, nil
}

// newModel is the Ollama client with every stage's model and tuning; nil without OLLAMA_HOST.
func newModel(env config.Env) (*llm.Client, error) {
	if env.OllamaHost == "" {
		return nil, nil
	}
	cfg := llm.DefaultConfig(env.OllamaHost, env.PlannerModel, env.ProducerModel, env.EvaluatorModel,
		env.EmbedModel, env.VisionModel)
	applyTuning(&cfg, env.Tuning)
	m, err := llm.New(cfg, nil)
	if err != nil {
		return nil, fmt.Errorf("ollama at %s: %w", env.OllamaHost, err)
	}
	return m, nil
}

// applyTuning sets the stage overrides config read from SATED_<STAGE>_* over the defaults.
func applyTuning(cfg *llm.Config, t config.ModelTuning) {
	for _, st := range []struct {
		sc *llm.StageConfig
		t  config.StageTuning
	}{{&cfg.Planner, t.Planner}, {&cfg.Producer, t.Producer}, {&cfg.Evaluator, t.Evaluator}, {&cfg.Embedder, t.Embedder}, {&cfg.Vision, t.Vision}} {
		if st.t.MaxTokens != nil {
			st.sc.MaxTokens = *st.t.MaxTokens
		}
		if st.t.NumCtx != nil {
			st.sc.NumCtx = *st.t.NumCtx
		}
		if st.t.Temperature != nil {
			st.sc.Temperature = *st.t.Temperature
		}
	}
}

// openMemory opens the memory store, with the embedding model and Meilisearch when configured.
// A missing or damaged store, or one whose full-text side lacks observations the vector side
// holds, stops the worker: the error names the file and the command that fixes it.
func openMemory(ctx context.Context, env config.Env, model *llm.Client, meiliClient *meili.Client) (*memory.Store, error) {
	opts := memory.Options{Dir: env.MemoryDir()}
	if model != nil && model.Configured(llm.Embedder) {
		opts.Embedder = llm.MemoryEmbedder{C: model}
		opts.EmbedderID = llm.MemoryEmbedderID(env.EmbedModel)
	}
	if meiliClient != nil {
		opts.FullText = meiliClient.Memory(meili.MemoryIndex)
	}
	return memory.Open(ctx, opts)
}

// newWorkers registers one worker per task queue: research, one per search source, memory.
func newWorkers(c client.Client, env config.Env, cl *clients) []worker.Worker {
	acts := activities.NewActivities(cl.deps)
	corp, _ := cl.deps.Providers["corpus"].(activities.HarnessCorpus)
	workers := []worker.Worker{researchWorker(c, env, acts, cl.model, corp, cl.deps.SearchAttributes)}
	for _, name := range keys(cl.deps.Providers) {
		sw := worker.New(c, activities.SourceTaskQueue(name), worker.Options{
			TaskQueueActivitiesPerSecond: activities.SourceRateLimits[name]})
		registerSourceActivities(sw, acts)
		workers = append(workers, sw)
	}
	if cl.memory != nil {
		mw := worker.New(c, env.MemoryTaskQueue, worker.Options{})
		mw.RegisterWorkflow(workflows.MemoryAdminWorkflow)
		mw.RegisterActivity(activities.NewMemoryActivities(cl.memory))
		workers = append(workers, mw)
	}
	return workers
}

// researchWorker serves the research queue: every workflow and the research and harness activities.
func researchWorker(c client.Client, env config.Env, acts *activities.Activities, model *llm.Client, corp activities.HarnessCorpus, searchAttrs bool) worker.Worker {
	w := worker.New(c, env.TaskQueue, worker.Options{})
	w.RegisterWorkflow(workflows.ResearchWorkflow)
	w.RegisterWorkflow(workflows.BaselineWorkflow)
	w.RegisterActivity(acts)
	// investigation mode: per-source loops, each provider's searches on its own rate-limited queue
	w.RegisterWorkflow(workflows.InvestigationWorkflow)
	w.RegisterWorkflow(workflows.SourceLoopWorkflow)
	// the harness monitor, its cycles and expansions
	w.RegisterWorkflow(workflows.SaturationMonitorWorkflow)
	w.RegisterWorkflow(workflows.HarnessCycleWorkflow)
	w.RegisterWorkflow(workflows.ExpansionWorkflow)
	var harnessModel activities.HarnessModel
	if model != nil {
		harnessModel = model
	}
	ha := activities.NewHarnessActivitiesWithCorpus(env.HarnessDir(), c, env.TaskQueue, harnessModel, corp)
	ha.SearchAttributes = searchAttrs
	w.RegisterActivity(ha)
	// the operator gate: notifications (SATED_NOTIFY_URL, SATED_NOTIFY_COMMAND) and the audit log
	w.RegisterActivity(activities.NewGateActivities(env.NotifyURL, env.NotifyCommand, env.HarnessDir()))
	return w
}

// searchActivity is the name the workflows schedule on a source queue: the method name of
// (*activities.Activities).Search, as registering the whole struct on the research queue gives.
const searchActivity = "Search"

// activityRegistry is where source activities are registered: a worker, or a test environment.
type activityRegistry interface {
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// registerSourceActivities registers the one activity the source queues serve.
func registerSourceActivities(r activityRegistry, acts *activities.Activities) {
	r.RegisterActivityWithOptions(acts.Search, activity.RegisterOptions{Name: searchActivity})
}

// serve starts every worker and blocks until SIGINT or SIGTERM, then stops them.
// serveCodec serves the payload codec to the Temporal UI on addr (SATED_CODEC_ADDR) until stop.
// A taken port fails the worker's start: the operator asked for the codec there.
func serveCodec(addr string) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("SATED_CODEC_ADDR=%s: %w", addr, err)
	}
	srv := &http.Server{Handler: codec.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	log.Printf("payload codec for the Temporal UI on http://%s (set it as the UI's codec endpoint)", ln.Addr())
	return func() { srv.Close() }, nil
}

func serve(workers []worker.Worker) error {
	for _, w := range workers {
		if err := w.Start(); err != nil {
			return err
		}
		defer w.Stop()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}

func keys(m map[string]search.Provider) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
