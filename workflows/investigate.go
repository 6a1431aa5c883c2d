package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// investigation is the state of one investigation; the progress query reads it.
type investigation struct {
	req      InvestigationRequest
	budget   investigate.Budget
	useModel bool
	prog     InvestigationProgress
	findings []investigate.Finding
	known    map[string][]string // source -> normalized URLs it found
	queried  map[string][]string // source -> queries it ran
	health   map[string]*investigate.Health
	leads    []investigate.Lead
	actors   []investigate.Actor
	asked    map[string]bool // source|normalized query already asked after the loops
	// version is pageVerifyChange's: DefaultVersion runs the stages as before it.
	version workflow.Version
	// docLeads is whether the run reads leads, actors and claims as docLeadsChange does
	docLeads bool
	// readActivities is whether claims and key entities are read in activities (readActivitiesChange)
	readActivities bool
	followed       map[string]bool   // normalized breadcrumbs already followed
	pages          map[string]string // finding key -> page text read for verification
	// stopped is set by the stop signal (stopChange); live are the source loops running now,
	// which the signal is passed on to
	stopped bool
	live    []*sourceLoopRun
	// capFindings is whether the findings stop at maxFindings (findingsCapChange)
	capFindings bool
	// passageKeys is whether findings are keyed as passages (passageKeysChange)
	passageKeys bool
}

// key is how the run tells one finding from another: as a passage from passageKeysChange on,
// by URL before it (resultKey).
func (inv *investigation) key() func(search.Result) string { return resultKey(inv.passageKeys) }

// resultKey is how a run tells one result from another: as a passage (investigate.PassageKey,
// research.SourceKey: a corpus passage by its id, anything else by its normalized URL), or by
// its normalized URL alone (investigate.URLKey), as runs did before the version that changed
// it (a research run's evidence gate, an investigation's passage keys).
func resultKey(passages bool) func(search.Result) string {
	if passages {
		return investigate.PassageKey
	}
	return investigate.URLKey
}

// findingsCapChange keeps at most maxFindings findings, and searches no more once they are
// kept: every finding rides in the report the workflow hands to its report activity and
// returns, and Temporal terminates a run whose payload reaches 2 MB. Compressed (internal/codec)
// a finding takes about 0.25 KB there, so the cap keeps the report near 1 MB.
const (
	findingsCapChange  = "investigation-findings-cap"
	findingsCapVersion = 1
)

// maxFindings is the findings one investigation keeps (a variable for the tests).
var maxFindings = investigate.MaxFindings

// stopChange makes an investigation obey 'starter stop' (StopSignal) as a research run does:
// no search starts after it, the running source loops end at their next query (the signal
// reaches them through the investigation, so one may start first), and the report is written
// from what was found. Runs started before it ignore the signal, as they did.
const (
	stopChange  = "investigation-stop"
	stopVersion = 1
	// stoppedReason is the stop reason of an investigation, or a source loop, stopped on request
	stoppedReason = "stopped on request (starter stop)"
)

// pageVerifyChange moves investigations to the design of issue 13: breadcrumbs extracted and
// followed after each hypothesis, each in the source whose results name it; key entities
// (5 by default, by frequency and relevance) researched before verification so their findings
// are judged too; claims read from page text (FetchPage) and each contested claim searched once
// in the official sources.
const (
	pageVerifyChange  = "investigation-page-verify"
	pageVerifyVersion = 1
)

// readActivitiesChange reads what grows with the findings in activities instead of workflow
// code: the claims (VerifyInvestigationClaims) and the key entities (RankKeyEntities). A dozen
// pages' claims took 0.25-0.55 s of workflow code and the key entities of 1,140 findings 0.3 s;
// on a loaded machine either hit the SDK's deadlock detector (TMPRL1101: a workflow task may
// not run a second without yielding), which fails the task again on every retry.
const (
	readActivitiesChange  = "investigation-read-activities"
	readActivitiesVersion = 1
)

// docLeadsChange reads leads, key actors and claims as documentation writes them: a
// capitalised pair whose last word the results (or technical English) write in lower case is a
// topic ("File Locking"), not a person; an upper-case word they write in lower case or a
// stopword is a keyword ("ON", "FROM"), not an acronym, and an acronym counts only where it is
// written in capitals; a page's note about itself ("This page last modified on ...") is no
// claim, and a bare version ("(2.3.1)") keys its claim. It changes which actors are searched
// and which claims are contested, so runs started before it read as they did (the V1
// functions).
const (
	docLeadsChange  = "investigation-doc-leads"
	docLeadsVersion = 1
)

// passageKeysChange keys findings as a research run keys its sources (research.SourceKey): a
// corpus passage by its id. Keyed by URL, every passage of one section (a file:// URL keeps its
// fragment) or of one page (an http URL does not) was one finding, the first found: "How do
// channels and sync.Once create happens-before edges?" kept the example that ends Go's "Channel
// communication" section and lost the rules that open it. The source loops key alike
// (SourceLoopRequest.PassageKeys), so a loop started by a run before it keeps the run's keys.
const (
	passageKeysChange  = "investigation-passage-keys"
	passageKeysVersion = 1
)

