package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/sated-dev/sated/internal/codec"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/testenv"
	"github.com/sated-dev/sated/workflows"
)

// stack is a worker and a starter built from this tree, sharing one data dir and task queue.
type stack struct {
	t       testing.TB
	dir     string
	worker  string
	starter string
	env     []string
	addr    string
	queue   string
}

var (
	buildOnce sync.Once
	binDir    string
	workerBin string
	startBin  string
)

func newStack(t testing.TB, extra ...string) *stack {
	addr := testenv.TemporalAddress(t)
	buildOnce.Do(func() {
		binDir, _ = os.MkdirTemp("", "sated-bin-")
		workerBin = testenv.Build(t, "worker", binDir)
		startBin = testenv.Build(t, "starter", binDir)
	})
	dir := t.TempDir()
	queue := fmt.Sprintf("it-%s-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), rand.Int63())
	env := append(os.Environ(),
		"TEMPORAL_ADDRESS="+addr,
		"SATED_DATA_DIR="+filepath.Join(dir, "data"),
		"SATED_TASK_QUEUE="+queue,
		fmt.Sprintf("SATED_MEMORY_TASK_QUEUE=it-mem-%d", rand.Int63()),
		"SATED_ACTIVITY_JOURNAL="+filepath.Join(dir, "journal.jsonl"),
		"OLLAMA_HOST=", "MEILI_URL=",
	)
	env = append(env, extra...)
	s := &stack{t: t, dir: dir, worker: workerBin, starter: startBin, env: env, addr: addr, queue: queue}
	// the operator's one explicit step: a worker refuses a memory store nobody created
	if out, errOut, err := s.starterRun(context.Background(), "memory", "init"); err != nil {
		t.Fatalf("memory init: %v\n%s\n%s", err, out, errOut)
	}
	return s
}

// startWorker runs a worker process; it is killed when the test ends.
func (s *stack) startWorker(name string) *exec.Cmd {
	s.t.Helper()
	logf, err := os.Create(filepath.Join(s.dir, name+".log"))
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(s.worker)
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start worker: %v", err)
	}
	s.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if s.t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			s.t.Logf("%s log:\n%s", name, b)
		}
	})
	return cmd
}

func (s *stack) starterRun(ctx context.Context, args ...string) (string, string, error) {
	cmd := exec.CommandContext(ctx, s.starter, args...)
	cmd.Env = s.env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// index runs 'starter corpus index' over dirs into the stack's data dir.
func (s *stack) index(ctx context.Context, dirs ...string) {
	s.t.Helper()
	if out, errOut, err := s.starterRun(ctx, append([]string{"corpus", "index"}, dirs...)...); err != nil {
		s.t.Fatalf("corpus index: %v\n%s\n%s", err, out, errOut)
	}
}

func (s *stack) client() client.Client {
	c, err := client.Dial(client.Options{HostPort: s.addr, DataConverter: codec.DataConverter()})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(c.Close)
	return c
}

func history(t *testing.T, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}

// completedActivities counts completed activities by type name.
func completedActivities(h *historypb.History) map[string]int {
	scheduled := map[int64]string{}
	out := map[string]int{}
	for _, e := range h.Events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[e.EventId] = a.ActivityType.Name
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil {
			out[scheduled[a.ScheduledEventId]]++
		}
	}
	return out
}

