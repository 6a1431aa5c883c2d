package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/workflows"
)

func init() {
	register("research", "start a research run and follow it until the report prints", researchCmd)
	register("watch", "follow a running research run (rounds, novelty, decisions) or investigation (queries per source)", watchCmd)
	register("report", "print the report of a finished research run or investigation", reportCmd)
	register("stop", "stop a research run's or an investigation's searching early; it writes its report with what it found", stopCmd)
}

// researchFlags binds every configuration field to a flag; only flags the user set override the
// defaults, so zero stays meaningful where it is (epsilon 0, threshold 0).
type researchFlags struct {
	fs                                                 *flag.FlagSet
	strategy, provider, novelty, id                    string
	rounds, minRounds, maxRounds, knowledgeCap         int
	qualityFloor, enrich, results, maxCalls, maxTokens int
	findingsBudget                                     int
	threshold, epsilon, overlapCut                     float64
	seed                                               int64
	noCache, noModel, detach, asJSON                   bool
}

func newResearchFlags(name string) *researchFlags {
	f := &researchFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.strategy, "strategy", config.StrategySaturation, "saturation (stop when results stop being new) or fixed")
	fs.IntVar(&f.rounds, "rounds", config.DefaultFixedRounds, "rounds for --strategy fixed")
	fs.IntVar(&f.minRounds, "min-rounds", config.DefaultMinRounds, "rounds always kept; the last of them, scored below the threshold, ends the run")
	fs.IntVar(&f.maxRounds, "max-rounds", config.DefaultMaxRounds, "hard cap on rounds")
	fs.Float64Var(&f.threshold, "threshold", config.DefaultNoveltyThreshold, "novelty threshold 0-10")
	fs.IntVar(&f.knowledgeCap, "knowledge-cap", config.DefaultKnowledgeCap, "knowledge state cap in characters")
	fs.Float64Var(&f.epsilon, "epsilon", config.DefaultEpsilon, "chance a sub-threshold round passes through anyway (0-1)")
	fs.IntVar(&f.qualityFloor, "quality-floor", config.DefaultQualityFloor, "first-search characters below which a simplified query runs")
	fs.IntVar(&f.enrich, "enrich", config.DefaultEnrichCount, "pages to read in full")
	fs.Float64Var(&f.overlapCut, "overlap-cut", config.DefaultEnrichOverlapCut, "enrich only results overlapping the knowledge by at most this (0-1)")
	fs.StringVar(&f.provider, "provider", config.DefaultProvider, "search provider: "+strings.Join(config.Providers, ", "))
	fs.IntVar(&f.results, "results", config.DefaultResultsPerQuery, "results per query")
	fs.StringVar(&f.novelty, "novelty", config.NoveltyAnswer, "novelty method: answer (the share of the findings the round's new passages would write), learning (new question-relevant information against all evidence), heuristic (unseen words), model or embedding")
	fs.IntVar(&f.findingsBudget, "findings-budget", config.DefaultFindingsBudget, "characters of findings the report writes")
	fs.BoolVar(&f.noCache, "no-cache", false, "bypass the 24-hour search cache")
	fs.Int64Var(&f.seed, "seed", 0, "seed for the epsilon pass-through (0: drawn and recorded by the workflow)")
	fs.IntVar(&f.maxCalls, "max-model-calls", 0, "model call budget (0: unlimited)")
	fs.IntVar(&f.maxTokens, "max-model-tokens", 0, "model token budget (0: unlimited)")
	fs.BoolVar(&f.noModel, "no-model", false, "run every stage deterministically even if the worker has models")
	fs.StringVar(&f.id, "id", "", "workflow id (default: research-<slug>-<hash>)")
	fs.BoolVar(&f.detach, "detach", false, "start and print the id without following")
	fs.BoolVar(&f.asJSON, "json", false, "print the final report as JSON")
	fs.String("mode", "research", "research (one saturation loop) or investigate (per-source loops, verification)")
	return f
}