// InvestigationWorkflow decomposes the question into tasks and hypotheses, runs one saturation
// loop per source in parallel for each hypothesis (a failed source is reported, the others go
// on), assesses coverage after each hypothesis, follows breadcrumbs, verifies claims, researches
// the key actors and writes the report with every query event in its appendix.
func InvestigationWorkflow(ctx workflow.Context, req InvestigationRequest) (InvestigationReport, error) {
	inv, err := newInvestigation(ctx, req)
	if err != nil {
		return InvestigationReport{}, err
	}
	return inv.execute(ctx)
}

// newInvestigation answers progress queries from the start, validates the request, checks the
// sources can be searched and learns whether a model can plan.
func newInvestigation(ctx workflow.Context, req InvestigationRequest) (*investigation, error) {
	inv := &investigation{known: map[string][]string{}, queried: map[string][]string{}, health: map[string]*investigate.Health{},
		asked: map[string]bool{}, followed: map[string]bool{}, pages: map[string]string{}}
	inv.prog = InvestigationProgress{Phase: PhaseValidating, Question: req.Question}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (InvestigationProgress, error) {
		p := inv.prog
		p.Health = inv.healthList()
		p.Findings = len(inv.findings)
		return p, nil
	}); err != nil {
		return nil, err
	}
	inv.version = workflow.GetVersion(ctx, pageVerifyChange, workflow.DefaultVersion, pageVerifyVersion)
	inv.docLeads = workflow.GetVersion(ctx, docLeadsChange, workflow.DefaultVersion, docLeadsVersion) >= docLeadsVersion
	inv.readActivities = workflow.GetVersion(ctx, readActivitiesChange, workflow.DefaultVersion, readActivitiesVersion) >= readActivitiesVersion
	if workflow.GetVersion(ctx, stopChange, workflow.DefaultVersion, stopVersion) >= stopVersion {
		inv.listenForStop(ctx)
	}
	inv.capFindings = workflow.GetVersion(ctx, findingsCapChange, workflow.DefaultVersion, findingsCapVersion) >= findingsCapVersion
	inv.passageKeys = workflow.GetVersion(ctx, passageKeysChange, workflow.DefaultVersion, passageKeysVersion) >= passageKeysVersion
	if inv.version == workflow.DefaultVersion {
		req = withLegacyDefaults(req)
	}
	cfg, err := ValidateInvestigation(req)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("invalid investigation: "+err.Error(), badInput, err)
	}
	inv.req = cfg
	inv.budget = investigate.Budget{MaxModelCalls: cfg.MaxModelCalls, MaxSearchCalls: cfg.MaxSearchCalls}
	for _, s := range cfg.Sources {
		inv.health[s] = &investigate.Health{Source: s}
	}
	lctx := workflow.WithActivityOptions(ctx, localOptions)
	if err := workflow.ExecuteActivity(lctx, researchActs.CheckInvestigationSources,
		activities.InvestigationSourcesInput{Sources: cfg.Sources}).Get(ctx, nil); err != nil {
		return nil, err
	}
	var caps activities.Capabilities
	if err := workflow.ExecuteActivity(lctx, researchActs.WorkerCapabilities, activities.CapabilitiesInput{}).Get(ctx, &caps); err != nil {
		return nil, err
	}
	inv.useModel = caps.Planner && !cfg.NoModel
	return inv, nil
}

// execute runs the stages in order: plan, hypotheses (each followed by its breadcrumbs), key
// actors, verification of claims read from the pages, report.
func (inv *investigation) execute(ctx workflow.Context) (InvestigationReport, error) {
	if inv.version == workflow.DefaultVersion {
		return inv.executeV0(ctx)
	}
	planned, err := inv.planTasks(ctx)
	if err != nil {
		return InvestigationReport{}, err
	}

	inv.prog.Phase = PhaseInvestigating
	inv.hypotheses(ctx, planned.Tasks)

	var entities []investigate.Breadcrumb
	if n := *inv.req.Entities; n > 0 {
		inv.prog.Phase = PhaseActors
		entities = inv.keyEntities(ctx, n)
		inv.searchActors(ctx, entities)
	}

	inv.prog.Phase = PhaseVerifying
	inv.fetchPages(ctx)
	inv.profileActors(entities)
	verified := inv.verify(ctx)
	return inv.report(ctx, planned, verified)
}

// keyEntities ranks the n key entities of the findings: in the RankKeyEntities activity
// (readActivitiesChange; a failure is a fallback and researches none), else in workflow code as
// the run's version reads them.
func (inv *investigation) keyEntities(ctx workflow.Context, n int) []investigate.Breadcrumb {
	in := activities.KeyEntitiesInput{Question: inv.req.Question, Texts: inv.texts(), N: n, Docs: inv.docLeads}
	if inv.readActivities {
		var out activities.KeyEntitiesOutput
		if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, synthOptions), researchActs.RankKeyEntities, in).Get(ctx, &out); err != nil {
			inv.fallback("key actors could not be ranked, none researched: " + errMsg(err))
			return nil
		}
		return out.Entities
	}
	return activities.RankEntities(in)
}

