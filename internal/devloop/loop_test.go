package devloop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// corpusPath is where the dev corpus of set is indexed: $CORPUS (a path prefix, default
// /tmp/dev-) + set + ".corpus", so parallel worktrees with other indexing need not share it.
func corpusPath(set string) string {
	prefix := os.Getenv("CORPUS")
	if prefix == "" {
		prefix = "/tmp/dev-"
	}
	return prefix + set + ".corpus"
}

type vocab struct{ x *corpus.Index }

func (v vocab) HeadingFreq(stems []string) (map[string]int, error) {
	return v.x.HeadingFreq(context.Background(), stems)
}

func (v vocab) DocFreq(stems []string) (map[string]int, int, error) {
	return v.x.DocFreq(context.Background(), stems)
}

func open(t *testing.T, path, dir string) *corpus.Index {
	_, statErr := os.Stat(path)
	x, err := corpus.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if statErr != nil {
		if _, err := x.IndexPaths(context.Background(), []string{dir}, corpus.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func evidenceOf(ctx context.Context, x *corpus.Index, rs []search.Result) []research.Source {
	var out []research.Source
	for _, r := range rs {
		p, err := x.Passage(ctx, r.DocID)
		text := r.Snippet
		if err == nil {
			text = p.Text
		}
		out = append(out, research.Source{N: len(out) + 1, Result: r, Text: text})
	}
	return out
}

// TestLoop is the offline tuning loop over the dev sets: plan, search, answer and the BM25
// baseline, without Temporal. Opt-in: SATED_DEVLOOP=1 (SET=sqlite|python|pg|go|git|apache|pgdocs|pgblind|pgblind2,
// ROUNDS=n, BUDGET=chars, MISS=1, GATE=novelty threshold of the simulated saturation gate, EXPAND=n
// pages whose other passages join the evidence with FRAC of their page's rank, NOASPECTS=1,
// TERMS=first|all, SHOW=question-id, EPS=the simulated gate's epsilon (default the worker's 0.15),
// EVK=1 for the evidence recall after each of the first five rounds, MINR=n for the simulated
// gate's minimum rounds, CITED=1 for the recall of the cited sources quoted in full, FW=1 for the
// recall of the evidence's passages quoted whole in the searches' fused order after 1, 2 and 5
// rounds: the retrieval judged as a search box's answer; UNION=1 prints per question the facts
// the report, the baseline and the two together hold; SCORE=learning gates on the learning
// novelty instead of the default answer gate's share of the findings; QFILE=path reads the questions from a
// file of your own, over the corpus of SET; DUMP=path appends per question a JSON line of each
// round's answer-gate and learning scores, the report and evidence recall after 1..5 rounds and
// how many new results each round found, with the question's aspect count; SATQ=1 logs per question saturation's evidence and
// report recall and searches, "SAT id evidence report searches", to compare two runs question by
// question,
// to simulate other gates offline). Each set also reports its questions
// binned by how much the baseline finds (difficulty), and saturation's figures expected over every
// epsilon draw beside the one draw starter eval makes. The corpora are indexed once into /tmp.
func TestLoop(t *testing.T) {
	if os.Getenv("SATED_DEVLOOP") != "1" {
		t.Skip("offline tuning loop: set SATED_DEVLOOP=1")
	}
	ctx := context.Background()
	rounds := 5
	if s := os.Getenv("ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	budget := 8000
	if s := os.Getenv("BUDGET"); s != "" {
		fmt.Sscan(s, &budget)
	}
	limit := config.DefaultResultsPerQuery // as the worker searches
	if s := os.Getenv("LIMIT"); s != "" {
		fmt.Sscan(s, &limit)
	}
	for _, set := range devSets(t, true) {
		x, qs := set.x, set.qs
		topical := func(stems []string) map[string]bool {
			// as the worker's Synthesize reads it from the corpus provider
			hf, err := x.HeadingFreq(ctx, stems)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			for s, n := range hf {
				if n > 0 {
					out[s] = true
				}
			}
			return out
		}
		var sums [5]float64
		var cited [3]int // sources cited, release notes cited, release notes cited holding a fact
		citedRecall := 0.0
		var csum [5]float64
		var strat, cstrat [3][3]float64 // fixed-2, fixed-5, saturation: report, evidence, searches
		var expect [3]float64           // saturation expected over the epsilon draw: report, evidence, searches
		var oracle [2]float64           // the best report of rounds 2..5, all questions and complex ones
		nc := 0
		var bins [3][3]float64 // per difficulty (difficulty): questions, report, bm25
		var evk [5]float64
		// the first screen: the facts in the report's and the baseline's first HEAD characters
		// (default 2,000), what an asker reading only the top sees
		head := 2000
		if s := os.Getenv("HEAD"); s != "" {
			fmt.Sscan(s, &head)
		}
		var heads [4]float64 // first HEAD characters (report, bm25), first source holds a fact (report, bm25)
		var fw [6]float64
		defer func() {
			if os.Getenv("FW") != "" {
				t.Logf("%s fused whole passages after 1/2/5 rounds: %.3f %.3f %.3f", set.name, fw[1], fw[2], fw[5])
			}
		}()
		defer func() {
			if os.Getenv("EVK") != "" {
				t.Logf("%s evidence after rounds 1..5: %.3f", set.name, evk)
			}
		}()
		for _, q := range qs {
			asp, fresh, hits, prev := searchRounds(ctx, t, x, q.Question, max(rounds, strategyRounds), limit)
			// evidenceAt is the evidence after the first k rounds, as the worker hands it to the
			// answer, with each source's fused search rank and the round that found it; expand adds
			// EXPAND/NEIGH's passages
			evidenceAt := func(k int, expand bool) ([]research.Source, []float64) {
				rs := flatten(fresh[:min(k, len(fresh))])
				roundOf := map[string]int{}
				for ri, f := range fresh[:min(k, len(fresh))] {
					for _, r := range f {
						roundOf[r.DocID] = ri + 1
					}
				}
				fused := report.FusedRanks(hits[:min(k, len(hits))], report.RoundWeights(len(hits)))
				if expand {
					rs = expandPages(ctx, x, rs, fused)
				}
				var pr []float64
				for _, r := range rs {
					pr = append(pr, fused[r.DocID])
				}
				ev := evidenceOf(ctx, x, rs)
				for i := range ev {
					ev[i].Round = roundOf[ev[i].DocID]
				}
				return ev, pr
			}
			// the strategies: the answer after the first k rounds, written once per k (the
			// strategies, EVK and the expected saturation ask for the same k several times)
			answered := map[int][2]float64{}
			answerAt := func(k int) (rep, ev float64) {
				if r, ok := answered[k]; ok {
					return r[0], r[1]
				}
				srcs, pr := evidenceAt(k, true)
				a := report.Answer(report.AnswerInput{Question: q.Question, Aspects: aspOr(asp), Sources: srcs, Budget: budget, Prior: pr, Terms: answerTerms(prev), Topical: topical})
				rr, tot, _ := eval.FactRecall(a.Body, q.Gold)
				er, _, _ := eval.FactRecall(readText(srcs), q.Gold)
				answered[k] = [2]float64{eval.Recall(rr, tot), eval.Recall(er, tot)}
				return answered[k][0], answered[k][1]
			}
			if os.Getenv("FW") != "" {
				for _, k := range []int{1, 2, 5} {
					srcs, pr := evidenceAt(k, false)
					w := wholePassages(srcs, byScore(pr), budget)
					rr, tot, _ := eval.FactRecall(w, q.Gold)
					fw[k] += eval.Recall(rr, tot) / float64(len(qs))
				}
			}
			if os.Getenv("EVK") != "" {
				for k := 1; k <= 5; k++ {
					_, ev := answerAt(k)
					evk[k-1] += ev / float64(len(qs))
				}
			}
			scores := roundScores(q.Question, asp, fresh)
			learning := slices.Clone(scores)
			if os.Getenv("SCORE") != "learning" {
				// a round's novelty is the share of the findings, written from every round so
				// far, that quote the round's own new passages: what it taught the report
				scores = scores[:0]
				for k := 2; k <= min(len(fresh), strategyRounds); k++ {
					// GATEX=0: the gate reads the searches' passages only, not EXPAND's
					srcs, pr := evidenceAt(k, os.Getenv("GATEX") != "0")
					a := report.Answer(report.AnswerInput{Question: q.Question, Aspects: aspOr(asp), Sources: srcs, Budget: budget, Prior: pr, Terms: answerTerms(prev), Topical: topical})
					nPrev := len(flatten(fresh[:k-1]))
					share := report.FreshShare(a, func(n int) bool { return n > nPrev })
					scores = append(scores, novelty.ShareScore(share))
				}
			}
			if path := os.Getenv("DUMP"); path != "" {
				// per question, for simulating other gates offline: each round's answer-gate and
				// learning scores, and the report and evidence recall after k = 1..5 rounds
				var reps, evs []float64
				for k := 1; k <= min(len(fresh), strategyRounds); k++ {
					rep, ev := answerAt(k)
					reps, evs = append(reps, rep), append(evs, ev)
				}
				rec, _ := json.Marshal(map[string]any{"set": set.name, "id": q.ID, "aspects": len(asp), "answer": scores, "learning": learning, "report": reps, "evidence": evs, "seed": eval.Seed(q.ID), "fresh": freshCounts(fresh)})
				f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(f, "%s\n", rec)
				f.Close()
			}
			satK, satSearches := simulateSaturation(scores, len(fresh), eval.Seed(q.ID))
			for i, k := range []int{2, 5, satK} {
				rep, ev := answerAt(k)
				searches := float64(min(k, len(fresh)))
				if i == 2 {
					searches = float64(satSearches)
				}
				st := [3]float64{rep, ev, searches}
				if i == 2 && os.Getenv("SATQ") != "" {
					t.Logf("SAT %s %.2f %.2f %d", q.ID, ev, rep, satSearches)
				}
				for m := range st {
					strat[i][m] += st[m]
					if strings.HasPrefix(q.ID, "c-") {
						cstrat[i][m] += st[m]
					}
				}
			}
			// an oracle gate, stopping each question at the round whose answer recalls most (two
			// rounds at least, as the gate accepts): the most any stopping rule gets from this
			// answer and these searches
			best := 0.0
			for k := 2; k <= min(strategyRounds, len(fresh)); k++ {
				rep, _ := answerAt(k)
				best = max(best, rep)
			}
			oracle[0] += best
			if strings.HasPrefix(q.ID, "c-") {
				oracle[1] += best
			}
			// the same gate's outcomes over every epsilon draw, each with its probability: the
			// saturation a user's runs average, without the one draw's luck
			for _, o := range saturationOutcomes(scores) {
				rep, ev := answerAt(o.accepted)
				expect[0] += o.p * rep
				expect[1] += o.p * ev
				expect[2] += o.p * float64(o.searches)
			}
			if os.Getenv("NOVELTY") != "" {
				t.Logf("   novelty per round %v: saturation stops after %d searches, answers from %d rounds", scores, satSearches, satK)
			}
			fresh = fresh[:min(rounds, len(fresh))]
			hits = hits[:min(rounds, len(hits))]
			prev = prev[:min(rounds, len(prev))]
			// FINALX: the answer after all rounds (SHOW, MISS) reads EXPAND's passages too
			sources, prior := evidenceAt(rounds, os.Getenv("FINALX") != "")
			ans := report.Answer(report.AnswerInput{Question: q.Question, Aspects: aspOr(asp), Sources: sources, Budget: budget, Prior: prior, Terms: answerTerms(prev), Topical: topical})
			// baseline: one BM25 query of the raw question, top passages to the budget
			bres, _ := x.Search(ctx, q.Question, 40)
			bsrcs := evidenceOf(ctx, x, bres)
			baseline := wholePassages(bsrcs, nil, budget)
			rr, tot, miss := eval.FactRecall(ans.Body, q.Gold)
			er, _, _ := eval.FactRecall(readText(sources), q.Gold)
			b40r, _, _ := eval.FactRecall(readText(bsrcs), q.Gold)
			br, _, _ := eval.FactRecall(baseline, q.Gold)
			if os.Getenv("UNION") != "" {
				ur, _, _ := eval.FactRecall(ans.Body+"\n"+baseline, q.Gold)
				t.Logf("UNION %s %d %d %d %d", q.ID, rr, br, ur, tot)
			}
			hr, _, _ := eval.FactRecall(ans.Body[:min(head, len(ans.Body))], q.Gold)
			hb, _, _ := eval.FactRecall(baseline[:min(head, len(baseline))], q.Gold)
			if q1 := ans.Quotes[1]; len(q1) > 0 {
				n1, _, _ := eval.FactRecall(strings.Join(q1, "\n"), q.Gold)
				if n1 > 0 {
					heads[2]++
				}
			}
			if len(bsrcs) > 0 {
				n1, _, _ := eval.FactRecall(bsrcs[0].Title+"\n"+bsrcs[0].Text, q.Gold)
				if n1 > 0 {
					heads[3]++
				}
			}
			if os.Getenv("FIRST") != "" {
				t.Logf("FIRST %s report %d bm25 %d", q.ID, firstFact(ans.Body, q.Gold), firstFact(baseline, q.Gold))
			}
			heads[0] += eval.Recall(hr, tot)
			heads[1] += eval.Recall(hb, tot)
			vals := [5]float64{eval.Recall(rr, tot), eval.Recall(er, tot), eval.Recall(br, tot), float64(len(prev)), eval.Recall(b40r, tot)}
			for i := range sums {
				sums[i] += vals[i]
			}
			d := difficulty(vals[2])
			bins[d][0]++
			bins[d][1] += vals[0]
			bins[d][2] += vals[2]
			if strings.HasPrefix(q.ID, "c-") {
				nc++
				for i := range csum {
					csum[i] += vals[i]
				}
			}
			t.Logf("%-28s report %.2f evidence %.2f bm25 %.2f q=%q len=%d", q.ID, vals[0], vals[1], vals[2], prev, len(ans.Body))
			if os.Getenv("MISS") != "" {
				t.Logf("   missing: %q", miss)
			}
			if os.Getenv("MISS") == "2" {
				// where the evidence holds a fact the report lacks: which source, its rank
				for _, g := range q.Gold {
					if n, _, _ := eval.FactRecall(ans.Body, []eval.Fact{g}); n > 0 {
						continue
					}
					for i, s := range sources {
						if n, _, _ := eval.FactRecall(s.Title+"\n"+s.Text, []eval.Fact{g}); n > 0 {
							cited := "uncited"
							for k, o := range ans.Order {
								if o == s.N && strings.Contains(ans.Body, fmt.Sprintf("[%d]", k+1)) {
									cited = fmt.Sprintf("cited as [%d]", k+1)
								}
							}
							t.Logf("   in source %d (prior %.2f, %s) %s: %s", i+1, prior[i], cited, s.Title, g.Fact)
							break
						}
					}
				}
			}
			// the cited sources, those that are release notes (and hold a gold fact), and the
			// facts they hold whole: what quoting them in full would recall
			var whole []research.Source
			for k, o := range ans.Order {
				if strings.Contains(ans.Body, fmt.Sprintf("[%d]", k+1)) {
					whole = append(whole, sources[o-1])
				}
			}
			for _, s := range whole {
				cited[0]++
				if report.IsReleaseNotes(s.Title) {
					cited[1]++
					if n, _, _ := eval.FactRecall(s.Title+"\n"+s.Text, q.Gold); n > 0 {
						cited[2]++
					}
				}
			}
			if os.Getenv("CITED") != "" {
				cr, _, _ := eval.FactRecall(readText(whole), q.Gold)
				citedRecall += eval.Recall(cr, tot) / float64(len(qs))
			}
			if s := os.Getenv("SHOW"); s == q.ID || s == "all" {
				t.Logf("\n%s", ans.Body)
				t.Logf("BM25 baseline:\n%s", baseline)
			}
		}
		n := float64(len(qs))
		fc, ns := float64(nc), n-float64(nc)
		t.Logf("%s: report %.3f evidence %.3f bm25 %.3f ratio %.2f searches %.1f bm25@40-evidence %.3f | simple report %.3f evidence %.3f bm25 %.3f | complex report %.3f evidence %.3f bm25 %.3f",
			set.name, sums[0]/n, sums[1]/n, sums[2]/n, sums[0]/sums[2], sums[3]/n, sums[4]/n,
			(sums[0]-csum[0])/ns, (sums[1]-csum[1])/ns, (sums[2]-csum[2])/ns, csum[0]/fc, csum[1]/fc, csum[2]/fc)
		t.Logf("%s: first %d characters: report %.3f bm25 %.3f; first source quotes a fact: report %.3f bm25 %.3f", set.name, head, heads[0]/n, heads[1]/n, heads[2]/n, heads[3]/n)
		t.Logf("%s: %d cited sources, %d of them release notes (%d holding a gold fact)", set.name, cited[0], cited[1], cited[2])
		for d, name := range []string{"finds nothing", "finds under 0.4", "finds 0.4 or more"} {
			if b := bins[d]; b[0] > 0 {
				t.Logf("%s: where bm25 %s: %2.0f questions, report %.3f bm25 %.3f", set.name, name, b[0], b[1]/b[0], b[2]/b[0])
			}
		}
		if os.Getenv("CITED") != "" {
			t.Logf("%s: the cited sources in full hold %.3f of the facts", set.name, citedRecall)
		}
		for i, name := range []string{"fixed-2", "fixed-5", "saturation"} {
			t.Logf("%s %-10s report %.3f (%.2fx bm25) evidence %.3f searches %.1f | complex report %.3f evidence %.3f searches %.1f",
				set.name, name, strat[i][0]/n, strat[i][0]/sums[2], strat[i][1]/n, strat[i][2]/n, cstrat[i][0]/fc, cstrat[i][1]/fc, cstrat[i][2]/fc)
		}
		t.Logf("%s saturation expected over the epsilon draw: report %.3f evidence %.3f searches %.2f", set.name, expect[0]/n, expect[1]/n, expect[2]/n)
		t.Logf("%s oracle gate (each question's best round of 2..5): report %.3f | complex report %.3f = %.2fx fixed-2",
			set.name, oracle[0]/n, oracle[1]/fc, oracle[1]/cstrat[0][0])
		t.Logf("%s saturation vs fixed-5: report %+.3f with %.0f%% of its searches; complex saturation vs fixed-2: %.2fx",
			set.name, (strat[2][0]-strat[1][0])/n, 100*strat[2][2]/strat[1][2], cstrat[2][0]/cstrat[0][0])
	}
}

// difficulty bins a question by the baseline's recall: 0 where the search box finds none of
// its facts, 1 where it finds some (under 0.4), 2 where it finds 0.4 or more.
func difficulty(bm25 float64) int {
	switch {
	case bm25 == 0:
		return 0
	case bm25 < 0.4:
		return 1
	}
	return 2
}

// strategyRounds is how many rounds the strategy comparison runs: fixed-5's.
const strategyRounds = 5

// Saturation as the research workflow runs it: round 1 joins the evidence unscored, rounds up to
// gateMinRounds are scored but always accepted, the last of them scoring below gateThreshold
// ends the run (kept), and so does the first later round scoring below it (rejected), unless
// the epsilon draw passes it through (seeded per question by eval.Seed, as starter eval seeds
// the worker's runs).
const (
	gateThreshold = 3.0
	gateMinRounds = 2
)

// outcome is one way a saturation run can end: the rounds its answer is written from, the
// searches it made, and its probability over the epsilon draw.
type outcome struct {
	accepted, searches int
	p                  float64
}

// saturationOutcomes are the ends a saturation run with these novelty scores (rounds 2 on, as
// roundScores scores them) can reach over every epsilon draw: each gated round below the
// threshold stops the run with probability 1-epsilon and passes with epsilon; a passed round
// joins the evidence, so the later scores are the same on every path.
func saturationOutcomes(scores []float64) []outcome {
	var out []outcome
	alive, eps := 1.0, epsilon()
	accepted := 1
	for i, score := range scores {
		round := i + 2
		if os.Getenv("KEEPSTOP") != "0" && round == minRounds() && score < gate() {
			// the last round always kept, scored low, ends the run (saturate-at-minimum);
			// KEEPSTOP=0: the run searches one more round to reject, as before it
			out = append(out, outcome{accepted + 1, round, alive * (1 - eps)})
			alive *= eps
		}
		if round > minRounds() && score < gate() {
			out = append(out, outcome{accepted, round, alive * (1 - eps)})
			alive *= eps
		}
		accepted++
	}
	return append(out, outcome{accepted, accepted, alive})
}

// simulateSaturation returns how many rounds' results the saturation answer is written from
// and how many searches it made, for the rounds' scores (roundScores) and one epsilon draw: the
// first of saturationOutcomes' stops that the seed's draw does not pass.
func simulateSaturation(scores []float64, rounds int, seed int64) (accepted, searches int) {
	if rounds == 0 {
		return 0, 0
	}
	outs := saturationOutcomes(scores)
	for _, o := range outs[:len(outs)-1] {
		if !novelty.EpsilonPass(seed, o.searches, epsilon()) {
			return o.accepted, o.searches
		}
	}
	last := outs[len(outs)-1]
	return last.accepted, last.searches
}

// roundScores is the learning novelty of rounds 2 on (up to strategyRounds) against all the
// rounds before them: every round a saturation run makes joins the evidence unless it ends the
// run, so these are the scores every run of the question sees, however its draws fall.
func roundScores(question string, aspects []string, fresh [][]search.Result) []float64 {
	texts := func(rs []search.Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Title+". "+r.Snippet)
		}
		return out
	}
	if len(fresh) == 0 {
		return nil
	}
	known := texts(fresh[0])
	var scores []float64
	for k := 1; k < min(len(fresh), strategyRounds); k++ {
		score := 0.0
		if len(fresh[k]) > 0 {
			score = novelty.Learning(novelty.LearningInput{Question: question, Aspects: aspects, Fresh: texts(fresh[k]),
				Known: known, KnownRounds: k}).Score
		}
		scores = append(scores, score)
		known = append(known, texts(fresh[k])...)
	}
	return scores
}

// searchRounds plans the question and runs its searches as the research workflow does: the
// plan's queries, then feedback queries. It returns the aspects' texts, per round the results no
// earlier round returned, per round every result id in rank order, and the queries.
func searchRounds(ctx context.Context, t *testing.T, x *corpus.Index, question string, rounds, limit int) (asp []string, fresh [][]search.Result, hits [][]string, prev []string) {
	queries, aspects := plan.AspectPlan(question, vocab{x})
	for _, a := range aspects {
		asp = append(asp, a.Text)
	}
	seen := map[string]bool{}
	var results []search.Result
	for r := 0; r < rounds; r++ {
		var query string
		if r < len(queries) {
			query = queries[r]
		} else {
			var ev []string
			for _, s := range results {
				ev = append(ev, s.Title+". "+s.Snippet)
			}
			query = plan.FeedbackQuery(question, aspects, ev, prev, vocab{x})
			if query == "" {
				break
			}
		}
		prev = append(prev, query)
		rs, err := x.Search(ctx, query, limit)
		if err != nil {
			t.Logf("%s: %v", query, err)
		}
		var ids []string
		for _, r := range rs {
			ids = append(ids, r.DocID)
		}
		if r == 0 && os.Getenv("NOREFS") == "" {
			// as the worker's first round: the passages its results link to join after them
			refs, err := x.References(ctx, query, ids, config.ReferencesPerResult)
			if err != nil {
				t.Logf("%s: references: %v", query, err)
			}
			rs = append(rs, refs...)
			for _, r := range refs {
				ids = append(ids, r.DocID)
			}
		}
		hits = append(hits, ids)
		var f []search.Result
		for _, r := range rs {
			if !seen[r.DocID] {
				seen[r.DocID] = true
				results = append(results, r)
				f = append(f, r)
			}
		}
		fresh = append(fresh, f)
	}
	return asp, fresh, hits, prev
}

// answerTerms is what the worker passes the answer as feedback terms: the searches' queries.
func answerTerms(queries []string) []string {
	if os.Getenv("TERMS") == "" || len(queries) == 0 {
		return nil
	}
	if os.Getenv("TERMS") == "all" {
		return queries
	}
	return queries[:1]
}

func aspOr(a []string) []string {
	if os.Getenv("NOASPECTS") != "" {
		return nil
	}
	return a
}

func minRounds() int {
	m := gateMinRounds
	if s := os.Getenv("MINR"); s != "" {
		fmt.Sscan(s, &m)
	}
	return m
}

// epsilon is the simulated gate's pass-through chance: the worker's default, or EPS.
func epsilon() float64 {
	e := config.DefaultEpsilon
	if s := os.Getenv("EPS"); s != "" {
		fmt.Sscan(s, &e)
	}
	return e
}

func gate() float64 {
	g := gateThreshold
	if s := os.Getenv("GATE"); s != "" {
		fmt.Sscan(s, &g)
	}
	return g
}

// expandPages adds the other passages of the EXPAND best pages (by their best passage's fused
// rank) to the results, each with FRAC of its page's rank as its own.
func expandPages(ctx context.Context, x *corpus.Index, rs []search.Result, fused map[string]float64) []search.Result {
	if nn := os.Getenv("NEIGH"); nn != "" {
		return expandNeighbours(ctx, x, rs, fused, nn)
	}
	var np int
	fmt.Sscan(os.Getenv("EXPAND"), &np)
	if np == 0 {
		return rs
	}
	frac := 0.5
	if s := os.Getenv("FRAC"); s != "" {
		fmt.Sscan(s, &frac)
	}
	best := map[string]float64{}
	have := map[string]bool{}
	var pages []string
	for _, r := range rs {
		have[r.DocID] = true
		pg := r.DocID[:strings.LastIndex(r.DocID, ":")]
		if _, ok := best[pg]; !ok {
			pages = append(pages, pg)
		}
		best[pg] = max(best[pg], fused[r.DocID])
	}
	sort.SliceStable(pages, func(a, b int) bool { return best[pages[a]] > best[pages[b]] })
	out := rs
	for _, pg := range pages[:min(np, len(pages))] {
		ps, err := x.Passages(ctx, pg)
		if err != nil {
			continue
		}
		for _, p := range ps {
			if have[p.ID] {
				continue
			}
			out = append(out, expansionResult(p))
			fused[p.ID] = frac * best[pg]
		}
	}
	return out
}

// expansionResult is a passage the searches did not return, as a result of the corpus.
func expansionResult(p corpus.Passage) search.Result {
	title := p.Title
	if p.Heading != "" {
		title += " — " + p.Heading
	}
	return search.Result{URL: p.URL, Title: title, Provider: "corpus", DocID: p.ID, Snippet: p.Text[:min(200, len(p.Text))]}
}

// flatten is every round's results in round order.
func flatten(rounds [][]search.Result) []search.Result {
	var out []search.Result
	for _, r := range rounds {
		out = append(out, r...)
	}
	return out
}

// readText is everything the sources say, titles and texts: what evidence recall is scored on.
func readText(srcs []research.Source) string {
	var b strings.Builder
	for _, s := range srcs {
		b.WriteString(s.Title + "\n" + s.Text + "\n\n")
	}
	return b.String()
}

// byScore is the indexes of sc, best score first (ties in index order).
func byScore(sc []float64) []int {
	order := make([]int, len(sc))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sc[order[a]] > sc[order[b]] })
	return order
}