// parseInterleaved parses flags that may come before or after positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "flags of starter %s:\n", fs.Name())
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil, errHelpShown
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func (f *researchFlags) request(question string) workflows.ResearchRequest {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var c config.Research
	if set["strategy"] {
		c.Strategy = f.strategy
	}
	if set["rounds"] {
		c.FixedRounds = f.rounds
		if !set["strategy"] {
			c.Strategy = config.StrategyFixed
		}
	}
	if set["min-rounds"] {
		c.MinRounds = f.minRounds
	}
	if set["max-rounds"] {
		c.MaxRounds = f.maxRounds
	}
	if set["threshold"] {
		c.NoveltyThreshold = &f.threshold
	}
	if set["knowledge-cap"] {
		c.KnowledgeCap = f.knowledgeCap
	}
	if set["epsilon"] {
		c.Epsilon = &f.epsilon
	}
	if set["quality-floor"] {
		c.QualityFloor = f.qualityFloor
	}
	if set["enrich"] {
		c.EnrichCount = &f.enrich
	}
	if set["overlap-cut"] {
		c.EnrichOverlapCut = &f.overlapCut
	}
	if set["provider"] {
		c.Provider = f.provider
	}
	if set["results"] {
		c.ResultsPerQuery = f.results
	}
	if set["novelty"] {
		c.Novelty = f.novelty
	}
	if set["findings-budget"] {
		c.FindingsBudget = f.findingsBudget
	}
	c.NoCache = f.noCache
	c.MaxModelCalls, c.MaxModelTokens = f.maxCalls, f.maxTokens
	return workflows.ResearchRequest{Question: question, Config: c, Seed: f.seed, NoModel: f.noModel}
}

// zeroIsSet refuses 0 for the flags whose zero means "the default" in the request, so that
// 0 is never silently replaced (--quality-floor 1 turns the floor off).
func (f *researchFlags) zeroIsSet() error {
	var err error
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "rounds", "min-rounds", "max-rounds", "knowledge-cap", "quality-floor", "results", "findings-budget":
			if err == nil && fl.Value.String() == "0" {
				err = usagef("--%s must be at least 1", fl.Name)
			}
		}
	})
	return err
}

// WorkflowID derives a meaningful id: research-<slug>-<hash of question and configuration>.
func WorkflowID(req workflows.ResearchRequest) string {
	return meaningfulID("research", req.Question, req)
}

// uiLink is the Temporal UI page of a workflow, under SATED_UI_URL.
func uiLink(env config.Env, id string) string {
	return fmt.Sprintf("%s/namespaces/%s/workflows/%s", env.UIURL, env.TemporalNamespace, id)
}

func researchCmd(ctx context.Context, env config.Env, args []string) error {
	// --mode investigate hands the whole command line to the investigation mode
	for i, a := range args {
		switch {
		case a == "--mode" || a == "-mode":
			if i+1 < len(args) && args[i+1] == "investigate" {
				return investigateCmd(ctx, env, append(append([]string{}, args[:i]...), args[i+2:]...))
			} else if i+1 < len(args) && args[i+1] != "research" {
				return usagef("unknown mode %q (want research or investigate)", args[i+1])
			}
		case a == "--mode=investigate" || a == "-mode=investigate":
			return investigateCmd(ctx, env, append(append([]string{}, args[:i]...), args[i+1:]...))
		}
	}
	f := newResearchFlags("research")
	pos, err := parseInterleaved(f.fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(`want exactly one question in quotes: starter research "How does ...?" [flags]`)
	}
	if err := f.zeroIsSet(); err != nil {
		return err
	}
	req := f.request(pos[0])
	if _, err := workflows.ValidateRequest(req); err != nil {
		return usagef("%v", err)
	}
	id := f.id
	if id == "" {
		id = WorkflowID(req)
	}
	c, err := dialTemporal(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: env.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            uiSummary(researchLabel(req), req.Question),
	}, workflows.ResearchWorkflowName, req)
	if err != nil {
		return fmt.Errorf("start %s: %w", id, err)
	}
	fmt.Fprintf(stderr, "started %s\n  watch:  starter watch %s\n  ui:     %s\n", id, id, uiLink(env, id))
	if f.detach {
		fmt.Fprintln(stdout, id)
		return nil
	}
	return follow(ctx, c, env, id, run.GetRunID(), f.asJSON)
}

func watchCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the final report as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one workflow id: starter watch ID")
	}
	c, err := dialTemporal(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	kind, _, err := describeRun(ctx, c, pos[0])
	if err != nil {
		return err
	}
	if kind == workflows.InvestigationWorkflowName {
		return followInvestigation(ctx, c, env, pos[0], "", *asJSON)
	}
	return follow(ctx, c, env, pos[0], "", *asJSON)
}

// describeRun names the workflow type of the run with this id and whether it is running; an id
// with no run, or a run that is neither a research nor an investigation, is a one-line error.
func describeRun(ctx context.Context, c client.Client, id string) (kind string, running bool, err error) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return "", false, fmt.Errorf("no run with id %s", id)
		}
		return "", false, err
	}
	info := desc.WorkflowExecutionInfo
	switch kind = info.GetType().GetName(); kind {
	case workflows.ResearchWorkflowName, workflows.InvestigationWorkflowName:
		return kind, info.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
	}
	return "", false, fmt.Errorf("%s is a %s workflow, not a research or an investigation run", id, kind)
}

// follow prints progress as rounds complete, then the report.
func follow(ctx context.Context, c client.Client, env config.Env, id, runID string, asJSON bool) error {
	done := make(chan error, 1)
	var rep workflows.ResearchReport
	go func() { done <- c.GetWorkflow(ctx, id, runID).Get(ctx, &rep) }()
	var view progressView
	tick := time.NewTicker(700 * time.Millisecond)
	defer tick.Stop()
	started, answered, hinted := time.Now(), false, false
	for {
		select {
		case err := <-done:
			if p, qerr := queryProgress(ctx, c, id, runID); qerr == nil {
				printProgress(p, &view)
			}
			if err != nil {
				return fmt.Errorf("run %s failed: %w", id, err)
			}
			return printReport(env, rep, asJSON)
		case <-tick.C:
			if p, err := queryProgress(ctx, c, id, runID); err == nil {
				answered = true
				printProgress(p, &view)
			} else if !answered && !hinted && time.Since(started) > 10*time.Second {
				// a query needs a worker: none answering usually means none is running
				hinted = true
				fmt.Fprintf(stderr, "  no worker has answered yet on task queue %q: is one running? ('make run' starts one, or 'go run ./worker')\n",
					env.TaskQueue)
			}
		case <-ctx.Done():
			fmt.Fprintf(stderr, "\nstopped following; the run goes on: starter watch %s\n", id)
			return nil
		}
	}
}

func queryProgress(ctx context.Context, c client.Client, id, runID string) (workflows.Progress, error) {
	var p workflows.Progress
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	v, err := c.QueryWorkflow(ctx, id, runID, workflows.ProgressQuery)
	if err != nil {
		return p, err
	}
	return p, v.Get(&p)
}

// progressView remembers what has been printed, so each line shows once.
type progressView struct {
	rounds        int
	phase         string
	planShown     bool
	diagnosisSeen bool
}

func printProgress(p workflows.Progress, v *progressView) {
	// rounds first: a fast run may have moved past searching by the time it is polled
	if p.Plan != nil && !v.planShown {
		if v.phase == "" || v.phase == workflows.PhaseValidating {
			fmt.Fprintf(stderr, "· %s\n", workflows.PhasePlanning)
			v.phase = workflows.PhasePlanning
		}
		v.planShown = true
		fmt.Fprintf(stderr, "  plan (%s): %s\n", p.Plan.Planner, strings.Join(p.Plan.SearchQueries, " | "))
		if p.Plan.FallbackReason != "" {
			fmt.Fprintf(stderr, "  planner fallback: %s\n", p.Plan.FallbackReason)
		}
		if len(p.Plan.Aspects) > 1 {
			for i, a := range p.Plan.Aspects {
				fmt.Fprintf(stderr, "  aspect %d: %s\n", i+1, a.Text)
			}
		}
	}
	if v.rounds < len(p.Rounds) && v.phase != workflows.PhaseSearching {
		v.phase = workflows.PhaseSearching
		fmt.Fprintf(stderr, "· %s\n", v.phase)
	}
	shown := &v.rounds
	for ; *shown < len(p.Rounds); *shown++ {
		r := p.Rounds[*shown]
		score := "  –  "
		if r.Scored {
			score = fmt.Sprintf("%5.2f", r.Novelty)
		}
		fmt.Fprintf(stderr, "  round %d  novelty %s / %.1f  %-20s +%d new of %d  %q\n", r.Round, score, p.Threshold, r.Decision, r.NewResults, r.Results, r.Query)
		if r.Note != "" {
			fmt.Fprintf(stderr, "           %s\n", r.Note)
		}
		if *shown == len(p.Rounds)-1 && len(p.Coverage) > 1 {
			fmt.Fprintf(stderr, "           coverage by aspect (its words one evidence passage holds): %s\n", coverageLine(p.Coverage))
		}
	}
	if len(p.Diagnosis) > 0 && !v.diagnosisSeen {
		v.diagnosisSeen = true
		for _, d := range p.Diagnosis {
			fmt.Fprintf(stderr, "  diagnosis: %s\n", d)
		}
	}
	if p.Phase != v.phase && !(p.Phase == workflows.PhasePlanning && v.planShown) {
		v.phase = p.Phase
		fmt.Fprintf(stderr, "· %s\n", p.Phase)
	}
}