// executeV0 is execute before pageVerifyChange: breadcrumbs once after every hypothesis in one
// best source, claims from titles and snippets, actors researched after verification.
func (inv *investigation) executeV0(ctx workflow.Context) (InvestigationReport, error) {
	planned, err := inv.planTasks(ctx)
	if err != nil {
		return InvestigationReport{}, err
	}

	inv.prog.Phase = PhaseInvestigating
	inv.hypotheses(ctx, planned.Tasks)

	if n := *inv.req.Breadcrumbs; n > 0 && !inv.tripped() {
		inv.prog.Phase = PhaseBreadcrumbs
		inv.followBreadcrumbs(ctx, inv.extractLeads(ctx, inv.texts()), n)
	}

	inv.prog.Phase = PhaseVerifying
	claims, pages := inv.claims()
	verified := investigate.Verify(claims, pages, inv.req.OfficialDomains)

	if n := *inv.req.Entities; n > 0 {
		inv.prog.Phase = PhaseActors
		inv.researchActors(ctx, investigate.Entities(inv.texts(), n))
	}
	return inv.report(ctx, planned, verified)
}

// planTasks decomposes the question into tasks and hypotheses, with the model when there is one.
func (inv *investigation) planTasks(ctx workflow.Context) (activities.InvestigationPlanOutput, error) {
	inv.prog.Phase = PhasePlanning
	var planned activities.InvestigationPlanOutput
	popts := localOptions
	if inv.useModel {
		popts = llmOptions
	}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, popts), researchActs.PlanInvestigation,
		activities.InvestigationPlanInput{Question: inv.req.Question, Sources: inv.req.Sources, UseModel: inv.useModel && inv.budget.ModelFits(inv.prog.Spend)}).Get(ctx, &planned); err != nil {
		return planned, err
	}
	inv.prog.Spend.ModelCalls += planned.Usage.Calls
	if planned.Fallback != "" {
		inv.fallback("investigation plan: " + planned.Fallback)
	}
	inv.prog.Planner, inv.prog.Tasks = planned.Planner, planned.Tasks
	return planned, nil
}

// report writes the investigation report with every query event in its appendix.
func (inv *investigation) report(ctx workflow.Context, planned activities.InvestigationPlanOutput, verified []investigate.VerifiedClaim) (InvestigationReport, error) {
	inv.prog.Phase = PhaseReporting
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	rep := investigate.Report{Question: inv.req.Question, WorkflowID: id, GeneratedAt: workflow.Now(ctx).UTC(),
		Hypotheses: inv.prog.Hypotheses, Loops: inv.prog.Loops, Findings: inv.findings, Leads: inv.leads, Claims: verified,
		Actors: inv.actors, Health: inv.healthList(), Events: inv.prog.Events, Spend: inv.prog.Spend, Budget: inv.budget,
		StopReason: inv.prog.StopReason, Fallbacks: inv.prog.Fallbacks}
	for _, t := range planned.Tasks {
		rep.Tasks = append(rep.Tasks, t.Name)
	}
	var out activities.InvestigationReportOutput
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, synthOptions), researchActs.WriteInvestigationReport,
		activities.InvestigationReportInput{Report: rep}).Get(ctx, &out); err != nil {
		return InvestigationReport{}, err
	}
	rep.Answer = out.Answer
	inv.prog.ReportPath = out.MarkdownPath
	inv.prog.Phase = PhaseDone
	md := out.Markdown
	if len(md) > maxResultMarkdown {
		md = "" // the report renders it again (investigate.Markdown); the file has it too
	}
	return InvestigationReport{Report: rep, Planner: planned.Planner, Plan: planned.Tasks, Markdown: md,
		MarkdownPath: out.MarkdownPath, JSONPath: out.JSONPath}, nil
}

// maxResultMarkdown bounds the rendered report a workflow result carries beside the report it
// renders. Both grow with the findings: 1,140 findings from four sources made a 2.03 MB
// result, at Temporal's 2 MB payload limit (past it the finished run's completion is refused).
// Without the rendering, which repeats the findings and the query events, the result is about
// half, and InvestigationReport.Rendered renders it again wherever it is read.
const maxResultMarkdown = 256 << 10

func (inv *investigation) fallback(s string) { inv.prog.Fallbacks = append(inv.prog.Fallbacks, s) }

// listenForStop waits for the stop signal: from then on nothing new starts (tripped) and the
// source loops running are told to end at their next query.
func (inv *investigation) listenForStop(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, StopSignal)
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch.Receive(ctx, nil)
		inv.stopped = true
		for _, l := range inv.live {
			// a loop that has just finished cannot be signalled; nothing is lost then
			l.fut.SignalChildWorkflow(ctx, StopSignal, struct{}{})
		}
	})
}

