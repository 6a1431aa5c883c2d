package workflows

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/knowledge"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// Phases shown by the progress query.
const (
	PhaseValidating   = "validating"
	PhasePreparing    = "preparing"
	PhaseRecalling    = "recalling"
	PhasePlanning     = "planning"
	PhaseSearching    = "searching"
	PhaseEnriching    = "enriching"
	PhaseSynthesizing = "synthesizing"
	PhaseRemembering  = "remembering"
	PhaseDone         = "done"
)

// ValidateRequest applies the defaults and checks a request; the starter calls it before
// starting anything and the workflow again on entry.
func ValidateRequest(req ResearchRequest) (config.Research, error) {
	if err := config.ValidateQuestion(req.Question); err != nil {
		return config.Research{}, err
	}
	cfg := req.Config.WithDefaults()
	return cfg, cfg.Validate()
}

// evidenceGateChange names the change to passage sources, min-rounds acceptance and learning
// novelty (workflow.GetVersion).
const evidenceGateChange = "evidence-gate"

// floorReplaceChange names the quality-floor change: the fallback query strips jargon, and its
// results replace a thin round's when they are better.
const floorReplaceChange = "floor-replace"

// enrichReplaceChange names the enrichment change: a failed fetch is replaced by the next
// candidate, a source with an empty snippet is a candidate, and every decision is recorded.
const enrichReplaceChange = "enrich-replace"

// memorySearchChange names the change that lets memory shape the search: prior facts seed the
// knowledge state and the learning novelty's known evidence (a round repeating them adds
// little), and pages a prior fact came from are not fetched again.
const memorySearchChange = "memory-shapes-search"

// searchAttributesChange names the change that sets SatedStrategy and SatedState on runs and
// expansions, for the Temporal UI's list.
const searchAttributesChange = "search-attributes"

// answerGateChange names the change of the default novelty method from learning to answer (a
// round scores the share of the findings its new passages would write).
const answerGateChange = "answer-gate"

// rememberFindingsChange names the change of what memory keeps: the findings' quotes per cited
// source instead of the knowledge state's facts.
const rememberFindingsChange = "remember-findings"

// saturateAtMinimumChange names the change that lets the last round always accepted end a
// saturation run: kept whatever it scores, it stops the search when it scores below the
// threshold (novelty.Kept) instead of the run searching one more round to reject.
const saturateAtMinimumChange = "saturate-at-minimum"

// followReferencesChange names the change that follows the first round's cross-references:
// the passages its results link to join the round's results, after them (FollowReferences).
const followReferencesChange = "follow-references"

// run is the state of one research run; the progress query reads it.
type run struct {
	req       ResearchRequest
	cfg       config.Research
	stop      workflow.ReceiveChannel
	seed      int64
	useModel  bool
	progress  Progress
	seen      map[string]bool
	sources   []Source
	knowledge string
	usage     research.Usage
	calls     int // search calls
	caps      activities.Capabilities
	stopWhy   string
	budget    llm.Budget
	aspects   []plan.Aspect
	asked     []string // queries sent to the provider so far
	// evidenceGate is the workflow version: 1 dedupes passages by id, accepts rounds
	// 1..min_rounds, scores learning novelty against all evidence and leaves corpus passages
	// to synthesis instead of enriching them; 0 (DefaultVersion) replays older runs.
	evidenceGate workflow.Version
	failures     int // provider failures in a row
	// floorReplace and enrichReplace are the floor-replace and enrich-replace versions (1: on).
	floorReplace, enrichReplace workflow.Version
	// memorySearch is the memory-shapes-search version (1: on); prior holds the recalled facts.
	memorySearch workflow.Version
	// searchAttrs is the search-attributes version (1: set SatedStrategy and SatedState when
	// the namespace has them)
	searchAttrs workflow.Version
	// saturateAtMinimum is the saturate-at-minimum version (1: the last round always accepted
	// may end the search)
	saturateAtMinimum workflow.Version
	// followReferences is the follow-references version (1: the first round's results' links
	// are followed)
	followReferences workflow.Version
	prior            []research.PriorFact
	enrichment       []research.Enrichment // enrichment decisions, in the order taken
}

// ResearchWorkflow plans, searches in rounds while the results stay new, enriches the pages
// worth reading, writes a cited report and remembers what it learned.
func ResearchWorkflow(ctx workflow.Context, req ResearchRequest) (ResearchReport, error) {
	r, err := newRun(ctx, req)
	if err != nil {
		return ResearchReport{}, err
	}
	return r.execute(ctx)
}

