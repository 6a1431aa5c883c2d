package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/search"
)

// maxSeenChars bounds the result text a source loop keeps for gap terms.
const maxSeenChars = 6000

// SourceLoopProgress is what a source loop's progress query returns.
type SourceLoopProgress struct {
	Source     string                   `json:"source"`
	Hypothesis string                   `json:"hypothesis"`
	Events     []investigate.QueryEvent `json:"events"`
	Unique     int                      `json:"unique"`
	StopReason string                   `json:"stop_reason,omitempty"`
}

// sourceLoop is the state of one source loop; the progress query reads it.
type sourceLoop struct {
	req         SourceLoopRequest
	info        investigate.SourceInfo
	res         SourceLoopResult
	seen        map[string]bool // normalized URLs already found
	seenText    strings.Builder // result text for gap terms, up to maxSeenChars
	recent      []string        // the last query's new titles
	consecutive int             // failed queries in a row
	deadline    time.Time
	search      workflow.ActivityOptions // on the source's own queue
	stopped     bool                     // the investigation passed on a stop (stopChange)
}

// SourceLoopWorkflow runs one source's saturation loop for one hypothesis: before each query a
// decision (model or heuristic) says whether to continue and with what; it stops at the hard
// ceiling, at the time limit (ending with what it has), when its budget share is spent, or when
// the provider keeps failing. Searches run on the source's own task queue.
func SourceLoopWorkflow(ctx workflow.Context, req SourceLoopRequest) (SourceLoopResult, error) {
	l, err := newSourceLoop(ctx, req)
	if err != nil {
		return l.res, err
	}
	return l.execute(ctx), nil
}

// newSourceLoop answers progress queries and checks the request; on a bad one the returned
// loop still carries the empty result.
func newSourceLoop(ctx workflow.Context, req SourceLoopRequest) (*sourceLoop, error) {
	l := &sourceLoop{req: req, res: SourceLoopResult{Source: req.Source}, seen: map[string]bool{}}
	prog := SourceLoopProgress{Source: req.Source, Hypothesis: req.Hypothesis}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (SourceLoopProgress, error) {
		prog.Events, prog.Unique, prog.StopReason = l.res.Events, len(l.res.Results), l.res.StopReason
		return prog, nil
	}); err != nil {
		return l, err
	}
	info, ok := investigate.Sources[req.Source]
	switch {
	case !ok:
		return l, temporal.NewNonRetryableApplicationError(fmt.Sprintf("source loop: unknown source %q", req.Source), badInput, nil)
	case req.Ceiling < 1:
		return l, temporal.NewNonRetryableApplicationError(fmt.Sprintf("source loop: ceiling %d must be at least 1", req.Ceiling), badInput, nil)
	case req.TimeLimit <= 0 || req.ResultsPerQuery < 1:
		return l, temporal.NewNonRetryableApplicationError("source loop: time limit and results per query must be positive", badInput, nil)
	}
	l.info = info
	for _, k := range req.Known {
		l.seen[k] = true
	}
	l.deadline = workflow.Now(ctx).Add(req.TimeLimit)
	if workflow.GetVersion(ctx, stopChange, workflow.DefaultVersion, stopVersion) >= stopVersion {
		ch := workflow.GetSignalChannel(ctx, StopSignal)
		workflow.Go(ctx, func(ctx workflow.Context) {
			ch.Receive(ctx, nil)
			l.stopped = true
		})
	}
	l.search = searchOptions
	l.search.TaskQueue = activities.SourceTaskQueue(req.Source)
	return l, nil
}

// execute decides and runs queries until a limit or the decision stops the loop.
func (l *sourceLoop) execute(ctx workflow.Context) SourceLoopResult {
	for !l.stopBefore(ctx) {
		dec, ok := l.decide(ctx)
		if !ok || !l.query(ctx, dec) {
			break
		}
	}
	return l.res
}

// stopBefore ends the loop on a stop the investigation passed on, at the time limit, a spent
// search budget share or the hard ceiling, whatever the model would say.
func (l *sourceLoop) stopBefore(ctx workflow.Context) bool {
	req, res := l.req, &l.res
	switch {
	case l.stopped:
		res.StopReason = stoppedReason
	case !workflow.Now(ctx).Before(l.deadline):
		res.StopReason, res.TimedOut = fmt.Sprintf("time limit of %s reached", req.TimeLimit), true
	case req.Budget.MaxSearchCalls > 0 && res.Spend.SearchCalls >= req.Budget.MaxSearchCalls:
		res.StopReason = fmt.Sprintf("search budget share of %d calls spent", req.Budget.MaxSearchCalls)
	case len(res.Events) >= req.Ceiling:
		res.StopReason = fmt.Sprintf("ceiling of %d queries reached", req.Ceiling)
	default:
		return false
	}
	return true
}

