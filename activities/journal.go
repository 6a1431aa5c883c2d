package activities

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
)

// Journal records activity executions for the reliability tests: which activity started, and
// which completed, in which process. A deployment has none.
type Journal interface {
	Started(ctx context.Context, activity string)
	Completed(ctx context.Context, activity, detail string)
}

// Hold is a test hook (SATED_ACTIVITY_HOLD): it keeps an activity of one kind waiting Before it
// runs or After it has done its work but before the worker reports it done, so a test can kill
// the worker at exactly that moment. After is the moment that must not repeat completed work.
type Hold struct {
	Before, After time.Duration
}

// ParseHolds reads SATED_ACTIVITY_HOLD: a comma list of Activity=duration (held before it runs)
// or Activity=after:duration (held after its work, before completion is reported).
func ParseHolds(s string) (map[string]Hold, error) {
	out := map[string]Hold{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, spec, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("activity hold %q: want Activity=duration or Activity=after:duration", part)
		}
		after := strings.HasPrefix(spec, "after:")
		d, err := time.ParseDuration(strings.TrimPrefix(spec, "after:"))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("activity hold %q: want a positive duration such as 5s", part)
		}
		h := out[name]
		if after {
			h.After = d
		} else {
			h.Before = d
		}
		out[name] = h
	}
	return out, nil
}

// NewJournalInterceptor records in j every activity start and every successful completion, by
// activity name and the query, URL or workflow it was for, and applies holds. It is a client
// interceptor too: in client.Options.Interceptors it reaches every worker on that client.
func NewJournalInterceptor(j Journal, holds map[string]Hold) interceptor.Interceptor {
	return &journalInterceptor{journal: j, holds: holds}
}

type journalInterceptor struct {
	interceptor.InterceptorBase
	journal Journal
	holds   map[string]Hold
}

func (i *journalInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &journalActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, journal: i.journal, holds: i.holds}
}

type journalActivity struct {
	interceptor.ActivityInboundInterceptorBase
	journal Journal
	holds   map[string]Hold
}

func (a *journalActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	name := activity.GetInfo(ctx).ActivityType.Name
	hold := a.holds[name]
	a.journal.Started(ctx, name)
	if err := wait(ctx, hold.Before); err != nil {
		return nil, err
	}
	out, err := a.Next.ExecuteActivity(ctx, in)
	if err != nil {
		return out, err
	}
	if werr := wait(ctx, hold.After); werr != nil {
		return nil, werr
	}
	var arg any
	if len(in.Args) == 1 {
		arg = in.Args[0]
	}
	if detail, ok := journalDetail(arg, out); ok {
		a.journal.Completed(ctx, name, detail)
	}
	return out, nil
}

// wait sleeps for d unless the activity is cancelled first.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// journalDetail names what a journaled activity worked on (empty for most); an investigation
// report that was rendered but not saved is not journaled as completed.
func journalDetail(arg, result any) (string, bool) {
	switch in := arg.(type) {
	case SearchInput:
		return strings.TrimSpace(in.Query), true
	case FetchInput:
		return in.URL, true
	case SynthesizeInput:
		return in.WorkflowID, true
	case InvestigationReportInput:
		saved, _ := result.(InvestigationReportOutput)
		return in.Report.WorkflowID, saved.MarkdownPath != ""
	}
	return "", true
}