// newRun answers progress queries from the start, validates the request, learns what the
// workers can do and fixes the seed.
func newRun(ctx workflow.Context, req ResearchRequest) (*run, error) {
	r := &run{req: req, seen: map[string]bool{}}
	r.progress = Progress{Phase: PhaseValidating, Question: req.Question}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Progress, error) { return r.progress, nil }); err != nil {
		return nil, err
	}
	r.stop = workflow.GetSignalChannel(ctx, StopSignal)

	cfg, err := ValidateRequest(req)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("invalid research request: "+err.Error(), badInput, err)
	}
	r.cfg = cfg
	r.evidenceGate = workflow.GetVersion(ctx, evidenceGateChange, workflow.DefaultVersion, 1)
	r.floorReplace = workflow.GetVersion(ctx, floorReplaceChange, workflow.DefaultVersion, 1)
	r.enrichReplace = workflow.GetVersion(ctx, enrichReplaceChange, workflow.DefaultVersion, 1)
	r.memorySearch = workflow.GetVersion(ctx, memorySearchChange, workflow.DefaultVersion, 1)
	r.searchAttrs = workflow.GetVersion(ctx, searchAttributesChange, workflow.DefaultVersion, 1)
	r.saturateAtMinimum = workflow.GetVersion(ctx, saturateAtMinimumChange, workflow.DefaultVersion, 1)
	r.followReferences = workflow.GetVersion(ctx, followReferencesChange, workflow.DefaultVersion, 1)
	if req.Config.Novelty == "" && workflow.GetVersion(ctx, answerGateChange, workflow.DefaultVersion, 1) < 1 {
		r.cfg.Novelty = config.NoveltyLearning // the default when the run started
	}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, localOptions), researchActs.WorkerCapabilities,
		activities.CapabilitiesInput{}).Get(ctx, &r.caps); err != nil {
		return nil, err
	}
	if req.NoModel {
		r.caps = activities.Capabilities{Memory: r.caps.Memory, SearchAttributes: r.caps.SearchAttributes}
	}
	r.useModel = r.caps.Any()
	r.budget = llm.Budget{MaxCalls: cfg.MaxModelCalls, MaxTokens: cfg.MaxModelTokens}
	r.progress.Strategy = cfg.Strategy
	r.progress.Threshold = *cfg.NoveltyThreshold

	r.seed = req.Seed
	if r.seed == 0 {
		// a fresh seed is drawn once and recorded, so replays take the same pass-through decisions
		if err := workflow.SideEffect(ctx, func(workflow.Context) any { return rand.Int63() }).Get(&r.seed); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// execute runs the stages in order: prepare, recall, plan, search, enrich, synthesize, remember.
func (r *run) execute(ctx workflow.Context) (ResearchReport, error) {
	r.setState(ctx, "researching", workflowStrategy(r.cfg.Strategy))
	task := r.prepare(ctx)
	prior := r.recall(ctx, task)
	if r.memorySearch >= 1 {
		r.prior = prior
	}
	p, err := r.planResearch(ctx, task, prior)
	if err != nil {
		return ResearchReport{}, err
	}

	r.progress.Phase = PhaseSearching
	r.search(ctx, task, p)
	if r.stopWhy == "" {
		r.stopWhy = "maximum rounds reached"
	}
	r.progress.StopReason = r.stopWhy
	r.diagnose()

	r.progress.Phase = PhaseEnriching
	r.enrich(ctx, task)

	r.setState(ctx, "writing")
	report, err := r.synthesize(ctx, task, p, prior)
	if err != nil {
		return ResearchReport{}, err
	}

	r.progress.Phase = PhaseRemembering
	r.remember(ctx, task, report)
	report.Notes = r.progress.Notes

	r.progress.Phase = PhaseDone
	r.setState(ctx, "done")
	return report, nil
}

// setState sets the run's SatedState (and SatedStrategy when given) for the Temporal UI's list,
// when the namespace has them and the run is on the search-attributes version.
func (r *run) setState(ctx workflow.Context, state string, strategy ...temporal.SearchAttributeUpdate) {
	if r.searchAttrs < 1 || !r.caps.SearchAttributes {
		return
	}
	upsertSearchAttributes(ctx, append(strategy, stateAttr.ValueSet(state))...)
}

// prepare lets the vision bridge rewrite the question into a task; a failure keeps the question.
func (r *run) prepare(ctx workflow.Context) string {
	r.progress.Phase = PhasePreparing
	var prep activities.PrepareOutput
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, llmOptions), researchActs.PrepareTask,
		activities.PrepareInput{Question: r.req.Question, UseModel: r.caps.Vision && r.canSpend(1), MaxCalls: r.callsLeft()}).Get(ctx, &prep); err != nil {
		r.note("vision bridge failed, task left unchanged: " + errMsg(err))
		return r.req.Question
	}
	r.addUsage(prep.Usage)
	r.progress.Notes = append(r.progress.Notes, prep.Notes...)
	return prep.Task
}

// planResearch makes the plan, starting from the facts memory recalled.
func (r *run) planResearch(ctx workflow.Context, task string, prior []research.PriorFact) (Plan, error) {
	r.progress.Phase = PhasePlanning
	var planned activities.PlanOutput
	known := make([]string, 0, len(prior))
	for _, p := range prior {
		known = append(known, p.Fact)
	}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(r.modelOrLocal(), "plan the queries")), researchActs.PlanResearch,
		activities.PlanInput{Question: task, KnownFacts: known, UseModel: r.caps.Planner && r.canSpend(jsonStageCalls),
			Provider: r.cfg.Provider}).Get(ctx, &planned); err != nil {
		return Plan{}, err
	}
	r.addUsage(planned.Usage)
	p := planned.Plan
	if p.FallbackReason != "" {
		r.fallback("planner: " + p.FallbackReason)
	}
	r.progress.Plan = &p
	r.aspects = p.Aspects
	return p, nil
}

