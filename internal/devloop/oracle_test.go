package devloop

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/eval"
)

// TestOracle prints, per gold fact the evidence after 5 rounds lacks, the passages that hold it
// and their rank under the raw question and each query the rounds searched ("-": not in the top
// 100, the most the corpus returns): whether the fact is a rank away or a vocabulary away; and
// per set the evidence recall had every passage ranked within 30, 50 or 100 been read (the
// ceiling of reading deeper with the same queries). Opt-in: ORACLE=1 (ONLYC=1: complex only).
func TestOracle(t *testing.T) {
	if os.Getenv("ORACLE") == "" {
		t.Skip("set ORACLE=1")
	}
	ctx := context.Background()
	for _, set := range devSets(t, true) {
		x := set.x
		var all []corpus.Passage
		x.Each(ctx, func(d corpus.Document) error {
			ps, _ := x.Passages(ctx, d.ID)
			all = append(all, ps...)
			return nil
		})
		var far, near, none, tot int
		depths := []int{30, 50, 100}
		ceiling := make([]float64, len(depths)+1) // macro recall: the evidence, then at each depth
		for _, q := range set.qs {
			if os.Getenv("ONLYC") != "" && !strings.HasPrefix(q.ID, "c-") {
				continue
			}
			_, fresh, _, prev := searchRounds(ctx, t, x, q.Question, 5, config.DefaultResultsPerQuery)
			srcs := evidenceOf(ctx, x, flatten(fresh))
			ev := readText(srcs)
			ranks := func(query string) map[string]int {
				rs, _ := x.Search(ctx, query, 100)
				m := map[string]int{}
				for i, r := range rs {
					m[r.DocID] = i + 1
				}
				return m
			}
			var rq []map[string]int
			for _, p := range append([]string{q.Question}, prev...) {
				rq = append(rq, ranks(p))
			}
			t.Logf("%s %q", q.ID, prev)
			got := make([]float64, len(depths)+1)
			for _, g := range q.Gold {
				tot++
				if n, _, _ := eval.FactRecall(ev, []eval.Fact{g}); n > 0 {
					for i := range got {
						got[i]++
					}
					continue
				}
				best := 0
				var lines []string
				for _, p := range all {
					if n, _, _ := eval.FactRecall(p.Title+"\n"+p.Heading+"\n"+p.Text, []eval.Fact{g}); n == 0 {
						continue
					}
					var rk []int
					b := 0
					for _, m := range rq {
						rk = append(rk, m[p.ID])
						if r := m[p.ID]; r > 0 && (b == 0 || r < b) {
							b = r
						}
					}
					if b > 0 && (best == 0 || b < best) {
						best = b
					}
					if len(lines) < 3 {
						lines = append(lines, strings.TrimSpace(p.Title+" > "+p.Heading)+" "+rankList(rk))
					}
				}
				for i, d := range depths {
					if best > 0 && best <= d {
						got[i+1]++
					}
				}
				switch {
				case best == 0:
					none++
				case best <= 50:
					near++
				default:
					far++
				}
				t.Logf("   MISS best=%d %s", best, g.Fact)
				for _, l := range lines {
					t.Logf("      %s", l)
				}
			}
			for i := range got {
				ceiling[i] += got[i] / float64(len(q.Gold))
			}
		}
		for i := range ceiling {
			ceiling[i] /= float64(len(set.qs))
		}
		t.Logf("%s: evidence after 5 rounds %.3f; holding every passage ranked within 30/50/100 by any of the rounds' queries or the raw question: %.3f", set.name, ceiling[0], ceiling[1:])
		t.Logf("%s: facts %d, missing from evidence: best rank <=50 %d, 51-100 %d, none in the top 100 %d", set.name, tot, near, far, none)
	}
}

// rankList writes ranks as "[3 - 17]", "-" for not in the top 100.
func rankList(ranks []int) string {
	parts := make([]string, len(ranks))
	for i, r := range ranks {
		parts[i] = "-"
		if r > 0 {
			parts[i] = strconv.Itoa(r)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}
