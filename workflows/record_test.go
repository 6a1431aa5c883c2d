package workflows

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/codec"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/testenv"
)

// modelPathHistory is a run on the real dev server that takes both floor-replace and
// enrich-replace paths: a thin first search replaced by its simplified query's results, and an
// enrichment whose failed fetch is replaced. TestReplayRecordedHistory replays it.
const modelPathHistory = "research_history_model_path.json"

// TestRecordModelPathHistory runs that research on a dev server, replays its history and
// records it (only under SATED_RECORD_HISTORY=1):
//
//	SATED_RECORD_HISTORY=1 TEMPORAL_ADDRESS=127.0.0.1:7233 go test ./workflows -run TestRecordModelPathHistory
func TestRecordModelPathHistory(t *testing.T) {
	if os.Getenv("SATED_RECORD_HISTORY") != "1" {
		t.Skip("records only under SATED_RECORD_HISTORY=1 (needs a dev server)")
	}
	addr := testenv.TemporalAddress(t)
	c, err := client.Dial(client.Options{HostPort: addr, DataConverter: codec.DataConverter(), Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	queue := "record-model-path"
	provider := &scriptedProvider{batches: [][]search.Result{{{URL: "https://example.org/thin", Title: "thin", Snippet: "short"}}, enrichBatch()}}
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(ResearchWorkflow)
	w.RegisterActivity(activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"corpus": provider},
		Fetcher: &pageFetcher{fail: map[string]bool{"https://example.org/page3": true}}, ReportDir: t.TempDir()}))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := "research-model-path-" + time.Now().UTC().Format("20060102T150405")
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, ResearchWorkflow,
		ResearchRequest{Question: question, Seed: 7, NoMemory: true, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 1,
			QualityFloor: 200, KnowledgeCap: 100, EnrichCount: ip(3), EnrichOverlapCut: f(0.6)}})
	if err != nil {
		t.Fatal(err)
	}
	var rep ResearchReport
	if err := run.Get(ctx, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Rounds[0].Decision != DecisionFallback || len(rep.Enrichment) != 6 || rep.Enrichment[5].Decision != "replacement" {
		t.Fatalf("the run did not take both new paths: round 1 %q, enrichment %+v", rep.Rounds[0].Decision, rep.Enrichment)
	}

	it := c.GetWorkflowHistory(ctx, id, run.GetRunID(), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	replayer := codec.NewReplayer()
	replayer.RegisterWorkflow(ResearchWorkflow)
	if err := replayer.ReplayWorkflowHistory(nil, h); err != nil {
		t.Fatalf("replay: %v", err)
	}
	testenv.RecordHistory(t, h, modelPathHistory)
}
