package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/workflows"
)

// runCLI runs the starter in-process with TEMPORAL_ADDRESS pointing nowhere, so anything that
// would start a run fails on dialling: a usage error must come first.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	t.Setenv("TEMPORAL_ADDRESS", "127.0.0.1:1")
	var out, errb bytes.Buffer
	stdout, stderr = &out, &errb
	defer func() { stdout, stderr = os.Stdout, os.Stderr }()
	code := run(args)
	return code, out.String() + errb.String()
}

func TestResearchBadInputFailsBeforeAnythingStarts(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"research"}, "exactly one question"},
		{[]string{"research", ""}, "question is empty"},
		{[]string{"research", strings.Repeat("why ", 1100)}, "limit is 4096"},
		{[]string{"research", "q", "--threshold", "11"}, "novelty threshold 11 out of range"},
		{[]string{"research", "q", "--min-rounds", "6", "--max-rounds", "3"}, "min rounds 6 is above max rounds 3"},
		{[]string{"research", "q", "--epsilon", "-0.1"}, "epsilon -0.1 out of range"},
		{[]string{"research", "q", "--provider", "altavista"}, `unknown provider "altavista"`},
		{[]string{"research", "q", "--strategy", "forever"}, `unknown strategy "forever"`},
		{[]string{"research", "q", "--novelty", "vibes"}, `unknown novelty method "vibes"`},
		{[]string{"research", "q", "--max-rounds", "0"}, "--max-rounds must be at least 1"},
		{[]string{"research", "q", "--mode", "ponder"}, `unknown mode "ponder"`},
		{[]string{"research", "q", "--bogus"}, "flag provided but not defined"},
	}
	for _, c := range cases {
		code, out := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) || strings.Contains(out, "cannot reach Temporal") {
			t.Errorf("%v: code %d, output %q; want usage error containing %q", c.args[:min(len(c.args), 3)], code, out, c.want)
		}
		if strings.Count(strings.TrimSpace(out), "\n") > 0 {
			t.Errorf("%v: want a one-line error, got %q", c.args[:min(len(c.args), 3)], out)
		}
	}
}

func TestUnreachableTemporalNamesTheAddress(t *testing.T) {
	code, out := runCLI(t, "research", "what is iota")
	if code != 1 || !strings.Contains(out, "cannot reach Temporal at 127.0.0.1:1") {
		t.Fatalf("code %d, output %q", code, out)
	}
}

func TestRequestOnlyOverridesFlagsTheUserSet(t *testing.T) {
	f := newResearchFlags("research")
	if _, err := parseInterleaved(f.fs, []string{"q", "--epsilon", "0", "--rounds", "3"}); err != nil {
		t.Fatal(err)
	}
	req := f.request("q")
	if req.Config.Epsilon == nil || *req.Config.Epsilon != 0 {
		t.Fatalf("epsilon 0 must be kept, got %v", req.Config.Epsilon)
	}
	if req.Config.Strategy != config.StrategyFixed || req.Config.FixedRounds != 3 {
		t.Fatalf("--rounds implies the fixed strategy: %+v", req.Config)
	}
	if req.Config.NoveltyThreshold != nil || req.Config.MaxRounds != 0 {
		t.Fatalf("unset flags must stay unset so the defaults apply: %+v", req.Config)
	}
}

func TestWorkflowIDComesFromMeaning(t *testing.T) {
	a := WorkflowID(workflows.ResearchRequest{Question: "What does the Go memory model guarantee?"})
	b := WorkflowID(workflows.ResearchRequest{Question: "What does the Go memory model guarantee?"})
	c := WorkflowID(workflows.ResearchRequest{Question: "What does the Go memory model guarantee?", Config: config.Research{Strategy: "fixed"}})
	if a != b || a == c {
		t.Fatalf("ids: %s %s %s", a, b, c)
	}
	if !strings.HasPrefix(a, "research-go-memory-model-guarantee-") {
		t.Fatalf("id %s does not read as the question", a)
	}
}