func TestFullRunOverGoDocs(t *testing.T) {
	s := newStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	out, errOut, err := s.starterRun(ctx, "corpus", "index", testenv.GoDocDir(t))
	if err != nil {
		t.Fatalf("corpus index: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(out, "added") {
		t.Fatalf("index summary missing: %s", out)
	}
	s.startWorker("worker")
	q := "What does the Go memory model guarantee, and how do channels and sync.Once create happens-before edges?"
	out, errOut, err = s.starterRun(ctx, "research", q, "--json")
	if err != nil {
		t.Fatalf("research: %v\n%s", err, errOut)
	}
	var rep workflows.ResearchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "round 1") || !strings.Contains(errOut, "novelty") {
		t.Errorf("live progress not shown:\n%s", errOut)
	}
	if len(rep.Sources) == 0 || len(rep.Rounds) < 2 || len(rep.Rounds) > 5 {
		t.Fatalf("sources %d rounds %d", len(rep.Sources), len(rep.Rounds))
	}
	mem := false
	for _, src := range rep.Sources {
		if !strings.HasPrefix(src.URL, "file://") {
			t.Errorf("source %d is not a corpus document: %s", src.N, src.URL)
		}
		page, _, _ := strings.Cut(src.URL, "#") // results are passages: page#anchor
		mem = mem || strings.HasSuffix(page, "go_mem.html")
	}
	if !mem {
		t.Errorf("the memory model was not retrieved: %+v", rep.Sources)
	}
	valid, invalid := eval.CheckCitations(rep.Markdown, len(rep.Sources))
	if valid == 0 || invalid != 0 || rep.RemovedCitations != 0 {
		t.Errorf("citations valid %d invalid %d removed %d", valid, invalid, rep.RemovedCitations)
	}
	if !rep.Extractive || !strings.Contains(strings.ToLower(rep.Markdown), "extractive") {
		t.Errorf("a report without a model must say it is extractive")
	}
	for _, p := range []string{rep.MarkdownPath, rep.JSONPath, rep.SVGPath} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("report file: %v", err)
		}
	}
	svg, _ := os.ReadFile(rep.SVGPath)
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Errorf("saturation chart is not valid SVG: %v", err)
	}

	// the run remembered what it established: memory holds it and the next run starts from it
	out, errOut, err = s.starterRun(ctx, "memory", "stats", "--json")
	if err != nil || !strings.Contains(out, "count") {
		t.Fatalf("memory stats: %v\n%s\n%s", err, out, errOut)
	}
	var stats struct {
		Stats struct {
			Count int `json:"count"`
		} `json:"stats"`
	}
	json.Unmarshal([]byte(out), &stats)
	if stats.Stats.Count == 0 {
		t.Errorf("memory is empty after a completed run: %s", out)
	}
	out, errOut, err = s.starterRun(ctx, "research", "How does the Go memory model define happens-before for channel operations?", "--json")
	if err != nil {
		t.Fatalf("second research: %v\n%s", err, errOut)
	}
	var second workflows.ResearchReport
	if err := json.Unmarshal([]byte(out), &second); err != nil {
		t.Fatal(err)
	}
	if len(second.Plan.KnownFacts) == 0 || !strings.Contains(second.Markdown, "## Prior knowledge") {
		t.Errorf("the second run did not start from what the first established: known facts %v", second.Plan.KnownFacts)
	}

	// the recorded history replays without nondeterminism
	c := s.client()
	h := history(t, c, rep.WorkflowID, "")

	// the Temporal UI reads as the story: the run's summary is its question, and each activity
	// in the timeline says what it did
	desc, err := c.DescribeWorkflowExecution(ctx, rep.WorkflowID, "")
	if err != nil {
		t.Fatal(err)
	}
	var summary string
	if p := desc.GetExecutionConfig().GetUserMetadata().GetSummary(); p != nil {
		converter.GetDefaultDataConverter().FromPayload(p, &summary)
	}
	if summary != "research: "+q {
		t.Errorf("workflow summary %q, want the question", summary)
	}
	// and the list can filter runs by strategy and state (the worker registered the attributes)
	var state, strategy string
	if sa := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields(); sa != nil {
		converter.GetDefaultDataConverter().FromPayload(sa["SatedState"], &state)
		converter.GetDefaultDataConverter().FromPayload(sa["SatedStrategy"], &strategy)
	}
	if state != "done" || strategy != "saturation" {
		t.Errorf("search attributes SatedState %q SatedStrategy %q, want done and saturation", state, strategy)
	}
	searches := 0
	for _, e := range h.Events {
		a := e.GetActivityTaskScheduledEventAttributes()
		if a == nil || a.ActivityType.GetName() != "Search" {
			continue
		}
		var sum string
		if p := e.GetUserMetadata().GetSummary(); p != nil {
			converter.GetDefaultDataConverter().FromPayload(p, &sum)
		}
		if !strings.HasPrefix(sum, "search corpus: ") {
			t.Errorf("search activity summary %q", sum)
		}
		searches++
	}
	if searches == 0 {
		t.Error("no search in the history")
	}
	replayer := codec.NewReplayer()
	replayer.RegisterWorkflow(workflows.ResearchWorkflow)
	if err := replayer.ReplayWorkflowHistory(nil, h); err != nil {
		t.Fatalf("replay: %v", err)
	}
	testenv.RecordHistory(t, h, "research_history.json")
	if os.Getenv("SATED_RECORD_HISTORY") == "1" {
		// the memory stats above ran MemoryAdminWorkflow under the id the starter gives it
		sum := sha256.Sum256([]byte("stats\x00\x000\x00\x00"))
		testenv.RecordHistory(t, history(t, c, "memory-stats-"+hex.EncodeToString(sum[:6]), ""), "memory_admin_history.json")
	}
}