// synthesize writes the cited report from the sources and the knowledge state.
func (r *run) synthesize(ctx workflow.Context, task string, p Plan, prior []research.PriorFact) (ResearchReport, error) {
	r.progress.Phase = PhaseSynthesizing
	cfg := r.cfg
	in := activities.SynthesizeInput{
		WorkflowID: workflow.GetInfo(ctx).WorkflowExecution.ID, Question: r.req.Question, Task: task, Strategy: cfg.Strategy,
		Threshold: *cfg.NoveltyThreshold, Seed: r.seed, Plan: p, Rounds: r.progress.Rounds, StopReason: r.stopWhy,
		Sources: r.sources, Knowledge: r.knowledge, Prior: prior, Fallbacks: r.progress.Fallbacks,
		Notes: r.progress.Notes, SearchCalls: r.calls, UseModel: r.caps.Producer && r.canSpend(jsonStageCalls), Eval: r.req.Eval, Usage: r.usage,
		FindingsBudget: cfg.FindingsBudget, Enrichment: r.enrichment,
	}
	if r.caps.Producer && !in.UseModel {
		r.note("model budget spent: the report is extractive")
		in.Notes = r.progress.Notes
	}
	var out activities.SynthesizeOutput
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(synthOptions, "write the report from %d sources", len(r.sources))), researchActs.Synthesize, in).Get(ctx, &out); err != nil {
		return ResearchReport{}, err
	}
	r.addUsage(out.Usage)
	if out.Fallback != "" {
		r.fallback("synthesis: " + out.Fallback)
	}
	r.progress.ReportPath = out.MarkdownPath
	if len(out.SourceOrder) == len(r.sources) {
		r.sources = research.Renumber(r.sources, out.SourceOrder) // numbered as the report cites them
	}

	report := ResearchReport{
		WorkflowID: in.WorkflowID, Question: r.req.Question, Task: task, Config: cfg, Seed: r.seed, Plan: p,
		Rounds: r.progress.Rounds, StopReason: r.stopWhy, Sources: r.sources, Knowledge: r.knowledge, Findings: out.Findings,
		Markdown: out.Markdown, Extractive: out.Extractive, RemovedCitations: out.RemovedCitations,
		Fallbacks: r.progress.Fallbacks, SearchCalls: r.calls, MarkdownPath: out.MarkdownPath,
		JSONPath: out.JSONPath, SVGPath: out.SVGPath, Evidence: out.Evidence, Usage: r.usage, Notes: r.progress.Notes,
		Enrichment: research.RenumberEnrichment(r.enrichment, out.SourceOrder), Diagnosis: r.progress.Diagnosis,
	}
	for i := range report.Sources {
		report.Sources[i].Text = "" // page text stays in the saved report, not the result
	}
	return report, nil
}

// recall asks memory for what earlier runs established about the task.
func (r *run) recall(ctx workflow.Context, task string) []research.PriorFact {
	if !r.caps.Memory || r.req.NoMemory {
		return nil
	}
	r.progress.Phase = PhaseRecalling
	var out activities.MemoryRecallOutput
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, memoryOptions(r.caps.MemoryQueue)), memoryActs.RecallMemory,
		activities.MemoryRecallInput{Task: task}).Get(ctx, &out); err != nil {
		r.note("memory recall failed, planning without prior knowledge: " + errMsg(err))
		return nil
	}
	if out.Note != "" {
		r.note("memory: " + out.Note)
	}
	return out.Facts
}

// remember stores what this run established; a failed write never loses the report.
func (r *run) remember(ctx workflow.Context, task string, rep ResearchReport) {
	if !r.caps.Memory || r.req.NoMemory || len(rep.Sources) == 0 {
		return
	}
	var facts []activities.MemoryFactInput
	if workflow.GetVersion(ctx, rememberFindingsChange, workflow.DefaultVersion, 1) >= 1 {
		facts = findingFacts(rep) // none when the findings quote nothing: the run established nothing
	} else {
		// runs started before: the knowledge state's facts
		for _, f := range knowledge.Bullets(rep.Knowledge) {
			var urls []string
			for _, i := range knowledge.Attribute(f, sourceTexts(rep.Sources), 3) {
				urls = append(urls, rep.Sources[i].URL)
			}
			if len(urls) > 0 {
				facts = append(facts, activities.MemoryFactInput{Fact: f, Sources: urls})
			}
		}
	}
	var out activities.MemoryRememberOutput
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, memoryOptions(r.caps.MemoryQueue)), memoryActs.RememberRun,
		activities.MemoryRememberInput{Task: task, Facts: facts, At: workflow.Now(ctx)}).Get(ctx, &out); err != nil {
		r.note("memory write failed; the report is kept: " + errMsg(err))
		return
	}
	msg := fmt.Sprintf("memory: %d facts stored, %d already known, %d quarantined by the injection scan", out.Stored, out.Skipped, out.Quarantined)
	if out.Note != "" {
		msg += " (" + out.Note + ")"
	}
	r.note(msg)
}

// maxFactChars bounds a remembered fact: a source's title and the findings' quotes from it.
const maxFactChars = 600

// findingFacts are what the run established, for memory: per cited source, its title and the
// sentences the findings quote from it. The knowledge state (every result's snippet, chosen
// for covering words) held results the report never used, which later runs recalled as "prior
// knowledge" about other questions.
func findingFacts(rep ResearchReport) []activities.MemoryFactInput {
	var out []activities.MemoryFactInput
	for _, f := range rep.Findings {
		if f.N < 1 || f.N > len(rep.Sources) {
			continue
		}
		s := rep.Sources[f.N-1]
		fact := strings.Join(f.Quotes, " ")
		if title := strings.Join(strings.Fields(s.Title), " "); title != "" {
			fact = title + ": " + fact
		}
		out = append(out, activities.MemoryFactInput{Fact: search.Truncate(fact, maxFactChars), Sources: []string{s.URL}})
	}
	return out
}

