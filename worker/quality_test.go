package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/sated-dev/sated/internal/testenv"
)

// sqliteDocs is Debian's sqlite3-doc HTML, the corpus of the SQLite dev set.
const sqliteDocs = "/usr/share/doc/sqlite3"

// reportRecallFloor guards the SQLite dev set's mean report recall under the default
// (saturation) strategy, measured through this pipeline: 0.286 when the floor was last raised
// (at a56b8e4; 0.252 and 0.207 before), beside the bm25 baseline's 0.161; 0.275 since each
// question draws its epsilon pass-through from its own seed (d4106f7), 0.286 again since merged
// sections are quoted under their own headings (d6c8b91), 0.320 since the asked word pairs weigh
// (ff22982), when the floor was raised to 0.30; 0.320 too under the answer gate, the default
// since the change after 1865e04, with 3.6 searches instead of 4.1. 0.305 in the one draw since
// the first round follows its results' cross-references (5297cb0; 0.344 expected over every
// epsilon draw against 0.296 before, devloop): a draw that runs past round 2 quotes less. Raise
// it with the measurement; never lower it to make a change pass. Since the gold patterns count
// other pages' wordings of the same facts (efaf6f1) the same pipeline reads 0.366 beside the
// search box's 0.266, and the floor was raised to 0.35. Since SQLite's FAQ questions are read
// as headings (f0f55cd) it reads 0.407 beside the search box's 0.300, and the floor is 0.38;
// 0.398 at afa43a2, where a section the question names began to weigh more, and 0.407 again
// since every part of a title counts (c8ef109).
const reportRecallFloor = 0.38

// goReportRecallFloor guards the Go set the same way: 1.000 since a qualified name the question
// writes counts where the docs write it bare (4c0e119) and two sentences with the same words in
// another order are two facts (b9df7f1), 0.892 before; bm25 reads 0.975. Either change undone
// costs 0.025 or more, so the floor allows no fact lost: the set is small (8 questions) and each
// of its facts is stated once, on a page the searches find.
const goReportRecallFloor = 0.98

// learningGateRecallFloor guards the SQLite dev set under the learning gate (--novelty learning,
// the default before the answer gate): 0.320 with 4.1 searches at 1865e04, where the answer
// gate reads 0.320 with 3.6. Both must keep to their floors and beat the search box, and the
// default (answer) gate must search less than the learning one.
//
// Lowered once, 0.30 -> 0.29, with the corpus change that reads a table row and a term with its
// definition as one paragraph (bc18860), knowingly: the learning gate's one draw reads 0.298
// since (4.0 searches), its expected recall over the epsilon draw 0.325 -> 0.322 (devloop), and
// the whole loss is one question (s-sqlite-dates) whose draw runs five rounds, where the Date
// and Time Datatype list now falls past the findings budget. The same change moved the default
// gate 0.387 -> 0.396 on Python, 0.104 -> 0.146 on git and 0.174 -> 0.181 on Apache, SQLite
// unchanged at 0.320; the learning gate elsewhere: git 0.104 -> 0.146, Apache 0.160 -> 0.167,
// PostgreSQL 0.142 -> 0.134, pgdocs 0.208 -> 0.196, Python 0.358 unchanged. With the widened
// gold patterns (efaf6f1) it reads 0.375 and the floor is 0.35; with the FAQ's questions read
// as headings (f0f55cd) 0.407, and the floor is 0.38; 0.398 at afa43a2, 0.407 since c8ef109.
const learningGateRecallFloor = 0.38

// TestReportRecallFloorOnTheSQLiteDevSet runs the SQLite dev set through the real worker and
// dev server, as `starter eval` does, and fails when sated's reports recall fewer facts than
// the floor or than the plain search box (bm25) on the same corpus and budget.
func TestReportRecallFloorOnTheSQLiteDevSet(t *testing.T) {
	if _, err := os.Stat(sqliteDocs); err != nil {
		testenv.Missing(t, "%s is not installed (apt-get install sqlite3-doc; make tools does)", sqliteDocs)
		return
	}
	checkRecallFloor(t, sqliteDocs, "../internal/eval/testdata/sqlite-questions.jsonl", reportRecallFloor,
		gateFloor{"saturation:learning", learningGateRecallFloor})
}

// investigationAnswerFloor guards the answer an investigation report opens with, on the
// SQLite dev set through the real worker (`starter eval --strategies bm25,investigate`): 0.239
// when it was written (3485841), beside the search box's 0.184 and the 0.182 of the findings
// list it replaced at the top of the report; 0.250 once the findings were ranked by relevance
// too (activities.findingsPrior). With the widened gold patterns (efaf6f1) it reads 0.268
// beside the search box's 0.266 (the search box gained more: its whole passages state facts
// in more pages' words), and the floor is 0.25. Since SQLite's FAQ questions are read as
// headings (f0f55cd) it reads 0.359 beside the search box's 0.300, and the floor is 0.32.
// Since its hypotheses are a research run's queries and its findings' rank fusion uses the
// research run's constant (99282fa) it reads 0.407, and the floor is 0.38; 0.398 since its
// findings are keyed as passages (63f8673: the same run finds more, answers alike elsewhere).
const investigationAnswerFloor = 0.38

