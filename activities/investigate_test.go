package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// invModel answers GenerateJSON with scripted answers, validating them like the real client:
// a bad first answer gets the next one as its repair, two bad ones are a fallback.
type invModel struct {
	answers []string
	prompts []string
}

func (m *invModel) Configured(s llm.Stage) bool { return s == llm.Planner }
func (m *invModel) Generate(context.Context, llm.Stage, string, string) (string, llm.Usage, error) {
	return "", llm.Usage{}, errors.New("not scripted")
}
func (m *invModel) GenerateFitted(context.Context, llm.Stage, string, string, []string, func([]string) string) (string, llm.Usage, int, error) {
	return "", llm.Usage{}, 0, errors.New("not scripted")
}
func (m *invModel) Embed(context.Context, []string) ([][]float32, llm.Usage, error) {
	return nil, llm.Usage{}, errors.New("not scripted")
}
func (m *invModel) Describe(context.Context, string) (string, llm.Usage, error) {
	return "", llm.Usage{}, errors.New("not scripted")
}
func (m *invModel) GenerateJSON(_ context.Context, _ llm.Stage, _, prompt string, _ json.RawMessage, out any, validate func() error) (llm.Outcome, llm.Usage, error) {
	m.prompts = append(m.prompts, prompt)
	try := func() error {
		if len(m.answers) == 0 {
			return errors.New("no answer")
		}
		a := m.answers[0]
		m.answers = m.answers[1:]
		if err := json.Unmarshal([]byte(a), out); err != nil {
			return err
		}
		return validate()
	}
	first := try()
	if first == nil {
		return llm.Outcome{}, llm.Usage{Calls: 1}, nil
	}
	if second := try(); second != nil {
		return llm.Outcome{Fallback: true, Reason: first.Error() + "; " + second.Error()}, llm.Usage{Calls: 2}, nil
	}
	return llm.Outcome{Repaired: true, Reason: first.Error()}, llm.Usage{Calls: 2}, nil
}

func decide(t *testing.T, acts *Activities, in SourceDecisionInput) (SourceDecisionOutput, error) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	v, err := env.ExecuteActivity(acts.DecideSourceQuery, in)
	if err != nil {
		return SourceDecisionOutput{}, err
	}
	var out SourceDecisionOutput
	require.NoError(t, v.Get(&out))
	return out, nil
}

var invCtx = investigate.DecisionContext{Question: "How does GOGC tune the Go garbage collector?", Task: "t",
	Hypothesis: "GOGC garbage collector tuning", Source: "corpus", Characteristics: "deep", Ceiling: 5,
	SeedQueries: []string{"GOGC garbage collector"},
	History:     []investigate.QueryEvent{{N: 1, Query: "GOGC tuning", Results: 8, New: 6, Duplicates: 2, Incremental: 75}}}

func TestDecideSourceQueryModelAndFallbacks(t *testing.T) {
	good := `{"action":"continue","reasoning":"75% new","next_query":"GOGC heap target","query_rationale":"heap goal","expected_new_results":"high","confidence_gaps_fillable":70}`
	repeat := `{"action":"continue","reasoning":"r","next_query":"gogc tuning","query_rationale":"q","expected_new_results":"low","confidence_gaps_fillable":5}`

	m := &invModel{answers: []string{good}}
	out, err := decide(t, NewActivities(Deps{Model: m}), SourceDecisionInput{Context: invCtx, UseModel: true})
	require.NoError(t, err)
	require.Equal(t, investigate.DeciderModel, out.Decider)
	require.Equal(t, "GOGC heap target", out.Decision.NextQuery)
	require.Equal(t, 1, out.Usage.Calls)
	require.Contains(t, m.prompts[0], `"GOGC tuning" -> 8 results, 6 new, 2 duplicates (75% new)`)

	m = &invModel{answers: []string{repeat, good}}
	out, err = decide(t, NewActivities(Deps{Model: m}), SourceDecisionInput{Context: invCtx, UseModel: true})
	require.NoError(t, err)
	require.Equal(t, investigate.DeciderModel, out.Decider)
	require.Contains(t, out.Fallback, "repaired")

	m = &invModel{answers: []string{repeat, `{"action":"perhaps"}`}}
	out, err = decide(t, NewActivities(Deps{Model: m}), SourceDecisionInput{Context: invCtx, UseModel: true})
	require.NoError(t, err)
	require.Equal(t, investigate.DeciderHeuristic, out.Decider, "two bad answers fall back to the heuristic")
	require.Contains(t, out.Fallback, "model decision unusable")
	require.Contains(t, out.Fallback, "repeats an earlier query")
	require.Equal(t, "GOGC garbage collector", out.Decision.NextQuery)
	require.Equal(t, 2, out.Usage.Calls)

	out, err = decide(t, NewActivities(Deps{}), SourceDecisionInput{Context: invCtx, UseModel: true})
	require.NoError(t, err)
	require.Equal(t, investigate.DeciderHeuristic, out.Decider)
	require.Equal(t, "no planner model configured", out.Fallback)

	bad := invCtx
	bad.Ceiling = 0
	_, err = decide(t, NewActivities(Deps{}), SourceDecisionInput{Context: bad})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr))
	require.Equal(t, ErrBadInput, appErr.Type())
}

