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
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/sated-dev/sated/activities"
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
	memory := flag.Bool("memory", true, "also serve the memory task queue (run exactly one such worker)")
	flag.Parse()
	if err := run(*memory); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

// fileJournal appends one JSON line per completed activity; the crash test reads it.
type fileJournal struct {
	mu sync.Mutex
	f  *os.File
}

func (j *fileJournal) Completed(ctx context.Context, name, detail string) {
	info := activity.GetInfo(ctx)
	line, _ := json.Marshal(map[string]any{"activity": name, "detail": detail, "workflow_id": info.WorkflowExecution.ID,
		"run_id": info.WorkflowExecution.RunID, "activity_id": info.ActivityID, "attempt": info.Attempt, "pid": os.Getpid()})
	j.mu.Lock()
	defer j.mu.Unlock()
	j.f.Write(append(line, '\n'))
	j.f.Sync()
}

// ollamaEmbedder gives memory the embedding model's vectors.
type ollamaEmbedder struct{ m *llm.Client }

func (e ollamaEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, _, err := e.m.Embed(ctx, texts)
	return v, err
}

func run(serveMemory bool) error {
	ctx := context.Background()
	env := config.FromEnv()
	if err := os.MkdirAll(env.DataDir, 0o755); err != nil {
		return fmt.Errorf("data dir %s: %w", env.DataDir, err)
	}
	idx, err := corpus.Open(env.CorpusPath())
	if err != nil {
		return err
	}
	defer idx.Close()
	cache, err := search.OpenCache(env.CachePath(), search.CacheTTL)
	if err != nil {
		return err
	}
	defer cache.Close()

	providers := map[string]search.Provider{"corpus": idx}
	if env.SearxngURL != "" {
		providers["searxng"] = search.NewSearXNG(env.SearxngURL, nil)
	}
	if key := os.Getenv("SATED_BRAVE_API_KEY"); key != "" {
		b, err := search.NewBrave(key, os.Getenv("SATED_BRAVE_URL"), nil)
		if err != nil {
			return err
		}
		providers["brave"] = b
	}
	if env.DuckDuckGoURL != "" {
		providers["duckduckgo"] = search.NewDuckDuckGo(env.DuckDuckGoURL, nil)
	}

	var deps activities.Deps
	deps = activities.Deps{
		Providers: providers,
		Cache:     cache,
		Docs:      idx,
		Fetcher:   fetch.New(fetch.Fetcher{Allow: env.FetchAllow, Timeout: env.FetchTimeout}),
		ReportDir: env.ReportDir(),
	}
	var meiliClient *meili.Client
	if env.MeiliURL != "" {
		meiliClient = meili.New(env.MeiliURL, env.MeiliAPIKey)
		if err := meiliClient.Health(ctx); err != nil {
			log.Printf("meilisearch at %s unreachable (%v): the embedded index answers until it is back", env.MeiliURL, err)
		}
		providers["meilisearch"] = meiliClient.Corpus(meili.CorpusIndex)
	}
	if env.OllamaHost != "" {
		cfg := llm.DefaultConfig(env.OllamaHost, env.PlannerModel, env.ProducerModel, env.EvaluatorModel,
			env.EmbedModel, env.VisionModel)
		if err := cfg.ApplyEnv(os.Getenv); err != nil {
			return err
		}
		m, err := llm.New(cfg, nil)
		if err != nil {
			return fmt.Errorf("ollama at %s: %w", env.OllamaHost, err)
		}
		deps.Model = m
	}
	if p := os.Getenv("SATED_ACTIVITY_JOURNAL"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("activity journal %s: %w", p, err)
		}
		defer f.Close()
		deps.Journal = &fileJournal{f: f}
	}

	var memStore *memory.Store
	if serveMemory {
		opts := memory.Options{Dir: env.MemoryDir()}
		if m, ok := deps.Model.(*llm.Client); ok && m.Configured(llm.Embedder) {
			opts.Embedder = ollamaEmbedder{m}
			opts.EmbedderID = "ollama:" + env.EmbedModel
		}
		if meiliClient != nil {
			opts.FullText = meiliClient.Memory(meili.MemoryIndex)
		}
		memStore, err = memory.Open(ctx, opts)
		if err != nil {
			return err
		}
		defer memStore.Close()
		deps.MemoryQueue = env.MemoryTaskQueue
	}

	c, err := client.Dial(client.Options{HostPort: env.TemporalAddress, Namespace: env.TemporalNamespace})
	if err != nil {
		return fmt.Errorf("cannot reach Temporal at %s: %w", env.TemporalAddress, err)
	}
	defer c.Close()

	w := worker.New(c, env.TaskQueue, worker.Options{})
	w.RegisterWorkflow(workflows.ResearchWorkflow)
	acts := activities.NewActivities(deps)
	w.RegisterActivity(acts)
	// investigation mode: per-source loops, each provider's searches on its own rate-limited queue
	w.RegisterWorkflow(workflows.InvestigationWorkflow)
	w.RegisterWorkflow(workflows.SourceLoopWorkflow)
	// the harness monitor, its cycles and expansions
	w.RegisterWorkflow(workflows.SaturationMonitorWorkflow)
	w.RegisterWorkflow(workflows.HarnessCycleWorkflow)
	w.RegisterWorkflow(workflows.ExpansionWorkflow)
	var harnessModel activities.HarnessModel
	if m, ok := deps.Model.(*llm.Client); ok {
		harnessModel = m
	}
	w.RegisterActivity(activities.NewHarnessActivities(env.HarnessDir(), c, env.TaskQueue, harnessModel))
	workers := []worker.Worker{w}
	for _, name := range keys(providers) {
		sw := worker.New(c, activities.SourceTaskQueue(name), worker.Options{
			TaskQueueActivitiesPerSecond: activities.SourceRateLimits[name]})
		sw.RegisterActivity(acts)
		workers = append(workers, sw)
	}
	if memStore != nil {
		mw := worker.New(c, env.MemoryTaskQueue, worker.Options{})
		mw.RegisterWorkflow(workflows.MemoryAdminWorkflow)
		mw.RegisterActivity(activities.NewMemoryActivities(memStore))
		workers = append(workers, mw)
	}

	log.Printf("sated worker: temporal %s, queue %s, data %s, providers %s, model %v",
		env.TemporalAddress, env.TaskQueue, env.DataDir, strings.Join(keys(providers), ","), deps.Model != nil)

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
