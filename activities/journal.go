package activities

import (
	"context"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
)

// Journal records completed activity executions; the crash test reads it to prove that no
// completed search ran twice.
type Journal interface {
	Completed(ctx context.Context, activity, detail string)
}

// NewJournalInterceptor records in j every successful Search, FetchPage, Synthesize and saved
// WriteInvestigationReport, by activity name and the query, URL or workflow it was for. It is a
// client interceptor too: in client.Options.Interceptors it reaches every worker on that client.
func NewJournalInterceptor(j Journal) interceptor.Interceptor {
	return &journalInterceptor{journal: j}
}

type journalInterceptor struct {
	interceptor.InterceptorBase
	journal Journal
}

func (i *journalInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &journalActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, journal: i.journal}
}

type journalActivity struct {
	interceptor.ActivityInboundInterceptorBase
	journal Journal
}

func (a *journalActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	out, err := a.Next.ExecuteActivity(ctx, in)
	if err == nil && len(in.Args) == 1 {
		if detail, ok := journalDetail(in.Args[0], out); ok {
			a.journal.Completed(ctx, activity.GetInfo(ctx).ActivityType.Name, detail)
		}
	}
	return out, err
}

// journalDetail names what a journaled activity worked on; other activities are not journaled,
// nor is an investigation report that was rendered but not saved.
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
	return "", false
}
