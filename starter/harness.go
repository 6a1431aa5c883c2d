package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/workflows"
)

func init() {
	register("harness", "evaluation harness: record METRICS.json | status [--svg FILE] | ack FLAG | audit | schedule | init | show | import FILE | verify | restore N", harnessCmd)
	register("expansion", "harness expansions: list | show ID | diff ID | approve ID | reject ID --reason ...", expansionCmd)
}

const harnessUsage = "usage: starter harness record METRICS.json | status [--json] [--svg FILE] | ack FLAG --reason TEXT [--by NAME] | audit [--json] | schedule --every DURATION | schedule pause|resume|trigger|delete | init [--from QUESTIONS.jsonl] | show [--json] [--version N] | import FILE [--by NAME] | verify [--adopt] [--json] | restore VERSION"

const expansionUsage = "usage: starter expansion list | show ID | diff ID | approve ID [--by NAME] [--reason TEXT] | reject ID --reason TEXT [--by NAME]"

// harnessParse parses flags that may come before or after positional arguments.
func harnessParse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		if args = fs.Args(); len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// The monitor and schedule ids; integration tests use their own on a shared server.
var (
	harnessMonitorID  = workflows.SaturationMonitorID
	harnessScheduleID = workflows.HarnessScheduleID
)

// harnessDial is a seam for tests of argument handling: they must fail before it is called.
var harnessDial = dialTemporal

// harnessCommands are the harness subcommands; each fails on bad arguments before dialling.
var harnessCommands = map[string]commandFunc{
	"record":   harnessRecordCmd,
	"status":   harnessStatusCmd,
	"schedule": harnessScheduleCmd,
	"init":     harnessInitCmd,
	"show":     harnessShowCmd,
	"import":   harnessImportCmd,
	"verify":   harnessVerifyCmd,
	"restore":  harnessRestoreCmd,
	"ack":      harnessAckCmd,
	"audit":    harnessAuditCmd,
}

func harnessCmd(ctx context.Context, env config.Env, args []string) error {
	if len(args) == 0 {
		return usagef(harnessUsage)
	}
	sub, ok := harnessCommands[args[0]]
	if !ok {
		return usagef("unknown harness command %q; %s", args[0], harnessUsage)
	}
	return sub(ctx, env, args[1:])
}

// harnessRecordCmd records one cycle's metrics in the monitor.
func harnessRecordCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness record", flag.ContinueOnError)
	pos, err := harnessParse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("harness record needs one METRICS.json file (or - for stdin)")
	}
	m, err := harnessReadMetrics(pos[0])
	if err != nil {
		return err
	}
	c, err := harnessDial(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := harnessRecord(ctx, c, env.TaskQueue, m)
	if err != nil {
		return err
	}
	return harnessPrintCycle(stdout, res)
}

func harnessStatusCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the status as JSON")
	svg := fs.String("svg", "", "also write the last cycles' chart to this SVG file")
	if pos, err := harnessParse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("harness status takes no arguments")
	}
	c, err := harnessDial(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := harnessStatus(ctx, c)
	if err != nil {
		return err
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, HistoryChartSVG(st.History), 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		return harnessJSON(stdout, st)
	}
	harnessPrintStatus(stdout, st)
	harnessPrintIntegrity(stdout, env.HarnessDir(), st)
	if every, ok := harnessScheduleInterval(ctx, c); ok {
		fmt.Fprintf(stdout, "schedule: a cycle every %s\n", every)
		if w := harness.ScheduleWarning(every); w != "" {
			fmt.Fprintln(stdout, w)
		}
	}
	return nil
}

// harnessScheduleInterval is the cycle schedule's interval; ok is false without a schedule.
func harnessScheduleInterval(ctx context.Context, c client.Client) (time.Duration, bool) {
	d, err := c.ScheduleClient().GetHandle(ctx, harnessScheduleID).Describe(ctx)
	if err != nil || d.Schedule.Spec == nil || len(d.Schedule.Spec.Intervals) == 0 {
		return 0, false
	}
	return d.Schedule.Spec.Intervals[0].Every, true
}

