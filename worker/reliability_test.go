package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sated-dev/sated/workflows"
)

// slowSearch is a loopback SearXNG whose answers take a while, so a worker can be killed while
// a search is in flight. It counts, per query, the answers it wrote in full: a query answered
// more often than the run searched for it was asked again after it had been answered. Its
// result pages are served too, for enrichment.
type slowSearch struct {
	srv      *httptest.Server
	arrived  atomic.Int32
	inFlight chan int32

	mu       sync.Mutex
	answered map[string]int
}

func newSlowSearch(t testing.TB, delay time.Duration) *slowSearch {
	s := &slowSearch{inFlight: make(chan int32, 1000), answered: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		n := s.arrived.Add(1)
		select {
		case s.inFlight <- n:
		default:
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		q := r.URL.Query().Get("q")
		type res struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
			Engine  string `json:"engine"`
		}
		var results []res
		for i := 0; i < 5; i++ {
			var words []string
			for j := 0; j < 70; j++ {
				words = append(words, fmt.Sprintf("%s%dw%dx%d", strings.ReplaceAll(q, " ", ""), i, j, n))
			}
			results = append(results, res{URL: fmt.Sprintf("%s/page/%d/%d", s.srv.URL, n, i), Title: fmt.Sprintf("Result %d for %s", i, q),
				Content: strings.Join(words, " "), Engine: "loopback"})
		}
		if err := json.NewEncoder(w).Encode(map[string]any{"query": q, "results": results}); err == nil {
			s.mu.Lock()
			s.answered[q]++
			s.mu.Unlock()
		}
	})
	mux.HandleFunc("/page/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>Page %s</title></head><body><h1>Page</h1><p>The page at %s explains things at length.</p></body></html>", r.URL.Path, r.URL.Path)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// answers is how often each query was answered in full.
func (s *slowSearch) answers() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.answered))
	for q, n := range s.answered {
		out[q] = n
	}
	return out
}

// repeatedAnswers counts the provider requests that asked again for a search the provider had
// already answered: answers beyond the completed Search activities for the same query.
func repeatedAnswers(answers map[string]int, entries []journalEntry) int {
	n, _ := repeatedQueries(answers, entries)
	return n
}

// repeatedQueries is repeatedAnswers with the queries asked again.
func repeatedQueries(answers map[string]int, entries []journalEntry) (int, []string) {
	searches := map[string]map[string]bool{}
	for _, e := range entries {
		if e.Event != "completed" || e.Activity != "Search" {
			continue
		}
		if searches[e.Detail] == nil {
			searches[e.Detail] = map[string]bool{}
		}
		searches[e.Detail][e.key()] = true
	}
	n := 0
	var qs []string
	for q, a := range answers {
		if extra := a - len(searches[q]); extra > 0 {
			n += extra
			qs = append(qs, fmt.Sprintf("%q answered %d times for %d searches", q, a, len(searches[q])))
		}
	}
	sort.Strings(qs)
	return n, qs
}

// journalEntry is one line of the worker's activity journal (SATED_ACTIVITY_JOURNAL).
type journalEntry struct {
	Event      string `json:"event"`
	Activity   string `json:"activity"`
	Detail     string `json:"detail"`
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	ActivityID string `json:"activity_id"`
	Attempt    int    `json:"attempt"`
	Pid        int    `json:"pid"`
	At         int64  `json:"at"`
}

func (e journalEntry) key() string     { return e.WorkflowID + "/" + e.RunID + "/" + e.ActivityID }
func (e journalEntry) time() time.Time { return time.UnixMilli(e.At) }

func readJournal(t testing.TB, path string) []journalEntry {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []journalEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e journalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a line cut short by a kill
		}
		out = append(out, e)
	}
	return out
}

