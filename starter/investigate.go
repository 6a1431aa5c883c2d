package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/workflows"
)

func init() {
	register("investigate", "investigate a question: parallel per-source saturation loops, breadcrumbs, verification, key actors", investigateCmd)
}

// ceilingFlag collects --ceiling name=N (repeatable or comma-separated).
type ceilingFlag map[string]int

func (c ceilingFlag) String() string { return fmt.Sprint(map[string]int(c)) }

func (c ceilingFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return fmt.Errorf("want name=N, got %q", part)
		}
		k, err := strconv.Atoi(n)
		if err != nil {
			return fmt.Errorf("ceiling for %s: %q is not a number", name, n)
		}
		c[strings.TrimSpace(name)] = k
	}
	return nil
}

type investigateOptions struct {
	id             string
	detach, asJSON bool
}

// parseInvestigate turns the command line into a validated request; every bad input is a
// usage error before anything starts.
func parseInvestigate(args []string, getenv func(string) string) (workflows.InvestigationRequest, investigateOptions, error) {
	fs := flag.NewFlagSet("investigate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o investigateOptions
	ceilings := ceilingFlag{}
	sources := fs.String("sources", config.DefaultProvider, "comma-separated sources: "+strings.Join(investigate.SourceNames(), ", "))
	fs.Var(ceilings, "ceiling", "per-source query ceiling, name=N (repeatable)")
	timeLimit := fs.Duration("time-limit", workflows.DefaultSourceTimeLimit, "time limit of each source loop")
	breadcrumbs := fs.Int("breadcrumbs", workflows.DefaultBreadcrumbs, "breadcrumbs to follow per hypothesis, each in the source whose results name it")
	entities := fs.Int("entities", workflows.DefaultEntities, "key actors to research (ranked by frequency and relevance, the question's own terms left out)")
	results := fs.Int("results", config.DefaultResultsPerQuery, "results per query")
	maxModel := fs.Int("max-model-calls", 0, "model call budget for the whole investigation (0: unlimited)")
	maxSearch := fs.Int("max-search-calls", 0, "search call budget for the whole investigation (0: unlimited)")
	official := fs.String("official", "", "comma-separated official domains (default: "+strings.Join(investigate.DefaultOfficialDomains, ",")+")")
	noModel := fs.Bool("no-model", false, "decide every query heuristically even if the worker has models")
	noCache := fs.Bool("no-cache", false, "bypass the 24-hour search cache")
	fs.StringVar(&o.id, "id", "", "workflow id (default: investigate-<slug>-<hash>)")
	fs.BoolVar(&o.detach, "detach", false, "start and print the id without following")
	fs.BoolVar(&o.asJSON, "json", false, "print the final report as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return workflows.InvestigationRequest{}, o, err
	}
	if len(pos) != 1 {
		return workflows.InvestigationRequest{}, o, usagef(`want exactly one question in quotes: starter investigate "How does ...?" [--sources corpus,searxng]`)
	}
	req := workflows.InvestigationRequest{Question: pos[0], TimeLimit: *timeLimit, Breadcrumbs: breadcrumbs, Entities: entities,
		ResultsPerQuery: *results, MaxModelCalls: *maxModel, MaxSearchCalls: *maxSearch, NoModel: *noModel, NoCache: *noCache}
	for _, s := range strings.Split(*sources, ",") {
		if s = strings.TrimSpace(s); s != "" {
			req.Sources = append(req.Sources, s)
		}
	}
	if len(ceilings) > 0 {
		req.Ceilings = ceilings
	}
	if *official != "" {
		req.OfficialDomains = strings.Split(*official, ",")
	}
	if req.TimeLimit <= 0 {
		return req, o, usagef("--time-limit must be positive")
	}
	if *results <= 0 {
		return req, o, usagef("--results must be at least 1")
	}
	if _, err := workflows.ValidateInvestigation(req); err != nil {
		return req, o, usagef("%v", err)
	}
	if err := investigate.CheckKeys(req.Sources, getenv); err != nil {
		return req, o, usagef("%v", err)
	}
	return req, o, nil
}

// investigationID derives a meaningful id: investigate-<slug>-<hash of the request>.
func investigationID(req workflows.InvestigationRequest) string {
	return meaningfulID("investigate", req.Question, req)
}

// investigateCmd starts an investigation and follows it; `research --mode investigate` forwards here.
func investigateCmd(ctx context.Context, env config.Env, args []string) error {
	req, o, err := parseInvestigate(args, env.Var)
	if err != nil {
		return err
	}
	id := o.id
	if id == "" {
		id = investigationID(req)
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
		StaticSummary:            uiSummary("investigate: ", req.Question),
	}, workflows.InvestigationWorkflowName, req)
	if err != nil {
		return fmt.Errorf("start %s: %w", id, err)
	}
	fmt.Fprintf(stderr, "started %s\n  watch:  starter watch %s\n  ui:     %s\n", id, id, uiLink(env, id))
	if o.detach {
		fmt.Fprintln(stdout, id)
		return nil
	}
	return followInvestigation(ctx, c, env, id, run.GetRunID(), o.asJSON)
}