// harnessInitCmd creates harness v1 from a question set, unless a harness exists; its hash is
// recorded in the monitor (started if needed) before the files are written.
func harnessInitCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness init", flag.ContinueOnError)
	from := fs.String("from", "", "question set (JSONL) to build the benchmarks from; default: the built-in Go documentation set")
	threshold := fs.Float64("threshold", 0.5, "pass threshold (fact recall) of every benchmark")
	regression := fs.Int("regression", 3, "how many of the first benchmarks are regression tests")
	if pos, err := harnessParse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("harness init takes no arguments (use --from)")
	}
	if *threshold <= 0 || *threshold > 1 {
		return usagef("--threshold %g not in (0,1]", *threshold)
	}
	if *regression < 0 {
		return usagef("--regression must not be negative")
	}
	data := eval.GoQuestions
	if *from != "" {
		var err error
		if data, err = os.ReadFile(*from); err != nil {
			return err
		}
	}
	qs, err := eval.ParseQuestions(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("question set: %v", err)
	}
	h0 := harness.FromQuestions(qs, *threshold, *regression)
	for _, b := range h0.Benchmarks {
		if bad := harness.TrivialFacts(b.ID, b.Gold); len(bad) > 0 {
			return fmt.Errorf("question set: %s", strings.Join(bad, "; "))
		}
	}
	c, err := harnessDial(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	h, created, err := harness.NewStore(env.HarnessDir()).InitRecorded(h0, time.Now(), harnessRecorder(ctx, c, env.TaskQueue))
	if err != nil {
		return err
	}
	if !created {
		fmt.Fprintf(stdout, "harness already at v%d in %s (left as it is)\n", h.Version, env.HarnessDir())
		return nil
	}
	fmt.Fprintf(stdout, "harness v1 created in %s: %d benchmarks, %d regression tests\n", env.HarnessDir(), len(h.Benchmarks), len(h.RegressionTests))
	return nil
}

func harnessShowCmd(_ context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the harness file")
	version := fs.Int("version", 0, "an archived version instead of the one in force")
	if pos, err := harnessParse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("harness show takes no arguments")
	}
	return harnessShow(harness.NewStore(env.HarnessDir()), *version, *asJSON)
}

// harnessImportCmd applies a hand-edited harness file through an expansion run: the ratchet
// over the verified version in force, new tests disabled until they pass at baseline, the
// commit recorded in the monitor.
func harnessImportCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness import", flag.ContinueOnError)
	by := fs.String("by", env.User, "who imports")
	pos, err := harnessParse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("harness import needs one harness FILE")
	}
	if strings.TrimSpace(*by) == "" {
		return usagef("harness import needs --by NAME (or USER)")
	}
	next, err := harnessReadImport(pos[0])
	if err != nil {
		return err
	}
	c, store, l, err := harnessLedgered(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	cur, err := store.CurrentVerified(l)
	if err != nil {
		return err
	}
	p, err := harnessImportProposal(cur, next, pos[0])
	if err != nil {
		return err
	}
	id := workflows.ExpansionIDPrefix + "import-" + harness.Short(harness.ContentHash(next))
	req := workflows.ExpansionRequest{Reason: "import " + pos[0], MonitorID: harnessMonitorID,
		Import: &workflows.ExpansionImport{File: pos[0], By: strings.TrimSpace(*by), Proposal: p}}
	req.Import.User, req.Import.Host = starterIdentity()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: env.TaskQueue}, workflows.ExpansionWorkflowName, req)
	if err != nil {
		return fmt.Errorf("starting the import: %s", workflows.Readable(err))
	}
	if n := len(p.NewTests()) + len(p.EnableTests); n > 0 {
		fmt.Fprintf(stdout, "import %s started: %d test(s) enter disabled and run at baseline first; each is enabled only if it passes (Ctrl-C leaves it running: starter expansion show %s)\n", id, n, id)
	}
	var st workflows.ExpansionStatus
	if err := run.Get(ctx, &st); err != nil {
		return fmt.Errorf("import %s: %s (the harness stays at v%d)", id, workflows.Readable(err), cur.Version)
	}
	return harnessPrintImport(stdout, st)
}

