package devloop

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/text"
)

type feat struct {
	name string
	f    func(i int) float64
}

// TestRank measures how well single signals tell the evidence passages that hold a gold fact
// (mean per-question AUC), and the report recall of quoting whole passages in each signal's
// order to the budget, beside the oracle order. Opt-in: SATED_DEVLOOP=1.
func TestRank(t *testing.T) {
	if os.Getenv("SATED_DEVLOOP") != "1" {
		t.Skip("offline tuning loop: set SATED_DEVLOOP=1")
	}
	ctx := context.Background()
	budget := 8000
	for _, set := range devSets(t, false) {
		x, qs := set.x, set.qs
		auc := map[string]float64{}
		rec := map[string]float64{}
		var names []string
		nq := 0
		var setX [][]float64
		var setY []float64
		var setQ []qdata
		for _, q := range qs {
			asp, fresh, hits, _ := searchRounds(ctx, t, x, q.Question, 5, 22)
			srcs := evidenceOf(ctx, x, flatten(fresh))
			gold := make([]float64, len(srcs))
			any := false
			for i, s := range srcs {
				n, _, _ := eval.FactRecall(s.Title+"\n"+s.Text, q.Gold)
				gold[i] = float64(n)
				any = any || n > 0
			}
			if !any {
				continue
			}
			nq++
			fused := report.FusedRanks(hits, []float64{3})
			round1 := map[string]int{}
			for k, id := range hits[0] {
				round1[id] = k + 1
			}
			rounds := map[string]int{}
			for _, h := range hits {
				for _, id := range h {
					rounds[id]++
				}
			}
			page := map[string]int{}
			for _, s := range srcs {
				page[strings.Split(s.DocID, ":")[0]]++
			}
			qt := text.Terms(q.Question)
			bm := bm25Of(srcs, qt, false)
			bmt := bm25Of(srcs, qt, true)
			cover := func(s string) float64 {
				have := map[string]bool{}
				for _, w := range text.Terms(s) {
					have[w] = true
				}
				low := strings.ToLower(s)
				n := 0.0
				for _, w := range qt {
					if have[w] || (len(w) >= 4 && strings.Contains(low, w)) {
						n++
					}
				}
				return n / float64(max(len(qt), 1))
			}
			cen, tcen := centroidScores(srcs, qt, func(i int) float64 { return fused[srcs[i].DocID] })
			feats := []feat{
				{"centroid", func(i int) float64 { return cen[i] }},
				{"f*cen", func(i int) float64 { return (0.1 + fused[srcs[i].DocID]/maxOf(fused)) * cen[i] }},
				{"f*cen2", func(i int) float64 { return math.Sqrt(0.05+fused[srcs[i].DocID]/maxOf(fused)) * cen[i] }},
				{"f*bmt", func(i int) float64 { return (0.1 + fused[srcs[i].DocID]/maxOf(fused)) * (0.1 + bmt[i]/maxS(bmt)) }},
				{"f*bmt*cen", func(i int) float64 {
					return (0.1 + fused[srcs[i].DocID]/maxOf(fused)) * (0.1 + bmt[i]/maxS(bmt)) * cen[i]
				}},
				{"f+cen", func(i int) float64 { return fused[srcs[i].DocID]/maxOf(fused) + cen[i]/maxS(cen) }},
				{"titlecentral", func(i int) float64 { return tcen[i] }},
				{"oracle", func(i int) float64 { return gold[i] }},
				{"fused", func(i int) float64 { return fused[srcs[i].DocID] }},
				{"retrieval", func(i int) float64 { return -float64(i) }},
				{"round1", func(i int) float64 {
					if r := round1[srcs[i].DocID]; r > 0 {
						return 1 / float64(r)
					}
					return 0
				}},
				{"rounds", func(i int) float64 { return float64(rounds[srcs[i].DocID]) }},
				{"bm25", func(i int) float64 { return bm[i] }},
				{"bm25+title", func(i int) float64 { return bmt[i] }},
				{"titlecover", func(i int) float64 { return cover(srcs[i].Title) }},
				{"pagecover", func(i int) float64 { return cover(strings.Split(srcs[i].Title, " — ")[0]) }},
				{"samepage", func(i int) float64 { return float64(page[strings.Split(srcs[i].DocID, ":")[0]]) }},
				{"short", func(i int) float64 { return -float64(len(srcs[i].Text)) }},
				{"ordinal", func(i int) float64 { return -ordinal(srcs[i]) }},
				{"mix", func(i int) float64 {
					return bmt[i] + 0.5*fused[srcs[i].DocID]/maxOf(fused) + 0.5*cover(srcs[i].Title)
				}},
			}
			lin := []string{"centroid", "titlecentral", "fused", "round1", "rounds", "bm25", "bm25+title", "titlecover", "pagecover", "samepage", "short", "ordinal"}
			qd := qdata{set: set.name, gold: q.Gold, srcs: srcs, question: q.Question, aspects: asp}
			for _, s := range srcs {
				qd.prior = append(qd.prior, fused[s.DocID])
			}
			for i := range srcs {
				var v []float64
				for _, f := range feats {
					for _, l := range lin {
						if f.name == l {
							v = append(v, f.f(i))
						}
					}
				}
				qd.x = append(qd.x, v)
				qd.y = append(qd.y, gold[i])
			}
			normalise(qd.x)
			setQ = append(setQ, qd)
			names = names[:0]
			for _, f := range feats {
				names = append(names, f.name)
				sc := make([]float64, len(srcs))
				for i := range srcs {
					sc[i] = f.f(i)
				}
				auc[f.name] += aucOf(sc, gold)
				n, tot, _ := eval.FactRecall(wholePassages(srcs, byScore(sc), budget), q.Gold)
				rec[f.name] += eval.Recall(n, tot)
			}
		}
		allX = append(allX, setX...)
		allY = append(allY, setY...)
		allQ = append(allQ, setQ...)
		for _, n := range names {
			t.Logf("%s %-12s AUC %.3f  whole-passage report %.3f", set.name, n, auc[n]/float64(nq), rec[n]/float64(len(qs)))
		}
	}
}

