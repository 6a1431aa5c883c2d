package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/workflows"
)

func init() {
	register("eval", "run a question set under several strategies and compare fact recall, searches, rounds, time", evalCmd)
}

// StrategyBM25 is the plain-search-box baseline: one BM25 query of the raw question, its top
// passages read until the findings budget. Every eval can print it as the floor.
const StrategyBM25 = "bm25"

// StrategyInvestigate runs the question as an investigation (investigation mode, the eval's
// provider its one source) and scores its report's answer; its evidence is every finding's
// title and snippet.
const StrategyInvestigate = "investigate"

// strategyConfig turns a strategy name (fixed-N, saturation or bm25) into a configuration; a
// ":METHOD" suffix ("saturation:answer") picks the novelty method, so that two gates can run side
// by side in one eval.
func strategyConfig(name string) (config.Research, error) {
	if base, method, ok := strings.Cut(name, ":"); ok && base != StrategyBM25 && base != StrategyInvestigate {
		// saturation:METHOD:N also sets the rounds always kept (--min-rounds)
		method, minRounds, withMin := strings.Cut(method, ":")
		if method == "" {
			return config.Research{}, fmt.Errorf("strategy %q: name a novelty method after the colon (saturation:learning)", name)
		}
		cfg, err := strategyConfig(base)
		cfg.Novelty = method
		if withMin {
			n, convErr := strconv.Atoi(minRounds)
			if convErr != nil || n < 1 || base != config.StrategySaturation {
				return config.Research{}, fmt.Errorf("strategy %q: want saturation:METHOD:N with N the rounds always kept, at least 1 (saturation:answer:1)", name)
			}
			cfg.MinRounds = n
		}
		return cfg, err
	}
	switch {
	case name == StrategyBM25, name == StrategyInvestigate:
		return config.Research{}, nil
	case name == config.StrategySaturation:
		return config.Research{Strategy: config.StrategySaturation}, nil
	case strings.HasPrefix(name, "fixed-"):
		n, err := strconv.Atoi(strings.TrimPrefix(name, "fixed-"))
		if err != nil || n < 1 || n > 20 {
			return config.Research{}, fmt.Errorf("strategy %q: want fixed-N with N in [1,20]", name)
		}
		return config.Research{Strategy: config.StrategyFixed, FixedRounds: n}, nil
	}
	return config.Research{}, fmt.Errorf("unknown strategy %q (want saturation, fixed-N, bm25 or investigate)", name)
}

// EvalRun is one question under one strategy.
type EvalRun struct {
	Strategy       string  `json:"strategy"`
	QuestionID     string  `json:"question_id"`
	WorkflowID     string  `json:"workflow_id"`
	EvidenceRecall float64 `json:"evidence_recall"`
	ReportRecall   float64 `json:"report_recall"`
	SearchCalls    int     `json:"search_calls"`
	Rounds         int     `json:"rounds"`
	WallSeconds    float64 `json:"wall_seconds"`
	Error          string  `json:"error,omitempty"`
	// Complex marks a question whose id starts with "c-": the dev sets' questions that need
	// facts from four or more pages.
	Complex bool `json:"complex,omitempty"`
	// Report and Evidence are the run's findings and everything it read (--json only).
	Report   string `json:"report,omitempty"`
	Evidence string `json:"evidence,omitempty"`
}

// EvalSummary is the per-strategy mean over its questions.
type EvalSummary struct {
	Strategy       string  `json:"strategy"`
	Questions      int     `json:"questions"`
	Failures       int     `json:"failures"`
	EvidenceRecall float64 `json:"evidence_recall"`
	ReportRecall   float64 `json:"report_recall"`
	SearchCalls    float64 `json:"search_calls"`
	Rounds         float64 `json:"rounds"`
	WallSeconds    float64 `json:"wall_seconds"`
	// ComplexReportRecall is the mean report recall over the complex questions, if any.
	ComplexReportRecall float64 `json:"complex_report_recall"`
	Complex             int     `json:"complex"`
}

// Summarize averages runs per strategy, in the order the strategies were given. Failed runs
// count as failures and are left out of the means.
func Summarize(strategies []string, runs []EvalRun) []EvalSummary {
	var out []EvalSummary
	for _, s := range strategies {
		sum := EvalSummary{Strategy: s}
		ok := 0
		for _, r := range runs {
			if r.Strategy != s {
				continue
			}
			sum.Questions++
			if r.Error != "" {
				sum.Failures++
				continue
			}
			ok++
			sum.EvidenceRecall += r.EvidenceRecall
			sum.ReportRecall += r.ReportRecall
			sum.SearchCalls += float64(r.SearchCalls)
			sum.Rounds += float64(r.Rounds)
			sum.WallSeconds += r.WallSeconds
			if r.Complex {
				sum.Complex++
				sum.ComplexReportRecall += r.ReportRecall
			}
		}
		if sum.Complex > 0 {
			sum.ComplexReportRecall /= float64(sum.Complex)
		}
		if ok > 0 {
			k := float64(ok)
			sum.EvidenceRecall /= k
			sum.ReportRecall /= k
			sum.SearchCalls /= k
			sum.Rounds /= k
			sum.WallSeconds /= k
		}
		out = append(out, sum)
	}
	return out
}