// harnessReadImport reads and validates a harness file before anything is dialled.
func harnessReadImport(path string) (harness.Harness, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return harness.Harness{}, err
	}
	next, err := harness.Parse(data)
	if err != nil {
		return harness.Harness{}, fmt.Errorf("%s: %v (the harness stays at its last good version)", path, err)
	}
	return next, nil
}

// harnessImportProposal is the imported file as a proposal over cur; the whole file passes the
// ratchet (trivial gold patterns included) or nothing is imported.
func harnessImportProposal(cur, next harness.Harness, path string) (harness.Proposal, error) {
	p := harness.Diff(cur, next)
	if err := harness.Ratchet(cur, p); err != nil {
		return p, fmt.Errorf("%s: %v (the harness stays at v%d)", path, err, cur.Version)
	}
	if p.Empty() {
		return p, fmt.Errorf("%s changes nothing in harness v%d", path, cur.Version)
	}
	return p, nil
}

func harnessPrintImport(w io.Writer, st workflows.ExpansionStatus) error {
	for _, t := range st.NewTests {
		verdict := fmt.Sprintf("passed at baseline (%.2f), enabled", t.Score)
		if t.Documented {
			verdict = "documented edge case, nothing to run: enabled, not counted"
		} else if !t.Passed {
			verdict = fmt.Sprintf("failed at baseline (%.2f), left disabled", t.Score)
			if t.Note != "" {
				verdict += ": " + t.Note
			}
		}
		fmt.Fprintf(w, "  %s %s\n", t.ID, verdict)
	}
	for _, t := range st.Rerun {
		fmt.Fprintf(w, "  %s re-run at threshold %.2f: %.2f, %s\n", t.ID, t.Threshold, t.Score, map[bool]string{true: "passed", false: "failed"}[t.Passed])
	}
	if st.Tally != nil {
		fmt.Fprintf(w, "baseline check: %s\n", st.Tally)
	}
	switch st.State {
	case workflows.ExpansionApplied:
		fmt.Fprintf(w, "harness v%d committed from v%d (%s)\n", st.CommittedVersion, st.BaseVersion, st.ID)
	default:
		fmt.Fprintf(w, "import %s ended %s: %s (the harness stays at v%d)\n", st.ID, st.State, st.Note, st.BaseVersion)
	}
	return nil
}

// harnessReadMetrics reads and validates a metrics document before anything is dialled.
func harnessReadMetrics(path string) (harness.Metrics, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return harness.Metrics{}, err
	}
	m, err := harness.ParseMetrics(data)
	if err != nil {
		return harness.Metrics{}, fmt.Errorf("%s: %v", path, err)
	}
	if m.Source == "" {
		m.Source = "external"
	}
	return m, nil
}

// harnessRecord records one cycle in the monitor, starting the monitor when needed.
func harnessRecord(ctx context.Context, c client.Client, taskQueue string, m harness.Metrics) (harness.CycleResult, error) {
	return activities.RecordHarnessCycle(ctx, c, activities.HarnessRecordInput{
		MonitorID: harnessMonitorID, WorkflowType: workflows.SaturationMonitorWorkflowName,
		UpdateName: workflows.MonitorRecordUpdate, TaskQueue: taskQueue, Metrics: m,
	})
}

// harnessStatus queries the monitor.
func harnessStatus(ctx context.Context, c client.Client) (workflows.MonitorStatus, error) {
	var st workflows.MonitorStatus
	v, err := c.QueryWorkflow(ctx, harnessMonitorID, "", workflows.MonitorStatusQuery)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return st, fmt.Errorf("the saturation monitor is not running: no cycle recorded yet (starter harness record, or schedule cycles)")
	}
	if err != nil {
		return st, err
	}
	return st, v.Get(&st)
}

func harnessJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func harnessPrintCycle(w io.Writer, r harness.CycleResult) error {
	dup := ""
	if r.Duplicate {
		dup = " (already recorded)"
	}
	fmt.Fprintf(w, "cycle %d%s: score %.3f %s; last %d: average %.3f, %s; decision: %s\n",
		r.Cycle, dup, r.Breakdown.Score, r.Breakdown.Level, r.Aggregate.Cycles, r.Aggregate.Average, r.Aggregate.Trend, r.Decision)
	if r.ExpansionID != "" {
		fmt.Fprintf(w, "expansion started: %s (starter expansion show %s)\n", r.ExpansionID, r.ExpansionID)
	}
	if r.Note != "" {
		fmt.Fprintln(w, r.Note)
	}
	return nil
}