type qdata struct {
	set      string
	question string
	aspects  []string
	prior    []float64
	gold     []eval.Fact
	srcs     []research.Source
	x        [][]float64
	y        []float64
}

var (
	allX [][]float64
	allY []float64
	allQ []qdata
)

// normalise scales each feature to 0-1 within a question (min-max).
func normalise(x [][]float64) {
	if len(x) == 0 {
		return
	}
	for j := range x[0] {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range x {
			lo, hi = min(lo, x[i][j]), max(hi, x[i][j])
		}
		for i := range x {
			if hi > lo {
				x[i][j] = (x[i][j] - lo) / (hi - lo)
			} else {
				x[i][j] = 0
			}
		}
	}
}

// fit is logistic regression by gradient descent with a little L2.
func fit(qs []qdata) []float64 {
	d := len(qs[0].x[0])
	w := make([]float64, d+1)
	for it := 0; it < 3000; it++ {
		g := make([]float64, d+1)
		n := 0.0
		for _, q := range qs {
			for i, x := range q.x {
				z := w[d]
				for j := range x {
					z += w[j] * x[j]
				}
				p := 1 / (1 + math.Exp(-z))
				y := 0.0
				if q.y[i] > 0 {
					y = 1
				}
				for j := range x {
					g[j] += (p - y) * x[j]
				}
				g[d] += p - y
				n++
			}
		}
		for j := range w {
			reg := 0.0
			if j < d {
				reg = 0.01 * w[j]
			}
			w[j] -= 0.5 * (g[j]/n + reg)
		}
	}
	return w
}