func TestPlanInvestigation(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	run := func(acts *Activities, in InvestigationPlanInput) InvestigationPlanOutput {
		env := s.NewTestActivityEnvironment()
		env.RegisterActivity(acts)
		v, err := env.ExecuteActivity(acts.PlanInvestigation, in)
		require.NoError(t, err)
		var out InvestigationPlanOutput
		require.NoError(t, v.Get(&out))
		return out
	}
	q := "How does the Go garbage collector decide when to run, and how can GOGC tune it?"
	out := run(NewActivities(Deps{}), InvestigationPlanInput{Question: q, Sources: []string{"corpus", "searxng"}})
	require.Equal(t, "deterministic", out.Planner)
	require.Len(t, out.Tasks, 1)
	require.NotEmpty(t, out.Tasks[0].Hypotheses)
	for _, h := range out.Tasks[0].Hypotheses {
		require.Equal(t, []string{"corpus", "searxng"}, h.Sources)
		require.NotEqual(t, q, h.SeedQueries[0])
	}

	m := &invModel{answers: []string{`{"tasks":[{"task":"trigger","hypotheses":[{"hypothesis":"pacer","sources":["corpus"],"queries":["GC pacer", "` + q + `"]}]}]}`}}
	out = run(NewActivities(Deps{Model: m}), InvestigationPlanInput{Question: q, Sources: []string{"corpus", "searxng"}, UseModel: true})
	require.Equal(t, "model", out.Planner)
	require.Equal(t, []string{"GC pacer"}, out.Tasks[0].Hypotheses[0].SeedQueries, "the raw question is dropped")

	m = &invModel{answers: []string{`{"tasks":[{"task":"x","hypotheses":[{"hypothesis":"h","sources":["altavista"],"queries":[]}]}]}`, `{"tasks":[]}`}}
	out = run(NewActivities(Deps{Model: m}), InvestigationPlanInput{Question: q, Sources: []string{"corpus"}, UseModel: true})
	require.Equal(t, "deterministic", out.Planner)
	require.Contains(t, out.Fallback, "altavista")
}

func TestCheckInvestigationSourcesAndReport(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"corpus": nil}, ReportDir: t.TempDir()})
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	_, err := env.ExecuteActivity(acts.CheckInvestigationSources, InvestigationSourcesInput{Sources: []string{"corpus", "brave", "searxng"}})
	require.ErrorContains(t, err, "brave (no API key on the worker: set SATED_BRAVE_API_KEY); searxng (not configured on the worker)")
	_, err = env.ExecuteActivity(acts.CheckInvestigationSources, InvestigationSourcesInput{Sources: []string{"corpus"}})
	require.NoError(t, err)

	v, err := env.ExecuteActivity(acts.WriteInvestigationReport, InvestigationReportInput{Report: investigate.Report{Question: "Q?", WorkflowID: "inv/1",
		Events: []investigate.QueryEvent{{Source: "corpus", N: 1, Query: "q"}}}})
	require.NoError(t, err)
	var out InvestigationReportOutput
	require.NoError(t, v.Get(&out))
	md, err := os.ReadFile(out.MarkdownPath)
	require.NoError(t, err)
	require.Equal(t, out.Markdown, string(md))
	js, err := os.ReadFile(out.JSONPath)
	require.NoError(t, err)
	var back investigate.Report
	require.NoError(t, json.Unmarshal(js, &back))
	require.Equal(t, "q", back.Events[0].Query)

	require.Equal(t, "sated-source-brave", SourceTaskQueue("brave"))
	require.Greater(t, SourceRateLimits["corpus"], SourceRateLimits["duckduckgo"])
}

