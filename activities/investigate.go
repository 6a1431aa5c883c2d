package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/text"
)

// SourceTaskQueue is the task queue serving one provider's searches, so each provider has its
// own activities-per-second limit and one provider's limits never stall another.
func SourceTaskQueue(provider string) string { return "sated-source-" + provider }

// SourceRateLimits are the default activities-per-second limits of the source task queues.
var SourceRateLimits = func() map[string]float64 {
	m := map[string]float64{}
	for name, s := range investigate.Sources {
		m[name] = s.RatePerSecond
	}
	return m
}()

// Hypothesis is one investigative angle and the sources that search it.
type Hypothesis struct {
	Text        string   `json:"hypothesis"`
	Sources     []string `json:"sources"`
	SeedQueries []string `json:"queries,omitempty"`
}

// InvestigationTask is one part of the question with its hypotheses.
type InvestigationTask struct {
	Name       string       `json:"task"`
	Hypotheses []Hypothesis `json:"hypotheses"`
}

// InvestigationPlanInput asks for the question's tasks and hypotheses.
type InvestigationPlanInput struct {
	Question string   `json:"question"`
	Sources  []string `json:"sources"`
	UseModel bool     `json:"use_model"`
}

// InvestigationPlanOutput is the decomposition and what it cost.
type InvestigationPlanOutput struct {
	Tasks    []InvestigationTask `json:"tasks"`
	Planner  string              `json:"planner"` // model or deterministic
	Fallback string              `json:"fallback,omitempty"`
	Usage    Usage               `json:"usage"`
}