func evalModel(t *testing.T, name string, w []float64, qs []qdata, budget int) {
	for _, v := range []struct {
		alpha float64
		trim  int
	}{{0, 0}, {0.3, 0}, {0.5, 0}, {1, 0}, {0, 600}, {0, 1000}, {0, 1500}, {0.3, 1000}} {
		rec := 0.0
		for _, q := range qs {
			sc := make([]float64, len(q.x))
			avg := 0.0
			for _, s := range q.srcs {
				avg += float64(len(s.Text)) / float64(len(q.srcs))
			}
			for i, x := range q.x {
				for j := 0; j < len(w)-1; j++ {
					sc[i] += w[j] * x[j]
				}
				sc[i] /= math.Pow(float64(len(q.srcs[i].Text))/avg, v.alpha)
			}
			order := byScore(sc)
			cen := sentenceCentroid(q)
			var b strings.Builder
			for _, i := range order {
				body := q.srcs[i].Text
				if v.trim > 0 {
					body = trimTo(body, v.trim, cen)
				}
				c := "- " + body + " [1]\n"
				if b.Len()+len(c) > budget {
					continue
				}
				b.WriteString(c)
			}
			r, tot, _ := eval.FactRecall(b.String(), q.gold)
			rec += eval.Recall(r, tot)
		}
		t.Logf("%-22s alpha %.1f trim %d recall %.3f", name, v.alpha, v.trim, rec/float64(len(qs)))
	}
	d := len(w) - 1
	aucSum, rec := 0.0, 0.0
	n := 0
	for _, q := range qs {
		sc := make([]float64, len(q.x))
		for i, x := range q.x {
			for j := 0; j < d; j++ {
				sc[i] += w[j] * x[j]
			}
		}
		aucSum += aucOf(sc, q.y)
		r, tot, _ := eval.FactRecall(wholePassages(q.srcs, byScore(sc), budget), q.gold)
		rec += eval.Recall(r, tot)
		n++
	}
	cur := 0.0
	for _, q := range qs {
		a := report.Answer(report.AnswerInput{Question: q.question, Aspects: q.aspects, Sources: q.srcs, Budget: budget, Prior: q.prior})
		r, tot, _ := eval.FactRecall(a.Body, q.gold)
		cur += eval.Recall(r, tot)
	}
	t.Logf("%-22s current Answer %.3f", name, cur/float64(n))
	t.Logf("%-22s AUC %.3f whole-passage recall (questions with any gold evidence) %.3f  w=%.2f", name, aucSum/float64(n), rec/float64(n), w)
}

func TestLearned(t *testing.T) {
	TestRank(t)
	var sq, py []qdata
	for _, q := range allQ {
		if q.set == "sqlite" {
			sq = append(sq, q)
		} else {
			py = append(py, q)
		}
	}
	wsq, wpy, wall := fit(sq), fit(py), fit(allQ)
	evalModel(t, "sqlite<-python", wpy, sq, 8000)
	evalModel(t, "python<-sqlite", wsq, py, 8000)
	evalModel(t, "sqlite<-sqlite", wsq, sq, 8000)
	evalModel(t, "python<-python", wpy, py, 8000)
	evalModel(t, "sqlite<-all", wall, sq, 8000)
	evalModel(t, "python<-all", wall, py, 8000)
}

func maxOf(m map[string]float64) float64 {
	b := 1e-9
	for _, v := range m {
		b = max(b, v)
	}
	return b
}

func ordinal(s research.Source) float64 {
	var n int
	fmt.Sscanf(s.DocID[strings.LastIndex(s.DocID, ":")+1:], "%d", &n)
	return float64(n)
}

// aucOf is the share of (gold, non-gold) pairs the scores order right, ties half.
func aucOf(sc, gold []float64) float64 {
	var pairs, right float64
	for i := range sc {
		for j := range sc {
			if gold[i] > 0 && gold[j] == 0 {
				pairs++
				switch {
				case sc[i] > sc[j]:
					right++
				case sc[i] == sc[j]:
					right += 0.5
				}
			}
		}
	}
	if pairs == 0 {
		return 0.5
	}
	return right / pairs
}