// decide asks for the next query, from the model while its budget share lasts, else (or when
// the model keeps failing) heuristically. ok is false when the decision is to stop.
func (l *sourceLoop) decide(ctx workflow.Context) (dec activities.SourceDecisionOutput, ok bool) {
	req, res := l.req, &l.res
	dc := investigate.DecisionContext{Question: req.Question, Task: req.Task, Hypothesis: req.Hypothesis,
		Source: req.Source, Characteristics: l.info.Characteristics, History: res.Events, UniqueSoFar: len(res.Results),
		Ceiling: req.Ceiling, OpenGaps: req.OpenGaps, SeedQueries: req.SeedQueries, Seen: l.seenText.String(), RecentTitles: l.recent, Asked: req.Asked}
	useModel := req.UseModel && req.Budget.ModelFits(res.Spend)
	opts := localOptions
	if useModel {
		opts = llmOptions
	}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), researchActs.DecideSourceQuery,
		activities.SourceDecisionInput{Context: dc, UseModel: useModel}).Get(ctx, &dec); err != nil {
		// the model kept failing: decide heuristically rather than lose the loop
		res.Fallbacks = append(res.Fallbacks, fmt.Sprintf("%s query %d: decision failed, heuristic used: %s", req.Source, len(res.Events)+1, errMsg(err)))
		dec = activities.SourceDecisionOutput{Decision: investigate.HeuristicDecision(dc), Decider: investigate.DeciderHeuristic}
	}
	res.Spend.ModelCalls += dec.Usage.Calls
	if req.UseModel && !useModel && len(res.Events) == 0 {
		res.Fallbacks = append(res.Fallbacks, req.Source+": model budget share spent; heuristic decisions")
	}
	if dec.Fallback != "" {
		res.Fallbacks = append(res.Fallbacks, fmt.Sprintf("%s query %d: %s", req.Source, len(res.Events)+1, dec.Fallback))
	}
	if d := dec.Decision; d.Action == investigate.ActionStop && len(res.Events) == 0 && dec.Decider == investigate.DeciderModel {
		// a source is always asked once: a stop before any evidence is not a judgement
		res.Fallbacks = append(res.Fallbacks, fmt.Sprintf("%s: model stopped before the first query (%s); first query run anyway", req.Source, d.Reasoning))
		dec.Decision, dec.Decider = investigate.HeuristicDecision(dc), investigate.DeciderHeuristic
	}
	if d := dec.Decision; d.Action == investigate.ActionStop {
		res.StopReason = fmt.Sprintf("%s decided to stop: %s", dec.Decider, d.Reasoning)
		return dec, false
	}
	return dec, true
}

// query runs the decided query before the deadline and records its event; false ends the loop
// (time limit, a provider that rejects the request or keeps failing).
func (l *sourceLoop) query(ctx workflow.Context, dec activities.SourceDecisionOutput) bool {
	req, res, d := l.req, &l.res, dec.Decision
	ev := investigate.QueryEvent{Task: req.Task, Hypothesis: req.Hypothesis, Source: req.Source, N: len(res.Events) + 1,
		Query: d.NextQuery, Reasoning: d.Reasoning, Decider: dec.Decider, Expected: d.ExpectedNewResults, Fallback: dec.Fallback}
	if d.QueryRationale != "" {
		ev.Reasoning += " — query: " + d.QueryRationale
	}
	res.Spend.SearchCalls++
	out, timedOut, err := searchBefore(ctx, l.search, l.deadline, activities.SearchInput{Provider: req.Source, Query: d.NextQuery,
		Question: req.Question, Limit: req.ResultsPerQuery, NoCache: req.NoCache})
	if timedOut {
		ev.Error = "time limit reached during the query"
		res.Events = append(res.Events, ev)
		res.StopReason, res.TimedOut = fmt.Sprintf("time limit of %s reached during query %d", req.TimeLimit, ev.N), true
		return false
	}
	if err != nil {
		return l.failed(ev, err)
	}
	l.consecutive = 0
	fresh, dups := investigate.Within(l.seen, out.Results, resultKey(req.PassageKeys))
	ev.Results, ev.New, ev.Duplicates, ev.Cached = len(out.Results), len(fresh), dups, out.Cached
	ev.Incremental = investigate.Incremental(ev.Results, ev.New)
	res.Events = append(res.Events, ev)
	res.Results = append(res.Results, fresh...)
	l.recent = l.recent[:0]
	for _, r := range fresh {
		l.recent = append(l.recent, r.Title)
		if l.seenText.Len() < maxSeenChars {
			l.seenText.WriteString(search.Truncate(r.Title+". "+r.Snippet, 400) + "\n")
		}
	}
	return true
}

// failed records a failed query; false ends the loop: the provider rejected the request or
// failed twice in a row.
func (l *sourceLoop) failed(ev investigate.QueryEvent, err error) bool {
	res := &l.res
	ev.Error = errMsg(err)
	res.Events = append(res.Events, ev)
	res.Failures++
	l.consecutive++
	res.LastError = ev.Error
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.NonRetryable() {
		res.StopReason = "provider rejected the request: " + ev.Error
		return false
	}
	if l.consecutive >= 2 {
		res.StopReason = fmt.Sprintf("provider failing: %d queries in a row failed", l.consecutive)
		return false
	}
	return true
}

// searchBefore runs one search on the source's queue and abandons it (cancelled) when the
// deadline passes first.
func searchBefore(ctx workflow.Context, opts workflow.ActivityOptions, deadline time.Time, in activities.SearchInput) (out activities.SearchOutput, timedOut bool, err error) {
	actx, cancelSearch := workflow.WithCancel(ctx)
	defer cancelSearch()
	tctx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	fut := workflow.ExecuteActivity(workflow.WithActivityOptions(actx, summarized(opts, "search %s: %s", in.Provider, in.Query)), researchActs.Search, in)
	timer := workflow.NewTimer(tctx, deadline.Sub(workflow.Now(ctx)))
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(fut, func(f workflow.Future) { err = f.Get(ctx, &out) })
	sel.AddFuture(timer, func(workflow.Future) { timedOut = true })
	sel.Select(ctx)
	return out, timedOut, err
}