func sourceTexts(ss []Source) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Title + ": " + s.Snippet
	}
	return out
}

func (r *run) modelOrLocal() workflow.ActivityOptions {
	if r.useModel {
		return llmOptions
	}
	return localOptions
}

func (r *run) note(s string)     { r.progress.Notes = append(r.progress.Notes, s) }
func (r *run) fallback(s string) { r.progress.Fallbacks = append(r.progress.Fallbacks, s) }

func (r *run) addUsage(u research.Usage) {
	r.usage.Add(u)
	r.progress.Usage = r.usage
}

func (r *run) overBudget() bool {
	over, _ := r.budget.Exceeded(r.usage)
	return over
}

// jsonStageCalls is the most calls a structured or fitted stage makes: the answer and one
// repair (or one shrunken retry).
const jsonStageCalls = 2

// canSpend reports whether n more model calls fit the budget, so a stage never starts that
// could overrun it. The token budget is checked before each stage.
func (r *run) canSpend(n int) bool {
	if r.overBudget() {
		return false
	}
	return r.budget.MaxCalls == 0 || r.usage.Calls+n <= r.budget.MaxCalls
}

// callsLeft is the remaining call budget; 0 means unlimited.
func (r *run) callsLeft() int {
	if r.budget.MaxCalls == 0 {
		return 0
	}
	return max(r.budget.MaxCalls-r.usage.Calls, 0)
}

func errMsg(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Error()
	}
	return err.Error()
}

// roundEnd says how far a step of a round got: the round goes on, the round is over, or the
// whole search is.
type roundEnd int

const (
	roundGoesOn roundEnd = iota
	roundOver
	searchOver
)

// search runs the rounds. It never fails the run: a provider that keeps failing is reported and
// the run goes on to synthesis with what it has.
func (r *run) search(ctx workflow.Context, task string, p Plan) {
	rounds := r.cfg.MaxRounds
	if r.cfg.Strategy == config.StrategyFixed {
		rounds = r.cfg.FixedRounds
	}
	for round := 1; round <= rounds; round++ {
		if r.stopBefore(round) {
			return
		}
		rec := research.Round{Round: round}
		var ok bool
		if rec.Query, rec.QuerySource, ok = r.nextQuery(ctx, task, p, round); !ok {
			return
		}
		results, end := r.searchRound(ctx, &rec, rounds)
		if end == searchOver {
			return
		}
		if end == roundOver {
			continue
		}
		if round == 1 && r.followReferences >= 1 {
			results = r.followRefs(ctx, &rec, results)
		}
		fresh := r.fresh(results)
		rec.NewResults = len(fresh)
		if r.evidenceGate >= 1 {
			for _, res := range results {
				rec.Ranked = append(rec.Ranked, research.SourceKey(res))
			}
		}
		if round == 1 || r.knowledge == "" {
			// the first round builds the knowledge state directly: no compression call
			r.merge(fresh, round)
			r.knowledge = r.firstKnowledge(fresh)
			if rec.Decision == "" {
				rec.Decision = DecisionAccepted
			}
			r.pushRound(rec)
			continue
		}
		if r.gate(ctx, task, &rec, fresh) == searchOver {
			return
		}
	}
}

// diagnose reads the rounds' novelty curve for what it says about the queries (too broad,
// near-duplicates) and notes it for the progress view and the report.
func (r *run) diagnose() {
	var scored []novelty.RoundNovelty
	var earlier []string
	for _, rec := range r.progress.Rounds {
		if rec.Scored {
			scored = append(scored, novelty.RoundNovelty{Round: rec.Round, Novelty: rec.Novelty,
				Repeats: plan.NearDuplicate(rec.Query, earlier), Method: rec.Method})
		}
		earlier = append(earlier, rec.Query)
	}
	r.progress.Diagnosis = novelty.DiagnoseQueries(scored)
	for _, d := range r.progress.Diagnosis {
		r.note("queries: " + d)
	}
}

// stopBefore ends the search before a round on a stop request or a spent model budget.
func (r *run) stopBefore(round int) bool {
	if r.stop.ReceiveAsync(nil) {
		r.progress.StopRequested = true
		r.stopWhy = fmt.Sprintf("stopped by request before round %d", round)
		return true
	}
	if r.useModel && r.overBudget() {
		_, why := r.budget.Exceeded(r.usage)
		r.stopWhy = why + fmt.Sprintf("; research stopped before round %d", round)
		return true
	}
	if r.useModel && r.budget.MaxCalls > 0 && !r.canSpend(jsonStageCalls) {
		r.stopWhy = fmt.Sprintf("model budget nearly spent: %d/%d calls, the rest is kept for the report; research stopped before round %d",
			r.usage.Calls, r.budget.MaxCalls, round)
		return true
	}
	return false
}

