package workflows

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedHistory replays a research run recorded on the real dev server (by
// `SATED_RECORD_HISTORY=1 go test ./worker -run FullRun`): a change to the workflow's command
// sequence that is not behind workflow.GetVersion fails here.
func TestReplayRecordedHistory(t *testing.T) {
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflow(ResearchWorkflow)
	if err := replayer.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", "research_history.json")); err != nil {
		t.Fatal(err)
	}
}