// waitJournal polls the journal until an entry satisfies ok.
func waitJournal(ctx context.Context, t testing.TB, path string, ok func(journalEntry) bool) journalEntry {
	t.Helper()
	for {
		for _, e := range readJournal(t, path) {
			if ok(e) {
				return e
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("journal %s: the awaited activity never came", path)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// kill SIGKILLs a worker process and reaps it; the moment of the kill is returned.
func kill(t testing.TB, cmd *exec.Cmd) time.Time {
	t.Helper()
	at := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	return at
}

// The journal's path in a stack.
func (s *stack) journal() string { return filepath.Join(s.dir, "journal.jsonl") }

// startWorkerWith runs a worker with extra environment (a hold) on top of the stack's.
func (s *stack) startWorkerWith(name string, extra ...string) *exec.Cmd {
	env := s.env
	s.env = append(append([]string{}, env...), extra...)
	defer func() { s.env = env }()
	return s.startWorker(name)
}

func TestWorkerCrashMidRunLosesNothingAndRepeatsNoCompletedSearch(t *testing.T) {
	search := newSlowSearch(t, 1500*time.Millisecond)
	s := newStack(t, "SATED_SEARXNG_URL="+search.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	first := s.startWorker("worker-1")
	out, errOut, err := s.starterRun(ctx, "research", "Which loopback results describe the crash recovery path?",
		"--provider", "searxng", "--strategy", "fixed", "--rounds", "5", "--no-cache", "--detach")
	if err != nil {
		t.Fatalf("start: %v\n%s", err, errOut)
	}
	id := strings.TrimSpace(out)
	// kill the worker while the third search is in flight at the provider
	for n := range search.inFlight {
		if n == 3 {
			break
		}
	}
	kill(t, first)
	s.startWorker("worker-2")

	c := s.client()
	var rep workflows.ResearchReport
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil {
		t.Fatalf("run did not complete after the crash: %v", err)
	}
	if len(rep.Rounds) != 5 {
		t.Fatalf("want 5 rounds, got %d", len(rep.Rounds))
	}
	for _, r := range rep.Rounds {
		if r.Decision == workflows.DecisionSearchError {
			t.Errorf("round %d failed: %s", r.Round, r.Note)
		}
	}

	// every completed search ran exactly once, across both worker processes
	entries := readJournal(t, s.journal())
	runs := map[string]int{}
	pids := map[int]bool{}
	for _, e := range entries {
		if e.Event != "completed" || e.Activity != "Search" || e.WorkflowID != id {
			continue
		}
		runs[e.key()]++
		pids[e.Pid] = true
	}
	for k, n := range runs {
		if n != 1 {
			t.Errorf("search activity %s completed %d times", k, n)
		}
	}
	done := completedActivities(history(t, c, id, ""))
	if done["Search"] != len(runs) {
		t.Errorf("history has %d completed searches, the workers completed %d", done["Search"], len(runs))
	}
	if len(pids) != 2 {
		t.Errorf("want searches completed by both workers (before and after the crash), got %d processes", len(pids))
	}
	if got := int(search.arrived.Load()); got != len(runs)+1 {
		t.Errorf("provider saw %d searches: want %d completed plus the one lost in the crash", got, len(runs))
	}
	if n := repeatedAnswers(search.answers(), entries); n != 0 {
		t.Errorf("%d searches the provider had answered were asked again", n)
	}
}

// recoveryBound is the longest a run may wait for an activity its killed worker was running:
// the 10 s heartbeat timeout, the retry backoff and a workflow task moving off the dead
// worker's sticky queue.
const recoveryBound = 20 * time.Second

// A worker SIGKILLed while it runs each kind of activity: the run completes, the activity is
// retried on the next worker within recoveryBound (not after its start-to-close timeout), and
// a search the provider had already answered is never sent again. "after" kills the worker
// once the activity's work is done but before its completion reaches Temporal.
func TestWorkerKilledDuringEachActivityKindRecoversInSeconds(t *testing.T) {
	cases := []struct {
		activity string
		after    bool
	}{
		{"Search", false},
		{"Search", true},
		{"FetchPage", false},
		{"AssessNovelty", false},
		{"Synthesize", false},
		{"RememberRun", false},
	}
	for i, tc := range cases {
		name := tc.activity
		if tc.after {
			name += "-after-its-work"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			search := newSlowSearch(t, 200*time.Millisecond)
			s := newStack(t, "SATED_SEARXNG_URL="+search.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			hold := tc.activity + "=8s"
			if tc.after {
				hold = tc.activity + "=after:8s"
			}
			first := s.startWorkerWith("worker-1", "SATED_ACTIVITY_HOLD="+hold)
			out, errOut, err := s.starterRun(ctx, "research", fmt.Sprintf("How does the loopback service %d recover its queue after a crash?", i),
				"--provider", "searxng", "--strategy", "fixed", "--rounds", "2", "--no-cache", "--detach")
			if err != nil {
				t.Fatalf("start: %v\n%s", err, errOut)
			}
			id := strings.TrimSpace(out)
			held := waitJournal(ctx, t, s.journal(), func(e journalEntry) bool {
				return e.Event == "started" && e.Activity == tc.activity && e.WorkflowID == id && e.Pid == first.Process.Pid
			})
			time.Sleep(time.Second) // well inside the hold: the work is done for "after"
			killed := kill(t, first)
			second := s.startWorker("worker-2")

			c := s.client()
			var rep workflows.ResearchReport
			if err := c.GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil {
				t.Fatalf("run did not complete after the kill: %v", err)
			}
			for _, r := range rep.Rounds {
				if r.Decision == workflows.DecisionSearchError {
					t.Errorf("round %d failed: %s", r.Round, r.Note)
				}
			}
			entries := readJournal(t, s.journal())
			var recovered *journalEntry
			for i, e := range entries {
				if e.Event == "completed" && e.key() == held.key() {
					if e.Pid != second.Process.Pid {
						t.Fatalf("the held %s completed on the killed worker", tc.activity)
					}
					recovered = &entries[i]
				}
			}
			if recovered == nil {
				t.Fatalf("the held %s never completed", tc.activity)
			}
			took := recovered.time().Sub(killed)
			t.Logf("%s: killed at attempt %d, completed on the next worker %.1fs later (attempt %d)",
				name, held.Attempt, took.Seconds(), recovered.Attempt)
			if took > recoveryBound {
				t.Errorf("recovery took %v, want under %v", took, recoveryBound)
			}
			if n := repeatedAnswers(search.answers(), entries); n != 0 {
				t.Errorf("%d searches the provider had answered were asked again", n)
			}
			if tc.after && tc.activity == "Search" && search.answers()[recovered.Detail] > 1 {
				t.Errorf("the search answered before the kill was sent again")
			}
		})
	}
}

// percentile is the p-th percentile (0..100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p/100*float64(len(s))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

// TestInvestigationWorkerKilledAfterASearchAsksNoSearchAgain kills an investigation's worker
// after a source loop's search has its answer but before the worker reports it (the search held
// there): a second worker finishes the investigation, and the held search is answered from the
// run's search record, not asked of the provider again. Investigation searches run in child
// workflows on the provider's own task queue, so this is not the research run's path.
func TestInvestigationWorkerKilledAfterASearchAsksNoSearchAgain(t *testing.T) {
	search := newSlowSearch(t, 200*time.Millisecond)
	s := newStack(t, "SATED_SEARXNG_URL="+search.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	first := s.startWorkerWith("worker-1", "SATED_ACTIVITY_HOLD=Search=after:8s")
	out, errOut, err := s.starterRun(ctx, "investigate", "How does the loopback service recover its queue after a crash?",
		"--sources", "searxng", "--ceiling", "searxng=3", "--breadcrumbs", "0", "--entities", "0", "--no-cache", "--detach")
	if err != nil {
		t.Fatalf("start: %v\n%s", err, errOut)
	}
	id := strings.TrimSpace(out)
	held := waitJournal(ctx, t, s.journal(), func(e journalEntry) bool {
		return e.Event == "started" && e.Activity == "Search" && strings.HasPrefix(e.WorkflowID, id+"/") && e.Pid == first.Process.Pid
	})
	time.Sleep(time.Second) // inside the hold: the provider has answered
	kill(t, first)
	s.startWorker("worker-2")

	var rep workflows.InvestigationReport
	if err := s.client().GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil {
		t.Fatalf("investigation did not complete after the kill: %v", err)
	}
	if len(rep.Findings) == 0 || len(rep.Events) == 0 {
		t.Fatalf("no findings (%d) or query events (%d)", len(rep.Findings), len(rep.Events))
	}
	for _, e := range rep.Events {
		if e.Error != "" {
			t.Errorf("query %q failed: %s", e.Query, e.Error)
		}
	}
	entries := readJournal(t, s.journal())
	recovered := false
	for _, e := range entries {
		recovered = recovered || (e.Event == "completed" && e.key() == held.key() && e.Pid != first.Process.Pid)
	}
	if !recovered {
		t.Errorf("the held search %q never completed on the second worker", held.Detail)
	}
	if n, qs := repeatedQueries(search.answers(), entries); n != 0 {
		t.Errorf("%d answered searches were asked of the provider again: %v", n, qs)
	}
}

// TestStarterStopsAnInvestigation: 'starter stop' on a running investigation, through the real
// starter and worker. Its source loop (ceiling 8, each search 500 ms) ends at its next query,
// nothing is searched after, and the report is written with the stop as its reason.
func TestStarterStopsAnInvestigation(t *testing.T) {
	search := newSlowSearch(t, 500*time.Millisecond)
	s := newStack(t, "SATED_SEARXNG_URL="+search.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s.startWorker("worker")
	out, errOut, err := s.starterRun(ctx, "investigate", "How does the loopback service recover its queue after a crash?",
		"--sources", "searxng", "--ceiling", "searxng=8", "--no-cache", "--detach")
	if err != nil {
		t.Fatalf("start: %v\n%s", err, errOut)
	}
	id := strings.TrimSpace(out)
	waitJournal(ctx, t, s.journal(), func(e journalEntry) bool {
		return e.Event == "completed" && e.Activity == "Search" && strings.HasPrefix(e.WorkflowID, id+"/")
	})
	if out, errOut, err := s.starterRun(ctx, "stop", id); err != nil || !strings.Contains(out, "asked "+id+" to stop searching") {
		t.Fatalf("stop: %v\n%s%s", err, out, errOut)
	}
	var rep workflows.InvestigationReport
	if err := s.client().GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil {
		t.Fatalf("the stopped investigation did not complete: %v", err)
	}
	if rep.StopReason != "stopped on request (starter stop)" {
		t.Errorf("stop reason %q", rep.StopReason)
	}
	// one search done before the stop, at most two more in flight or started before it arrived
	if n := len(rep.Events); n > 3 {
		t.Errorf("%d queries after a stop at the first: %v", n, rep.Events)
	}
	for _, l := range rep.Loops {
		if l.StopReason != "stopped on request (starter stop)" {
			t.Errorf("loop %s/%q ended: %s", l.Source, l.Hypothesis, l.StopReason)
		}
	}
	if len(rep.Findings) == 0 || rep.MarkdownPath == "" {
		t.Errorf("no report from what was found: %d findings, %q", len(rep.Findings), rep.MarkdownPath)
	}
	// and stop on the finished investigation says so
	if _, errOut, err := s.starterRun(ctx, "stop", id); err == nil || !strings.Contains(errOut, "is not running") {
		t.Errorf("stop on a finished investigation: %v %s", err, errOut)
	}
}
