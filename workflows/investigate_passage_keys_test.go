package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

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
	rep := investigateCorpus(t, sectionPassages, sectionQuestion, "")
	require.ElementsMatch(t, []string{"mem:7", "mem:8", "mem:10"}, findingIDs(rep))
	require.Contains(t, rep.Answer, "A send on a channel is synchronized before the completion of the corresponding receive")

	legacy := investigateCorpus(t, sectionPassages, sectionQuestion, passageKeysChange)
	require.ElementsMatch(t, []string{"mem:7", "mem:10"}, findingIDs(legacy), "keyed by URL: one finding per section")
}