func harnessPrintStatus(w io.Writer, st workflows.MonitorStatus) {
	fmt.Fprintf(w, "cycles: %d (snapshots kept: %d)\n", st.Cycles, st.Snapshots)
	if l := st.Latest; l != nil {
		b := l.Breakdown
		fmt.Fprintf(w, "latest: cycle %d at %s: score %.3f %s (ceiling %.3f, regression %.3f, trend %.3f, proposal %.3f, unanimity %.3f)\n",
			l.Cycle, l.At.Format(time.RFC3339), b.Score, b.Level, b.Ceiling, b.Regression, b.Trend, b.Proposal, b.Unanimity)
	}
	a := st.Aggregate
	fmt.Fprintf(w, "last %d cycles: average %.3f, trend %s (slope %+.4f), consecutive HIGH+ %d, consecutive CRITICAL %d\n",
		a.Cycles, a.Average, a.Trend, a.Slope, a.ConsecutiveHigh, a.ConsecutiveCritical)
	fmt.Fprintf(w, "decision: %s\n", st.Decision)
	if st.OpenExpansion != "" {
		fmt.Fprintf(w, "open expansion: %s\n", st.OpenExpansion)
	}
	harnessPrintFlags(w, st.Flags)
	harnessPrintHistory(w, st.History)
	if st.Outbox > 0 {
		fmt.Fprintf(w, "notifications and audit lines not yet delivered: %d\n", st.Outbox)
	}
	for _, f := range st.GateFailures {
		fmt.Fprintf(w, "failed to deliver %s (%s) at %s: %s\n", f.What, f.ID, f.At.UTC().Format(time.RFC3339), f.Error)
	}
}

// harnessScheduleCmd creates or updates the cycle schedule, or pauses, resumes, triggers or
// deletes it.
func harnessScheduleCmd(ctx context.Context, env config.Env, args []string) error {
	fs := flag.NewFlagSet("harness schedule", flag.ContinueOnError)
	every := fs.Duration("every", 0, "how often a harness cycle runs, e.g. 24h")
	pos, err := harnessParse(fs, args)
	if err != nil {
		return err
	}
	action := ""
	switch {
	case len(pos) == 0 && *every >= time.Minute:
		action = "create"
	case len(pos) == 0 && *every == 0:
		return usagef("harness schedule needs --every DURATION (at least 1m) or pause|resume|trigger|delete")
	case len(pos) == 0:
		return usagef("--every %s is too short; the least is 1m", *every)
	case len(pos) == 1 && *every == 0 && (pos[0] == "pause" || pos[0] == "resume" || pos[0] == "trigger" || pos[0] == "delete"):
		action = pos[0]
	default:
		return usagef("unknown harness schedule command %q; want --every DURATION or pause|resume|trigger|delete", strings.Join(pos, " "))
	}
	c, err := harnessDial(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	if action == "create" {
		created, err := harnessSchedule(ctx, c, env.TaskQueue, *every)
		if err != nil {
			return err
		}
		verb := "updated"
		if created {
			verb = "created"
		}
		fmt.Fprintf(stdout, "schedule %s %s: a harness cycle every %s\n", harnessScheduleID, verb, *every)
		if w := harness.ScheduleWarning(*every); w != "" {
			fmt.Fprintln(stdout, w)
		}
		return nil
	}
	if err := harnessScheduleAction(ctx, c, action); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "schedule %s: %s done\n", harnessScheduleID, action)
	return nil
}

// harnessSchedule creates the cycle schedule, or updates its interval when it exists.
func harnessSchedule(ctx context.Context, c client.Client, taskQueue string, every time.Duration) (bool, error) {
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}}
	req := workflows.HarnessCycleRequest{}
	if harnessMonitorID != workflows.SaturationMonitorID {
		req.MonitorID = harnessMonitorID
	}
	action := &client.ScheduleWorkflowAction{ID: harnessScheduleID, Workflow: workflows.HarnessCycleWorkflowName,
		Args: []any{req}, TaskQueue: taskQueue}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: harnessScheduleID, Spec: spec, Action: action,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP})
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return false, fmt.Errorf("creating schedule %s: %w", harnessScheduleID, err)
	}
	h := c.ScheduleClient().GetHandle(ctx, harnessScheduleID)
	return false, h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		s := in.Description.Schedule
		s.Spec, s.Action = &spec, action
		return &client.ScheduleUpdate{Schedule: &s}, nil
	}})
}