func TestStrategyConfigAndSummary(t *testing.T) {
	for name, ok := range map[string]bool{"saturation": true, "fixed-2": true, "fixed-20": true, "fixed-0": false, "fixed-x": false, "greedy": false,
		"saturation:answer": true, "fixed-5:learning": true, "greedy:answer": false, "saturation:bogus": false, "bm25:answer": false, "saturation:": false,
		"saturation:answer:1": true, "saturation:learning:3": true, "saturation:answer:0": false, "saturation:answer:x": false,
		"saturation:answer:6": false, "fixed-5:answer:1": false, "saturation::1": false, "investigate": true, "investigate:answer": false} {
		if _, _, err := evalStrategies(name, config.DefaultProvider, true, config.DefaultFindingsBudget); (err == nil) != ok {
			t.Errorf("%s: err %v", name, err)
		}
	}
	if _, cfgs, err := evalStrategies("saturation,saturation:answer", config.DefaultProvider, true, 8000); err != nil ||
		cfgs["saturation"].Novelty != "" || cfgs["saturation:answer"].Novelty != config.NoveltyAnswer || cfgs["saturation:answer"].Strategy != config.StrategySaturation {
		t.Fatalf("saturation beside saturation:answer: %+v, %v", cfgs, err)
	}
	if _, cfgs, err := evalStrategies("saturation,saturation:answer:1", config.DefaultProvider, true, 8000); err != nil ||
		cfgs["saturation"].MinRounds != 0 || cfgs["saturation:answer:1"].MinRounds != 1 || cfgs["saturation:answer:1"].Novelty != config.NoveltyAnswer {
		t.Fatalf("saturation beside saturation:answer:1: %+v, %v", cfgs, err)
	}
	runs := []EvalRun{
		{Strategy: "fixed-2", EvidenceRecall: 1, ReportRecall: 0.5, SearchCalls: 2, Rounds: 2, WallSeconds: 1},
		{Strategy: "fixed-2", EvidenceRecall: 0.5, ReportRecall: 0, SearchCalls: 2, Rounds: 2, WallSeconds: 3},
		{Strategy: "fixed-2", Error: "boom"},
		{Strategy: "saturation", EvidenceRecall: 1, SearchCalls: 3, Rounds: 3},
	}
	got := Summarize([]string{"fixed-2", "saturation"}, runs)
	if got[0].Questions != 3 || got[0].Failures != 1 || got[0].EvidenceRecall != 0.75 || got[0].ReportRecall != 0.25 || got[0].WallSeconds != 2 {
		t.Fatalf("fixed-2 summary %+v", got[0])
	}
	if got[1].SearchCalls != 3 || got[1].Questions != 1 {
		t.Fatalf("saturation summary %+v", got[1])
	}
}

