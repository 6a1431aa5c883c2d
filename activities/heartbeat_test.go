package activities

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// slowActivity works longer than its heartbeat timeout without heartbeating itself.
func slowActivity(ctx context.Context) (string, error) {
	time.Sleep(900 * time.Millisecond)
	return "done", nil
}

func slowWorkflow(ctx workflow.Context) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    300 * time.Millisecond,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var out string
	err := workflow.ExecuteActivity(ctx, slowActivity).Get(ctx, &out)
	return out, err
}

func runSlow(t *testing.T, interceptors ...interceptor.WorkerInterceptor) (string, error, int64) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: interceptors})
	var beats atomic.Int64
	env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	env.RegisterWorkflow(slowWorkflow)
	env.RegisterActivity(slowActivity)
	env.ExecuteWorkflow(slowWorkflow)
	require.True(t, env.IsWorkflowCompleted())
	var out string
	err := env.GetWorkflowError()
	if err == nil {
		require.NoError(t, env.GetWorkflowResult(&out))
	}
	return out, err, beats.Load()
}

// Every activity with a heartbeat timeout heartbeats while it runs, so a short heartbeat
// timeout (fast recovery from a killed worker) never times out a long, healthy activity.
func TestHeartbeatInterceptorKeepsALongActivityAlive(t *testing.T) {
	_, err, _ := runSlow(t)
	require.Error(t, err, "without the interceptor the activity must time out (else this test proves nothing)")
	require.Contains(t, err.Error(), "Heartbeat")

	out, err, beats := runSlow(t, NewHeartbeatInterceptor())
	require.NoError(t, err)
	require.Equal(t, "done", out)
	require.GreaterOrEqual(t, beats, int64(2))
}

func TestHeartbeatEvery(t *testing.T) {
	for _, tc := range []struct{ timeout, want time.Duration }{
		{10 * time.Second, 10 * time.Second / 3},
		{300 * time.Millisecond, 100 * time.Millisecond},
		{30 * time.Millisecond, 100 * time.Millisecond},
	} {
		require.Equal(t, tc.want, heartbeatEvery(tc.timeout), "timeout %v", tc.timeout)
	}
}
