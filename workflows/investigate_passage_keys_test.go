package workflows

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/search"
)

// sectionPassages is a corpus whose one section is indexed as two passages under one URL (its
// anchor): the rules that open Go's "Channel communication" and the example that ends it.
var sectionPassages = []search.Result{
	{URL: "file:///doc/go_mem.html#chan", Title: "The Go Memory Model — Channel communication", Provider: "corpus", DocID: "mem:7",
		Snippet: "A send on a channel is synchronized before the completion of the corresponding receive from that channel."},
	{URL: "file:///doc/go_mem.html#chan", Title: "The Go Memory Model — Channel communication", Provider: "corpus", DocID: "mem:8",
		Snippet: "The limit channel ensures that at most three goroutines run work functions at a time."},
	{URL: "file:///doc/go_mem.html#once", Title: "The Go Memory Model — Once", Provider: "corpus", DocID: "mem:10",
		Snippet: "The completion of a single call of f() from once.Do(f) is synchronized before the return of any call of once.Do(f)."},
}

const sectionQuestion = "How do channels and sync.Once create happens-before edges in Go?"

// runSections investigates sectionPassages from the corpus alone, as a new run or as one
// started before passageKeysChange.
func runSections(t *testing.T, legacy bool) InvestigationReport {
	t.Helper()
	corpus := &storyProvider{name: "corpus", answer: func(string) []search.Result { return sectionPassages }}
	h := newInvHarness(t)
	h.acts = activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"corpus": corpus}, ReportDir: t.TempDir()})
	h.env.RegisterActivity(h.acts)
	h.env.OnActivity(h.acts.FetchPage, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FetchInput) (activities.FetchOutput, error) {
		return activities.FetchOutput{}, fmt.Errorf("no page for %s", in.URL)
	}).Maybe()
	if legacy {
		h.env.OnGetVersion(passageKeysChange, workflow.DefaultVersion, passageKeysVersion).Return(workflow.DefaultVersion)
	}
	return h.run(t, InvestigationRequest{Question: sectionQuestion, Sources: []string{"corpus"}, NoModel: true, Ceilings: map[string]int{"corpus": 2}})
}

func findingIDs(rep InvestigationReport) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.DocID)
	}
	return out
}

// A new run keeps both passages of the section as findings of their own, and the answer quotes
// the rule that opens it; a run started before passageKeysChange keeps the first found, as it did.
func TestInvestigationKeepsEveryPassageOfASection(t *testing.T) {
	rep := runSections(t, false)
	require.ElementsMatch(t, []string{"mem:7", "mem:8", "mem:10"}, findingIDs(rep))
	require.Contains(t, rep.Answer, "A send on a channel is synchronized before the completion of the corresponding receive")

	legacy := runSections(t, true)
	require.ElementsMatch(t, []string{"mem:7", "mem:10"}, findingIDs(legacy), "keyed by URL: one finding per section")
}
