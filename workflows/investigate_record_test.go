package workflows

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/fetch"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/testenv"
)

// storyFetcher serves the story's web pages (pageText) to FetchPage.
type storyFetcher struct{}

func (storyFetcher) Fetch(_ context.Context, u string) (fetch.Page, error) {
	if t := pageText(u); t != "" {
		return fetch.Page{URL: u, FinalURL: u, Text: t, ContentType: "text/plain", Bytes: len(t)}, nil
	}
	return fetch.Page{}, errors.New("no such page")
}

// TestRecordPageVerifyHistory records, on a real dev server, an investigation of the story
// (storySources) at pageVerifyVersion, for TestReplayInvestigationHistories. Run with
//
//	temporal server start-dev --port 7283 --headless &
//	SATED_RECORD_HISTORY=1 TEMPORAL_ADDRESS=127.0.0.1:7283 go test ./workflows -run RecordPageVerifyHistory
func TestRecordPageVerifyHistory(t *testing.T) {
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if os.Getenv("SATED_RECORD_HISTORY") != "1" || addr == "" {
		t.Skip("records only with SATED_RECORD_HISTORY=1 and TEMPORAL_ADDRESS")
	}
	c, err := client.Dial(client.Options{HostPort: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	web, corpus := storySources()
	acts := activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"searxng": web, "corpus": corpus},
		Fetcher: storyFetcher{}, ReportDir: t.TempDir()})
	const queue = "sated-record-page-verify"
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(InvestigationWorkflow)
	w.RegisterWorkflow(SourceLoopWorkflow)
	w.RegisterActivity(acts)
	workers := []worker.Worker{w}
	for _, s := range []string{"corpus", "searxng"} {
		sw := worker.New(c, activities.SourceTaskQueue(s), worker.Options{})
		sw.RegisterActivityWithOptions(acts.Search, activity.RegisterOptions{Name: "Search"})
		workers = append(workers, sw)
	}
	for _, x := range workers {
		if err := x.Start(); err != nil {
			t.Fatal(err)
		}
		defer x.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := "investigation-page-verify-story"
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue,
		WorkflowIDReusePolicy: 1}, InvestigationWorkflowName, InvestigationRequest{Question: storyQuestion,
		Sources: []string{"corpus", "searxng"}, NoModel: true, Ceilings: map[string]int{"corpus": 2, "searxng": 2}})
	if err != nil {
		t.Fatal(err)
	}
	var rep InvestigationReport
	if err := run.Get(ctx, &rep); err != nil {
		t.Fatal(err)
	}
	h := &historypb.History{}
	it := c.GetWorkflowHistory(ctx, id, run.GetRunID(), false, 0)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	t.Logf("%d claims, %d leads, %d events", len(rep.Claims), len(rep.Leads), len(h.Events))
	testenv.RecordHistory(t, h, "investigation_page_verify_history.json")
}
