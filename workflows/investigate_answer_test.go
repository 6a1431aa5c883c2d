package workflows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/testenv"
)

// TestInvestigationAnswerRecall measures the investigation report's answer: per question of a
// dev set, the fact recall of its Answer section beside the search box's (one BM25 search of
// the raw question, its top passages to the same 8,000 characters), the report's findings list
// read to the same length (all the report offered before it had an answer) and everything the
// investigation found, over the same corpus in the same run. Opt-in, as the devloop:
//
//	SATED_INVESTIGATE_EVAL=sqlite CORPUS=/tmp/v7/dev- go test ./workflows -run InvestigationAnswerRecall -v
//
// (CORPUS is the devloop's prefix of indexed corpora: PREFIX<set>.corpus.) NOLEADS=1 runs the
// investigations without following breadcrumbs and key entities, to weigh what the leads add.
func TestInvestigationAnswerRecall(t *testing.T) {
	set := os.Getenv("SATED_INVESTIGATE_EVAL")
	if set == "" {
		t.Skip("opt-in: SATED_INVESTIGATE_EVAL=<set> CORPUS=<prefix of indexed corpora>")
	}
	x, err := corpus.Open(os.Getenv("CORPUS") + set + ".corpus")
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	f, err := os.Open(filepath.Join(testenv.ModuleRoot(t), "internal/eval/testdata", set+"-questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := eval.ParseQuestions(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	acts := activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"corpus": x}, Docs: x})
	ctx := context.Background()
	var sum [4]float64 // answer, search box, everything found, the findings list's first 8,000 characters
	var csum [4]float64
	nc := 0
	for _, q := range qs {
		env := quietInvestigationEnv(acts)
		req := InvestigationRequest{Question: q.Question, Sources: []string{"corpus"}, NoModel: true}
		if os.Getenv("NOLEADS") != "" {
			req.Breadcrumbs, req.Entities = intp(0), intp(0)
		}
		env.ExecuteWorkflow(InvestigationWorkflow, req)
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		var rep InvestigationReport
		if err := env.GetWorkflowResult(&rep); err != nil {
			t.Fatal(err)
		}
		var found strings.Builder
		for _, f := range rep.Findings {
			if p, err := x.Passage(ctx, f.DocID); err == nil {
				found.WriteString(f.Title + "\n" + p.Text + "\n")
			}
		}
		// the search box as `starter eval`'s bm25 strategy reads it
		box, err := acts.BaselineAnswer(ctx, activities.BaselineInput{Provider: "corpus", Question: q.Question, Budget: report.DefaultFindingsBudget})
		if err != nil {
			t.Fatal(err)
		}
		b := box.Markdown
		rec := func(s string) float64 {
			got, total, _ := eval.FactRecall(s, q.Gold)
			return eval.Recall(got, total)
		}
		var list strings.Builder // the report's findings as listed, before it had an answer
		for _, f := range rep.Findings {
			list.WriteString(f.Title + "\n" + f.Snippet + "\n")
		}
		l := list.String()
		v := [4]float64{rec(rep.Answer), rec(b), rec(found.String()), rec(l[:min(len(l), report.DefaultFindingsBudget)])}
		for i := range v {
			sum[i] += v[i] / float64(len(qs))
		}
		if strings.HasPrefix(q.ID, "c-") {
			nc++
			for i := range v {
				csum[i] += v[i]
			}
		}
		t.Logf("%-30s answer %.2f search box %.2f found %.2f findings list %.2f (%d findings, %d searches, answer %d chars)",
			q.ID, v[0], v[1], v[2], v[3], len(rep.Findings), rep.Spend.SearchCalls, len(rep.Answer))
	}
	t.Logf("%s: investigation answer %.3f, search box %.3f (%.2fx), the findings list's first %d characters %.3f, everything found %.3f",
		set, sum[0], sum[1], sum[0]/max(sum[1], 1e-9), report.DefaultFindingsBudget, sum[3], sum[2])
	if nc > 0 {
		t.Logf("%s complex: answer %.3f, search box %.3f, findings list %.3f, found %.3f", set, csum[0]/float64(nc), csum[1]/float64(nc), csum[3]/float64(nc), csum[2]/float64(nc))
	}
}