// The text summary compares each saturation gate with the fixed strategies, as the targets are
// put: recall and searches against the one of most rounds, complex questions against the one
// of fewest.
func TestGateComparisons(t *testing.T) {
	summary := []EvalSummary{
		{Strategy: "bm25", Questions: 2, ReportRecall: 0.2},
		{Strategy: "fixed-2", Questions: 2, ReportRecall: 0.3, SearchCalls: 2, Complex: 1, ComplexReportRecall: 0.1},
		{Strategy: "fixed-5", Questions: 2, ReportRecall: 0.25, SearchCalls: 5, Complex: 1, ComplexReportRecall: 0.2},
		{Strategy: "saturation", Questions: 2, ReportRecall: 0.3, SearchCalls: 3.5, Complex: 1, ComplexReportRecall: 0.13},
		{Strategy: "saturation:answer:1", Questions: 2, ReportRecall: 0.22, SearchCalls: 2.5},
		{Strategy: "saturation:learning", Questions: 2, Failures: 2},
	}
	got := gateComparisons(summary)
	want := []string{
		"saturation vs fixed-5: report recall +0.050 with 70% of its searches; complex questions 1.30x fixed-2",
		"saturation:answer:1 vs fixed-5: report recall -0.030 with 50% of its searches",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := gateComparisons(summary[:1]); got != nil {
		t.Fatalf("no fixed strategy: %q", got)
	}
}

func TestCorpusIndexRefusesAMissingPath(t *testing.T) {
	t.Setenv("SATED_DATA_DIR", t.TempDir())
	code, out := runCLI(t, "corpus", "index", "/no/such/dir")
	if code != 2 || !strings.Contains(out, "cannot index /no/such/dir: no such file or directory") {
		t.Fatalf("code %d, output %q", code, out)
	}
}

// A search with no word to match is bad input like any other: one line, exit 2, the corpus
// untouched; a query with words still searches.
func TestCorpusSearchRefusesAQueryWithoutWords(t *testing.T) {
	t.Setenv("SATED_DATA_DIR", t.TempDir())
	doc := filepath.Join(t.TempDir(), "gc.md")
	if err := os.WriteFile(doc, []byte("# Garbage collector\n\nThe garbage collector runs concurrently with the program.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := runCLI(t, "corpus", "index", "--quiet", doc); code != 0 {
		t.Fatalf("index: code %d, output %q", code, out)
	}
	for _, q := range []string{"", "  !!  "} {
		code, out := runCLI(t, "corpus", "search", q)
		if code != 2 || !strings.Contains(out, "nothing to search for in") || strings.Count(strings.TrimSpace(out), "\n") > 1 {
			t.Errorf("search %q: code %d, output %q; want 2 and a short usage error", q, code, out)
		}
	}
	if code, out := runCLI(t, "corpus", "search", "garbage collector"); code != 0 || !strings.Contains(out, "Garbage collector") {
		t.Errorf("search with words: code %d, output %q", code, out)
	}
}

func TestBadEnvironmentFailsInOneLineBeforeDialling(t *testing.T) {
	t.Setenv("SATED_FETCH_TIMEOUT", "abc")
	code, out := runCLI(t, "research", "what is iota")
	if want := `starter research: SATED_FETCH_TIMEOUT="abc": not a duration`; code != 2 || strings.TrimSpace(out) != want {
		t.Fatalf("code %d, output %q; want 2 and %q", code, out, want)
	}
}

// Questions in any language get an id Temporal accepts: printable ASCII only.
func TestWorkflowIDIsASCIIForAnyQuestion(t *testing.T) {
	for q, want := range map[string]string{
		"Qu'est-ce que l'analyse sémantique latente ?": "research-quest-ce-que-lanalyse-semantique-",
		"Wofür braucht man einen Index?":               "research-wofur-braucht-man-einen-index-",
		"如何在 SQLite 中使用全文搜索？":                          "research-sqlite-",
		"Как работает сборщик мусора в Go?":            "research-kak-rabotaet-sborshchik-musora-go-",
		"ما هو نموذج الذاكرة؟":                         "research-question-",
		"Πώς λειτουργεί η μνήμη;":                      "research-pos-leitourgei-mnimi-",
		"स्मृति मॉडल क्या है?":                         "research-question-",
		"メモリモデルとは何ですか？":                                "research-question-",
	} {
		id := WorkflowID(workflows.ResearchRequest{Question: q})
		if !strings.HasPrefix(id, want) {
			t.Errorf("%q: id %q, want prefix %q", q, id, want)
		}
		for _, r := range id {
			if r < 0x21 || r > 0x7e {
				t.Fatalf("%q: id %q holds %q, not printable ASCII", q, id, r)
			}
		}
	}
}

// Indexing a URL goes through the research fetcher's guard: a loopback page (an internal admin
// page, say) is skipped with the reason, and only SATED_FETCH_ALLOW opens it.
func TestCorpusIndexRefusesLoopbackURLs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><head><title>Internal admin</title></head><body><p>secret token 42 lives here</p></body></html>")
	}))
	defer srv.Close()
	t.Setenv("SATED_DATA_DIR", t.TempDir())
	code, out := runCLI(t, "corpus", "index", srv.URL+"/admin")
	if !strings.Contains(out, "address not allowed") || !strings.Contains(out, "0 added") {
		t.Fatalf("a loopback URL was indexed (code %d):\n%s", code, out)
	}
	u, _ := url.Parse(srv.URL)
	t.Setenv("SATED_FETCH_ALLOW", u.Host)
	code, out = runCLI(t, "corpus", "index", srv.URL+"/admin")
	if code != 0 || !strings.Contains(out, "1 added") {
		t.Fatalf("an allow-listed loopback URL was refused (code %d):\n%s", code, out)
	}
}

