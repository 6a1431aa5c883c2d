package report

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/text"
)

// signalNames names candidateSignals' columns: the answer's own relevance, then the signals it
// is made of.
var signalNames = []string{"relevance", "bm25", "search rank", "centroid", "page support", "heading", "topic",
	"release notes", "aspect words", "question words", "position", "quality", "word pairs", "gist", "log length"}

// candidateSignals is, per answer candidate, the signals the answer weighs, each taken for the
// aspect it names best, with the candidate's text.
func candidateSignals(in AnswerInput) (rows [][]float64, texts []string) {
	defer beginAnswer()()
	e := readEvidence(in)
	defer e.v.release()
	cands, aspects, q, as, idf, missing, v, ix, scale := e.cands, e.aspects, e.q, e.as, e.idf, e.missing, e.v, e.ix, e.scale
	bm := passageScores(ix, v, q, as, newAsked(v, text.Terms(strings.Join(in.Terms, " "))), scale)
	whole := passageScores(ix, v, q, []asked{q}, asked{}, scale)
	cen := centroidCosines(ix, v, q, in.Prior)
	sup := pageSupport(in.Sources, in.Prior)
	head := headingScores(in.Sources, ix.title, as, idf, missing, v)
	top := maxOrZero(in.Prior)
	scoreCandidates(cands, in.Sources, ix, q, as, idf, missing, v, in.Terms, in.Prior, scale)
	weighAdjacency(cands, in.Sources, aspects, idf, v, scale)
	rel := make([]float64, len(cands))
	for k := range cands {
		rel[k] = slices.Max(cands[k].rel)
	}
	// the word pairs' share alone: adjacency over a relevance of 1
	for k := range cands {
		for j := range cands[k].rel {
			cands[k].rel[j] = 1
		}
	}
	weighAdjacency(cands, in.Sources, aspects, idf, v, scale)
	gistScores(cands, ix, v, q, in.Prior)
	mark := v.ints(v.size())
	qTotal := weightOf(q.ids, idf, missing)
	for k := range cands {
		c := &cands[k]
		for _, t := range c.loc {
			mark[t] = int32(k + 1)
		}
		sent, b, h, adj := 0.0, 0.0, 0.0, 0.0
		for j, at := range as {
			sent = max(sent, matchShare(at.ids, weightOf(at.ids, idf, missing), mark, int32(k+1), idf))
			b, h, adj = max(b, bm[c.src][j]), max(h, head[c.src][j]), max(adj, c.rel[j]-1)
		}
		p, s, release := 0.0, 1.0, 0.0
		if c.src < len(in.Prior) && top > 0 {
			p = in.Prior[c.src] / top
		}
		if sup != nil {
			s = sup[c.src]
		}
		if titleOf(in.Sources[c.src].Title).release {
			release = 1
		}
		rows = append(rows, []float64{rel[k], b, p, cen[c.src], s, h, whole[c.src][0], release, sent,
			matchShare(q.ids, qTotal, mark, int32(k+1), idf), 1 / (1 + 0.03*float64(c.idx)), c.quality, adj, c.gist,
			math.Log(float64(len(c.text)) + 1)})
		texts = append(texts, c.text)
	}
	return rows, texts
}

// answerCase is internal/devloop's AnswerCase (TestDumpAnswerInputs).
type answerCase struct {
	Set      string            `json:"set"`
	ID       string            `json:"id"`
	Question string            `json:"question"`
	Aspects  []string          `json:"aspects"`
	Sources  []research.Source `json:"sources"`
	Prior    []float64         `json:"prior"`
	Gold     []eval.Fact       `json:"gold"`
}

type signalRow struct {
	q     string
	label float64
	x     []float64
}