func evalCmd(ctx context.Context, env config.Env, args []string) error {
	p, err := parseEval(args)
	if err != nil {
		return err
	}
	c, err := dialTemporal(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	if slices.Contains(p.names, StrategyInvestigate) {
		var closeCorpus func()
		p.passages, closeCorpus = investigationPassages(env, p.provider)
		defer closeCorpus()
	}
	runs := runEval(ctx, c, env, p)
	if err := printEval(p, runs); err != nil {
		return err
	}
	failed := 0
	for _, r := range runs {
		if r.Error != "" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs failed (see the failures column and the lines above)", failed, len(runs))
	}
	return nil
}

// evalPlan is a validated eval command line: the questions, the strategies and how to run them.
type evalPlan struct {
	questions       []eval.Question
	names           []string // strategies in the order given
	cfgs            map[string]config.Research
	parallel        int
	noModel, asJSON bool
	memory          bool
	provider        string
	budget          int
	// passages reads an investigation's findings whole for its evidence recall, as a research
	// run's evidence holds its passages whole and as the worker reads them for the answer; nil:
	// their snippets (investigationPassages)
	passages activities.DocumentReader
}

// investigationPassages opens the local corpus, when the eval searches the corpus provider and
// this machine holds it, so that an investigation's evidence is scored on its findings'
// passages whole, as the research strategies' evidence is; else it says once that the
// investigation's evidence recall is read from snippets.
func investigationPassages(env config.Env, provider string) (activities.DocumentReader, func()) {
	why := "it searches " + provider + ", not the corpus"
	if provider == "corpus" {
		x, err := openExisting(env)
		if err == nil {
			return x, func() { x.Close() }
		}
		why = err.Error()
	}
	fmt.Fprintf(stderr, "investigate: evidence recall is read from the findings' snippets (%s); the research strategies' from whole passages\n", why)
	return nil, func() {}
}

func parseEval(args []string) (evalPlan, error) {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	strategies := fs.String("strategies", "bm25,fixed-2,fixed-5,saturation", "comma-separated strategies: saturation, fixed-N, bm25 (the plain-search baseline), investigate (investigation mode, scored by its report's answer); saturation:METHOD picks the novelty method (saturation:answer), saturation:METHOD:N also the rounds always kept (saturation:answer:1)")
	asJSON := fs.Bool("json", false, "print the summary and every run as one JSON document")
	provider := fs.String("provider", config.DefaultProvider, "search provider")
	parallel := fs.Int("parallel", 4, "runs in flight at once")
	noCache := fs.Bool("no-cache", false, "bypass the search cache")
	noModel := fs.Bool("no-model", false, "run every stage deterministically")
	memory := fs.Bool("memory", false, "let runs recall and remember (off: each run starts from nothing)")
	budget := fs.Int("findings-budget", config.DefaultFindingsBudget, "characters of findings per report, for every strategy")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return evalPlan{}, err
	}
	if len(pos) != 1 {
		return evalPlan{}, usagef("want one question file: starter eval QUESTIONS.jsonl [--strategies fixed-2,saturation] [--json]")
	}
	p := evalPlan{parallel: *parallel, noModel: *noModel, asJSON: *asJSON, memory: *memory, provider: *provider, budget: *budget}
	if p.questions, err = readEvalQuestions(pos[0]); err != nil {
		return p, err
	}
	if p.names, p.cfgs, err = evalStrategies(*strategies, *provider, *noCache, *budget); err != nil {
		return p, err
	}
	if p.parallel < 1 {
		return p, usagef("--parallel must be at least 1")
	}
	return p, nil
}

func readEvalQuestions(path string) ([]eval.Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("question file: %v", err)
	}
	qs, err := eval.ParseQuestionsNoting(f, func(note string) { fmt.Fprintf(stderr, "%s: %s\n", path, note) })
	f.Close()
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	if len(qs) == 0 {
		return nil, usagef("%s holds no questions", path)
	}
	return qs, nil
}