// The query diagnosis shows once in the progress view and again in the summary.
func TestDiagnosisIsShownInProgressAndSummary(t *testing.T) {
	var errb bytes.Buffer
	stderr = &errb
	defer func() { stderr = os.Stderr }()
	diag := []string{"rounds 2-4 all had novelty below 3.5: the queries are near-duplicates of each other"}
	v := &progressView{}
	p := workflows.Progress{Phase: workflows.PhaseEnriching, Rounds: []workflows.RoundRecord{{Round: 1}}, Diagnosis: diag}
	printProgress(p, v)
	printProgress(p, v)
	if n := strings.Count(errb.String(), "diagnosis: "+diag[0]); n != 1 {
		t.Fatalf("progress showed the diagnosis %d times:\n%s", n, errb.String())
	}
	errb.Reset()
	var out bytes.Buffer
	stdout = &out
	defer func() { stdout = os.Stdout }()
	if err := printReport(config.Env{}, workflows.ResearchReport{Markdown: "# r", Diagnosis: diag}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "diagnosis: "+diag[0]) {
		t.Fatalf("the summary lacks the diagnosis:\n%s", errb.String())
	}
}

// Skipped files are listed once indexing ends, several of one directory and reason on one line.
func TestCorpusIndexGroupsSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.png", "b.png", "c.png"} {
		os.WriteFile(filepath.Join(dir, f), []byte{0x89, 'P', 'N', 'G'}, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "x.js"), []byte("var x = 1;"), 0o644)
	page := func(title string) []byte {
		return []byte("<html><head><title>" + title + "</title></head><body><p>Words about indexing " + title + ".</p></body></html>")
	}
	os.WriteFile(filepath.Join(dir, "page.html"), page("Page"), 0o644)
	// text sources beside the HTML pages rendered from them (git-doc's git-add.txt beside
	// git-add.html): several in one directory are one line, each naming a page of its own
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, p := range []string{filepath.Join(dir, "guide"), filepath.Join(dir, "intro"), filepath.Join(sub, "one")} {
		os.WriteFile(p+".html", page(filepath.Base(p)), 0o644)
		os.WriteFile(p+".txt", []byte("Words about indexing, as written before rendering."), 0o644)
	}
	t.Setenv("SATED_DATA_DIR", t.TempDir())
	code, out := runCLI(t, "corpus", "index", dir)
	if code != 0 || !strings.Contains(out, "4 added") || !strings.Contains(out, "7 skipped") {
		t.Fatalf("index (code %d):\n%s", code, out)
	}
	want := []string{
		"warning: skipped 3 files in " + dir + ": not a document (.png file): a.png b.png c.png\n",
		"warning: skipped " + filepath.Join(dir, "x.js") + ": not a document (.js file)\n",
		"warning: skipped 2 files in " + dir + ": the sources of the HTML pages of the same names beside them, which are indexed: guide.txt intro.txt\n",
		"warning: skipped " + filepath.Join(sub, "one.txt") + ": the source of one.html, which is indexed\n",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in:\n%s", w, out)
		}
	}
	if n := strings.Count(out, "warning: "); n != 4 {
		t.Errorf("%d warning lines, want 4:\n%s", n, out)
	}
}

// A group of skipped files names its first maxSkipNames and counts the rest, so a directory of
// 203 text sources is a line a terminal shows.
func TestSkipLogCountsWhatItDoesNotName(t *testing.T) {
	var errb bytes.Buffer
	stderr = &errb
	defer func() { stderr = os.Stderr }()
	var l skipLog
	for i := range maxSkipNames + 3 {
		l.add(filepath.Join("/docs", fmt.Sprintf("p%02d.txt", i)), corpus.SourceOfIndexed{HTML: fmt.Sprintf("p%02d.html", i)})
	}
	l.print()
	out := errb.String()
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, fmt.Sprintf("warning: skipped %d files in /docs: ", maxSkipNames+3)) {
		t.Fatalf("want one line for the group:\n%s", out)
	}
	last := fmt.Sprintf("p%02d.txt", maxSkipNames-1)
	if !strings.Contains(out, " p00.txt ") || !strings.HasSuffix(out, " "+last+" and 3 more\n") || strings.Contains(out, fmt.Sprintf("p%02d.txt", maxSkipNames)) {
		t.Fatalf("want the first %d names and the count of the others:\n%s", maxSkipNames, out)
	}
}