// nextQuery picks the round's query and where it came from: planned queries feed the early
// rounds, later rounds get a gap-filling query. ok is false when no query is left to ask.
func (r *run) nextQuery(ctx workflow.Context, task string, p Plan, round int) (query, source string, ok bool) {
	if round <= len(p.SearchQueries) {
		query, source = p.SearchQueries[round-1], "plan"
	} else {
		var gap activities.GapQueryOutput
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(r.modelOrLocal(), "gap query for round %d", round)), researchActs.PlanQuery,
			activities.GapQueryInput{Question: task, Knowledge: r.knowledge, Previous: r.asked,
				UseModel: r.caps.Planner && r.canSpend(jsonStageCalls), Aspects: r.aspects,
				Evidence: r.evidence(), Provider: r.cfg.Provider}).Get(ctx, &gap)
		if err != nil {
			r.stopWhy = "gap query planning failed: " + errMsg(err)
			return "", "", false
		}
		r.addUsage(gap.Usage)
		if gap.Fallback != "" {
			r.fallback(fmt.Sprintf("gap query round %d: %s", round, gap.Fallback))
		}
		if gap.Query == "" {
			r.stopWhy = fmt.Sprintf("no new query left to ask at round %d", round)
			return "", "", false
		}
		query, source = gap.Query, gap.Planner+"-gap"
	}
	if plan.SameAsQuestion(query, r.req.Question) {
		// the raw question is never sent to a provider
		query = plan.GapQuery(task, r.knowledge, append(r.asked, query))
		if query == "" {
			r.stopWhy = "no query left that differs from the question"
			return "", "", false
		}
	}
	r.asked = append(r.asked, query)
	return query, source, true
}

// searchRound runs the round's search. A failure ends the round, or the search when the
// provider is unusable or keeps failing; a thin first search gets one simplified fallback query.
func (r *run) searchRound(ctx workflow.Context, rec *research.Round, rounds int) ([]search.Result, roundEnd) {
	out, err := r.searchOnce(ctx, rec.Query)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ProviderUnusable {
		rec.Decision, rec.Note = DecisionSearchError, appErr.Message()
		r.pushRound(*rec)
		r.fallback(fmt.Sprintf("round %d: %s", rec.Round, appErr.Message()))
		r.stopWhy = appErr.Message()
		return nil, searchOver
	}
	if err != nil {
		r.failures++
		rec.Decision = DecisionSearchError
		rec.Note = errMsg(err)
		r.fallback(fmt.Sprintf("round %d: provider %s failed: %s", rec.Round, r.cfg.Provider, errMsg(err)))
		r.pushRound(*rec)
		if r.failures >= 2 || rec.Round == 1 && len(r.sources) == 0 && rec.Round == rounds {
			r.stopWhy = fmt.Sprintf("provider %s failed %d times", r.cfg.Provider, r.failures)
			return nil, searchOver
		}
		return nil, roundOver
	}
	r.failures = 0
	rec.Results, rec.Chars, rec.Cached = len(out.Results), out.Chars, out.Cached
	if rec.Round == 1 && out.Chars < r.cfg.QualityFloor {
		return r.belowFloor(ctx, rec, out), roundGoesOn
	}
	return out.Results, roundGoesOn
}

// belowFloor is the quality floor: a thin first search is retried once with the simplified
// query (jargon stripped: the first words of the core concept), whose results replace the thin
// ones when they are better (more text).
func (r *run) belowFloor(ctx workflow.Context, rec *research.Round, out activities.SearchOutput) []search.Result {
	if r.floorReplace < 1 {
		return r.belowFloorV0(ctx, rec, out)
	}
	thin := fmt.Sprintf("first search returned %d chars (< floor %d)", out.Chars, r.cfg.QualityFloor)
	simple := plan.Simplify(rec.Query)
	if simple == "" || plan.SameAsQuestion(simple, r.req.Question) || slices.Contains(r.asked, simple) {
		rec.Note = thin + "; no simpler query to fall back to"
		return out.Results
	}
	fb, err := r.searchOnce(ctx, simple)
	r.asked = append(r.asked, simple)
	rec.FallbackQuery = simple
	results := out.Results
	switch {
	case err != nil:
		rec.Note = fmt.Sprintf("%s; fallback query %q failed: %s; the first results are kept", thin, simple, errMsg(err))
	case fb.Chars > out.Chars:
		rec.Note = fmt.Sprintf("%s; fallback query %q returned %d chars and replaced them", thin, simple, fb.Chars)
		rec.Decision = DecisionFallback
		rec.Results, rec.Chars, rec.Cached = len(fb.Results), fb.Chars, fb.Cached
		results = fb.Results
	default:
		rec.Note = fmt.Sprintf("%s; fallback query %q returned %d chars, no better; the first results are kept", thin, simple, fb.Chars)
	}
	r.fallback("round 1: " + rec.Note)
	return results
}

// belowFloorV0 is the quality floor before floor-replace (the two most salient terms, merged
// with the thin results), kept so older runs replay.
func (r *run) belowFloorV0(ctx workflow.Context, rec *research.Round, out activities.SearchOutput) []search.Result {
	results, floor := out.Results, r.cfg.QualityFloor
	simple := plan.SimplifyV0(rec.Query)
	if simple == "" || plan.SameAsQuestion(simple, r.req.Question) {
		rec.Note = fmt.Sprintf("first search returned %d chars (< floor %d); no simpler query to fall back to", out.Chars, floor)
		return results
	}
	fb, ferr := r.searchOnce(ctx, simple)
	r.asked = append(r.asked, simple)
	if ferr == nil {
		rec.Note = fmt.Sprintf("first search returned %d chars (< floor %d); fallback query %q returned %d chars", out.Chars, floor, simple, fb.Chars)
		results = append(results, fb.Results...)
		rec.Results += len(fb.Results)
		rec.Chars += fb.Chars
	} else {
		rec.Note = fmt.Sprintf("first search returned %d chars (< floor %d); fallback query %q failed: %s", out.Chars, floor, simple, errMsg(ferr))
	}
	rec.Decision = DecisionFallback
	r.fallback("round 1: " + rec.Note)
	return results
}

