package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
)

// badInput is the error type of input no retry can fix, as the activities raise it.
const badInput = activities.ErrBadInput

// nonRetryable lists the error types no activity retries.
var nonRetryable = []string{badInput}

// retryPolicy backs off from initial, doubling up to maxInterval (0: Temporal's default), for at
// most attempts tries; bad input is never retried.
func retryPolicy(initial, maxInterval time.Duration, attempts int32) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: initial, BackoffCoefficient: 2, MaximumInterval: maxInterval,
		MaximumAttempts: attempts, NonRetryableErrorTypes: nonRetryable}
}

// heartbeat is every activity's heartbeat timeout. The worker heartbeats for each running
// activity (activities.NewHeartbeatInterceptor), so an activity whose worker was killed is
// retried after this long, not after its whole start-to-close timeout.
const heartbeat = 10 * time.Second

// Activity options per kind of call. Temporal owns retries.
var (
	searchOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(time.Second, 30*time.Second, 4),
	}
	localOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(time.Second, 0, 3),
	}
	llmOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(2*time.Second, 30*time.Second, activities.ModelAttempts),
	}
	fetchOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 90 * time.Second,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(2*time.Second, 0, 3),
	}
	synthOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(2*time.Second, time.Minute, activities.ModelAttempts),
	}

	// memoryAdminOptions: quick local calls; retries cover a restarting memory worker and the
	// Meilisearch fallback (activities.MemoryFallbackAttempt), never bad input.
	memoryAdminOptions = workflow.ActivityOptions{
		StartToCloseTimeout:    time.Minute,
		HeartbeatTimeout:       heartbeat,
		ScheduleToCloseTimeout: 5 * time.Minute,
		RetryPolicy:            retryPolicy(time.Second, 0, activities.MemoryFallbackAttempt+2),
	}

	harnessStoreOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(time.Second, 0, 3),
	}
	harnessModelOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(2*time.Second, 0, activities.ModelAttempts),
	}
	// a notice that still fails after its retries is recorded in the monitor, never fatal
	notifyOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         retryPolicy(2*time.Second, time.Minute, 6),
	}
	auditOptions = workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         retryPolicy(time.Second, time.Minute, 10),
	}
	harnessClientOptions = workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy:         retryPolicy(time.Second, 30*time.Second, 10),
	}
)

// summarized gives an activity a one-line summary for the Temporal UI's timeline ("search: ...",
// "novelty round 3"), so the event history reads as the run's story. Summaries are metadata:
// replay does not compare them.
func summarized(o workflow.ActivityOptions, format string, a ...any) workflow.ActivityOptions {
	s := fmt.Sprintf(format, a...)
	if r := []rune(s); len(r) > maxSummary {
		s = string(r[:maxSummary-1]) + "…"
	}
	o.Summary = s
	return o
}

// uiSummary is a child workflow's one-line summary in the Temporal UI's list: what it is for.
func uiSummary(prefix, what string) string { return UISummary(prefix, what, 2*maxSummary) }

// UISummary is a workflow's one-line summary in the Temporal UI's list: prefix and what the run
// is for, whitespace collapsed, cut at limit characters (the starter's runs cut their question).
func UISummary(prefix, what string, limit int) string {
	s := strings.Join(strings.Fields(what), " ")
	if r := []rune(prefix + s); len(r) > limit {
		s = string(r[len([]rune(prefix)):limit-1]) + "…"
	}
	return prefix + s
}

// maxSummary bounds an activity summary, in characters.
const maxSummary = 160

// memoryOptions put a run's memory activities on the memory worker's own queue; a missing
// memory worker costs a minute, never the run.
func memoryOptions(queue string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:              queue,
		ScheduleToStartTimeout: time.Minute,
		StartToCloseTimeout:    2 * time.Minute,
		HeartbeatTimeout:       heartbeat,
		RetryPolicy:            retryPolicy(time.Second, 0, activities.MemoryFallbackAttempt),
	}
}

// sourceLoopRetry runs a source loop once: a failed loop is reported, not repeated.
var sourceLoopRetry = &temporal.RetryPolicy{MaximumAttempts: 1}
