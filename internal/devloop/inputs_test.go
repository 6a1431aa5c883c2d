package devloop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/research"
)

// AnswerCase is one question's answer input after the searches, with its gold facts: what
// internal/report's TestLearnSignals reads (LEARN=dir).
type AnswerCase struct {
	Set      string            `json:"set"`
	ID       string            `json:"id"`
	Question string            `json:"question"`
	Aspects  []string          `json:"aspects"`
	Sources  []research.Source `json:"sources"`
	Prior    []float64         `json:"prior"`
	Gold     []eval.Fact       `json:"gold"`
}

// TestDumpAnswerInputs (DUMPIN=dir, ROUNDS=k, default 2) writes per set dir/SET.jsonl: every
// question's answer input after k rounds of the worker's searches, with its gold facts.
func TestDumpAnswerInputs(t *testing.T) {
	dir := os.Getenv("DUMPIN")
	if dir == "" {
		t.Skip("DUMPIN=dir")
	}
	ctx := context.Background()
	rounds := 2
	if s := os.Getenv("ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	for _, set := range devSets(t, true) {
		f, err := os.Create(filepath.Join(dir, set.name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(f)
		for _, q := range set.qs {
			asp, fresh, hits, _ := searchRounds(ctx, t, set.x, q.Question, rounds, 15)
			rs := flatten(fresh)
			fused := report.FusedRanks(hits, report.RoundWeights(len(hits)))
			var pr []float64
			for _, r := range rs {
				pr = append(pr, fused[r.DocID])
			}
			if err := enc.Encode(AnswerCase{Set: set.name, ID: q.ID, Question: q.Question, Aspects: asp,
				Sources: evidenceOf(ctx, set.x, rs), Prior: pr, Gold: q.Gold}); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
		t.Logf("%s: %d questions", set.name, len(set.qs))
	}
}
