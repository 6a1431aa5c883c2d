package activities

import (
	"testing"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// A round the saturation gate discarded added nothing to the evidence: its ranking does not
// lift the known passages it found again.
func TestSearchPriorIgnoresDiscardedRounds(t *testing.T) {
	a := search.Result{Provider: "corpus", DocID: "p:0"}
	b := search.Result{Provider: "corpus", DocID: "q:0"}
	ka, kb := research.SourceKey(a), research.SourceKey(b)
	sources := []Source{{N: 1, Result: a}, {N: 2, Result: b}}
	rounds := []RoundRecord{
		{Round: 1, Decision: "accepted", Ranked: []string{ka, kb}},
		{Round: 2, Decision: research.DecisionDiscarded, Ranked: []string{kb}},
	}
	prior := searchPrior(rounds, sources)
	if len(prior) != 2 || !(prior[0] > prior[1]) {
		t.Fatalf("prior %v: the discarded round lifted the second source to or past the first", prior)
	}
	rounds[1].Decision = "accepted"
	if prior := searchPrior(rounds, sources); !(prior[1] > prior[0]) {
		t.Errorf("prior %v: an accepted round's ranking counts", prior)
	}
}