// gate scores the round's fresh results and lets the novelty gate decide whether they join the
// knowledge state, are discarded, or end the search as saturated.
func (r *run) gate(ctx workflow.Context, task string, rec *research.Round, fresh []search.Result) roundEnd {
	cfg := r.cfg
	score, method, err := r.score(ctx, rec, fresh)
	if err != nil {
		rec.Decision = DecisionSearchError
		rec.Note = "novelty assessment failed: " + errMsg(err)
		r.pushRound(*rec)
		r.stopWhy = rec.Note
		return searchOver
	}
	rec.Novelty, rec.Scored, rec.Method = score, true, method

	decision := novelty.Accept
	if cfg.Strategy == config.StrategySaturation {
		switch {
		case !(r.evidenceGate >= 1 && rec.Round <= cfg.MinRounds):
			// rounds 1..min_rounds are always accepted; the gate decides the rounds after
			decision = novelty.Gate(score, *cfg.NoveltyThreshold, rec.Round, cfg.MinRounds, r.seed, *cfg.Epsilon)
		case r.saturateAtMinimum >= 1:
			// ... and the last of them, scored low, ends the search
			decision = novelty.Kept(score, *cfg.NoveltyThreshold, rec.Round, cfg.MinRounds, r.seed, *cfg.Epsilon)
		}
	}
	switch decision {
	case novelty.Accept, novelty.EpsilonContinue, novelty.KeepAndStop:
		rec.Decision = DecisionAccepted
		if cfg.Strategy == config.StrategyFixed {
			rec.Decision = DecisionFixed
		}
		if decision == novelty.EpsilonContinue {
			rec.Decision = DecisionEpsilon
		}
		r.merge(fresh, rec.Round)
		if len(fresh) > 0 {
			if err := r.compress(ctx, task, fresh); err != nil {
				rec.Note = "compression failed, knowledge unchanged: " + errMsg(err)
			}
		}
		if decision == novelty.KeepAndStop {
			rec.Note = addNote(rec.Note, fmt.Sprintf("kept: rounds up to %d are always kept; below the threshold, it ends the search", cfg.MinRounds))
		}
		r.pushRound(*rec)
		if decision == novelty.KeepAndStop {
			r.stopWhy = fmt.Sprintf("saturated: novelty %.2f below threshold %.2f at round %d, the last of the %d always kept",
				score, *cfg.NoveltyThreshold, rec.Round, cfg.MinRounds)
			return searchOver
		}
	case novelty.DiscardContinue:
		rec.Decision = DecisionDiscarded
		rec.Note = fmt.Sprintf("novelty %.2f below threshold %.2f before the minimum of %d rounds", score, *cfg.NoveltyThreshold, cfg.MinRounds)
		r.pushRound(*rec)
	case novelty.Stop:
		rec.Decision = DecisionDiscarded
		r.pushRound(*rec)
		r.stopWhy = fmt.Sprintf("saturated: novelty %.2f below threshold %.2f at round %d", score, *cfg.NoveltyThreshold, rec.Round)
		return searchOver
	}
	return roundGoesOn
}

// addNote appends more to a round's note, after "; " when the note already says something.
func addNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}

func (r *run) pushRound(rec research.Round) {
	r.progress.Rounds = append(r.progress.Rounds, rec)
}

// followRefs appends to the first round's results the passages they link to
// (config.ReferencesPerResult each): documentation says where the rest of an answer is ("See
// Section 23.6"), often in words the question does not use. They rank after the results. A
// provider whose documents do not link adds none; a failure leaves the results as they were.
func (r *run) followRefs(ctx workflow.Context, rec *research.Round, results []search.Result) []search.Result {
	var ids []string
	for _, res := range results {
		if res.DocID != "" {
			ids = append(ids, res.DocID)
		}
	}
	if len(ids) == 0 {
		return results
	}
	var out activities.ReferencesOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(searchOptions, "references of %d results", len(ids))), researchActs.FollowReferences,
		activities.ReferencesInput{Provider: r.cfg.Provider, Query: rec.Query, IDs: ids, Per: config.ReferencesPerResult}).Get(ctx, &out)
	if err != nil {
		r.fallback(fmt.Sprintf("round %d: following the results' cross-references failed: %s", rec.Round, errMsg(err)))
		return results
	}
	if len(out.Results) == 0 {
		return results
	}
	rec.Results += len(out.Results)
	rec.References = len(out.Results)
	rec.Note = addNote(rec.Note, fmt.Sprintf("followed the results' cross-references: %d passages they link to join after them", len(out.Results)))
	return append(slices.Clip(results), out.Results...)
}

func (r *run) searchOnce(ctx workflow.Context, query string) (activities.SearchOutput, error) {
	var out activities.SearchOutput
	r.calls++
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(searchOptions, "search %s: %s", r.cfg.Provider, query)), researchActs.Search,
		activities.SearchInput{Provider: r.cfg.Provider, Query: query, Question: r.req.Question,
			Limit: r.cfg.ResultsPerQuery, NoCache: r.cfg.NoCache}).Get(ctx, &out)
	return out, err
}

// sourceKey identifies a result: a corpus passage by its id (several passages of one page are
// different evidence), anything else by its normalized URL; by URL alone before the evidence
// gate (resultKey).
func (r *run) sourceKey(res search.Result) string { return resultKey(r.evidenceGate >= 1)(res) }