// wholePassages quotes whole sources, title and text, in order (nil: as given) until budget
// characters, the last one cut: the search box's way of answering.
func wholePassages(srcs []research.Source, order []int, budget int) string {
	if order == nil {
		order = byScore(make([]float64, len(srcs)))
	}
	var b strings.Builder
	for _, i := range order {
		c := srcs[i].Title + "\n" + srcs[i].Text + "\n\n"
		if b.Len()+len(c) > budget {
			c = c[:max(0, budget-b.Len())]
		}
		b.WriteString(c)
		if b.Len() >= budget {
			break
		}
	}
	return b.String()
}

// devSet is one dev question set with its corpus, opened (indexed on first use).
type devSet struct {
	name string
	x    *corpus.Index
	qs   []eval.Question
}

// heldOut are the sets written after the tuning, run only when named.
var heldOut = map[string]bool{"git": true, "apache": true, "pgdocs": true, "pgblind": true, "pgblind2": true}

// corpusOf is the corpus a set is written over: pgdocs, pgblind and pgblind2 share pg's.
func corpusOf(set string) string {
	if set == "pgdocs" || set == "pgblind" || set == "pgblind2" {
		return "pg"
	}
	return set
}

// devSets opens the dev sets SET names (all when unset); the Go set only when withGo.
func devSets(t *testing.T, withGo bool) []devSet {
	var out []devSet
	for _, set := range []struct {
		name, dir string
		data      []byte
	}{
		{"sqlite", "/usr/share/doc/sqlite3", eval.SQLiteQuestions},
		{"python", "/usr/share/doc/python3.11/html", eval.PythonQuestions},
		{"go", filepath.Join(runtime.GOROOT(), "doc"), eval.GoQuestions},
		{"git", "/usr/share/doc/git-doc", eval.GitQuestions},
		{"pg", "/usr/share/doc/postgresql-doc-15/html", eval.PGQuestions},
		{"apache", "/usr/share/doc/apache2-doc/manual/en", eval.ApacheQuestions},
		{"pgdocs", "/usr/share/doc/postgresql-doc-15/html", eval.PGDocsQuestions},
		{"pgblind", "/usr/share/doc/postgresql-doc-15/html", eval.PGBlindQuestions},
		{"pgblind2", "/usr/share/doc/postgresql-doc-15/html", eval.PGBlind2Questions},
	} {
		// the held-out git, apache, pgdocs, pgblind and pgblind2 sets run only when asked for by name
		if f := os.Getenv("SET"); (f != "" && f != set.name) || (set.name == "go" && !withGo && f != "go") || heldOut[set.name] && f != set.name {
			continue
		}
		data := set.data
		if f := os.Getenv("QFILE"); f != "" {
			var err error
			if data, err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
		qs, err := eval.ParseQuestions(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, devSet{set.name, open(t, corpusPath(corpusOf(set.name)), set.dir), qs})
	}
	return out
}

// expandNeighbours adds the passages next to the n best-ranked results (NEIGH="n offsets frac").
func expandNeighbours(ctx context.Context, x *corpus.Index, rs []search.Result, fused map[string]float64, spec string) []search.Result {
	var n, before, after int
	frac := 0.5
	fmt.Sscan(spec, &n, &before, &after, &frac)
	have := map[string]bool{}
	for _, r := range rs {
		have[r.DocID] = true
	}
	order := slices.Clone(rs)
	sort.SliceStable(order, func(a, b int) bool { return fused[order[a].DocID] > fused[order[b].DocID] })
	out := rs
	for _, r := range order[:min(n, len(order))] {
		i := strings.LastIndex(r.DocID, ":")
		var k int
		fmt.Sscan(r.DocID[i+1:], &k)
		for d := -before; d <= after; d++ {
			if d == 0 {
				continue
			}
			id := fmt.Sprintf("%s:%d", r.DocID[:i], k+d)
			if have[id] || k+d < 0 {
				continue
			}
			p, err := x.Passage(ctx, id)
			if err != nil {
				continue
			}
			have[id] = true
			out = append(out, expansionResult(p))
			fused[p.ID] = frac * fused[r.DocID]
		}
	}
	return out
}

// firstFact is where the first gold fact starts in s (spaces collapsed), -1 if none is there.
func firstFact(s string, gold []eval.Fact) int {
	s = strings.Join(strings.Fields(s), " ")
	first := -1
	for _, f := range gold {
		for _, p := range f.Patterns {
			re, err := regexp.Compile("(?i)" + p)
			if err != nil {
				continue
			}
			if loc := re.FindStringIndex(s); loc != nil && (first < 0 || loc[0] < first) {
				first = loc[0]
			}
		}
	}
	return first
}

// freshCounts is how many results each round found that no round before it had.
func freshCounts(fresh [][]search.Result) []int {
	out := make([]int, len(fresh))
	for i, f := range fresh {
		out[i] = len(f)
	}
	return out
}
