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

// SourceLoopWorkflow runs one source's saturation loop for one hypothesis: before each query a
// decision (model or heuristic) says whether to continue and with what; it stops at the hard
// ceiling, at the time limit (ending with what it has), when its budget share is spent, or when
// the provider keeps failing. Searches run on the source's own task queue.
func SourceLoopWorkflow(ctx workflow.Context, req SourceLoopRequest) (SourceLoopResult, error) {
	res := SourceLoopResult{Source: req.Source}
	prog := SourceLoopProgress{Source: req.Source, Hypothesis: req.Hypothesis}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (SourceLoopProgress, error) {
		prog.Events, prog.Unique, prog.StopReason = res.Events, len(res.Results), res.StopReason
		return prog, nil
	}); err != nil {
		return res, err
	}
	info, ok := investigate.Sources[req.Source]
	switch {
	case !ok:
		return res, temporal.NewNonRetryableApplicationError(fmt.Sprintf("source loop: unknown source %q", req.Source), badInput, nil)
	case req.Ceiling < 1:
		return res, temporal.NewNonRetryableApplicationError(fmt.Sprintf("source loop: ceiling %d must be at least 1", req.Ceiling), badInput, nil)
	case req.TimeLimit <= 0 || req.ResultsPerQuery < 1:
		return res, temporal.NewNonRetryableApplicationError("source loop: time limit and results per query must be positive", badInput, nil)
	}

	seen := map[string]bool{}
	for _, k := range req.Known {
		seen[k] = true
	}
	deadline := workflow.Now(ctx).Add(req.TimeLimit)
	var seenText strings.Builder
	var recent []string
	consecutive := 0
	sopts := searchOptions
	sopts.TaskQueue = activities.SourceTaskQueue(req.Source)

	for {
		if !workflow.Now(ctx).Before(deadline) {
			res.StopReason, res.TimedOut = fmt.Sprintf("time limit of %s reached", req.TimeLimit), true
			break
		}
		if req.Budget.MaxSearchCalls > 0 && res.Spend.SearchCalls >= req.Budget.MaxSearchCalls {
			res.StopReason = fmt.Sprintf("search budget share of %d calls spent", req.Budget.MaxSearchCalls)
			break
		}
		dc := investigate.DecisionContext{Question: req.Question, Task: req.Task, Hypothesis: req.Hypothesis,
			Source: req.Source, Characteristics: info.Characteristics, History: res.Events, UniqueSoFar: len(res.Results),
			Ceiling: req.Ceiling, OpenGaps: req.OpenGaps, SeedQueries: req.SeedQueries, Seen: seenText.String(), RecentTitles: recent, Asked: req.Asked}
		// the ceiling is hard, whatever the model would say
		if len(res.Events) >= req.Ceiling {
			res.StopReason = fmt.Sprintf("ceiling of %d queries reached", req.Ceiling)
			break
		}
		useModel := req.UseModel && req.Budget.ModelFits(res.Spend)
		opts := localOptions
		if useModel {
			opts = llmOptions
		}
		var dec activities.SourceDecisionOutput
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
		d := dec.Decision
		if d.Action == investigate.ActionStop && len(res.Events) == 0 && dec.Decider == investigate.DeciderModel {
			// a source is always asked once: a stop before any evidence is not a judgement
			res.Fallbacks = append(res.Fallbacks, fmt.Sprintf("%s: model stopped before the first query (%s); first query run anyway", req.Source, d.Reasoning))
			d, dec.Decider = investigate.HeuristicDecision(dc), investigate.DeciderHeuristic
		}
		if d.Action == investigate.ActionStop {
			res.StopReason = fmt.Sprintf("%s decided to stop: %s", dec.Decider, d.Reasoning)
			break
		}

		ev := investigate.QueryEvent{Task: req.Task, Hypothesis: req.Hypothesis, Source: req.Source, N: len(res.Events) + 1,
			Query: d.NextQuery, Reasoning: d.Reasoning, Decider: dec.Decider, Expected: d.ExpectedNewResults, Fallback: dec.Fallback}
		if d.QueryRationale != "" {
			ev.Reasoning += " — query: " + d.QueryRationale
		}
		res.Spend.SearchCalls++
		out, timedOut, err := searchBefore(ctx, sopts, deadline, activities.SearchInput{Provider: req.Source, Query: d.NextQuery,
			Question: req.Question, Limit: req.ResultsPerQuery, NoCache: req.NoCache})
		if timedOut {
			ev.Error = "time limit reached during the query"
			res.Events = append(res.Events, ev)
			res.StopReason, res.TimedOut = fmt.Sprintf("time limit of %s reached during query %d", req.TimeLimit, ev.N), true
			break
		}
		if err != nil {
			ev.Error = errMsg(err)
			res.Events = append(res.Events, ev)
			res.Failures++
			consecutive++
			res.LastError = ev.Error
			var appErr *temporal.ApplicationError
			if errors.As(err, &appErr) && appErr.NonRetryable() {
				res.StopReason = "provider rejected the request: " + ev.Error
				break
			}
			if consecutive >= 2 {
				res.StopReason = fmt.Sprintf("provider failing: %d queries in a row failed", consecutive)
				break
			}
			continue
		}
		consecutive = 0
		fresh, dups := investigate.Within(seen, out.Results)
		ev.Results, ev.New, ev.Duplicates, ev.Cached = len(out.Results), len(fresh), dups, out.Cached
		ev.Incremental = investigate.Incremental(ev.Results, ev.New)
		res.Events = append(res.Events, ev)
		res.Results = append(res.Results, fresh...)
		recent = recent[:0]
		for _, r := range fresh {
			recent = append(recent, r.Title)
			if seenText.Len() < maxSeenChars {
				seenText.WriteString(search.Truncate(r.Title+". "+r.Snippet, 400) + "\n")
			}
		}
	}
	return res, nil
}

// searchBefore runs one search on the source's queue and abandons it (cancelled) when the
// deadline passes first.
func searchBefore(ctx workflow.Context, opts workflow.ActivityOptions, deadline time.Time, in activities.SearchInput) (out activities.SearchOutput, timedOut bool, err error) {
	actx, cancelSearch := workflow.WithCancel(ctx)
	defer cancelSearch()
	tctx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	fut := workflow.ExecuteActivity(workflow.WithActivityOptions(actx, opts), researchActs.Search, in)
	timer := workflow.NewTimer(tctx, deadline.Sub(workflow.Now(ctx)))
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(fut, func(f workflow.Future) { err = f.Get(ctx, &out) })
	sel.AddFuture(timer, func(workflow.Future) { timedOut = true })
	sel.Select(ctx)
	return out, timedOut, err
}