// tripped is the circuit breaker: once a budget is spent, the findings are full or a stop was
// asked for, nothing new starts.
func (inv *investigation) tripped() bool {
	why := ""
	switch {
	case inv.stopped:
		why = stoppedReason
	case inv.capFindings && len(inv.findings) >= maxFindings:
		why = fmt.Sprintf("%d findings kept, the most one report carries", maxFindings)
	}
	if why != "" {
		if inv.prog.StopReason == "" {
			inv.prog.StopReason = why
		}
		return true
	}
	over, why := inv.budget.Tripped(inv.prog.Spend)
	if over && inv.prog.StopReason == "" {
		inv.prog.StopReason = why
	}
	return over
}

func (inv *investigation) healthList() []investigate.Health {
	out := make([]investigate.Health, 0, len(inv.req.Sources))
	for _, s := range inv.req.Sources {
		if h := inv.health[s]; h != nil {
			out = append(out, *h)
		}
	}
	return out
}

// texts are the findings' titles and snippets, the material leads and claims come from.
func (inv *investigation) texts() []string {
	out := make([]string, len(inv.findings))
	for i, f := range inv.findings {
		out[i] = f.Text()
	}
	return out
}

// hypotheses runs the hypotheses in order; after each, the coverage assessment decides whether
// the next is worth running.
func (inv *investigation) hypotheses(ctx workflow.Context, tasks []activities.InvestigationTask) {
	total := 0
	for _, t := range tasks {
		total += len(t.Hypotheses)
	}
	done := 0
	var stopWhy string
	for ti, t := range tasks {
		for hi, h := range t.Hypotheses {
			sum := investigate.HypothesisSummary{Task: t.Name, Hypothesis: h.Text, Sources: h.Sources}
			done++
			switch {
			case stopWhy != "":
				sum.Skipped = stopWhy
			case inv.tripped():
				sum.Skipped = inv.prog.StopReason
			default:
				inv.prog.Current = t.Name + " / " + h.Text
				from := len(inv.findings)
				sum.NewUnique = inv.runHypothesis(ctx, ti, hi, t, h)
				if inv.version >= pageVerifyVersion {
					inv.hypothesisBreadcrumbs(ctx, t, h, from)
				}
				seen := strings.Join(inv.texts(), "\n")
				c := investigate.AssessCoverage(inv.req.Question, seen, sum.NewUnique, total-done)
				sum.Coverage = &c
				if !c.Continue && total-done > 0 {
					stopWhy = "coverage assessment: " + c.Reason
				}
			}
			inv.prog.Hypotheses = append(inv.prog.Hypotheses, sum)
		}
	}
	inv.prog.Current = ""
}

// sourceLoopRun is one source loop a hypothesis started, and how it ended.
type sourceLoopRun struct {
	source string
	id     string
	fut    workflow.ChildWorkflowFuture
	res    *SourceLoopResult
	err    error
}

// runHypothesis runs one child loop per source in parallel and merges what they found,
// within-source unique results first, then across sources with attribution.
func (inv *investigation) runHypothesis(ctx workflow.Context, ti, hi int, t activities.InvestigationTask, h activities.Hypothesis) int {
	loops := inv.startLoops(ctx, ti, hi, t, h)
	inv.live = loops
	inv.awaitLoops(ctx, loops)
	inv.live = nil
	// merge in source order so citation numbers do not depend on which loop finished first
	added := 0
	for _, l := range loops {
		added += inv.mergeLoop(t, h, l)
	}
	inv.prog.Findings = len(inv.findings)
	return added
}

// startLoops starts a source loop for each of the hypothesis's sources its budget share allows.
func (inv *investigation) startLoops(ctx workflow.Context, ti, hi int, t activities.InvestigationTask, h activities.Hypothesis) []*sourceLoopRun {
	shares, ok := inv.budget.Split(inv.prog.Spend, len(h.Sources))
	gaps := investigate.AssessCoverage(inv.req.Question, strings.Join(inv.texts(), "\n"), 0, 1).Uncovered
	for i := range gaps {
		gaps[i] = "nothing found yet about " + gaps[i]
	}
	var loops []*sourceLoopRun
	parent := workflow.GetInfo(ctx).WorkflowExecution.ID
	for i, src := range h.Sources {
		if !ok[i] {
			inv.prog.Loops = append(inv.prog.Loops, investigate.LoopSummary{Task: t.Name, Hypothesis: h.Text, Source: src,
				StopReason: "not started: search budget spent"})
			continue
		}
		id := fmt.Sprintf("%s/t%d-h%d/%s", parent, ti+1, hi+1, src)
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id, RetryPolicy: sourceLoopRetry,
			StaticSummary: uiSummary(src+" loop: ", h.Text)})
		fut := workflow.ExecuteChildWorkflow(cctx, SourceLoopWorkflow, SourceLoopRequest{
			Question: inv.req.Question, Task: t.Name, Hypothesis: h.Text, Source: src, SeedQueries: h.SeedQueries,
			OpenGaps: gaps, Ceiling: inv.req.Ceilings[src], TimeLimit: inv.req.TimeLimit, ResultsPerQuery: inv.req.ResultsPerQuery,
			Known: inv.known[src], Asked: inv.queried[src], Budget: shares[i], UseModel: inv.useModel, NoCache: inv.req.NoCache,
			PassageKeys: inv.passageKeys})
		loops = append(loops, &sourceLoopRun{source: src, id: id, fut: fut})
		inv.prog.Running = append(inv.prog.Running, id)
	}
	return loops
}