// coverageLine is "1: 80%  2: 25%", the share of each aspect's terms the evidence holds.
func coverageLine(cov []float64) string {
	parts := make([]string, len(cov))
	for i, c := range cov {
		parts[i] = fmt.Sprintf("%d: %.0f%%", i+1, 100*c)
	}
	return strings.Join(parts, "  ")
}

func printReport(env config.Env, rep workflows.ResearchReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintln(stdout, rep.Markdown)
	for _, d := range rep.Diagnosis {
		fmt.Fprintf(stderr, "\ndiagnosis: %s", d)
	}
	fmt.Fprintf(stderr, "\nstop reason: %s\nreport: %s\njson:   %s\nchart:  %s\nui:     %s\n",
		rep.StopReason, rep.MarkdownPath, rep.JSONPath, rep.SVGPath, uiLink(env, rep.WorkflowID))
	return nil
}

func reportCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one workflow id: starter report ID")
	}
	c, err := dialTemporal(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	kind, running, err := describeRun(ctx, c, pos[0])
	if err != nil {
		return err
	}
	if running {
		return fmt.Errorf("%s is still running; follow it with: starter watch %s", pos[0], pos[0])
	}
	if kind == workflows.InvestigationWorkflowName {
		var rep workflows.InvestigationReport
		if err := c.GetWorkflow(ctx, pos[0], "").Get(ctx, &rep); err != nil {
			return fmt.Errorf("investigation %s did not complete: %w", pos[0], err)
		}
		return printInvestigation(env, rep, *asJSON)
	}
	var rep workflows.ResearchReport
	if err := c.GetWorkflow(ctx, pos[0], "").Get(ctx, &rep); err != nil {
		return fmt.Errorf("run %s did not complete: %w", pos[0], err)
	}
	return printReport(env, rep, *asJSON)
}

func stopCmd(ctx context.Context, env config.Env, args []string) error {
	if len(args) != 1 {
		return usagef("want one workflow id: starter stop ID")
	}
	c, err := dialTemporal(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	kind, running, err := describeRun(ctx, c, args[0])
	if err != nil {
		return err
	}
	if !running {
		return fmt.Errorf("%s is not running; its report: starter report %s", args[0], args[0])
	}
	if err := c.SignalWorkflow(ctx, args[0], "", workflows.StopSignal, struct{}{}); err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) { // it finished since
			return fmt.Errorf("%s is not running; its report: starter report %s", args[0], args[0])
		}
		return err
	}
	what := "its report"
	if kind == workflows.InvestigationWorkflowName {
		what = "its report (its running source loops end at their next query)"
	}
	fmt.Fprintf(stdout, "asked %s to stop searching; it will write %s with what it has\n", args[0], what)
	return nil
}

// researchLabel prefixes a run's UI summary: its mode and a strategy other than the default.
func researchLabel(req workflows.ResearchRequest) string {
	if st := req.Config.Strategy; st != "" && st != config.StrategySaturation {
		return "research (" + st + "): "
	}
	return "research: "
}