func TestExtractLeadsAddsOnlyModelLeadsPresentInTheTexts(t *testing.T) {
	texts := []string{"Russ Cox of Google described RFC 9110 compliance.", "The Go Team at Google maintains net/http."}
	model := &invModel{answers: []string{`{"identifiers":["RFC 9110"],"organisations":["Google","Acme Corp"],"people":["Russ Cox"],"acronyms":[]}`}}
	acts := NewActivities(Deps{Model: model})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	v, err := env.ExecuteActivity(acts.ExtractLeads, LeadsInput{Texts: texts, UseModel: true})
	require.NoError(t, err)
	var out LeadsOutput
	require.NoError(t, v.Get(&out))
	require.Equal(t, "patterns+model", out.Extractor)
	var names []string
	for _, l := range out.Leads {
		names = append(names, l.Text)
	}
	require.Contains(t, names, "Russ Cox")
	require.NotContains(t, names, "Acme Corp", "a name the texts do not contain is the model's invention")
	require.Equal(t, investigate.KindIdentifier, out.Leads[0].Kind)
	require.Equal(t, 1, out.Usage.Calls)

	// a model that cannot answer leaves the pattern leads, with the reason
	bad := NewActivities(Deps{Model: &invModel{answers: []string{"{", "nope"}}})
	env2 := s.NewTestActivityEnvironment()
	env2.RegisterActivity(bad)
	v, err = env2.ExecuteActivity(bad.ExtractLeads, LeadsInput{Texts: texts, UseModel: true})
	require.NoError(t, err)
	require.NoError(t, v.Get(&out))
	require.Equal(t, "patterns", out.Extractor)
	require.Contains(t, out.Fallback, "model leads unusable")
	require.NotEmpty(t, out.Leads)
}

// The investigation report answers the question first: quotes from the findings, a corpus
// passage read whole (not its snippet), grouped under the question's parts and cited by the
// finding's own number; a finding's bracketed text ("a[3]") is quoted, not renumbered.
func TestInvestigationReportAnswersFromTheFindings(t *testing.T) {
	ctx := context.Background()
	x, err := corpus.Open(filepath.Join(t.TempDir(), "corpus.db"))
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.Add(ctx, corpus.Document{URL: "file:///vacuum.md", Title: "VACUUM", Format: corpus.FormatMarkdown,
		Body: "The VACUUM command rebuilds the database file, repacking it into a minimal amount of disk space. Deleting rows leaves free pages in the file."}))
	require.NoError(t, x.Add(ctx, corpus.Document{URL: "file:///journal.md", Title: "Rollback journal", Format: corpus.FormatMarkdown,
		Body: "The rollback journal is deleted when the transaction commits."}))
	rs, err := x.Search(ctx, "VACUUM disk space", 5)
	require.NoError(t, err)
	var vacuum search.Result
	for _, r := range rs {
		if r.Title == "VACUUM" {
			vacuum = r
		}
	}
	require.NotEmpty(t, vacuum.DocID)
	vacuum.Snippet = "The VACUUM command…" // the snippet cuts the sentence; the passage holds it whole
	findings := []investigate.Finding{
		{N: 1, Key: "a", Result: search.Result{URL: "https://a.example/x", Title: "Unrelated", Snippet: "Weather is sunny today; list a[3] holds it."}},
		{N: 2, Key: "b", Result: search.Result{URL: "https://b.example/j", Title: "Journal", Snippet: "The rollback journal is deleted when the transaction commits."}},
		{N: 3, Key: "c", Result: vacuum},
	}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"corpus": x}, Docs: x, ReportDir: t.TempDir()})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	v, err := env.ExecuteActivity(acts.WriteInvestigationReport, InvestigationReportInput{Report: investigate.Report{
		Question: "I deleted rows but the file is as big as before; how do I get the disk space back?", WorkflowID: "inv/2", Findings: findings}})
	require.NoError(t, err)
	var out InvestigationReportOutput
	require.NoError(t, v.Get(&out))
	require.Contains(t, out.Answer, "repacking it into a minimal amount of disk space", "the passage read whole")
	require.Regexp(t, `minimal amount of disk space\. [^\n]*\[3\]\n`, out.Answer, "cited by the finding's number")
	require.NotContains(t, out.Answer, "[1]\n")
	answer := strings.Index(out.Markdown, "## Answer")
	require.GreaterOrEqual(t, answer, 0)
	require.Less(t, answer, strings.Index(out.Markdown, "## Findings"), "the answer comes first")

}