// investigationPlanSchema constrains the model's decomposition.
var investigationPlanSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "tasks": {"type": "array", "minItems": 1, "maxItems": 3, "items": {
      "type": "object",
      "properties": {
        "task": {"type": "string"},
        "hypotheses": {"type": "array", "minItems": 1, "maxItems": 3, "items": {
          "type": "object",
          "properties": {
            "hypothesis": {"type": "string"},
            "sources": {"type": "array", "items": {"type": "string"}},
            "queries": {"type": "array", "maxItems": 3, "items": {"type": "string"}}
          },
          "required": ["hypothesis", "sources", "queries"]
        }}
      },
      "required": ["task", "hypotheses"]
    }}
  },
  "required": ["tasks"]
}`)

// validateInvestigationPlan checks and tidies a model decomposition: known sources only
// (none named means all), no raw question as a query, bounded sizes.
func validateInvestigationPlan(tasks []InvestigationTask, question string, sources []string) error {
	if len(tasks) == 0 || len(tasks) > 3 {
		return fmt.Errorf("want 1-3 tasks, got %d", len(tasks))
	}
	for i := range tasks {
		t := &tasks[i]
		t.Name = strings.TrimSpace(t.Name)
		if t.Name == "" {
			return fmt.Errorf("task %d has no name", i+1)
		}
		if len(t.Hypotheses) == 0 || len(t.Hypotheses) > 3 {
			return fmt.Errorf("task %q: want 1-3 hypotheses, got %d", t.Name, len(t.Hypotheses))
		}
		for j := range t.Hypotheses {
			h := &t.Hypotheses[j]
			h.Text = strings.TrimSpace(h.Text)
			if h.Text == "" {
				return fmt.Errorf("task %q: hypothesis %d is empty", t.Name, j+1)
			}
			for _, s := range h.Sources {
				if !slices.Contains(sources, s) {
					return fmt.Errorf("hypothesis %q names source %q, not one of %s", h.Text, s, strings.Join(sources, ", "))
				}
			}
			if len(h.Sources) == 0 {
				h.Sources = sources
			}
			var qs []string
			for _, q := range h.SeedQueries {
				if q = strings.TrimSpace(q); q != "" && !plan.SameAsQuestion(q, question) && len(q) <= investigate.MaxQueryChars {
					qs = append(qs, q)
				}
			}
			h.SeedQueries = qs
		}
	}
	return nil
}

// DeterministicInvestigationPlan is one task whose hypotheses are the research planner's
// queries (plan.AspectPlan: the whole question's discriminative terms first, then each aspect's),
// weighed by vocab (the corpus's word frequencies; nil: every word alike), each searched by every
// source. Up to maxPlanHypotheses hypotheses; the queries after them join the hypotheses' seeds
// in turn.
func DeterministicInvestigationPlan(question string, sources []string, vocab plan.Vocabulary) []InvestigationTask {
	qs, _ := plan.AspectPlan(question, vocab)
	// a question of one aspect gets one query there: the older planner's queries (its strongest
	// terms, then each half's) add the other angles, unless they repeat one
	for _, q := range plan.Queries(question) {
		if len(qs) >= maxPlanHypotheses {
			break
		}
		if !plan.NearDuplicate(q, qs) {
			qs = append(qs, q)
		}
	}
	terms := investigate.Salient(plan.Terms(question), 4)
	t := InvestigationTask{Name: "what the sources establish about " + strings.Join(terms, " ")}
	for i, q := range qs {
		if i >= maxPlanHypotheses {
			h := &t.Hypotheses[i%maxPlanHypotheses]
			h.SeedQueries = append(h.SeedQueries, q)
			continue
		}
		seeds := []string{q}
		if s := plan.Simplify(q); s != "" {
			seeds = append(seeds, s)
		}
		t.Hypotheses = append(t.Hypotheses, Hypothesis{Text: q, Sources: sources, SeedQueries: seeds})
	}
	return []InvestigationTask{t}
}

// maxPlanHypotheses is how many hypotheses a deterministic investigation plan makes: each is a
// source loop per source, run in parallel.
const maxPlanHypotheses = 3

// planVocabulary is the word frequencies the deterministic investigation plan weighs the
// question's words by: the first of the sources that knows its index's (the corpus), else nil.
func (a *Activities) planVocabulary(ctx context.Context, sources []string) plan.Vocabulary {
	for _, s := range sources {
		if v := a.vocabulary(ctx, s); v != nil {
			return v
		}
	}
	return nil
}

// PlanInvestigation decomposes the question into tasks with hypotheses, with the model when
// asked and configured, else deterministically; a bad model answer falls back (recorded).
func (a *Activities) PlanInvestigation(ctx context.Context, in InvestigationPlanInput) (InvestigationPlanOutput, error) {
	if err := config.ValidateQuestion(in.Question); err != nil {
		return InvestigationPlanOutput{}, badInput(nil, "investigation plan: %v", err)
	}
	if len(in.Sources) == 0 {
		return InvestigationPlanOutput{}, badInput(nil, "investigation plan: no sources")
	}
	det := func(fallback string, u Usage) (InvestigationPlanOutput, error) {
		out := InvestigationPlanOutput{Tasks: DeterministicInvestigationPlan(in.Question, in.Sources, a.planVocabulary(ctx, in.Sources)), Planner: "deterministic", Fallback: fallback, Usage: u}
		if len(out.Tasks[0].Hypotheses) == 0 {
			return out, badInput(nil, "investigation plan: the question has no searchable terms")
		}
		return out, nil
	}
	if !in.UseModel || a.model == nil || !a.model.Configured(llm.Planner) {
		if in.UseModel {
			return det("no planner model configured", Usage{})
		}
		return det("", Usage{})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\nSources you may assign (name: characteristics):\n", in.Question)
	for _, s := range in.Sources {
		fmt.Fprintf(&b, "- %s: %s\n", s, investigate.Sources[s].Characteristics)
	}
	b.WriteString(`Split the question into 1-3 tasks; give each 1-3 hypotheses (investigative angles), the sources that should search each, and up to 3 short keyword queries per hypothesis (never the question itself). Reply with JSON: {"tasks":[{"task":"...","hypotheses":[{"hypothesis":"...","sources":["..."],"queries":["..."]}]}]}`)
	var got struct {
		Tasks []InvestigationTask `json:"tasks"`
	}
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Planner, "You plan investigations: tasks, hypotheses and the sources to search them. Answer with one JSON object only.",
		b.String(), investigationPlanSchema, &got, func() error { return validateInvestigationPlan(got.Tasks, in.Question, in.Sources) })
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return det(reason, u)
		}
		return InvestigationPlanOutput{}, err
	}
	if outcome.Fallback {
		return det("model plan unusable: "+outcome.Reason, u)
	}
	out := InvestigationPlanOutput{Tasks: got.Tasks, Planner: "model", Usage: u}
	if outcome.Repaired {
		out.Fallback = "repaired: " + outcome.Reason
	}
	return out, nil
}

// SourceDecisionInput is the context of one per-query decision.
type SourceDecisionInput struct {
	Context  investigate.DecisionContext `json:"context"`
	UseModel bool                        `json:"use_model"`
}

// SourceDecisionOutput is the decision, who took it and what it cost.
type SourceDecisionOutput struct {
	Decision investigate.Decision `json:"decision"`
	Decider  string               `json:"decider"` // model or heuristic
	Fallback string               `json:"fallback,omitempty"`
	Usage    Usage                `json:"usage"`
}

// DecideSourceQuery decides, before each query of a source loop, whether to continue and with
// which query: the model's validated JSON when asked and configured, else (or when the model
// answers badly) the heuristic, with the reason recorded.
func (a *Activities) DecideSourceQuery(ctx context.Context, in SourceDecisionInput) (SourceDecisionOutput, error) {
	c := in.Context
	if c.Ceiling < 1 {
		return SourceDecisionOutput{}, badInput(nil, "decide: ceiling %d must be at least 1", c.Ceiling)
	}
	heuristic := func(reason string, u Usage) (SourceDecisionOutput, error) {
		return SourceDecisionOutput{Decision: investigate.HeuristicDecision(c), Decider: investigate.DeciderHeuristic, Fallback: reason, Usage: u}, nil
	}
	if !in.UseModel || a.model == nil || !a.model.Configured(llm.Planner) {
		if in.UseModel {
			return heuristic("no planner model configured", Usage{})
		}
		return heuristic("", Usage{})
	}
	var d investigate.Decision
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Planner, investigate.DecisionSystem, investigate.DecisionPrompt(c),
		investigate.DecisionSchema, &d, func() error { return d.Validate(c) })
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return heuristic(reason, u)
		}
		return SourceDecisionOutput{}, err
	}
	if outcome.Fallback {
		return heuristic("model decision unusable: "+outcome.Reason, u)
	}
	out := SourceDecisionOutput{Decision: d, Decider: investigate.DeciderModel, Usage: u}
	if outcome.Repaired {
		out.Fallback = "repaired: " + outcome.Reason
	}
	return out, nil
}

// InvestigationReportInput is the report data to render and save.
type InvestigationReportInput struct {
	Report investigate.Report `json:"report"`
}

// InvestigationReportOutput is the rendered report and where it was saved.
type InvestigationReportOutput struct {
	Markdown     string `json:"markdown"`
	Answer       string `json:"answer,omitempty"` // the report's answer section (investigate.Report.Answer)
	MarkdownPath string `json:"markdown_path"`
	JSONPath     string `json:"json_path"`
}

// WriteInvestigationReport renders the investigation report and saves it as Markdown and JSON
// under the report directory.
func (a *Activities) WriteInvestigationReport(ctx context.Context, in InvestigationReportInput) (InvestigationReportOutput, error) {
	r := in.Report
	if strings.TrimSpace(r.Question) == "" {
		return InvestigationReportOutput{}, badInput(nil, "investigation report: empty question")
	}
	if r.GeneratedAt.IsZero() {
		r.GeneratedAt = time.Now().UTC()
	}
	if r.Answer == "" {
		r.Answer = a.investigationAnswer(ctx, r)
	}
	out := InvestigationReportOutput{Markdown: investigate.Markdown(r), Answer: r.Answer}
	if a.reportDir == "" {
		return out, nil
	}
	if err := os.MkdirAll(a.reportDir, 0o755); err != nil {
		return InvestigationReportOutput{}, fmt.Errorf("investigation report: %w", err)
	}
	base := unsafeName.ReplaceAllString(r.WorkflowID, "_")
	if base == "" {
		base = "investigation"
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return InvestigationReportOutput{}, fmt.Errorf("investigation report: %w", err)
	}
	md := filepath.Join(a.reportDir, base+".md")
	jp := filepath.Join(a.reportDir, base+".json")
	if err := errors.Join(writeFileAtomic(md, []byte(out.Markdown)), writeFileAtomic(jp, js)); err != nil {
		return InvestigationReportOutput{}, fmt.Errorf("investigation report: %w", err)
	}
	out.MarkdownPath, out.JSONPath = md, jp
	return out, nil
}

// VerifyClaimsInput is what an investigation verifies: its findings in citation order, each
// with its text, at most Max claims in all, read as Docs says (investigate.VerifySources).
type VerifyClaimsInput struct {
	Sources  []investigate.ClaimSource `json:"sources"`
	Max      int                       `json:"max"`
	Official []string                  `json:"official,omitempty"`
	Docs     bool                      `json:"docs"`
}

// VerifyClaimsOutput is the claims read from the findings, each tagged.
type VerifyClaimsOutput struct {
	Verified []investigate.VerifiedClaim `json:"verified"`
}

// maxReadFindings bounds the findings one verification or ranking of key entities reads: all
// an investigation keeps. It was 2,000 while investigations kept 4,000, so the verification and
// the key actors of a larger one were refused (fallbacks, no claims tagged, no actors).
const maxReadFindings = investigate.MaxFindings

// VerifyInvestigationClaims reads the key claims of an investigation's findings and tags each
// against the others (investigate.VerifySources): the comparison of every claim with every
// other, and the reading of a dozen pages, run here rather than in workflow code.
func (a *Activities) VerifyInvestigationClaims(ctx context.Context, in VerifyClaimsInput) (VerifyClaimsOutput, error) {
	if in.Max < 0 || in.Max > 1000 {
		return VerifyClaimsOutput{}, badInput(nil, "verify claims: max %d out of range [0,1000]", in.Max)
	}
	if len(in.Sources) > maxReadFindings {
		return VerifyClaimsOutput{}, badInput(nil, "verify claims: %d findings, at most %d", len(in.Sources), maxReadFindings)
	}
	activity.RecordHeartbeat(ctx, fmt.Sprintf("verifying the claims of %d findings", len(in.Sources)))
	return VerifyClaimsOutput{Verified: investigate.VerifySources(in.Sources, in.Max, in.Official, in.Docs)}, nil
}

// KeyEntitiesInput asks for the key entities of an investigation's findings (their titles and
// snippets), as investigate.KeyEntities ranks them beside the question's terms (KeyEntitiesV1
// when !Docs).
type KeyEntitiesInput struct {
	Question string   `json:"question"`
	Texts    []string `json:"texts"`
	N        int      `json:"n"`
	Docs     bool     `json:"docs"`
}

// KeyEntitiesOutput is the key entities, most relevant first.
type KeyEntitiesOutput struct {
	Entities []investigate.Breadcrumb `json:"entities"`
}

// RankKeyEntities ranks the key entities of an investigation's findings: reading every
// finding's mentions grows with the findings (0.3 s for 1,140), too long for workflow code.
func (a *Activities) RankKeyEntities(ctx context.Context, in KeyEntitiesInput) (KeyEntitiesOutput, error) {
	if in.N < 0 || in.N > 100 {
		return KeyEntitiesOutput{}, badInput(nil, "key entities: n %d out of range [0,100]", in.N)
	}
	if len(in.Texts) > maxReadFindings {
		return KeyEntitiesOutput{}, badInput(nil, "key entities: %d findings, at most %d", len(in.Texts), maxReadFindings)
	}
	activity.RecordHeartbeat(ctx, fmt.Sprintf("ranking the key entities of %d findings", len(in.Texts)))
	return KeyEntitiesOutput{Entities: RankEntities(in)}, nil
}

// RankEntities is the ranking RankKeyEntities runs, for runs that rank in workflow code (before
// readActivitiesChange): the same function either way.
func RankEntities(in KeyEntitiesInput) []investigate.Breadcrumb {
	rank := investigate.KeyEntitiesV1
	if in.Docs {
		rank = investigate.KeyEntities
	}
	return rank(in.Question, plan.Terms(in.Question), in.Texts, in.N)
}

// investigationAnswer is the extractive answer over an investigation's findings, as a research
// run's report is written (report.Answer): every finding a source, a corpus passage read whole,
// grouped under the question's parts and cited by finding number. The answer trusts a ranking
// as a research run trusts its searches': here findingsPrior, computed over what was found, so
// no search beyond the investigation's budget is made for it.
func (a *Activities) investigationAnswer(ctx context.Context, r investigate.Report) string {
	if len(r.Findings) == 0 {
		return ""
	}
	activity.RecordHeartbeat(ctx, "answering from the findings")
	sources := make([]research.Source, len(r.Findings))
	for i, f := range r.Findings {
		sources[i] = research.Source{N: f.N, Result: f.Result}
	}
	a.readPassages(ctx, sources)
	return report.Answer(report.AnswerInput{Question: r.Question, Aspects: plan.SplitAspects(r.Question), Sources: sources,
		Prior: findingsPrior(r.Question, sources), Topical: a.topical(ctx, sources), OwnNumbers: true}).Body
}

// findingsPrior is how the answer ranks an investigation's findings before reading their
// sentences, as a research run's searches rank its evidence: the reciprocal-rank fusion of the
// order they were found in (the first searches are the question's own) and their BM25 relevance
// to the question, over the findings as read (title and passage). The relevance rank lifted the
// answer's fact recall on every set (SQLite 0.239 -> 0.250, Python 0.267 -> 0.311, PostgreSQL
// 0.116 -> 0.134, git 0.067 -> 0.083, Apache 0.124 -> 0.152, Go 0.958 both); either order alone
// recalled less.
func findingsPrior(question string, sources []research.Source) []float64 {
	docs := make([][]string, len(sources))
	for i, s := range sources {
		body := s.Text
		if body == "" {
			body = s.Snippet
		}
		docs[i] = text.Terms(s.Title + " " + body)
	}
	score := text.BM25(text.Terms(question), docs)
	byRelevance := make([]int, len(sources))
	for i := range byRelevance {
		byRelevance[i] = i
	}
	sort.SliceStable(byRelevance, func(x, y int) bool { return score[byRelevance[x]] > score[byRelevance[y]] })
	prior := make([]float64, len(sources))
	for rank, i := range byRelevance {
		prior[i] = 1/float64(findingsRRFK+i+1) + 1/float64(findingsRRFK+rank+1)
	}
	return prior
}

// findingsRRFK is the reciprocal-rank constant of findingsPrior: 5, as the research run's
// FusedRanks, so that the first-found and most relevant findings weigh clearly more than the
// hundredth. With the usual 60 the prior was nearly flat over an investigation's 100-400
// findings. Measured with the AspectPlan hypotheses (workflows' TestInvestigationAnswerRecall,
// answer recall over eight dev sets, 148 questions with a gold fact): 60 -> 5 +0.024 a question
// (3 and 10 read the same within 0.003); with the plan change, +0.040 (38 questions up, 18
// down).
const findingsRRFK = 5

// writeFileAtomic writes through a temporary file so a crash never leaves half a report.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// InvestigationSourcesInput names the sources an investigation wants.
type InvestigationSourcesInput struct {
	Sources []string `json:"sources"`
}

// InvestigationSourcesOutput says which of them this worker cannot serve.
type InvestigationSourcesOutput struct {
	Missing []string `json:"missing,omitempty"`
}

// CheckInvestigationSources fails with a non-retryable error when the worker lacks a named
// source (a web provider without its URL, Brave without its API key), before any search.
func (a *Activities) CheckInvestigationSources(ctx context.Context, in InvestigationSourcesInput) (InvestigationSourcesOutput, error) {
	var out InvestigationSourcesOutput
	for _, s := range in.Sources {
		if _, ok := a.providers[s]; !ok {
			out.Missing = append(out.Missing, s)
		}
	}
	if len(out.Missing) == 0 {
		return out, nil
	}
	var why []string
	for _, s := range out.Missing {
		if k := investigate.Sources[s].NeedsKey; k != "" {
			why = append(why, fmt.Sprintf("%s (no API key on the worker: set %s)", s, k))
		} else {
			why = append(why, s+" (not configured on the worker)")
		}
	}
	return out, badInput(nil, "investigation: sources unavailable: %s", strings.Join(why, "; "))
}

// LeadsInput asks for the leads in an investigation's results.
type LeadsInput struct {
	Texts    []string `json:"texts"` // result titles and snippets, bounded
	UseModel bool     `json:"use_model"`
}

// LeadsOutput is every lead found, ranked: identifiers, organisations, people, acronyms.
type LeadsOutput struct {
	Leads     []investigate.Breadcrumb `json:"leads"`
	Extractor string                   `json:"extractor"` // patterns, or patterns+model
	Fallback  string                   `json:"fallback,omitempty"`
	Usage     Usage                    `json:"usage"`
}

// modelLeads is the model's answer: the names it sees, by kind.
type modelLeads struct {
	Identifiers   []string `json:"identifiers"`
	Organisations []string `json:"organisations"`
	People        []string `json:"people"`
	Acronyms      []string `json:"acronyms"`
}

var leadsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"identifiers":{"type":"array","items":{"type":"string"}},"organisations":{"type":"array","items":{"type":"string"}},` +
	`"people":{"type":"array","items":{"type":"string"}},"acronyms":{"type":"array","items":{"type":"string"}}},` +
	`"required":["identifiers","organisations","people","acronyms"]}`)

