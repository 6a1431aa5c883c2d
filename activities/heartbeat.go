package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
)

// NewHeartbeatInterceptor heartbeats for every activity scheduled with a heartbeat timeout, a
// third of that timeout apart, for as long as the activity runs. A worker killed mid-activity
// stops heartbeating, so Temporal retries the activity elsewhere after the short heartbeat
// timeout instead of its whole start-to-close timeout. Activities that report progress
// (FetchPage, Synthesize) heartbeat as well; Temporal keeps the latest details either way.
func NewHeartbeatInterceptor() interceptor.Interceptor { return &heartbeatInterceptor{} }

type heartbeatInterceptor struct{ interceptor.InterceptorBase }

func (*heartbeatInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &heartbeatActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}}
}

type heartbeatActivity struct {
	interceptor.ActivityInboundInterceptorBase
}

func (a *heartbeatActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	timeout := activity.GetInfo(ctx).HeartbeatTimeout
	if timeout <= 0 {
		return a.Next.ExecuteActivity(ctx, in)
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(heartbeatEvery(timeout))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	defer func() { close(done); <-stopped }()
	return a.Next.ExecuteActivity(ctx, in)
}

// heartbeatEvery is the heartbeat period for a heartbeat timeout: three beats per timeout, so
// one late beat never times an activity out.
func heartbeatEvery(timeout time.Duration) time.Duration {
	if d := timeout / 3; d >= 100*time.Millisecond {
		return d
	}
	return 100 * time.Millisecond
}