// fresh keeps the results the run has not seen, once each.
func (r *run) fresh(results []search.Result) []search.Result {
	var out []search.Result
	batch := map[string]bool{}
	for _, res := range results {
		k := r.sourceKey(res)
		if r.seen[k] || batch[k] {
			continue
		}
		batch[k] = true
		out = append(out, res)
	}
	return out
}

// merge adds accepted results to the sources, numbering them for citation.
func (r *run) merge(results []search.Result, round int) {
	for _, res := range results {
		k := r.sourceKey(res)
		if r.seen[k] {
			continue
		}
		r.seen[k] = true
		r.sources = append(r.sources, Source{N: len(r.sources) + 1, Result: res, Round: round})
	}
	r.progress.Sources = len(r.sources)
	if len(r.aspects) > 0 {
		r.progress.Coverage = plan.AspectCoverage(r.aspects, r.evidence())
	}
}

// evidence is every accepted source's title and snippet: what the novelty gate and the
// feedback planner measure new results against.
func (r *run) evidence() []string {
	out := make([]string, len(r.sources))
	for i, s := range r.sources {
		out[i] = s.Title + ". " + s.Snippet
	}
	return out
}

// priorFacts are the recalled facts' texts (none before memory-shapes-search).
func (r *run) priorFacts() []string {
	out := make([]string, len(r.prior))
	for i, p := range r.prior {
		out[i] = p.Fact
	}
	return out
}

// firstKnowledge is the knowledge state after round 1: the recalled facts at its head (a third
// of the cap at most), so a round that only repeats them adds little, then the round's results.
func (r *run) firstKnowledge(fresh []search.Result) string {
	if len(r.prior) == 0 {
		return knowledge.Initial(fresh, r.cfg.KnowledgeCap)
	}
	known := search.Truncate("Known from earlier runs: "+strings.Join(r.priorFacts(), " "), r.cfg.KnowledgeCap/3)
	return known + "\n" + knowledge.Initial(fresh, max(r.cfg.KnowledgeCap-len(known)-1, 0))
}

// fromMemory says whether a recalled fact came from url: memory already holds what it said.
func (r *run) fromMemory(url string) bool {
	for _, p := range r.prior {
		for _, src := range p.Sources {
			if src == url {
				return true
			}
		}
	}
	return false
}

// acceptedRounds counts the rounds whose results joined the evidence.
func (r *run) acceptedRounds() int {
	n := 0
	for _, rec := range r.progress.Rounds {
		switch rec.Decision {
		case DecisionAccepted, DecisionFixed, DecisionEpsilon, DecisionFallback:
			n++
		}
	}
	return n
}

func (r *run) score(ctx workflow.Context, rec *research.Round, fresh []search.Result) (float64, string, error) {
	if len(fresh) == 0 {
		return 0, "none", nil // nothing unseen: nothing new
	}
	method := r.cfg.Novelty
	needsModel := method == config.NoveltyModel || method == config.NoveltyEmbedding
	if needsModel && !r.canSpend(1) {
		method = config.NoveltyHeuristic
		r.fallback(fmt.Sprintf("novelty round %d: model budget spent, scored heuristically", len(r.progress.Rounds)+1))
	}
	opts := localOptions
	if method == config.NoveltyModel || method == config.NoveltyEmbedding {
		opts = llmOptions
	}
	in := activities.NoveltyInput{Method: method, Knowledge: r.knowledge, Results: fresh}
	if method == config.NoveltyLearning || method == config.NoveltyAnswer {
		in.Question = r.req.Question
		for _, a := range r.aspects {
			in.Aspects = append(in.Aspects, a.Text)
		}
	}
	switch method {
	case config.NoveltyLearning:
		in.Known, in.KnownRounds = append(r.evidence(), r.priorFacts()...), r.acceptedRounds()
	case config.NoveltyAnswer:
		// the findings as Synthesize would write them from every accepted source and this
		// round's new ones, ranked by the rounds' searches so far and this one's
		in.Budget, in.Rounds = r.cfg.FindingsBudget, append(slices.Clone(r.progress.Rounds), *rec)
		for _, s := range r.sources {
			in.Sources = append(in.Sources, Source{Result: s.Result, Round: s.Round}) // not its page text
		}
	}
	var out activities.NoveltyOutput
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(opts, "novelty of round %d (%s)", len(r.progress.Rounds)+1, method)), researchActs.AssessNovelty, in).Get(ctx, &out); err != nil {
		return 0, "", err
	}
	r.addUsage(out.Usage)
	if out.Fallback != "" {
		r.fallback(fmt.Sprintf("novelty round %d: %s", len(r.progress.Rounds)+1, out.Fallback))
	}
	return out.Score, out.Method, nil
}

func (r *run) compress(ctx workflow.Context, task string, fresh []search.Result) error {
	var out activities.CompressOutput
	useModel := r.caps.Producer && r.canSpend(jsonStageCalls)
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, summarized(r.modelOrLocal(), "compress knowledge after round %d", len(r.progress.Rounds)+1)), researchActs.CompressKnowledge,
		activities.CompressInput{Question: task, Knowledge: r.knowledge, Results: fresh, Cap: r.cfg.KnowledgeCap,
			UseModel: useModel}).Get(ctx, &out); err != nil {
		return err
	}
	r.addUsage(out.Usage)
	if out.Fallback != "" {
		r.fallback(fmt.Sprintf("compression round %d: %s", len(r.progress.Rounds)+1, out.Fallback))
	}
	r.knowledge = out.Knowledge
	return nil
}