// awaitLoops waits for every loop, showing each one's events as it finishes.
func (inv *investigation) awaitLoops(ctx workflow.Context, loops []*sourceLoopRun) {
	sel := workflow.NewSelector(ctx)
	for _, l := range loops {
		sel.AddFuture(l.fut, func(f workflow.Future) {
			var r SourceLoopResult
			if err := f.Get(ctx, &r); err != nil {
				l.err = err
			} else {
				l.res = &r
			}
			inv.prog.Running = slices.DeleteFunc(inv.prog.Running, func(id string) bool { return id == l.id })
			if l.res != nil {
				inv.prog.Events = append(inv.prog.Events, r.Events...)
			}
		})
	}
	for range loops {
		sel.Select(ctx)
	}
}

// merge adds the results the findings do not hold yet (and attributes the ones they do); it
// returns how many it added. Under findingsCapChange the findings stop at maxFindings: the
// results past it are not kept, and the report says so.
func (inv *investigation) merge(results []search.Result, at investigate.Attribution) int {
	var n int
	inv.findings, n = investigate.Merge(inv.findings, results, at, inv.key())
	if over := len(inv.findings) - maxFindings; inv.capFindings && over > 0 {
		inv.findings = inv.findings[:maxFindings]
		n -= over
		if !inv.prog.FindingsCapped {
			inv.prog.FindingsCapped = true
			inv.fallback(fmt.Sprintf("the findings stop at %d, the most one report carries: later results were not kept (a narrower question, fewer sources or a lower --results keeps it under)", maxFindings))
		}
	}
	return n
}

// mergeLoop folds one finished loop into the findings, the source's health and the summary; it
// returns how many findings were new.
func (inv *investigation) mergeLoop(t activities.InvestigationTask, h activities.Hypothesis, l *sourceLoopRun) int {
	sum := investigate.LoopSummary{Task: t.Name, Hypothesis: h.Text, Source: l.source}
	hl := inv.health[l.source]
	if l.err != nil {
		sum.StopReason, sum.Error = "source loop failed", errMsg(l.err)
		hl.Failures++
		hl.LastError = sum.Error
		inv.fallback(fmt.Sprintf("source %s failed on %q: %s", l.source, h.Text, sum.Error))
		inv.prog.Loops = append(inv.prog.Loops, sum)
		return 0
	}
	r := l.res
	inv.prog.Spend.Add(r.Spend)
	inv.prog.Fallbacks = append(inv.prog.Fallbacks, r.Fallbacks...)
	hl.Queries += len(r.Events)
	for _, e := range r.Events {
		inv.queried[l.source] = append(inv.queried[l.source], e.Query)
	}
	hl.Failures += r.Failures
	if r.LastError != "" {
		hl.LastError = r.LastError
		sum.Error = r.LastError
	}
	for _, res := range r.Results {
		inv.known[l.source] = append(inv.known[l.source], inv.key()(res))
	}
	n := inv.merge(r.Results, investigate.Attribution{Task: t.Name, Hypothesis: h.Text, Source: l.source})
	sum.Queries, sum.Unique, sum.New, sum.StopReason, sum.TimedOut = len(r.Events), len(r.Results), n, r.StopReason, r.TimedOut
	inv.prog.Loops = append(inv.prog.Loops, sum)
	return n
}

// bestSource is the source that found the most results and did not keep failing.
func (inv *investigation) bestSource() string {
	count := map[string]int{}
	for _, f := range inv.findings {
		for _, s := range f.SourcesOf() {
			count[s]++
		}
	}
	best := ""
	for _, s := range inv.req.Sources {
		if h := inv.health[s]; h.Queries > 0 && h.Failures >= h.Queries {
			continue
		}
		if best == "" || count[s] > count[best] {
			best = s
		}
	}
	return best
}

// targeted makes a lead's query: the lead anchored on the question's most salient term.
func (inv *investigation) targeted(lead string) string {
	terms := plan.Terms(inv.req.Question)
	if len(terms) == 0 {
		return lead
	}
	anchor := investigate.Salient(terms, 1)[0]
	if strings.Contains(strings.ToLower(lead), strings.ToLower(anchor)) {
		return lead
	}
	return lead + " " + anchor
}