// harnessScheduleAction pauses, resumes, triggers or deletes the cycle schedule.
func harnessScheduleAction(ctx context.Context, c client.Client, action string) error {
	h := c.ScheduleClient().GetHandle(ctx, harnessScheduleID)
	var err error
	switch action {
	case "pause":
		err = h.Pause(ctx, client.SchedulePauseOptions{Note: "paused by starter harness schedule pause"})
	case "resume":
		err = h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: "resumed by starter harness schedule resume"})
	case "trigger":
		err = h.Trigger(ctx, client.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL})
	case "delete":
		err = h.Delete(ctx)
	}
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("no schedule %s (create it with starter harness schedule --every DURATION)", harnessScheduleID)
	}
	return err
}

func harnessShow(store *harness.Store, version int, asJSON bool) error {
	var h harness.Harness
	var err error
	if version > 0 {
		h, err = store.Version(version)
	} else {
		h, err = store.Current()
	}
	var stale *harness.StaleError
	if errors.As(err, &stale) {
		fmt.Fprintf(stderr, "warning: %v\n", err)
	} else if err != nil {
		return err
	}
	if asJSON {
		return harnessJSON(stdout, h)
	}
	fmt.Fprintf(stdout, "harness v%d (from v%d, %s, %s) in %s\n", h.Version, h.Parent, h.Change, h.Created.Format(time.RFC3339), store.Dir())
	fmt.Fprintf(stdout, "gates: citation validity >= %.2f, invalid citations <= %d\n", h.Gates.MinCitationValidity, h.Gates.MaxInvalidCitations)
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tENABLED\tTHRESHOLD\tFACTS\tQUESTION")
	for _, b := range h.Benchmarks {
		kind := "benchmark"
		if h.IsRegression(b.ID) {
			kind = "regression"
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%.2f\t%d\t%s\n", b.ID, kind, b.Enabled, b.Threshold, len(b.Gold), b.Question)
	}
	for _, e := range h.EdgeCases {
		fmt.Fprintf(tw, "%s\tedge case\t%v\t%.2f\t%d\t%s\n", e.ID, e.Enabled, e.Threshold, len(e.Gold), e.Description)
	}
	return tw.Flush()
}

func expansionCmd(ctx context.Context, env config.Env, args []string) error {
	if len(args) == 0 {
		return usagef(expansionUsage)
	}
	x, err := parseExpansion(args, env.User)
	if err != nil {
		return err
	}
	c, err := harnessDial(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	switch x.sub {
	case "list":
		return expansionList(ctx, c, x.asJSON)
	case "show":
		st, err := expansionShow(ctx, c, x.id)
		if err != nil {
			return err
		}
		return harnessJSON(stdout, st)
	case "diff":
		st, err := expansionShow(ctx, c, x.id)
		if err != nil {
			return err
		}
		var base *harness.Harness
		if h, err := harness.NewStore(env.HarnessDir()).Version(st.BaseVersion); err == nil {
			base = &h
		}
		expansionDiff(stdout, st, base)
		return nil
	}
	st, err := expansionDecide(ctx, c, x.id, x.sub == "approve", x.by, x.reason)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, expansionDecided(st))
	return nil
}

// expansionArgs is a validated expansion command line.
type expansionArgs struct {
	sub, id, by, reason string
	asJSON              bool
}

// parseExpansion checks an expansion command line; user (USER) is who decides without --by.
func parseExpansion(args []string, user string) (expansionArgs, error) {
	x := expansionArgs{sub: args[0]}
	fs := flag.NewFlagSet("expansion "+x.sub, flag.ContinueOnError)
	fs.StringVar(&x.by, "by", user, "who decides")
	fs.StringVar(&x.reason, "reason", "", "why")
	fs.BoolVar(&x.asJSON, "json", false, "print JSON")
	pos, err := harnessParse(fs, args[1:])
	if err != nil {
		return x, err
	}
	switch x.sub {
	case "list":
		if len(pos) > 0 {
			return x, usagef("expansion list takes no arguments")
		}
	case "show", "diff", "approve", "reject":
		if len(pos) != 1 {
			return x, usagef("expansion %s needs one expansion ID", x.sub)
		}
		x.id = pos[0]
		if (x.sub == "approve" || x.sub == "reject") && strings.TrimSpace(x.by) == "" {
			return x, usagef("expansion %s needs --by NAME", x.sub)
		}
		if x.sub == "reject" && strings.TrimSpace(x.reason) == "" {
			return x, usagef("expansion reject needs --reason")
		}
	default:
		return x, usagef("unknown expansion command %q; %s", x.sub, expansionUsage)
	}
	return x, nil
}

// expansionList prints the expansions the monitor knows.
func expansionList(ctx context.Context, c client.Client, asJSON bool) error {
	st, err := harnessStatus(ctx, c)
	if err != nil {
		return err
	}
	if asJSON {
		return harnessJSON(stdout, st.Expansions)
	}
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCYCLE\tSTATE\tSINCE")
	for _, e := range st.Expansions {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", e.ID, e.Cycle, e.State, e.At.Format(time.RFC3339))
	}
	return tw.Flush()
}

// expansionDecided says what a decision did, in the past tense of the decision itself.
func expansionDecided(st workflows.ExpansionStatus) string {
	if st.Decision == nil {
		return fmt.Sprintf("expansion %s is %s", st.ID, st.State)
	}
	return fmt.Sprintf("expansion %s %s", st.ID, decisionText(*st.Decision))
}

// decisionText is "approved by NAME at TIME" or "rejected by NAME at TIME".
func decisionText(d workflows.ExpansionDecision) string {
	verb := "rejected"
	if d.Approved {
		verb = "approved"
	}
	return fmt.Sprintf("%s by %s at %s", verb, d.By, d.At.UTC().Format(time.RFC3339))
}

func expansionNotFound(id string, err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("no expansion %s (starter expansion list shows them)", id)
	}
	return errors.New(workflows.Readable(err))
}

