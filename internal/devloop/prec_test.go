package devloop

import (
	"context"
	"os"
	"testing"

	"github.com/sated-dev/sated/internal/eval"
)

// TestPrecision prints, per round and rank, the share of results that hold a gold fact.
func TestPrecision(t *testing.T) {
	if os.Getenv("SATED_DEVLOOP") != "1" {
		t.Skip("set SATED_DEVLOOP=1")
	}
	ctx := context.Background()
	for _, set := range devSets(t, false) {
		x, qs := set.x, set.qs
		var hit, n [5][6]float64
		for _, q := range qs {
			_, _, hits, _ := searchRounds(ctx, t, x, q.Question, 5, 22)
			for r, ids := range hits {
				for k, id := range ids {
					b := min(k, 5)
					if k >= 5 {
						b = 5
					}
					p, err := x.Passage(ctx, id)
					if err != nil {
						continue
					}
					g, _, _ := eval.FactRecall(p.Title+" — "+p.Heading+"\n"+p.Text, q.Gold)
					n[r][b]++
					if g > 0 {
						hit[r][b]++
					}
				}
			}
		}
		for r := range hit {
			t.Logf("%s round %d precision at rank 1..5, 6+: %.2f %.2f %.2f %.2f %.2f %.2f", set.name, r+1,
				hit[r][0]/n[r][0], hit[r][1]/n[r][1], hit[r][2]/n[r][2], hit[r][3]/n[r][3], hit[r][4]/n[r][4], hit[r][5]/n[r][5])
		}
	}
}