// searchAll runs targeted searches in parallel in the best source and merges what they found.
// It returns, per query, the new findings and the error ("" when fine); queries already asked
// or beyond the budget are skipped (empty query in the result).
func (inv *investigation) searchAll(ctx workflow.Context, task string, labels, queries []string, decider string) (string, []int, []string) {
	src := inv.bestSource()
	if src == "" {
		return "", make([]int, len(queries)), make([]string, len(queries))
	}
	srcs := make([]string, len(queries))
	for i := range srcs {
		srcs[i] = src
	}
	news, errs, _ := inv.searchEach(ctx, task, labels, srcs, queries, decider)
	return src, news, errs
}

// searchEach runs targeted searches in parallel, each in its own source, and merges what they
// found. It returns, per query, the new findings, the error ("" when fine) and the results;
// queries already asked, without a source or beyond the budget are skipped (empty query).
func (inv *investigation) searchEach(ctx workflow.Context, task string, labels, srcs, queries []string, decider string) ([]int, []string, [][]search.Result) {
	news, errs, results := make([]int, len(queries)), make([]string, len(queries)), make([][]search.Result, len(queries))
	futs := make([]workflow.Future, len(queries))
	for i, q := range queries {
		src := srcs[i]
		if src == "" {
			queries[i] = ""
			continue
		}
		key := src + "|" + plan.Normalize(q)
		if q == "" || inv.asked[key] || plan.SameAsQuestion(q, inv.req.Question) || inv.tripped() {
			queries[i] = ""
			continue
		}
		inv.asked[key] = true
		inv.prog.Spend.SearchCalls++
		opts := searchOptions
		opts.TaskQueue = activities.SourceTaskQueue(src)
		futs[i] = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(opts, "search %s: %s", src, q)), researchActs.Search, activities.SearchInput{Provider: src, Query: q,
			Question: inv.req.Question, Limit: inv.req.ResultsPerQuery, NoCache: inv.req.NoCache})
	}
	for i, fut := range futs {
		if fut == nil {
			continue
		}
		src := srcs[i]
		hl := inv.health[src]
		ev := investigate.QueryEvent{Task: task, Hypothesis: labels[i], Source: src, N: i + 1, Query: queries[i], Decider: decider,
			Reasoning: "targeted query for the " + decider + " " + strings.TrimPrefix(labels[i], decider+": ")}
		var out activities.SearchOutput
		hl.Queries++
		if err := fut.Get(ctx, &out); err != nil {
			ev.Error, errs[i] = errMsg(err), errMsg(err)
			hl.Failures++
			hl.LastError = ev.Error
			inv.prog.Events = append(inv.prog.Events, ev)
			continue
		}
		before := len(inv.findings)
		n := inv.merge(out.Results, investigate.Attribution{Task: task, Hypothesis: labels[i], Source: src})
		ev.Results, ev.New, ev.Duplicates, ev.Cached = len(out.Results), n, len(out.Results)-n, out.Cached
		ev.Incremental = investigate.Incremental(ev.Results, ev.New)
		news[i] = len(inv.findings) - before
		results[i] = out.Results
		inv.prog.Events = append(inv.prog.Events, ev)
	}
	inv.prog.Findings = len(inv.findings)
	return news, errs, results
}

// extractLeads finds the leads in the results so far: patterns, plus the model when there is one
// and the budget allows; a failed extraction falls back to the patterns alone.
func (inv *investigation) extractLeads(ctx workflow.Context, texts []string) []investigate.Breadcrumb {
	useModel := inv.useModel && inv.budget.ModelFits(inv.prog.Spend)
	opts := localOptions
	if useModel {
		opts = llmOptions
	}
	var out activities.LeadsOutput
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), researchActs.ExtractLeads,
		activities.LeadsInput{Texts: texts, UseModel: useModel}).Get(ctx, &out); err != nil {
		inv.fallback("lead extraction failed, using patterns: " + errMsg(err))
		if inv.docLeads {
			return investigate.Breadcrumbs(texts, 0)
		}
		return investigate.BreadcrumbsV1(texts, 0)
	}
	inv.prog.Spend.ModelCalls += out.Usage.Calls
	if out.Fallback != "" {
		inv.fallback("leads: " + out.Fallback)
	}
	return out.Leads
}

// followBreadcrumbs follows the top n leads the question does not already name.
func (inv *investigation) followBreadcrumbs(ctx workflow.Context, ranked []investigate.Breadcrumb, n int) {
	q := investigate.NormalizeName(inv.req.Question)
	var picked []investigate.Breadcrumb
	for _, b := range ranked {
		if len(picked) == n {
			break
		}
		if strings.Contains(" "+q+" ", " "+investigate.NormalizeName(b.Text)+" ") {
			continue
		}
		picked = append(picked, b)
	}
	labels, queries := make([]string, len(picked)), make([]string, len(picked))
	for i, b := range picked {
		labels[i], queries[i] = "breadcrumb: "+b.Text, inv.targeted(b.Text)
	}
	src, news, errs := inv.searchAll(ctx, "breadcrumbs", labels, queries, investigate.DeciderBreadcrumb)
	for i, b := range picked {
		inv.leads = append(inv.leads, investigate.Lead{Breadcrumb: b, Source: src, Query: queries[i], New: news[i], Error: errs[i]})
	}
}

