package main

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sated-dev/sated/internal/testenv"
	"github.com/sated-dev/sated/workflows"
)

// The soak suite (make soak, SATED_SOAK=1) is the long form of the reliability tests: many
// random kills, a dev-server restart and 50 concurrent runs, with figures printed as SOAK lines.

func soak(t *testing.T) {
	t.Helper()
	if os.Getenv("SATED_SOAK") != "1" {
		t.Skip("the soak suite runs with SATED_SOAK=1 (make soak)")
	}
}

// soakRun is one research run against a stack, with the questions made unique per run.
func soakQuestion(lane, n int) string {
	return fmt.Sprintf("How does loopback service %d-%d recover its queue after a crash?", lane, n)
}

// Twenty runs, each with its worker SIGKILLed at a random moment and a new worker started at
// once: how many complete, how often the provider was asked again for an answered search, and
// how long an activity in flight at the kill waited for the next worker (p95).
func TestSoakRandomKills(t *testing.T) {
	soak(t)
	const lanes, perLane = 4, 5
	var (
		mu         sync.Mutex
		completed  int
		repeats    int
		idle       int
		recoveries []time.Duration
	)
	var wg sync.WaitGroup
	for lane := 0; lane < lanes; lane++ {
		wg.Add(1)
		go func(lane int) {
			defer wg.Done()
			search := newSlowSearch(t, 300*time.Millisecond)
			s := newStack(t, "SATED_SEARXNG_URL="+search.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
			rng := rand.New(rand.NewSource(int64(lane) + 1))
			w := s.startWorker(fmt.Sprintf("lane%d-worker-0", lane))
			c := s.client()
			for n := 0; n < perLane; n++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				out, errOut, err := s.starterRun(ctx, "research", soakQuestion(lane, n),
					"--provider", "searxng", "--strategy", "fixed", "--rounds", "3", "--no-cache", "--detach")
				if err != nil {
					t.Errorf("lane %d run %d: start: %v\n%s", lane, n, err, errOut)
					cancel()
					continue
				}
				id := strings.TrimSpace(out)
				// kill just after the k-th activity of the run started: always inside the run
				k := 1 + rng.Intn(12)
				for started, done := 0, false; started < k && !done && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
					started = 0
					for _, e := range readJournal(t, s.journal()) {
						if e.WorkflowID != id {
							continue
						}
						if e.Event == "started" {
							started++
						}
						done = done || (e.Event == "completed" && e.Activity == "RememberRun")
					}
				}
				time.Sleep(time.Duration(rng.Intn(400)) * time.Millisecond)
				dead := w.Process.Pid
				killed := kill(t, w)
				w = s.startWorker(fmt.Sprintf("lane%d-worker-%d", lane, n+1))
				var rep workflows.ResearchReport
				err = c.GetWorkflow(ctx, id, "").Get(ctx, &rep)
				cancel()
				entries := readJournal(t, s.journal())
				took, inFlight := recoveryAfter(entries, dead, killed)
				mu.Lock()
				if err == nil {
					completed++
				} else {
					t.Errorf("lane %d run %d did not complete: %v", lane, n, err)
				}
				if inFlight {
					recoveries = append(recoveries, took)
				} else {
					idle++
				}
				mu.Unlock()
			}
			n, qs := repeatedQueries(search.answers(), readJournal(t, s.journal()))
			mu.Lock()
			repeats += n
			mu.Unlock()
			for _, q := range qs {
				t.Logf("lane %d: %s", lane, q)
			}
		}(lane)
	}
	wg.Wait()
	p95 := percentile(recoveries, 95)
	t.Logf("SOAK random kills: %d/%d runs completed; %d provider requests repeated an answered search; "+
		"%d kills hit a running activity, recovery p50 %.1fs p95 %.1fs max %.1fs; %d kills between activities",
		completed, lanes*perLane, repeats, len(recoveries), percentile(recoveries, 50).Seconds(), p95.Seconds(),
		percentile(recoveries, 100).Seconds(), idle)
	if repeats != 0 {
		t.Errorf("%d answered searches were sent to the provider again", repeats)
	}
	if p95 > recoveryBound {
		t.Errorf("recovery p95 %v, want under %v", p95, recoveryBound)
	}
}