// bm25Of scores each source for terms among the sources, optionally counting title words thrice.
func bm25Of(srcs []research.Source, terms []string, title bool) []float64 {
	n := len(srcs)
	tf := make([]map[string]float64, n)
	l := make([]float64, n)
	df := map[string]float64{}
	avg := 0.0
	for i, s := range srcs {
		tf[i] = map[string]float64{}
		for _, w := range text.Terms(s.Text) {
			tf[i][w]++
			l[i]++
		}
		if title {
			for _, w := range text.Terms(s.Title) {
				tf[i][w] += 3
				l[i] += 3
			}
		}
		for w := range tf[i] {
			df[w]++
		}
		avg += l[i]
	}
	avg /= math.Max(1, float64(n))
	out := make([]float64, n)
	for i := range srcs {
		for _, w := range terms {
			f := tf[i][w]
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (float64(n)-df[w]+0.5)/(df[w]+0.5))
			out[i] += idf * f * 2.2 / (f + 1.2*(0.25+0.75*l[i]/avg))
		}
	}
	return out
}

// centroidScores: a Rocchio centroid of the evidence (tf-idf vectors weighted by the search
// prior, the question's terms added), each passage's cosine to it, and its title's mass in it.
func centroidScores(srcs []research.Source, qt []string, prior func(int) float64) (cos, title []float64) {
	n := len(srcs)
	vec := make([]map[string]float64, n)
	df := map[string]float64{}
	for i, s := range srcs {
		vec[i] = map[string]float64{}
		for _, w := range text.Terms(s.Title + " " + s.Text) {
			vec[i][w]++
		}
		for w := range vec[i] {
			df[w]++
		}
	}
	c := map[string]float64{}
	for i := range vec {
		norm := 0.0
		for w, f := range vec[i] {
			v := (1 + math.Log(f)) * math.Log(1+float64(n)/df[w])
			vec[i][w] = v
			norm += v * v
		}
		norm = math.Sqrt(norm)
		for w := range vec[i] {
			vec[i][w] /= norm
			c[w] += prior(i) * vec[i][w]
		}
	}
	for _, w := range qt {
		c[w] += 1
	}
	cn := 0.0
	for _, v := range c {
		cn += v * v
	}
	cn = math.Sqrt(cn)
	cos = make([]float64, n)
	title = make([]float64, n)
	for i, s := range srcs {
		for w, v := range vec[i] {
			cos[i] += v * c[w] / cn
		}
		for _, w := range text.Distinct(text.Terms(s.Title)) {
			title[i] += c[w] / cn
		}
	}
	return cos, title
}

// sentenceCentroid is the question's terms plus the evidence's centroid terms, as weights.
func sentenceCentroid(q qdata) map[string]float64 {
	c := map[string]float64{}
	df := map[string]float64{}
	for _, s := range q.srcs {
		for _, w := range text.Distinct(text.Terms(s.Title + " " + s.Text)) {
			df[w]++
		}
	}
	n := float64(len(q.srcs))
	top := 0.0
	for _, p := range q.prior {
		top = max(top, p)
	}
	for i, s := range q.srcs {
		for _, w := range text.Distinct(text.Terms(s.Title + " " + s.Text)) {
			c[w] += q.prior[i] / top * math.Log(1+n/df[w]) / 10
		}
	}
	for _, w := range text.Terms(q.question) {
		c[w] += math.Log(1 + n/max(df[w], 1))
	}
	return c
}

// trimTo keeps a passage's best sentences by centroid weight (and its first), in order, to n chars.
func trimTo(body string, n int, c map[string]float64) string {
	ss := text.Sentences(body)
	sc := make([]float64, len(ss))
	for i, s := range ss {
		for _, w := range text.Distinct(text.Terms(s)) {
			sc[i] += c[w]
		}
		sc[i] /= math.Sqrt(float64(len(s)) + 20)
	}
	sc[0] += 1e6
	idx := make([]int, len(ss))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return sc[idx[a]] > sc[idx[b]] })
	keep := make([]bool, len(ss))
	used := 0
	for _, i := range idx {
		if used+len(ss[i]) > n && used > 0 {
			continue
		}
		keep[i] = true
		used += len(ss[i]) + 1
	}
	var out []string
	for i, s := range ss {
		if keep[i] {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func maxS(xs []float64) float64 {
	b := 1e-9
	for _, v := range xs {
		b = max(b, v)
	}
	return b
}