// enrich reads in full the results whose snippets add most to the knowledge state: up to
// EnrichCount of them, in rank order, skipping those over the overlap cut; a failed fetch is
// replaced by the next candidate. Every decision is recorded for the report.
func (r *run) enrich(ctx workflow.Context, task string) {
	if r.enrichReplace < 1 {
		r.enrichV0(ctx, task)
		return
	}
	texts := make([]string, len(r.sources))
	indexed := make([]bool, len(r.sources))
	for i, s := range r.sources {
		if strings.TrimSpace(s.Snippet) != "" {
			texts[i] = s.Title + ". " + s.Snippet
		}
		// synthesis reads corpus passages whole; nothing to fetch
		indexed[i] = r.evidenceGate >= 1 && s.Indexed()
	}
	cands := novelty.EnrichmentCandidates(texts, indexed, r.knowledge, *r.cfg.EnrichOverlapCut)
	want := *r.cfg.EnrichCount
	useModel := r.caps.Embedder && r.canSpend(want)
	fctx := workflow.WithActivityOptions(ctx, fetchOptions)
	type pending struct {
		idx         int
		overlap     float64
		replacement bool
		future      workflow.Future
	}
	var fetches []pending
	next := 0
	// launch starts the next candidate's fetch, recording the skips it passes over
	launch := func(replacement bool) bool {
		for next < len(cands) {
			c := cands[next]
			next++
			s := r.sources[c.Index]
			switch {
			case c.Indexed:
				continue
			case r.fromMemory(s.URL):
				r.enrichment = append(r.enrichment, research.Enrichment{N: s.N, URL: s.URL, Decision: research.EnrichSkipped,
					Note: fmt.Sprintf("skipping %s: memory already holds what an earlier run read there", s.URL)})
				continue
			case c.Skip:
				r.enrichment = append(r.enrichment, research.Enrichment{N: s.N, URL: s.URL, Decision: research.EnrichSkipped, Overlap: c.Overlap,
					Note: fmt.Sprintf("skipping %s: %.0f%% overlap with the knowledge state", s.URL, 100*c.Overlap)})
				continue
			}
			fetches = append(fetches, pending{idx: c.Index, overlap: c.Overlap, replacement: replacement,
				future: workflow.ExecuteActivity(workflow.WithActivityOptions(fctx, summarized(fetchOptions, "fetch: %s", s.URL)), researchActs.FetchPage, activities.FetchInput{URL: s.URL, DocID: s.DocID,
					Provider: s.Provider, Question: task, UseModel: useModel})})
			return true
		}
		return false
	}
	for len(fetches) < want && launch(false) {
	}
	for i := 0; i < len(fetches); i++ {
		f := fetches[i]
		s := &r.sources[f.idx]
		rec := research.Enrichment{N: s.N, URL: s.URL, Decision: research.EnrichFetched, Overlap: f.overlap}
		if f.replacement {
			rec.Decision = research.EnrichReplaced
		}
		var out activities.FetchOutput
		if err := f.future.Get(ctx, &out); err != nil {
			rec.Decision, rec.Note = research.EnrichFailed, errMsg(err)
			r.enrichment = append(r.enrichment, rec)
			what := "no candidate left to replace it"
			if launch(true) { // the next candidate takes its place
				what = "replaced by " + r.sources[fetches[len(fetches)-1].idx].URL
			}
			// by URL: the sources are renumbered after synthesis
			r.fallback(fmt.Sprintf("enrichment of %s failed: %s; %s", s.URL, errMsg(err), what))
			continue
		}
		r.enrichment = append(r.enrichment, rec)
		r.addUsage(out.Usage)
		s.Enriched = true
		s.Text = out.Text
		r.progress.Enriched++
	}
	r.progress.Enrichment = r.enrichment
}

// enrichV0 is enrichment before enrich-replace: candidates picked up front, a failed fetch not
// replaced, skips not recorded. It stays so older runs replay.
func (r *run) enrichV0(ctx workflow.Context, task string) {
	snippets := make([]string, len(r.sources))
	for i, s := range r.sources {
		snippets[i] = s.Title + ". " + s.Snippet
	}
	if r.evidenceGate >= 1 {
		for i, s := range r.sources {
			if s.Indexed() {
				snippets[i] = "" // synthesis reads corpus passages whole; nothing to fetch
			}
		}
	}
	picked := novelty.SelectForEnrichment(snippets, r.knowledge, *r.cfg.EnrichOverlapCut, *r.cfg.EnrichCount)
	futures := make([]workflow.Future, len(picked))
	fctx := workflow.WithActivityOptions(ctx, fetchOptions)
	for i, idx := range picked {
		s := r.sources[idx]
		futures[i] = workflow.ExecuteActivity(fctx, researchActs.FetchPage,
			activities.FetchInput{URL: s.URL, DocID: s.DocID, Provider: s.Provider, Question: task,
				UseModel: r.caps.Embedder && r.canSpend(len(picked))})
	}
	for i, idx := range picked {
		var out activities.FetchOutput
		if err := futures[i].Get(ctx, &out); err != nil {
			r.fallback(fmt.Sprintf("enrichment of [%d] %s failed: %s", r.sources[idx].N, r.sources[idx].URL, errMsg(err)))
			continue
		}
		r.addUsage(out.Usage)
		r.sources[idx].Enriched = true
		r.sources[idx].Text = out.Text
		r.progress.Enriched++
	}
}