// TestLearnSignals (LEARN=dir of internal/devloop's TestDumpAnswerInputs files) fits a logistic
// model of which answer candidates quote a gold fact over every signal the answer weighs but
// its relevance: per set, fit on the other sets (the Go set never fit) and scored on it, beside
// the answer's own relevance (AUC, pooled and per question); then the weights fit on the SQLite,
// Python and PostgreSQL sets, per standard deviation of each signal. It measures which signals
// tell a fact; it does not change the answer.
//
//	SATED_DEVLOOP=1 DUMPIN=/tmp/learn go test ./internal/devloop -run TestDumpAnswerInputs
//	LEARN=/tmp/learn go test ./internal/report -run TestLearnSignals -v
func TestLearnSignals(t *testing.T) {
	dir := os.Getenv("LEARN")
	if dir == "" {
		t.Skip("LEARN=dir")
	}
	sets := []string{"sqlite", "python", "pg", "go", "git", "apache", "pgdocs"}
	rows := map[string][]signalRow{}
	for _, set := range sets {
		f, err := os.Open(filepath.Join(dir, set+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var c answerCase
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatal(err)
			}
			xs, texts := candidateSignals(AnswerInput{Question: c.Question, Aspects: c.Aspects, Sources: c.Sources, Prior: c.Prior})
			for i, x := range xs {
				label := 0.0
				if n, _, _ := eval.FactRecall(texts[i], c.Gold); n > 0 {
					label = 1
				}
				rows[set] = append(rows[set], signalRow{c.ID, label, x})
			}
		}
		f.Close()
	}
	use := make([]int, 0, len(signalNames)-1)
	for i := 1; i < len(signalNames); i++ {
		use = append(use, i)
	}
	for _, held := range sets {
		var train []signalRow
		for _, s := range sets {
			if s != held && s != "go" {
				train = append(train, rows[s]...)
			}
		}
		w, _ := fitLogistic(train, use)
		var rel, lr []float64
		for _, r := range rows[held] {
			rel = append(rel, r.x[0])
			lr = append(lr, dot(w, r.x, use))
		}
		t.Logf("%-7s %5d candidates, %3d quote a fact: AUC relevance %.3f model %.3f; per question %.3f %.3f", held, len(rows[held]),
			int(sum(rows[held])), rocAUC(rel, rows[held]), rocAUC(lr, rows[held]), perQuestionAUC(rel, rows[held]), perQuestionAUC(lr, rows[held]))
	}
	var dev []signalRow
	for _, s := range []string{"sqlite", "python", "pg"} {
		dev = append(dev, rows[s]...)
	}
	_, std := fitLogistic(dev, use)
	for i, f := range use {
		t.Logf("weight per standard deviation: %-14s %+.2f", signalNames[f], std[i+1])
	}
}

func sum(rs []signalRow) float64 {
	s := 0.0
	for _, r := range rs {
		s += r.label
	}
	return s
}

func dot(w, x []float64, use []int) float64 {
	z := w[0]
	for i, f := range use {
		z += w[i+1] * x[f]
	}
	return z
}

// rocAUC is the area under the ROC curve of scores against the rows' labels (NaN without both).
func rocAUC(score []float64, rs []signalRow) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] < score[idx[b]] })
	var ranks, pos, neg float64
	for r, i := range idx {
		if rs[i].label > 0 {
			ranks += float64(r + 1)
			pos++
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (ranks - pos*(pos+1)/2) / (pos * neg)
}

// perQuestionAUC is the mean AUC over the questions with a candidate quoting a fact.
func perQuestionAUC(score []float64, rs []signalRow) float64 {
	by := map[string][]int{}
	for i, r := range rs {
		by[r.q] = append(by[r.q], i)
	}
	total, n := 0.0, 0
	for _, is := range by {
		var s []float64
		var sub []signalRow
		for _, i := range is {
			s, sub = append(s, score[i]), append(sub, rs[i])
		}
		if a := rocAUC(s, sub); !math.IsNaN(a) {
			total += a
			n++
		}
	}
	return total / float64(n)
}

// fitLogistic fits class-balanced logistic regression with a little L2 by gradient descent on
// standardised signals; it returns the weights on the raw signals (bias first) and per standard
// deviation.
func fitLogistic(rows []signalRow, use []int) (raw, std []float64) {
	d := len(use)
	mean, sd := make([]float64, d), make([]float64, d)
	for _, r := range rows {
		for i, f := range use {
			mean[i] += r.x[f] / float64(len(rows))
		}
	}
	for _, r := range rows {
		for i, f := range use {
			sd[i] += (r.x[f] - mean[i]) * (r.x[f] - mean[i]) / float64(len(rows))
		}
	}
	for i := range sd {
		sd[i] = math.Sqrt(sd[i]) + 1e-9
	}
	pos := sum(rows)
	wpos, wneg := float64(len(rows))/(2*pos), float64(len(rows))/(2*(float64(len(rows))-pos))
	std = make([]float64, d+1)
	g := make([]float64, d+1)
	for range 300 {
		clear(g)
		for _, r := range rows {
			z := std[0]
			for i, f := range use {
				z += std[i+1] * (r.x[f] - mean[i]) / sd[i]
			}
			cw := wneg
			if r.label > 0 {
				cw = wpos
			}
			e := cw * (1/(1+math.Exp(-z)) - r.label)
			g[0] += e
			for i, f := range use {
				g[i+1] += e * (r.x[f] - mean[i]) / sd[i]
			}
		}
		for i := range std {
			reg := 0.0
			if i > 0 {
				reg = 1e-3 * std[i]
			}
			std[i] -= 0.5 * (g[i]/float64(len(rows)) + reg)
		}
	}
	raw = make([]float64, d+1)
	raw[0] = std[0]
	for i := range use {
		raw[i+1] = std[i+1] / sd[i]
		raw[0] -= std[i+1] * mean[i] / sd[i]
	}
	return raw, std
}
