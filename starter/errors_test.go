package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

func failingSearch(ctx context.Context) error {
	inner := errors.New("the corpus index is empty: index documents with 'starter corpus index PATH...'")
	return temporal.NewNonRetryableApplicationError("search: "+inner.Error(), "BadInput", inner)
}

func failingRun(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 2}})
	return workflow.ExecuteActivity(ctx, failingSearch).Get(ctx, nil)
}

// A failed run reads as the cause and the step, without the Temporal envelope, and says each
// thing once.
func TestReadableErrors(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(failingRun)
	env.RegisterActivity(failingSearch)
	env.ExecuteWorkflow(failingRun)
	wfErr := env.GetWorkflowError()
	if wfErr == nil {
		t.Fatal("the workflow should fail")
	}
	raw := fmt.Errorf("research %s: %w", "research-x", wfErr)
	got := readable(raw)
	t.Log(got)
	for _, noise := range []string{"scheduledEventID", "identity", "retryable", "type:", "workflow execution error", "activity error"} {
		if strings.Contains(got, noise) {
			t.Errorf("readable error keeps %q: %s", noise, got)
		}
	}
	for _, want := range []string{"research research-x", "failingSearch failed", "the corpus index is empty", "starter corpus index"} {
		if !strings.Contains(got, want) {
			t.Errorf("readable error lacks %q: %s", want, got)
		}
	}
	if n := strings.Count(got, "the corpus index is empty"); n != 1 {
		t.Errorf("the cause is said %d times: %s", n, got)
	}

	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("plain"), "plain"},
		{fmt.Errorf("open x: %w", errors.New("no such file")), "open x: no such file"},
		{fmt.Errorf("wait: %w", temporal.NewCanceledError()), "wait: canceled"},
		{temporal.NewApplicationError("model down", "Unavailable"), "model down"},
	} {
		if got := readable(c.err); got != c.want {
			t.Errorf("readable(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