// investigationView prints each query event once, from the running loops live and from the
// investigation once they finish.
type investigationView struct {
	phase string
	shown map[string]bool
}

func eventKey(e investigate.QueryEvent) string {
	return strings.Join([]string{e.Task, e.Hypothesis, e.Source, e.Decider, strconv.Itoa(e.N)}, "|")
}

func (v *investigationView) event(e investigate.QueryEvent) {
	if v.shown[eventKey(e)] {
		return
	}
	v.shown[eventKey(e)] = true
	what := fmt.Sprintf("%d results, +%d new, %d dup (%.0f%% new)", e.Results, e.New, e.Duplicates, e.Incremental)
	if e.Error != "" {
		what = "failed: " + e.Error
	}
	fmt.Fprintf(stderr, "  %-10s #%-2d %-10s %q  %s\n", e.Source, e.N, e.Decider, e.Query, what)
}

func (v *investigationView) update(ctx context.Context, c client.Client, id, runID string) {
	resp, err := c.QueryWorkflow(ctx, id, runID, workflows.ProgressQuery)
	if err != nil {
		return
	}
	var p workflows.InvestigationProgress
	if resp.Get(&p) != nil {
		return
	}
	if p.Phase != v.phase {
		v.phase = p.Phase
		fmt.Fprintf(stderr, "· %s\n", p.Phase)
	}
	for _, child := range p.Running {
		if r, err := c.QueryWorkflow(ctx, child, "", workflows.ProgressQuery); err == nil {
			var sp workflows.SourceLoopProgress
			if r.Get(&sp) == nil {
				for _, e := range sp.Events {
					v.event(e)
				}
			}
		}
	}
	for _, e := range p.Events {
		v.event(e)
	}
}

func followInvestigation(ctx context.Context, c client.Client, env config.Env, id, runID string, asJSON bool) error {
	done := make(chan error, 1)
	var rep workflows.InvestigationReport
	go func() { done <- c.GetWorkflow(ctx, id, runID).Get(ctx, &rep) }()
	v := &investigationView{shown: map[string]bool{}}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			v.update(ctx, c, id, runID)
			if err != nil {
				return fmt.Errorf("investigation %s failed: %w", id, err)
			}
			return printInvestigation(env, rep, asJSON)
		case <-tick.C:
			v.update(ctx, c, id, runID)
		case <-ctx.Done():
			fmt.Fprintf(stderr, "\nstopped following; the investigation goes on: starter watch %s\n", id)
			return nil
		}
	}
}

// printInvestigation prints a finished investigation's report (Markdown, or JSON with the
// Markdown rendered) and where its files are.
func printInvestigation(env config.Env, rep workflows.InvestigationReport, asJSON bool) error {
	if asJSON {
		rep.Markdown = rep.Rendered()
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintln(stdout, rep.Rendered())
	fmt.Fprintf(stderr, "\nreport: %s\njson:   %s\nui:     %s\n", rep.MarkdownPath, rep.JSONPath, uiLink(env, rep.WorkflowID))
	return nil
}