func TestVerifyInvestigationClaims(t *testing.T) {
	acts := NewActivities(Deps{})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	sources := []investigate.ClaimSource{
		{URL: "https://a.example/1", Text: "Acme Corp closed its $200M Series C round in Oct 2023.", Claims: 1},
		{URL: "https://b.example/2", Text: "Acme Corp closed its $200M Series C round in 2024.", Claims: 1},
	}
	v, err := env.ExecuteActivity(acts.VerifyInvestigationClaims, VerifyClaimsInput{Sources: sources, Max: 200, Docs: true})
	require.NoError(t, err)
	var out VerifyClaimsOutput
	require.NoError(t, v.Get(&out))
	require.Len(t, out.Verified, 2)
	require.Equal(t, investigate.Contradicted, out.Verified[0].Tag, "Oct 2023 against 2024")
	require.Equal(t, investigate.VerifySources(sources, 200, nil, true), out.Verified)

	// as many findings as an investigation keeps are read
	_, err = env.ExecuteActivity(acts.VerifyInvestigationClaims, VerifyClaimsInput{Sources: make([]investigate.ClaimSource, investigate.MaxFindings), Max: 200, Docs: true})
	require.NoError(t, err)
	for _, bad := range []VerifyClaimsInput{{Max: -1}, {Max: 1001}, {Max: 10, Sources: make([]investigate.ClaimSource, maxReadFindings+1)}} {
		_, err := env.ExecuteActivity(acts.VerifyInvestigationClaims, bad)
		require.Equal(t, ErrBadInput, appErrType(err), "%+v", bad.Max)
	}
}

func TestRankKeyEntities(t *testing.T) {
	acts := NewActivities(Deps{})
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	texts := []string{"Richard Hipp wrote the locking code; see File Locking.", "Ask Richard Hipp about the file locking ON clause."}
	in := KeyEntitiesInput{Question: "Who wrote the locking code?", Texts: texts, N: 5, Docs: true}
	terms := plan.Terms(in.Question)
	v, err := env.ExecuteActivity(acts.RankKeyEntities, in)
	require.NoError(t, err)
	var out KeyEntitiesOutput
	require.NoError(t, v.Get(&out))
	require.Equal(t, investigate.KeyEntities(in.Question, terms, texts, 5), out.Entities)
	require.Equal(t, "Richard Hipp", out.Entities[0].Text)
	in.Docs = false
	v, err = env.ExecuteActivity(acts.RankKeyEntities, in)
	require.NoError(t, err)
	require.NoError(t, v.Get(&out))
	require.Equal(t, investigate.KeyEntitiesV1(in.Question, terms, texts, 5), out.Entities, "runs before docLeads read them their way")

	// as many findings as an investigation keeps are read
	_, err = env.ExecuteActivity(acts.RankKeyEntities, KeyEntitiesInput{Question: in.Question, Texts: make([]string, investigate.MaxFindings), N: 5, Docs: true})
	require.NoError(t, err)
	for _, bad := range []KeyEntitiesInput{{N: -1}, {N: 101}, {N: 5, Texts: make([]string, maxReadFindings+1)}} {
		_, err := env.ExecuteActivity(acts.RankKeyEntities, bad)
		require.Equal(t, ErrBadInput, appErrType(err))
	}
}

