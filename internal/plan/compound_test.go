package plan

import (
	"strings"
	"testing"
)

type compoundVocab map[string]int

func (v compoundVocab) DocFreq(stems []string) (map[string]int, int, error) {
	out := map[string]int{}
	for _, s := range stems {
		out[s] = v[s]
	}
	return out, 1000, nil
}

func TestJoinCompounds(t *testing.T) {
	vocab := compoundVocab{"auto": 40, "increment": 150, "autoincr": 60, "data": 300, "type": 200, "datatyp": 1}
	got := JoinCompounds("Do I need auto incrementing ids?", vocab)
	if !strings.Contains(got, "auto incrementing autoincrementing") {
		t.Errorf("compound not added: %q", got)
	}
	if got := JoinCompounds("which data type fits", vocab); got != "which data type fits" {
		t.Errorf("a compound in too few documents was added: %q", got)
	}
	if got := JoinCompounds("auto incrementing", nil); got != "auto incrementing" {
		t.Errorf("no vocabulary changed the question: %q", got)
	}
}

func TestAspectPlanKeepsAskedAspects(t *testing.T) {
	vocab := compoundVocab{"auto": 40, "increment": 150, "autoincr": 60, "id": 80, "column": 300}
	queries, aspects := AspectPlan("Do I need auto incrementing id columns?", vocab)
	if len(aspects) == 0 || strings.Contains(aspects[0].Text, "autoincrementing") {
		t.Errorf("aspect text should be as asked: %+v", aspects)
	}
	found := false
	for _, q := range queries {
		found = found || strings.Contains(q, "autoincrementing")
	}
	if !found {
		t.Errorf("no query searches the compound: %q", queries)
	}
}