// evalStrategies validates each named strategy as a research configuration.
func evalStrategies(list, provider string, noCache bool, budget int) ([]string, map[string]config.Research, error) {
	var names []string
	cfgs := map[string]config.Research{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		cfg, err := strategyConfig(s)
		if err != nil {
			return nil, nil, usagef("%v", err)
		}
		cfg.Provider, cfg.NoCache, cfg.FindingsBudget = provider, noCache, budget
		if _, err := workflows.ValidateRequest(workflows.ResearchRequest{Question: "x", Config: cfg}); err != nil {
			return nil, nil, usagef("%v", err)
		}
		names = append(names, s)
		cfgs[s] = cfg
	}
	return names, cfgs, nil
}

// runEval runs every question under every strategy, p.parallel at a time, printing each run as
// it ends; the runs come back sorted by strategy and question.
func runEval(ctx context.Context, c client.Client, env config.Env, p evalPlan) []EvalRun {
	var mu sync.Mutex
	var runs []EvalRun
	sem := make(chan struct{}, p.parallel)
	var wg sync.WaitGroup
	total := len(p.names) * len(p.questions)
	finished := make(chan struct{})
	defer close(finished)
	go warnWithoutWorker(ctx, c, env.TaskQueue, finished)
	for _, s := range p.names {
		for _, q := range p.questions {
			wg.Add(1)
			go func(s string, q eval.Question) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				r := evalOne(ctx, c, env, s, p, q)
				mu.Lock()
				runs = append(runs, r)
				fmt.Fprintf(stderr, "  [%d/%d] %-12s %-20s evidence %.2f report %.2f searches %d rounds %d %s\n",
					len(runs), total, s, q.ID, r.EvidenceRecall, r.ReportRecall, r.SearchCalls, r.Rounds, r.Error)
				mu.Unlock()
			}(s, q)
		}
	}
	wg.Wait()
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].Strategy != runs[j].Strategy {
			return runs[i].Strategy < runs[j].Strategy
		}
		return runs[i].QuestionID < runs[j].QuestionID
	})
	return runs
}

// workerHintAfter is how long an eval waits for a worker on its task queue before saying none
// is there: its runs queue up silently until one starts.
var workerHintAfter = 10 * time.Second

