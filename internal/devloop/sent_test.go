package devloop

import (
	"context"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/text"
)

var reDefinitional = regexp.MustCompile(`(?i)\b(default|must|cannot|can ?not|should|never|always|only|is|are|means|returns|requires|use|allows)\b`)

// TestSentences: within passages holding a gold fact, which sentence signals tell the fact's
// sentences (mean AUC over passages).
func TestSentences(t *testing.T) {
	if os.Getenv("SATED_DEVLOOP") != "1" {
		t.Skip("set SATED_DEVLOOP=1")
	}
	ctx := context.Background()
	for _, set := range devSets(t, false) {
		x, qs := set.x, set.qs
		names := []string{"mix1", "mix2", "mix3", "first", "position", "qterms", "centroid", "centroid/len", "short", "long", "code", "definitional", "digits"}
		sum := map[string]float64{}
		np := 0
		share := 0.0
		for _, q := range qs {
			_, fresh, hits, _ := searchRounds(ctx, t, x, q.Question, 5, 22)
			srcs := evidenceOf(ctx, x, flatten(fresh))
			fusedm := map[string]float64{}
			_ = hits
			qd := qdata{question: q.Question, srcs: srcs}
			for range srcs {
				qd.prior = append(qd.prior, 1)
			}
			_ = fusedm
			cen := sentenceCentroid(qd)
			qt := map[string]bool{}
			for _, w := range text.Terms(q.Question) {
				qt[w] = true
			}
			for _, s := range srcs {
				if g, _, _ := eval.FactRecall(s.Text, q.Gold); g == 0 {
					continue
				}
				ss := text.Sentences(s.Text)
				gold := make([]float64, len(ss))
				any := false
				for i := range ss {
					// a sentence holds a fact when it, with its neighbours, matches and removing it loses it
					g, _, _ := eval.FactRecall(strings.Join(ss[max(0, i-1):min(len(ss), i+2)], " "), q.Gold)
					without, _, _ := eval.FactRecall(strings.Join(append(append([]string{}, ss[:i]...), ss[i+1:]...), " "), q.Gold)
					all, _, _ := eval.FactRecall(s.Text, q.Gold)
					if g > 0 && without < all {
						gold[i] = 1
						any = true
					}
				}
				if !any || len(ss) < 3 {
					continue
				}
				np++
				kept := 0
				for _, g := range gold {
					kept += int(g)
				}
				share += float64(kept) / float64(len(ss))
				f := map[string][]float64{}
				for i, sen := range ss {
					terms := text.Distinct(text.Terms(sen))
					c, qn := 0.0, 0.0
					for _, w := range terms {
						c += cen[w]
						if qt[w] {
							qn++
						}
					}
					b := 0.0
					if i == 0 {
						b = 1
					}
					code := 0.0
					if text.IsCode(sen) {
						code = 1
					}
					f["mix1"] = append(f["mix1"], c/math.Sqrt(float64(len(sen))+20)+0.3*qn)
					f["mix2"] = append(f["mix2"], c/math.Sqrt(float64(len(sen))+20)*(1+0.3*qn))
					f["mix3"] = append(f["mix3"], c/math.Sqrt(float64(len(sen))+200)*(1+0.3*qn))
					f["first"] = append(f["first"], b)
					f["position"] = append(f["position"], -float64(i))
					f["qterms"] = append(f["qterms"], qn)
					f["centroid"] = append(f["centroid"], c)
					f["centroid/len"] = append(f["centroid/len"], c/math.Sqrt(float64(len(sen))+20))
					f["short"] = append(f["short"], -float64(len(sen)))
					f["long"] = append(f["long"], float64(len(sen)))
					f["code"] = append(f["code"], -code)
					f["definitional"] = append(f["definitional"], float64(len(reDefinitional.FindAllString(sen, -1))))
					f["digits"] = append(f["digits"], float64(strings.Count(sen, "0")))
				}
				for _, n := range names {
					sum[n] += aucOf(f[n], gold)
				}
			}
		}
		t.Logf("%s: %d passages; fact sentences are %.2f of their passage's", set.name, np, share/float64(np))
		for _, n := range names {
			t.Logf("%s %-14s AUC %.3f", set.name, n, sum[n]/float64(np))
		}
	}
}