// expansionClosed explains a decision sent to an expansion whose workflow has ended: the
// server answers "not found" for an update to a closed workflow, though the expansion exists.
func expansionClosed(ctx context.Context, c client.Client, id string, err error) error {
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) {
		return expansionNotFound(id, err)
	}
	st, qerr := expansionShow(ctx, c, id)
	if qerr != nil {
		return qerr
	}
	if st.Decision != nil {
		return fmt.Errorf("expansion %s was already %s; it is %s now", id, decisionText(*st.Decision), st.State)
	}
	return fmt.Errorf("expansion %s ended %s without a decision; there is nothing to decide (starter expansion show %s)", id, st.State, id)
}

// expansionShow queries one expansion's status.
func expansionShow(ctx context.Context, c client.Client, id string) (workflows.ExpansionStatus, error) {
	var st workflows.ExpansionStatus
	v, err := c.QueryWorkflow(ctx, id, "", workflows.ExpansionStatusQuery)
	if err != nil {
		return st, expansionNotFound(id, err)
	}
	return st, v.Get(&st)
}

// expansionDecide approves or rejects an expansion through its validated update; an unknown or
// already decided expansion is an error.
func expansionDecide(ctx context.Context, c client.Client, id string, approve bool, by, reason string) (workflows.ExpansionStatus, error) {
	osUser, host := starterIdentity()
	name := workflows.ExpansionRejectUpdate
	if approve {
		name = workflows.ExpansionApproveUpdate
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: name,
		Args: []any{workflows.DecideRequest{By: by, Reason: reason, User: osUser, Host: host}}, WaitForStage: client.WorkflowUpdateStageCompleted})
	var st workflows.ExpansionStatus
	if err != nil {
		return st, expansionClosed(ctx, c, id, err)
	}
	if err := h.Get(ctx, &st); err != nil {
		return st, errors.New(workflows.Readable(err))
	}
	return st, nil
}