// recoveryAfter is how long the activities the dead worker was running waited: from the kill to
// the last of their completions elsewhere. inFlight is false when none was running.
func recoveryAfter(entries []journalEntry, deadPid int, killed time.Time) (time.Duration, bool) {
	running := map[string]bool{}
	for _, e := range entries {
		if e.Pid != deadPid {
			continue
		}
		switch e.Event {
		case "started":
			running[e.key()] = true
		case "completed":
			delete(running, e.key())
		}
	}
	if len(running) == 0 {
		return 0, false
	}
	var last time.Time
	for _, e := range entries {
		if e.Event == "completed" && running[e.key()] && e.Pid != deadPid && e.time().After(last) {
			last = e.time()
		}
	}
	if last.IsZero() {
		return time.Hour, true // never recovered: fails the bound
	}
	return last.Sub(killed), true
}

// A run survives its Temporal server being killed and restarted on the same database.
func TestSoakDevServerRestart(t *testing.T) {
	soak(t)
	bin, err := exec.LookPath("temporal")
	if err != nil {
		testenv.Missing(t, "temporal CLI not on PATH (make tools)")
	}
	port := freePort(t)
	db := filepath.Join(t.TempDir(), "temporal.db")
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "server", "start-dev", "--headless", "--port", fmt.Sprint(port),
			"--ui-port", fmt.Sprint(freePort(t)), "--http-port", fmt.Sprint(freePort(t)), "--metrics-port", fmt.Sprint(freePort(t)),
			"--db-filename", db, "--log-level", "error",
			// as scripts/services.sh and compose start it: without Temporal's 20-a-second cap
			"--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitPort(t, port)
		return cmd
	}
	server := start()
	t.Setenv("TEMPORAL_ADDRESS", fmt.Sprintf("127.0.0.1:%d", port))
	search := newSlowSearch(t, time.Second)
	s := newStack(t, "SATED_SEARXNG_URL="+search.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
	s.startWorker("worker")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, errOut, err := s.starterRun(ctx, "research", soakQuestion(9, 9),
		"--provider", "searxng", "--strategy", "fixed", "--rounds", "4", "--no-cache", "--detach")
	if err != nil {
		t.Fatalf("start: %v\n%s", err, errOut)
	}
	id := strings.TrimSpace(out)
	<-search.inFlight
	<-search.inFlight
	killed := kill(t, server)
	time.Sleep(3 * time.Second)
	start()
	restarted := time.Now()
	var rep workflows.ResearchReport
	if err := s.client().GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil {
		t.Fatalf("the run did not survive the server restart: %v", err)
	}
	t.Logf("SOAK dev-server restart: server down %.1fs; run completed %.1fs after the restart with %d rounds; %d repeated answered searches",
		restarted.Sub(killed).Seconds(), time.Since(restarted).Seconds(), len(rep.Rounds), repeatedAnswers(search.answers(), readJournal(t, s.journal())))
}

// Fifty runs started at once on one worker all complete.
func TestSoakFiftyConcurrentRuns(t *testing.T) {
	soak(t)
	search := newSlowSearch(t, 100*time.Millisecond)
	s := newStack(t, "SATED_SEARXNG_URL="+search.srv.URL, "SATED_FETCH_ALLOW=127.0.0.1")
	s.startWorker("worker")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c := s.client()
	const runs = 50
	began := time.Now()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		took     []time.Duration
	)
	for n := 0; n < runs; n++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			start := time.Now()
			out, errOut, err := s.starterRun(ctx, "research", soakQuestion(50, n),
				"--provider", "searxng", "--strategy", "fixed", "--rounds", "2", "--no-cache", "--detach")
			if err == nil {
				var rep workflows.ResearchReport
				err = c.GetWorkflow(ctx, strings.TrimSpace(out), "").Get(ctx, &rep)
			} else {
				err = fmt.Errorf("%v: %s", err, errOut)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failures = append(failures, fmt.Sprintf("run %d: %v", n, err))
			}
			took = append(took, time.Since(start))
		}(n)
	}
	wg.Wait()
	t.Logf("SOAK %d concurrent runs: %d completed, %d failed in %.1fs; run time p50 %.1fs p95 %.1fs",
		runs, runs-len(failures), len(failures), time.Since(began).Seconds(), percentile(took, 50).Seconds(), percentile(took, 95).Seconds())
	for _, f := range failures {
		t.Error(f)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitPort(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			time.Sleep(time.Second) // the frontend answers before the namespace is ready
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("temporal on port %d did not come up", port)
}
