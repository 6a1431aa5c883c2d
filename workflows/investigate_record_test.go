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
	"github.com/sated-dev/sated/internal/codec"
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
// (storySources), for TestReplayInvestigationHistories; TestRecordDocLeadsHistory one of the
// documentation pages (docsPages) at docLeadsVersion. Run with
//
//	temporal server start-dev --port 7283 --headless &
//	SATED_RECORD_HISTORY=1 TEMPORAL_ADDRESS=127.0.0.1:7283 go test ./workflows -run 'Record(PageVerify|DocLeads|ReadActivities|Stop|FindingsCap|PassageKeys)History'
//
// (investigation_page_verify_history.json was recorded at pageVerifyVersion, before
// docLeadsChange, and investigation_doc_leads_history.json before readActivitiesChange:
// recording them again would move them to the newest versions.)
func TestRecordPageVerifyHistory(t *testing.T) {
	web, corpus := storySources()
	recordInvestigation(t, map[string]search.Provider{"searxng": web, "corpus": corpus}, "investigation-page-verify-story",
		InvestigationRequest{Question: storyQuestion, Sources: []string{"corpus", "searxng"}, NoModel: true, Ceilings: map[string]int{"corpus": 2, "searxng": 2}},
		"investigation_page_verify_history.json")
}

// TestRecordReadActivitiesHistory records the story at readActivitiesVersion: its key entities
// ranked in the RankKeyEntities activity, its claims read and verified in
// VerifyInvestigationClaims, a contested claim confirmed.
func TestRecordReadActivitiesHistory(t *testing.T) {
	web, corpus := storySources()
	recordInvestigation(t, map[string]search.Provider{"searxng": web, "corpus": corpus}, "investigation-read-activities-story",
		InvestigationRequest{Question: storyQuestion, Sources: []string{"corpus", "searxng"}, NoModel: true, Ceilings: map[string]int{"corpus": 2, "searxng": 2}},
		"investigation_read_activities_history.json")
}

// TestRecordPassageKeysHistory records an investigation of sectionPassages at
// passageKeysVersion: two passages of one section, each a finding of its own.
func TestRecordPassageKeysHistory(t *testing.T) {
	corpus := &storyProvider{name: "corpus", answer: func(string) []search.Result { return sectionPassages }}
	recordInvestigation(t, map[string]search.Provider{"corpus": corpus}, "investigation-passage-keys",
		InvestigationRequest{Question: sectionQuestion, Sources: []string{"corpus"}, NoModel: true, Ceilings: map[string]int{"corpus": 2}},
		"investigation_passage_keys_history.json")
}

func TestRecordDocLeadsHistory(t *testing.T) {
	corpus := &storyProvider{name: "corpus", answer: func(string) []search.Result { return docsPages }}
	recordInvestigation(t, map[string]search.Provider{"corpus": corpus}, "investigation-doc-leads",
		InvestigationRequest{Question: docsQuestion, Sources: []string{"corpus"}, NoModel: true, Ceilings: map[string]int{"corpus": 2}},
		"investigation_doc_leads_history.json")
}

// TestRecordStopHistory records an investigation stopped by 'starter stop' at stopVersion: the
// stop lands during its first source loop (each search takes 400 ms), which the investigation
// signals to end at its next query; the other hypotheses are skipped.
func TestRecordStopHistory(t *testing.T) {
	corpus := slow{&invProvider{name: "corpus", pool: 400, per: 8}, 400 * time.Millisecond}
	recordInvestigation(t, map[string]search.Provider{"corpus": corpus}, "investigation-stop",
		InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}, NoModel: true, Ceilings: map[string]int{"corpus": 6}},
		"investigation_stop_history.json", func(ctx context.Context, c client.Client, id string) {
			time.Sleep(1000 * time.Millisecond)
			if err := c.SignalWorkflow(ctx, id, "", StopSignal, struct{}{}); err != nil {
				t.Error(err)
			}
		})
}

// TestRecordFindingsCapHistory records an investigation that fills maxFindings (lowered to 30)
// in its first source loop at findingsCapVersion: the findings stop there and nothing more is
// searched.
func TestRecordFindingsCapHistory(t *testing.T) {
	defer func(n int) { maxFindings = n }(maxFindings)
	maxFindings = 30
	corpus := &invProvider{name: "corpus", pool: 400, per: 8}
	recordInvestigation(t, map[string]search.Provider{"corpus": corpus}, "investigation-findings-cap",
		InvestigationRequest{Question: invQuestion, Sources: []string{"corpus"}, NoModel: true, Ceilings: map[string]int{"corpus": 6}},
		"investigation_findings_cap_history.json")
}

// recordInvestigation runs one investigation on the dev server at TEMPORAL_ADDRESS, with during
// (if any) run beside it once it started, and writes its history to testdata/file.
func recordInvestigation(t *testing.T, providers map[string]search.Provider, id string, req InvestigationRequest, file string, during ...func(context.Context, client.Client, string)) {
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if os.Getenv("SATED_RECORD_HISTORY") != "1" || addr == "" {
		t.Skip("records only with SATED_RECORD_HISTORY=1 and TEMPORAL_ADDRESS")
	}
	c, err := client.Dial(client.Options{HostPort: addr, DataConverter: codec.DataConverter()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	acts := activities.NewActivities(activities.Deps{Providers: providers, Fetcher: storyFetcher{}, ReportDir: t.TempDir()})
	queue := "sated-record-" + id
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(InvestigationWorkflow)
	w.RegisterWorkflow(SourceLoopWorkflow)
	w.RegisterActivity(acts)
	workers := []worker.Worker{w}
	for _, s := range req.Sources {
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
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue,
		WorkflowIDReusePolicy: 1}, InvestigationWorkflowName, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range during {
		go f(ctx, c, id)
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
	t.Logf("%d claims, %d leads, %d actors, %d events; stop reason %q, %d queries", len(rep.Claims), len(rep.Leads), len(rep.Actors), len(h.Events), rep.StopReason, len(rep.Events))
	testenv.RecordHistory(t, h, file)
}