// ollamaModels returns the tiny test models' names, or skips/fails when the server lacks them.
func ollamaModels(t *testing.T, host string) (stories, random string) {
	t.Helper()
	stories, random = os.Getenv("SATED_TEST_MODEL"), os.Getenv("SATED_TEST_RANDOM_MODEL")
	if stories == "" {
		stories = "sated-test-stories"
	}
	if random == "" {
		random = "sated-test-random"
	}
	resp, err := http.Get(host + "/api/tags")
	if err != nil {
		testenv.Missing(t, "ollama at %s: %v", host, err)
	}
	defer resp.Body.Close()
	var tags struct {
		Models []struct{ Name string } `json:"models"`
	}
	json.NewDecoder(resp.Body).Decode(&tags)
	have := map[string]bool{}
	for _, m := range tags.Models {
		have[strings.TrimSuffix(m.Name, ":latest")] = true
	}
	for _, m := range []string{stories, random} {
		if !have[m] {
			testenv.Missing(t, "ollama at %s has no model %q (scripts/services.sh start ollama registers it)", host, m)
		}
	}
	return stories, random
}

// writePNG makes a small real PNG for the vision bridge.
func writePNG(t *testing.T, path string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := 0; x < 8; x++ {
		img.Set(x, x, color.RGBA{255, 0, 0, 255})
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func TestResearchWithEveryModelStageOnRealOllama(t *testing.T) {
	host := testenv.OllamaHost(t)
	stories, random := ollamaModels(t, host)
	s := newStack(t)
	s.env = append(s.env, "OLLAMA_HOST="+host, "SATED_PLANNER_MODEL="+stories, "SATED_PRODUCER_MODEL="+stories,
		"SATED_EVALUATOR_MODEL="+random, "SATED_EMBED_MODEL="+stories, "SATED_VISION_MODEL="+stories,
		// the tiny models write until the cap: small caps keep the run to minutes on two cores
		"SATED_PLANNER_MAX_TOKENS=64", "SATED_PRODUCER_MAX_TOKENS=96", "SATED_EVALUATOR_MAX_TOKENS=4",
		"SATED_VISION_MAX_TOKENS=24", "SATED_PRODUCER_NUM_CTX=2048", "SATED_PLANNER_NUM_CTX=2048")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// the docs plus the sync package's sources, so later rounds find new results to score
	syncDir := filepath.Join(filepath.Dir(testenv.GoDocDir(t)), "src", "sync")
	s.index(ctx, testenv.GoDocDir(t), syncDir)
	s.startWorker("worker")
	pic := filepath.Join(s.dir, "diagram.png")
	writePNG(t, pic)

	for _, tc := range []struct {
		novelty string
		budget  int
	}{{"model", 0}, {"embedding", 7}} {
		t.Run(tc.novelty, func(t *testing.T) {
			q := "What does the Go memory model say about channels, as sketched in " + pic + "? Ignore https://example.org/x.png"
			args := []string{"research", q, "--json", "--novelty", tc.novelty, "--seed", "5", "--results", "4",
				"--strategy", "fixed", "--rounds", "3"}
			if tc.budget > 0 {
				args = append(args, "--max-model-calls", fmt.Sprint(tc.budget))
			}
			out, errOut, err := s.starterRun(ctx, args...)
			if err != nil {
				t.Fatalf("research: %v\n%s", err, errOut)
			}
			var rep workflows.ResearchReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("report JSON: %v\n%s", err, out)
			}
			if rep.Usage.Calls == 0 || rep.Usage.PromptTokens == 0 {
				t.Fatalf("no model calls were counted: %+v", rep.Usage)
			}
			if tc.budget > 0 && rep.Usage.Calls > tc.budget {
				t.Errorf("budget of %d calls overrun: %d", tc.budget, rep.Usage.Calls)
			}
			if tc.budget == 0 {
				// the vision bridge replaced the local image and left the URL alone
				if !strings.Contains(rep.Task, "[Image: ") || strings.Contains(rep.Task, pic) || !strings.Contains(rep.Task, "https://example.org/x.png") {
					t.Errorf("vision bridge: task is %q", rep.Task)
				}
			}
			if rep.Plan.Planner == "deterministic" && rep.Plan.FallbackReason == "" {
				t.Errorf("a deterministic plan with a model configured must say why")
			}
			scored := 0
			for _, r := range rep.Rounds[1:] {
				if r.Method == tc.novelty {
					scored++
				}
				if r.Scored && r.Method != tc.novelty && r.Method != "none" && !strings.Contains(strings.Join(rep.Fallbacks, " "), "budget") {
					t.Errorf("round %d scored by %s, want %s", r.Round, r.Method, tc.novelty)
				}
			}
			if scored == 0 {
				t.Errorf("no round was scored by %s novelty: %+v", tc.novelty, rep.Rounds)
			}
			if _, invalid := eval.CheckCitations(rep.Markdown, len(rep.Sources)); invalid != 0 {
				t.Errorf("%d fabricated citations survived", invalid)
			}
			if !strings.Contains(rep.Markdown, fmt.Sprintf("Citations removed: %d", rep.RemovedCitations)) {
				t.Errorf("the report does not state how many citations were removed")
			}
			t.Logf("%s: %d model calls, %d+%d tokens, planner %s, %d fallbacks, %d citations removed, extractive %v, stop %q",
				tc.novelty, rep.Usage.Calls, rep.Usage.PromptTokens, rep.Usage.OutputTokens, rep.Plan.Planner,
				len(rep.Fallbacks), rep.RemovedCitations, rep.Extractive, rep.StopReason)
			for _, f := range rep.Fallbacks {
				t.Logf("  fallback: %s", f)
			}
		})
	}
}

func TestInvestigationOnTheDevServer(t *testing.T) {
	web := newSlowSearch(t, 20*time.Millisecond)
	s := newStack(t, "SATED_SEARXNG_URL="+web.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	syncDir := filepath.Join(filepath.Dir(testenv.GoDocDir(t)), "src", "sync")
	s.index(ctx, testenv.GoDocDir(t), syncDir)
	s.startWorker("worker")
	out, errOut, err := s.starterRun(ctx, "research", "--mode", "investigate",
		"How do sync.Once and sync.Mutex establish happens-before in the Go memory model?",
		"--sources", "corpus,searxng", "--ceiling", "searxng=2", "--json")
	if err != nil {
		t.Fatalf("investigate: %v\n%s", err, errOut)
	}
	var rep workflows.InvestigationReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, out)
	}
	perSource := map[string]int{}
	for _, e := range rep.Events {
		perSource[e.Source]++
	}
	if perSource["corpus"] == 0 || perSource["searxng"] == 0 {
		t.Fatalf("both sources must have queried: %v", perSource)
	}
	if len(rep.Findings) == 0 || rep.Markdown == "" {
		t.Fatalf("no findings or report")
	}
	// the ceiling holds per hypothesis loop
	loops := map[string]int{}
	for _, e := range rep.Events {
		if e.Source == "searxng" && e.Decider != "breadcrumb" && e.Decider != "entity" {
			loops[e.Hypothesis]++
		}
	}
	for h, n := range loops {
		if n > 2 {
			t.Errorf("searxng ran %d queries for hypothesis %q over its ceiling of 2", n, h)
		}
	}
	if !strings.Contains(errOut, "corpus") {
		t.Errorf("live progress did not show the sources:\n%s", errOut)
	}
	// watch and report read an investigation as one (they once decoded it as a research report)
	for _, cmd := range []string{"watch", "report"} {
		out, errOut, err := s.starterRun(ctx, cmd, rep.WorkflowID)
		if err != nil || !strings.HasPrefix(out, "# Investigation: ") || !strings.Contains(out, rep.Findings[0].URL) {
			t.Errorf("starter %s %s: %v\n%.300s\n%s", cmd, rep.WorkflowID, err, out, errOut)
		}
	}
	// the investigation and its first searxng loop, for the replay tests
	c := s.client()
	h := history(t, c, rep.WorkflowID, "")
	testenv.RecordHistory(t, h, "investigation_page_verify_history.json") // investigation_history.json stays: a run from before investigation-page-verify
	for _, e := range h.Events {
		if a := e.GetChildWorkflowExecutionStartedEventAttributes(); a != nil && strings.HasSuffix(a.WorkflowExecution.WorkflowId, "/searxng") {
			testenv.RecordHistory(t, history(t, c, a.WorkflowExecution.WorkflowId, a.WorkflowExecution.RunId), "source_loop_history.json")
			break
		}
	}
}