// maxClaims bounds verification, which compares every claim with every other.
const maxClaims = 80

// claims extracts the key claim of each finding, in citation order, up to maxClaims.
func (inv *investigation) claims() ([]investigate.Claim, map[string]string) {
	var out []investigate.Claim
	pages := map[string]string{}
	for _, f := range inv.findings {
		if len(out) == maxClaims {
			break
		}
		text := f.Text()
		pages[f.URL] = text
		out = append(out, investigate.ClaimsV1(f.URL, text, 1)...)
	}
	return out, pages
}

// researchActors searches each top entity in the best source and profiles it from the findings.
func (inv *investigation) researchActors(ctx workflow.Context, entities []investigate.Breadcrumb) {
	labels, queries := make([]string, len(entities)), make([]string, len(entities))
	for i, e := range entities {
		labels[i], queries[i] = "entity: "+e.Text, inv.targeted(e.Text)
	}
	_, news, errs := inv.searchAll(ctx, "actors", labels, queries, investigate.DeciderEntity)
	for i, e := range entities {
		act := investigate.Profile(e, inv.findings, 3)
		act.Query, act.New, act.Error = queries[i], news[i], errs[i]
		inv.actors = append(inv.actors, act)
	}
}

// usableSources are the sources in request order that have not failed every query.
func (inv *investigation) usableSources() []string {
	var out []string
	for _, s := range inv.req.Sources {
		if h := inv.health[s]; h.Queries > 0 && h.Failures >= h.Queries {
			continue
		}
		out = append(out, s)
	}
	return out
}

// hypothesisBreadcrumbs extracts the leads in what one hypothesis found and follows its top n,
// each in the source whose results name it (the best source overall when none does).
func (inv *investigation) hypothesisBreadcrumbs(ctx workflow.Context, t activities.InvestigationTask, h activities.Hypothesis, from int) {
	n := *inv.req.Breadcrumbs
	if n == 0 || from == len(inv.findings) || inv.tripped() {
		return
	}
	inv.prog.Phase = PhaseBreadcrumbs
	defer func() { inv.prog.Phase = PhaseInvestigating }()
	texts := make([]string, 0, len(inv.findings)-from)
	for _, f := range inv.findings[from:] {
		texts = append(texts, f.Text())
	}
	q := " " + investigate.NormalizeName(inv.req.Question) + " "
	var picked []investigate.Breadcrumb
	for _, b := range inv.extractLeads(ctx, texts) {
		key := investigate.NormalizeName(b.Text)
		if len(picked) == n {
			break
		}
		if inv.followed[key] || strings.Contains(q, " "+key+" ") {
			continue
		}
		inv.followed[key] = true
		picked = append(picked, b)
	}
	usable := inv.usableSources()
	labels, srcs, queries := make([]string, len(picked)), make([]string, len(picked)), make([]string, len(picked))
	for i, b := range picked {
		labels[i], queries[i] = "breadcrumb: "+b.Text, inv.targeted(b.Text)
		if srcs[i] = investigate.BestSourceFor(b, inv.findings, usable); srcs[i] == "" {
			srcs[i] = inv.bestSource()
		}
	}
	news, errs, _ := inv.searchEach(ctx, t.Name, labels, srcs, queries, investigate.DeciderBreadcrumb)
	for i, b := range picked {
		inv.leads = append(inv.leads, investigate.Lead{Breadcrumb: b, Hypothesis: h.Text, Source: srcs[i], Query: queries[i], New: news[i], Error: errs[i]})
	}
}

// searchActors searches each key entity in the best source; the profiles come after the pages
// are read (profileActors).
func (inv *investigation) searchActors(ctx workflow.Context, entities []investigate.Breadcrumb) {
	labels, queries := make([]string, len(entities)), make([]string, len(entities))
	for i, e := range entities {
		labels[i], queries[i] = "entity: "+e.Text, inv.targeted(e.Text)
	}
	_, news, errs := inv.searchAll(ctx, "actors", labels, queries, investigate.DeciderEntity)
	for i, e := range entities {
		inv.actors = append(inv.actors, investigate.Actor{Entity: e, Query: queries[i], New: news[i], Error: errs[i]})
	}
}

// maxProfile bounds an actor's profile, now drawn from page text.
const maxProfile = 6

// profileActors profiles each researched actor from the pages read and the other snippets.
func (inv *investigation) profileActors(entities []investigate.Breadcrumb) {
	for i, e := range entities {
		p := investigate.ProfileFrom(e, inv.findings, inv.pages, maxProfile)
		inv.actors[i].Profile, inv.actors[i].Why = p.Profile, p.Why
	}
}

// Verification bounds: pages read in full, claims compared (each with each), claims per read
// page, confirmation searches (one per contested claim) and their query length.
const (
	maxVerifyPages    = 12
	maxVerifyClaims   = 200
	claimsPerPage     = 3
	maxConfirmations  = 3
	confirmationWords = 6
)

