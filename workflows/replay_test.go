package workflows

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sated-dev/sated/internal/codec"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayRecordedHistory replays a research run recorded on the real dev server (by
// `SATED_RECORD_HISTORY=1 go test ./worker -run FullRun`): a change to the workflow's command
// sequence that is not behind workflow.GetVersion fails here.
// research_history_v0.json is a run from before the evidence-gate change (workflow.GetVersion
// DefaultVersion): it must keep replaying as long as such runs may be in flight.
// research_history_v1.json is after evidence-gate; both predate floor-replace and enrich-replace
// (their DefaultVersion paths); research_history_model_path.json takes both new paths (recorded
// by TestRecordModelPathHistory) but predates memory-shapes-search; research_history_v2.json takes
// all four; research_history_v3.json also sets search attributes ("search-attributes");
// research_history_v4.json is from after "answer-gate" (the answer novelty by default: its rounds'
// AssessNovelty inputs carry the accepted sources and rankings): its low round 2 was kept and
// round 3 searched and rejected; research_history_v5.json is from after "saturate-at-minimum":
// the same low round 2 is kept and ends the search, no third search; research_history.json is
// from after "follow-references": round 1's search is followed by FollowReferences.
func TestReplayRecordedHistory(t *testing.T) {
	for _, file := range []string{"research_history.json", "research_history_v5.json", "research_history_v4.json", "research_history_v3.json", "research_history_v2.json", "research_history_v1.json", "research_history_v0.json", modelPathHistory} {
		t.Run(file, func(t *testing.T) {
			replayer := codec.NewReplayer()
			replayer.RegisterWorkflow(ResearchWorkflow)
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", file)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplayHarnessHistories replays a harness cycle, an approved and applied expansion and the
// monitor that recorded ten cycles and started it, all recorded on the real dev server (by
// `SATED_RECORD_HISTORY=1 go test ./starter -run TestHarnessOnDevServer`). harness_monitor_history.json
// is from before the tamper-evident harness and "keep-history-window" (cycles pruned at 90 days).
// harness_expansion_history_v0.json is an expansion from before "decide-by-signal", approved by
// update; _v1 one approved by a signal from the Temporal CLI after a nameless signal it ignored.
// The files named *_v0 (and the expansion's _v1) are from before "apply-protocol"; the unsuffixed
// ones from after it: the cycle keeps its signals per harness version, the expansion generated
// benchmarks from the corpus, ran them and re-ran the existing benchmarks at the raised thresholds
// (the baseline check) before committing, the import did the same, and the monitor kept its
// streaks per version and recorded the trigger.
// harness_expansion_gate_history.json and harness_monitor_gate_history.json are from after
// "approval-reminder" and "operator-gate" (the monitor's notices, audit lines and a flag
// acknowledgement included) but before "apply-protocol"; the expansion's _v0 is also from before
// "search-attributes", the unsuffixed one sets SatedState as it goes.
func TestReplayHarnessHistories(t *testing.T) {
	replayEach(t, []recorded{
		{"harness_cycle_history.json", HarnessCycleWorkflow},
		{"harness_cycle_history_v0.json", HarnessCycleWorkflow},
		{"harness_expansion_history.json", ExpansionWorkflow},
		{"harness_expansion_history_v1.json", ExpansionWorkflow},
		{"harness_expansion_history_v0.json", ExpansionWorkflow},
		{"harness_monitor_history.json", SaturationMonitorWorkflow},
		{"harness_import_history.json", ExpansionWorkflow},
		{"harness_import_history_v0.json", ExpansionWorkflow},
		{"harness_monitor_ledger_history.json", SaturationMonitorWorkflow},
		{"harness_monitor_ledger_history_v0.json", SaturationMonitorWorkflow},
		{"harness_expansion_gate_history.json", ExpansionWorkflow},
		{"harness_expansion_gate_history_v0.json", ExpansionWorkflow},
		{"harness_monitor_gate_history.json", SaturationMonitorWorkflow},
	})
}

// TestReplayInvestigationHistories replays an investigation over the corpus and a loopback
// SearXNG, one of its SearXNG source loops, and the memory stats admin run, all recorded on the
// real dev server (by `SATED_RECORD_HISTORY=1 go test ./worker -run 'Investigation|FullRun'`).
// investigation_history.json is from before pageVerifyChange (DefaultVersion);
// investigation_page_verify_history.json is at pageVerifyVersion (recorded by
// TestRecordPageVerifyHistory): per-hypothesis breadcrumbs, page reads, confirmation searches;
// investigation_doc_leads_history.json at docLeadsVersion (TestRecordDocLeadsHistory):
// documentation's headings, keywords and page notes read as such. Replaying it with the V1
// reading fails (TMPRL1100: the key actors searched differ);
// investigation_read_activities_history.json at readActivitiesVersion
// (TestRecordReadActivitiesHistory): the key entities and the claims read in activities;
// investigation_stop_history.json at stopVersion (TestRecordStopHistory): stopped by
// 'starter stop' during its first source loop, which it passed the stop on to;
// investigation_passage_keys_history.json at passageKeysVersion (TestRecordPassageKeysHistory):
// two passages of one section kept as two findings;
// investigation_findings_cap_history.json: TestReplayFindingsCapHistory.
func TestReplayInvestigationHistories(t *testing.T) {
	replayEach(t, []recorded{
		{"investigation_history.json", InvestigationWorkflow},
		{"investigation_page_verify_history.json", InvestigationWorkflow},
		{"investigation_doc_leads_history.json", InvestigationWorkflow},
		{"investigation_read_activities_history.json", InvestigationWorkflow},
		{"investigation_stop_history.json", InvestigationWorkflow},
		{"investigation_passage_keys_history.json", InvestigationWorkflow},
		{"source_loop_history.json", SourceLoopWorkflow},
		{"memory_admin_history.json", MemoryAdminWorkflow},
	})
}

// TestReplayFindingsCapHistory replays investigation_findings_cap_history.json, recorded at
// findingsCapVersion with the cap lowered to 30 (TestRecordFindingsCapHistory): the findings
// full after the first source loop, nothing searched after. Replayed with the cap at 30 as
// recorded; without findingsCapChange it fails (TMPRL1100).
func TestReplayFindingsCapHistory(t *testing.T) {
	defer func(n int) { maxFindings = n }(maxFindings)
	maxFindings = 30
	replayEach(t, []recorded{{"investigation_findings_cap_history.json", InvestigationWorkflow}})
}

// recorded is a history file under testdata and the workflow that produced it.
type recorded struct {
	file string
	wf   any
}

func replayEach(t *testing.T, rs []recorded) {
	for _, r := range rs {
		t.Run(r.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", r.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// the workflows derive child ids from their own id, so the replay needs the original one
			id := h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
			if id == "" {
				t.Fatal("the history does not start with the workflow's id")
			}
			replayer := codec.NewReplayer()
			replayer.RegisterWorkflow(r.wf)
			if err := replayer.ReplayWorkflowHistoryWithOptions(nil, h, worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: id}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
