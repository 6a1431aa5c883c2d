package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
)

// readable is an error as a person reads it: what failed and why, the run's id, without the
// Temporal envelope (types, event ids, worker identities, retry flags) that 'starter -v' shows.
func readable(err error) string {
	if err == nil {
		return ""
	}
	var parts []string
	for e := err; e != nil; {
		inner := errors.Unwrap(e)
		part, stop := readablePart(e, inner)
		if part != "" && !seen(parts, part) {
			parts = append(parts, part)
		}
		if stop {
			break
		}
		e = inner
	}
	return strings.Join(parts, ": ")
}

// workflowIDRE finds the run's id in a WorkflowExecutionError, which has no accessor for it.
var workflowIDRE = regexp.MustCompile(`workflowID: ([^,)]+)`)

// readablePart is e's own words, without its cause's; stop ends the walk.
func readablePart(e, inner error) (string, bool) {
	var (
		wfErr    *temporal.WorkflowExecutionError
		childErr *temporal.ChildWorkflowExecutionError
		actErr   *temporal.ActivityError
		appErr   *temporal.ApplicationError
		toErr    *temporal.TimeoutError
		canErr   *temporal.CanceledError
		termErr  *temporal.TerminatedError
		panicErr *temporal.PanicError
	)
	switch {
	case errors.As(e, &wfErr) && wfErr == e:
		if m := workflowIDRE.FindStringSubmatch(e.Error()); m != nil {
			return "run " + m[1] + " failed", false
		}
		return "the run failed", false
	case errors.As(e, &childErr) && childErr == e:
		return fmt.Sprintf("%s %s failed", childErr.WorkflowType(), childErr.WorkflowID()), false
	case errors.As(e, &actErr) && actErr == e:
		what := actErr.ActivityType().GetName() + " failed"
		if actErr.RetryState() == enums.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED {
			what += " on every attempt"
		}
		return what, false
	case errors.As(e, &appErr) && appErr == e:
		return appErr.Message(), false
	case errors.As(e, &toErr) && toErr == e:
		return "timed out (" + strings.ToLower(strings.TrimPrefix(toErr.TimeoutType().String(), "TIMEOUT_TYPE_")) + ")", false
	case errors.As(e, &canErr) && canErr == e:
		return "canceled", true
	case errors.As(e, &termErr) && termErr == e:
		return "terminated", true
	case errors.As(e, &panicErr) && panicErr == e:
		return "a worker panicked: " + panicErr.Error(), true
	}
	if inner == nil {
		return e.Error(), true
	}
	// a wrapper such as fmt.Errorf("...: %w"): its own words are what precedes its cause's
	own, in := e.Error(), inner.Error()
	if strings.HasSuffix(own, in) {
		return strings.TrimRight(strings.TrimSuffix(own, in), ": "), false
	}
	return own, true
}

// seen says whether part adds nothing to what was said: errors built from their cause's text
// would otherwise repeat it.
func seen(parts []string, part string) bool {
	for _, p := range parts {
		if strings.Contains(p, part) {
			return true
		}
	}
	return false
}