// fetchPages reads the first findings in full through FetchPage (the safe fetcher and the
// chunker), in parallel; a page that cannot be read keeps its snippet, noted once.
func (inv *investigation) fetchPages(ctx workflow.Context) {
	picked := inv.findings[:min(maxVerifyPages, len(inv.findings))]
	fctx := workflow.WithActivityOptions(ctx, fetchOptions)
	futs := make([]workflow.Future, len(picked))
	for i, f := range picked {
		futs[i] = workflow.ExecuteActivity(workflow.WithActivityOptions(fctx, summarized(fetchOptions, "fetch: %s", f.URL)), researchActs.FetchPage,
			activities.FetchInput{URL: f.URL, DocID: f.DocID, Provider: f.Provider, Question: inv.req.Question})
	}
	failed, first := 0, ""
	for i, fut := range futs {
		var out activities.FetchOutput
		if err := fut.Get(ctx, &out); err != nil || strings.TrimSpace(out.Text) == "" {
			failed++
			if first == "" && err != nil {
				first = errMsg(err)
			}
			continue
		}
		inv.pages[picked[i].Key] = out.Text
	}
	if failed > 0 {
		inv.fallback(fmt.Sprintf("verification read %d of %d pages; the others were judged on their snippets (%s)", len(picked)-failed, len(picked), first))
	}
}

// verify extracts the claims (several from each page read, one from each snippet otherwise),
// tags them, searches each contested claim once in the official sources and ranks them,
// verified first.
func (inv *investigation) verify(ctx workflow.Context) []investigate.VerifiedClaim {
	in := activities.VerifyClaimsInput{Max: maxVerifyClaims, Official: inv.req.OfficialDomains, Docs: inv.docLeads}
	for _, f := range inv.findings {
		src := investigate.ClaimSource{URL: f.URL, Text: f.Text(), Claims: 1}
		if p, ok := inv.pages[f.Key]; ok {
			src.Text, src.Claims = f.Title+". "+p, claimsPerPage
		}
		in.Sources = append(in.Sources, src)
	}
	var verified []investigate.VerifiedClaim
	if inv.readActivities {
		// the claims are read in an activity: reading a dozen pages took most of the SDK's one
		// second a workflow task may run without yielding
		var out activities.VerifyClaimsOutput
		if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, synthOptions), researchActs.VerifyInvestigationClaims, in).Get(ctx, &out); err != nil {
			inv.fallback("verification failed, no claims are tagged: " + errMsg(err))
			return nil
		}
		verified = out.Verified
	} else {
		verified = investigate.VerifySources(in.Sources, in.Max, in.Official, in.Docs)
	}
	inv.confirm(ctx, verified)
	return investigate.RankClaims(verified)
}

// claimsOf reads a page's claims as the run's version does (docLeadsChange).
func (inv *investigation) claimsOf(pageURL, text string, n int) []investigate.Claim {
	if inv.docLeads {
		return investigate.Claims(pageURL, text, n)
	}
	return investigate.ClaimsV1(pageURL, text, n)
}

// officialSource is where contested claims are checked: the corpus first (the user's own
// documents), then Meilisearch, else the best source.
func (inv *investigation) officialSource() string {
	usable := inv.usableSources()
	for _, s := range []string{"corpus", "meilisearch"} {
		if slices.Contains(usable, s) {
			return s
		}
	}
	return inv.bestSource()
}

// confirm runs one confirmation query per contested claim (at most maxConfirmations) in the
// official source and settles each with what it found (investigate.Resolve).
func (inv *investigation) confirm(ctx workflow.Context, verified []investigate.VerifiedClaim) {
	var idx []int
	for i, v := range verified {
		if v.Tag == investigate.Contradicted && len(idx) < maxConfirmations {
			idx = append(idx, i)
		}
	}
	src := inv.officialSource()
	if len(idx) == 0 || src == "" {
		return
	}
	labels, srcs, queries := make([]string, len(idx)), make([]string, len(idx)), make([]string, len(idx))
	for k, i := range idx {
		labels[k], srcs[k] = "confirmation: "+verified[i].Text, src
		queries[k] = investigate.ConfirmationQuery(verified[i].Claim, confirmationWords)
	}
	asked := slices.Clone(queries)
	_, errs, results := inv.searchEach(ctx, "verification", labels, srcs, queries, investigate.DeciderConfirmation)
	for k, i := range idx {
		switch {
		case errs[k] != "":
			verified[i].Confirmation = fmt.Sprintf("searching %s for %q failed: %s", src, asked[k], errs[k])
		case queries[k] == "":
			verified[i].Confirmation = fmt.Sprintf("not searched (%q already asked, or the budget is spent)", asked[k])
		default:
			var official []investigate.Claim
			for _, r := range results[k] {
				official = append(official, inv.claimsOf(r.URL, r.Title+". "+r.Snippet, 2)...)
			}
			verified[i] = investigate.Resolve(verified[i], official, asked[k], src)
		}
	}
}