// warnWithoutWorker says once, after workerHintAfter, when no worker polls the task queue the
// runs wait on (the research command says the same when its progress query goes unanswered).
func warnWithoutWorker(ctx context.Context, c client.Client, queue string, finished <-chan struct{}) {
	select {
	case <-finished:
		return
	case <-ctx.Done():
		return
	case <-time.After(workerHintAfter):
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := c.DescribeTaskQueue(dctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil || len(resp.GetPollers()) > 0 {
		return
	}
	select {
	case <-finished:
	default:
		fmt.Fprintf(stderr, "  no worker is polling task queue %q: the runs wait until one starts ('make run' starts one, or 'go run ./worker' with the same SATED_TASK_QUEUE)\n", queue)
	}
}

func printEval(p evalPlan, runs []EvalRun) error {
	summary := Summarize(p.names, runs)
	if p.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"questions": len(p.questions), "summary": summary, "runs": runs})
	}
	var floor float64
	for _, s := range summary {
		if s.Strategy == StrategyBM25 {
			floor = s.ReportRecall
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tquestions\tfailures\tevidence recall\treport recall\tvs bm25\tcomplex report\tsearch calls\trounds\twall s")
	for _, s := range summary {
		ratio := "-"
		if floor > 0 {
			ratio = fmt.Sprintf("%.2fx", s.ReportRecall/floor)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%s\t%.3f\t%.1f\t%.1f\t%.1f\n", s.Strategy, s.Questions, s.Failures,
			s.EvidenceRecall, s.ReportRecall, ratio, s.ComplexReportRecall, s.SearchCalls, s.Rounds, s.WallSeconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range gateComparisons(summary) {
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// gateComparisons says, for each saturation strategy, how its report recall and searches
// compare with the fixed strategy of the most rounds and its complex questions' recall with the
// one of the fewest: "saturation vs fixed-5: report recall +0.056 with 52% of its searches;
// complex questions 1.00x fixed-2". None without a fixed strategy.
func gateComparisons(summary []EvalSummary) []string {
	var most, fewest *EvalSummary
	rounds := func(s EvalSummary) int {
		cfg, _ := strategyConfig(s.Strategy)
		return cfg.FixedRounds
	}
	for i, s := range summary {
		if !strings.HasPrefix(s.Strategy, "fixed-") || strings.Contains(s.Strategy, ":") || s.Questions == s.Failures {
			continue
		}
		if most == nil || rounds(s) > rounds(*most) {
			most = &summary[i]
		}
		if fewest == nil || rounds(s) < rounds(*fewest) {
			fewest = &summary[i]
		}
	}
	if most == nil {
		return nil
	}
	var out []string
	for _, s := range summary {
		if !strings.HasPrefix(s.Strategy, config.StrategySaturation) || s.Questions == s.Failures {
			continue
		}
		line := fmt.Sprintf("%s vs %s: report recall %+.3f", s.Strategy, most.Strategy, s.ReportRecall-most.ReportRecall)
		if most.SearchCalls > 0 {
			line += fmt.Sprintf(" with %.0f%% of its searches", 100*s.SearchCalls/most.SearchCalls)
		}
		if s.Complex > 0 && fewest.ComplexReportRecall > 0 {
			line += fmt.Sprintf("; complex questions %.2fx %s", s.ComplexReportRecall/fewest.ComplexReportRecall, fewest.Strategy)
		}
		out = append(out, line)
	}
	return out
}

func evalOne(ctx context.Context, c client.Client, env config.Env, strategy string, p evalPlan, q eval.Question) EvalRun {
	req := workflows.ResearchRequest{Question: q.Question, Config: p.cfgs[strategy], Seed: eval.Seed(q.ID), Eval: true,
		NoModel: p.noModel, NoMemory: !p.memory}
	id := "eval-" + strategy + "-" + strings.TrimPrefix(WorkflowID(req), "research-")
	r := EvalRun{Strategy: strategy, QuestionID: q.ID, WorkflowID: id, Complex: strings.HasPrefix(q.ID, "c-")}
	opts := client.StartWorkflowOptions{ID: id, TaskQueue: env.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         uiSummary("eval "+strategy+": ", q.Question)}
	start := time.Now()
	var findings, evidence string
	if strategy == StrategyBM25 {
		out, err := runWorkflow[activities.BaselineOutput](ctx, c, opts, workflows.BaselineWorkflowName,
			workflows.BaselineRequest{Question: q.Question, Provider: p.provider, Budget: p.budget})
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.SearchCalls, r.Rounds = 1, 1
		findings, evidence = eval.Findings(out.Markdown), out.Evidence
	} else if strategy == StrategyInvestigate {
		rep, err := runWorkflow[workflows.InvestigationReport](ctx, c, opts, workflows.InvestigationWorkflowName,
			workflows.InvestigationRequest{Question: q.Question, Sources: []string{p.provider}, NoModel: p.noModel, NoCache: p.cfgs[strategy].NoCache})
		if err != nil {
			r.Error = err.Error()
			return r
		}
		// an investigation's rounds are the hypotheses it researched (each a round of source
		// loops); its queries are its search calls
		r.SearchCalls, r.Rounds = rep.Spend.SearchCalls, hypothesesRun(rep)
		findings, evidence = rep.Answer, investigationEvidence(ctx, rep, p.passages)
	} else {
		rep, err := runWorkflow[workflows.ResearchReport](ctx, c, opts, workflows.ResearchWorkflowName, req)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.SearchCalls, r.Rounds = rep.SearchCalls, len(rep.Rounds)
		findings, evidence = eval.Findings(rep.Markdown), rep.Evidence
	}
	r.WallSeconds = time.Since(start).Seconds()
	got, total, _ := eval.FactRecall(evidence, q.Gold)
	r.EvidenceRecall = eval.Recall(got, total)
	got, total, _ = eval.FactRecall(findings, q.Gold)
	r.ReportRecall = eval.Recall(got, total)
	if p.asJSON {
		r.Report, r.Evidence = findings, evidence
	}
	return r
}

// investigationEvidence is everything an investigation found: each finding's title and its
// corpus passage whole when passages can read it, else its title and snippet (as its result
// carries it).
func investigationEvidence(ctx context.Context, rep workflows.InvestigationReport, passages activities.DocumentReader) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		if passages != nil && f.DocID != "" {
			if d, err := passages.Document(ctx, f.DocID); err == nil {
				b.WriteString(f.Title + ". " + d.Body + "\n")
				continue
			}
		}
		b.WriteString(f.Text() + "\n")
	}
	return b.String()
}

// runWorkflow starts a workflow and waits for its result.
func runWorkflow[T any](ctx context.Context, c client.Client, opts client.StartWorkflowOptions, name string, in any) (T, error) {
	var out T
	run, err := c.ExecuteWorkflow(ctx, opts, name, in)
	if err != nil {
		return out, err
	}
	return out, run.Get(ctx, &out)
}

// hypothesesRun counts the hypotheses an investigation researched (not skipped).
func hypothesesRun(rep workflows.InvestigationReport) int {
	n := 0
	for _, h := range rep.Hypotheses {
		if h.Skipped == "" {
			n++
		}
	}
	return n
}
