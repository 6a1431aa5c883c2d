package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/sated-dev/sated/internal/codec"
	"github.com/sated-dev/sated/internal/testenv"
	"github.com/sated-dev/sated/workflows"
)

// pythonDocs is Debian's python3.11-doc HTML, the corpus of the Python dev set.
const pythonDocs = "/usr/share/doc/python3.11/html"

// TestLargeInvestigationFitsThePayloadLimit runs a real investigation whose report does not
// fit a payload limit plain, on a dev server of its own with Temporal's 2 MB limit scaled down
// to 300 KB: the worker compresses what grows with the findings, so the run completes instead
// of being terminated by the server (as it was before internal/codec), and every payload of its
// history fits.
func TestLargeInvestigationFitsThePayloadLimit(t *testing.T) {
	const limit = 300_000
	bin := testenv.TemporalCLI(t)
	if _, err := os.Stat(pythonDocs); err != nil {
		testenv.Missing(t, "%s is not installed (apt-get install python3.11-doc; make tools does)", pythonDocs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{ExistingPath: bin, LogLevel: "error",
		Stdout: io.Discard, Stderr: io.Discard,
		ExtraArgs: []string{"--dynamic-config-value", "limit.blobSize.error=" + strconv.Itoa(limit),
			"--dynamic-config-value", "limit.blobSize.warn=" + strconv.Itoa(limit/2)}})
	if err != nil {
		t.Fatalf("dev server: %v", err)
	}
	defer srv.Stop()
	s := newStack(t, "TEMPORAL_ADDRESS="+srv.FrontendHostPort())
	s.addr = srv.FrontendHostPort()
	s.index(ctx, pythonDocs)
	s.startWorker("worker")
	out, errOut, err := s.starterRun(ctx, "investigate", "--sources", "corpus", "--results", "50", "--json",
		"How do I run blocking code from asyncio coroutines, and how do threads, processes and the event loop interact?")
	if err != nil {
		t.Fatalf("investigate: %v\n%s", err, errOut)
	}
	var rep workflows.InvestigationReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report JSON: %v\n%.500s", err, out)
	}
	if len(rep.Findings) < 200 {
		t.Fatalf("%d findings: too few to test the limit", len(rep.Findings))
	}

	h := history(t, s.client(), rep.WorkflowID, "")
	var result []byte
	for _, e := range h.Events {
		if n := proto.Size(e); n >= limit {
			t.Errorf("event %d (%s) is %d bytes, over the limit", e.EventId, e.EventType, n)
		}
		if a := e.GetWorkflowExecutionCompletedEventAttributes(); a != nil {
			p := a.Result.Payloads[0]
			if enc := string(p.Metadata[converter.MetadataEncoding]); enc != "binary/zlib" {
				t.Errorf("the result is stored as %s, not compressed", enc)
			}
			plain, err := codec.NewLarge(codec.DefaultThreshold).Decode(a.Result.Payloads)
			if err != nil {
				t.Fatal(err)
			}
			// the test is only as good as this: plain, the result would not have fit
			if n := proto.Size(plain[0]); n <= limit {
				t.Fatalf("the plain result is %d bytes, within the %d limit: the run does not test it", n, limit)
			}
			result = plain[0].Data
		}
	}
	var stored workflows.InvestigationReport
	if err := json.Unmarshal(result, &stored); err != nil || len(stored.Findings) != len(rep.Findings) {
		t.Fatalf("the stored result reads back with %d findings of %d: %v", len(stored.Findings), len(rep.Findings), err)
	}
	// the history replays with the worker's codec
	replayer := codec.NewReplayer()
	replayer.RegisterWorkflow(workflows.InvestigationWorkflow)
	opts := worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: rep.WorkflowID}}
	if err := replayer.ReplayWorkflowHistoryWithOptions(nil, h, opts); err != nil {
		t.Fatalf("replay: %v", err)
	}
}