// TestInvestigationAnswerFloorOnTheSQLiteDevSet runs the SQLite dev set as investigations and
// fails when their answers recall fewer facts than the floor or than the plain search box.
func TestInvestigationAnswerFloorOnTheSQLiteDevSet(t *testing.T) {
	if _, err := os.Stat(sqliteDocs); err != nil {
		testenv.Missing(t, "%s is not installed (apt-get install sqlite3-doc; make tools does)", sqliteDocs)
		return
	}
	got := evalSummary(t, sqliteDocs, "../internal/eval/testdata/sqlite-questions.jsonl", "bm25,investigate")
	if got["investigate"] < investigationAnswerFloor || got["investigate"] < got["bm25"] {
		t.Errorf("investigation answers recall %.3f, below the floor %.2f or the search box's %.3f", got["investigate"], investigationAnswerFloor, got["bm25"])
	}
}

// gateFloor is another saturation gate run beside the default, with its own floor; the default
// gate must make fewer searches than it.
type gateFloor struct {
	strategy string
	floor    float64
}

// TestReportRecallFloorOnTheGoSet is the same guard over $(go env GOROOT)/doc and the Go set,
// whose questions name qualified names ("sync.Once") and whose facts mirror each other ("a send
// is synchronized before the receive", "a receive ... before the send").
func TestReportRecallFloorOnTheGoSet(t *testing.T) {
	checkRecallFloor(t, testenv.GoDocDir(t), "../internal/eval/testdata/go-questions.jsonl", goReportRecallFloor)
}

// checkRecallFloor indexes docs, runs the question file through the real worker under bm25,
// saturation and each of gates, and fails when saturation recalls less than floor or than bm25,
// or a gate less than its own floor or than bm25, or when saturation makes no fewer searches
// than a gate.
func checkRecallFloor(t *testing.T, docs, questions string, floor float64, gates ...gateFloor) {
	strategies := "bm25,saturation"
	for _, g := range gates {
		strategies += "," + g.strategy
	}
	got, searches := evalSummaries(t, docs, questions, strategies)
	for _, g := range gates {
		if got[g.strategy] < g.floor || got[g.strategy] < got["bm25"] {
			t.Errorf("%s report recall %.3f fell below its floor %.2f or the search box's %.3f", g.strategy, got[g.strategy], g.floor, got["bm25"])
		}
		if searches["saturation"] >= searches[g.strategy] {
			t.Errorf("the default gate made %.1f searches a question, not fewer than %s's %.1f", searches["saturation"], g.strategy, searches[g.strategy])
		}
	}
	if got["saturation"] < floor {
		t.Errorf("saturation report recall %.3f fell below the floor %.2f", got["saturation"], floor)
	}
	if got["saturation"] < got["bm25"] {
		t.Errorf("saturation report recall %.3f is below the plain search box's %.3f", got["saturation"], got["bm25"])
	}
}

// evalSummary is evalSummaries' report recall per strategy.
func evalSummary(t *testing.T, docs, questions, strategies string) map[string]float64 {
	got, _ := evalSummaries(t, docs, questions, strategies)
	return got
}

// evalSummaries indexes docs and runs the question file through the real worker under the
// strategies (`starter eval --json`), failing on any failed run; it returns each strategy's
// mean report recall and searches.
func evalSummaries(t *testing.T, docs, questions, strategies string) (recall, searches map[string]float64) {
	s := newStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	s.index(ctx, docs)
	s.startWorker("worker")
	out, errOut, err := s.starterRun(ctx, "eval", questions,
		"--strategies", strategies, "--json", "--parallel", "2")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, errOut)
	}
	var res struct {
		Summary []struct {
			Strategy       string  `json:"strategy"`
			Failures       int     `json:"failures"`
			ReportRecall   float64 `json:"report_recall"`
			EvidenceRecall float64 `json:"evidence_recall"`
			SearchCalls    float64 `json:"search_calls"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("eval output: %v\n%s", err, out)
	}
	recall, searches = map[string]float64{}, map[string]float64{}
	for _, s := range res.Summary {
		t.Logf("%-11s report %.3f evidence %.3f searches %.1f failures %d", s.Strategy, s.ReportRecall, s.EvidenceRecall, s.SearchCalls, s.Failures)
		if s.Failures > 0 {
			t.Errorf("%s: %d runs failed", s.Strategy, s.Failures)
		}
		recall[s.Strategy], searches[s.Strategy] = s.ReportRecall, s.SearchCalls
	}
	return recall, searches
}