func TestFindingsPriorLiftsARelevantFindingFoundLater(t *testing.T) {
	q := "How do I avoid the database is locked error when a writer waits?"
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Release history", Snippet: "Version 3.7.0 was released in 2010 with many changes."}},
		{N: 2, Result: search.Result{Title: "Page size", Snippet: "The page size is a power of two between 512 and 65536."}},
		{N: 3, Result: search.Result{Title: "Locking", Snippet: "A writer waits for the lock; to avoid the database is locked error set a busy timeout."}},
	}
	p := findingsPrior(q, sources)
	require.Greater(t, p[2], p[1], "the relevant third finding outranks the irrelevant second: %v", p)
	require.Greater(t, p[0], p[1], "discovery order still counts between equally irrelevant findings: %v", p)
}

// TestDeterministicInvestigationPlanSearchesAsAResearchRunPlans: without a model an
// investigation's hypotheses are the research planner's queries over the corpus's vocabulary
// (the whole question's discriminative terms first, a word the corpus lacks left out), at most
// three hypotheses with every further query a seed; a question of one aspect gets the older
// planner's angles besides, none repeating another.
func TestDeterministicInvestigationPlanSearchesAsAResearchRunPlans(t *testing.T) {
	ctx := context.Background()
	x, err := corpus.Open(filepath.Join(t.TempDir(), "corpus.db"))
	require.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	for i, d := range []string{
		"# Backups\n\nA backup tool takes a copy every night; restore the backup to get deleted rows back.",
		"# Restore\n\nRestore a backup with the restore tool; it reads the backup files.",
		"# Tools\n\nEach tool keeps its files in its own directory.",
		"# Rows\n\nDeleted rows stay in the table's files until a vacuum.",
		"# Scheduling\n\nA job can run every night or every hour.",
	} {
		require.NoError(t, x.Add(ctx, corpus.Document{URL: fmt.Sprintf("file:///%d.md", i), Title: strings.TrimPrefix(strings.SplitN(d, "\n", 2)[0], "# "), Body: d, Format: corpus.FormatMarkdown}))
	}
	acts := NewActivities(Deps{Providers: map[string]search.Provider{"corpus": x, "web": &countingProvider{}}})
	vocab := acts.planVocabulary(ctx, []string{"web", "corpus"})
	require.NotNil(t, vocab, "the corpus's vocabulary, though the web source comes first")
	require.Nil(t, acts.planVocabulary(ctx, []string{"web"}))

	q := "Someone deleted rows last night: how do we restore the backup, which tools take one every night, and where does each keep its files?"
	want := deterministicPlan(q, nil, vocab).SearchQueries
	require.Greater(t, len(want), maxPlanHypotheses, "a question of several aspects")
	tasks := DeterministicInvestigationPlan(q, []string{"corpus"}, vocab)
	require.Len(t, tasks, 1)
	hs := tasks[0].Hypotheses
	require.Len(t, hs, maxPlanHypotheses)
	require.Equal(t, want[0], hs[0].SeedQueries[0], "the whole question's query first")
	var seeds []string
	for _, h := range hs {
		require.Equal(t, h.Text, h.SeedQueries[0])
		seeds = append(seeds, h.SeedQueries...)
	}
	for _, w := range want {
		require.Contains(t, seeds, w, "every query the research plan makes is asked")
	}

	one := "Where does the restore tool keep its files?"
	planned := deterministicPlan(one, nil, vocab).SearchQueries
	require.Len(t, planned, 1, "one aspect, one query")
	hs = DeterministicInvestigationPlan(one, []string{"corpus"}, vocab)[0].Hypotheses
	require.Greater(t, len(hs), len(planned), "another angle")
	for i, h := range hs {
		if i < len(planned) {
			require.Equal(t, planned[i], h.Text)
			continue
		}
		for _, o := range hs[:i] {
			require.False(t, plan.NearDuplicate(h.Text, []string{o.Text}), "%q repeats %q", h.Text, o.Text)
		}
	}
}