// maxLeadText bounds the text shown to the model for lead extraction.
const maxLeadText = 6000

// ExtractLeads finds the leads in the results by patterns and, with a model, by asking it too;
// a name the model gives that the texts do not contain is dropped.
func (a *Activities) ExtractLeads(ctx context.Context, in LeadsInput) (LeadsOutput, error) {
	out := LeadsOutput{Leads: investigate.Breadcrumbs(in.Texts, 0), Extractor: "patterns"}
	if !in.UseModel || a.model == nil || !a.model.Configured(llm.Planner) {
		return out, nil
	}
	var b strings.Builder
	for _, t := range in.Texts {
		if b.Len()+len(t) > maxLeadText {
			break
		}
		b.WriteString("- " + t + "\n")
	}
	var got modelLeads
	prompt := "Search results:\n" + b.String() + "\nList the identifiers (standards, CVEs, versions, issue numbers), organisations, people and acronyms these results name. Copy each exactly as written. Answer as JSON."
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Planner, "You extract names from text. Answer with one JSON object only.",
		prompt, leadsSchema, &got, func() error { return nil })
	out.Usage = u
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			out.Fallback = reason
			return out, nil
		}
		return LeadsOutput{}, err
	}
	if outcome.Fallback {
		out.Fallback = "model leads unusable: " + outcome.Reason
		return out, nil
	}
	var model []investigate.Breadcrumb
	for kind, names := range map[string][]string{investigate.KindIdentifier: got.Identifiers,
		investigate.KindOrganisation: got.Organisations, investigate.KindPerson: got.People, investigate.KindAcronym: got.Acronyms} {
		for _, n := range names {
			model = append(model, investigate.Breadcrumb{Text: n, Kind: kind})
		}
	}
	sort.SliceStable(model, func(i, j int) bool { return model[i].Kind+model[i].Text < model[j].Kind+model[j].Text })
	out.Leads = investigate.MergeModelLeads(out.Leads, model, in.Texts)
	out.Extractor = "patterns+model"
	return out, nil
}
