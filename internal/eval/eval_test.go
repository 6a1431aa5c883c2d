package eval

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/novelty"
)

func TestParseQuestionsErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"not json", "{\"id\":\"a\"", "line 1: not a question object"},
		{"no id", `{"question":"q","gold":[{"fact":"f","patterns":["x"]}]}`, `line 1: missing "id"`},
		{"no question", `{"id":"a","gold":[{"fact":"f","patterns":["x"]}]}`, `line 1: question "a": missing "question"`},
		{"no gold", "\n\n" + `{"id":"a","question":"q"}`, `line 3: question "a": no "gold" facts`},
		{"no patterns", `{"id":"a","question":"q","gold":[{"fact":"f"}]}`, `gold[0] "f": no patterns`},
		{"bad regex", `{"id":"a","question":"q","gold":[{"fact":"f","patterns":["ok","(unclosed"]}]}`, `line 1: question "a": gold[0] "f": pattern 1 "(unclosed"`},
		{"duplicate id", `{"id":"a","question":"q","gold":[{"fact":"f","patterns":["x"]}]}` + "\n# c\n" + `{"id":"a","question":"q2","gold":[{"fact":"f","patterns":["x"]}]}`, `line 3: id "a" already used on line 1`},
		{"empty", "\n# only a comment\n", "no questions"},
	}
	for _, c := range cases {
		_, err := ParseQuestions(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestParseQuestionsIgnoresExtraFieldsOnce(t *testing.T) {
	in := `{"id":"a","question":"q","gold":[{"fact":"f","patterns":["x"]}],"difficulty":"hard","pages":4}
{"id":"b","question":"q","gold":[{"fact":"f","patterns":["x"]}],"difficulty":"easy"}`
	var notes []string
	qs, err := ParseQuestionsNoting(strings.NewReader(in), func(s string) { notes = append(notes, s) })
	if err != nil || len(qs) != 2 {
		t.Fatalf("%d questions, %v", len(qs), err)
	}
	want := []string{`line 1: field "difficulty" is not used and is ignored (here and on later lines)`,
		`line 1: field "pages" is not used and is ignored (here and on later lines)`}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

func TestParseQuestionsLongLineNamesIt(t *testing.T) {
	in := `{"id":"a","question":"q","gold":[{"fact":"f","patterns":["x"]}]}` + "\n" + strings.Repeat("x", maxLine+10)
	_, err := ParseQuestions(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than") {
		t.Errorf("error %v should name line 2", err)
	}
}

func TestFindingsSection(t *testing.T) {
	md := "# Q\n\n## Plan\n\n- GOGC defaults to 100\n\n## Findings\n\n- a send is synchronized before [1]\n\n## Sources\n\n1. GOGC defaults to 100\n"
	if got := Findings(md); got != "- a send is synchronized before [1]" {
		t.Errorf("Findings = %q", got)
	}
	quoted := "## Findings\n\n## 6.1. Automerge\nThe default value is 4.\n\n## Coverage\n\n| a | b |\n"
	if got := Findings(quoted); got != "## 6.1. Automerge\nThe default value is 4." {
		t.Errorf("a heading inside the findings ends them: %q", got)
	}
	// the report writes its plan after the findings and sources: it is no part of them
	if got := Findings("# Q\n\n## Findings\n\n- a fact [1]\n\n## Plan\n\n- GOGC defaults to 100\n"); got != "- a fact [1]" {
		t.Errorf("the plan after the findings joins them: %q", got)
	}
	if got := Findings("no sections"); got != "no sections" {
		t.Errorf("Findings without a section = %q", got)
	}
}

// TestEmbeddedQuestionSetsParse checks every shipped question set parses; the dev sets also
// keep their shape: s-/c- ids, about half complex, 3-6 facts each.
func TestEmbeddedQuestionSetsParse(t *testing.T) {
	sets := []struct {
		name string
		data []byte
		dev  bool
	}{
		{"go", GoQuestions, false},
		{"sqlite", SQLiteQuestions, true},
		{"python", PythonQuestions, true},
	}
	for _, s := range sets {
		qs, err := ParseQuestions(bytes.NewReader(s.data))
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if !s.dev {
			continue
		}
		complex := 0
		for _, q := range qs {
			switch {
			case strings.HasPrefix(q.ID, "c-"):
				complex++
			case !strings.HasPrefix(q.ID, "s-"):
				t.Errorf("%s: id %q starts with neither s- nor c-", s.name, q.ID)
			}
			if n := len(q.Gold); n < 3 || n > 6 {
				t.Errorf("%s: %s has %d facts, want 3-6", s.name, q.ID, n)
			}
		}
		if len(qs) < 20 || complex*2 < len(qs)-1 || complex*2 > len(qs)+1 {
			t.Errorf("%s: %d questions, %d complex; want >= 20, about half complex", s.name, len(qs), complex)
		}
	}
}

func TestFactRecall(t *testing.T) {
	gold := []Fact{
		{Fact: "GOGC default", Patterns: []string{`GOGC\W*(defaults?\W+to\W*|=\W*)100`}},
		{Fact: "happens before", Patterns: []string{`happens[- ]before`, `synchronized before`}},
		{Fact: "never present", Patterns: []string{`zebra`}},
		{Fact: "bad pattern never matches", Patterns: []string{`(`}},
	}
	cases := []struct {
		text    string
		rec     int
		missing []string
	}{
		{"gogc defaults to 100; a send is Synchronized Before the receive", 2, []string{"never present", "bad pattern never matches"}},
		{"GOGC=100 and Happens-Before", 2, []string{"never present", "bad pattern never matches"}},
		{"a send is synchronized\n   before the receive; GOGC defaults to\n100", 2, []string{"never present", "bad pattern never matches"}},
		{"nothing relevant", 0, []string{"GOGC default", "happens before", "never present", "bad pattern never matches"}},
	}
	for _, c := range cases {
		rec, total, missing := FactRecall(c.text, gold)
		if rec != c.rec || total != 4 || !reflect.DeepEqual(missing, c.missing) {
			t.Errorf("%q: %d/%d missing %v", c.text, rec, total, missing)
		}
	}
	if Recall(3, 4) != 0.75 || Recall(0, 0) != 0 {
		t.Error("Recall fraction")
	}
}

func TestCheckCitations(t *testing.T) {
	cases := []struct {
		md         string
		n          int
		valid, inv int
	}{
		{"GC runs [1]. Channels sync [2][3].", 3, 3, 0},
		{"Both say so [1, 2]; one is made up [4].", 3, 2, 1},
		{"[0] is never a source; see [the docs](https://go.dev) and [2](https://x).", 2, 0, 1},
		{"No sources at all [1].", 0, 0, 1},
		{"## Sources\n[1] Go memory model — https://go.dev/ref/mem", 1, 1, 0},
		// an index in quoted code and an escaped bracket are no citations
		{"- Read the arguments: [1]\n  ```\n  print(sys.argv[1], a[12])\n  ```\n- The list \\[12] says so [1].", 1, 2, 0},
	}
	for _, c := range cases {
		v, i := CheckCitations(c.md, c.n)
		if v != c.valid || i != c.inv {
			t.Errorf("%q: valid %d invalid %d, want %d %d", c.md, v, i, c.valid, c.inv)
		}
	}
}

// TestGoQuestionsAreTrue checks the shipped question set parses and that every gold fact is
// recalled by the Go documentation it was written from.
func TestGoQuestionsAreTrue(t *testing.T) {
	f, err := os.Open("testdata/go-questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := ParseQuestions(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 8 {
		t.Fatalf("%d questions, want 8", len(qs))
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go env: %v", err)
	}
	var docs strings.Builder
	tag := regexp.MustCompile(`<[^>]*>`)
	for _, name := range []string{"go_mem.html", "go_spec.html", "godebug.md", "asm.html"} {
		b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "doc", name))
		if err != nil {
			t.Skipf("Go documentation not available: %v", err)
		}
		docs.WriteString(tag.ReplaceAllString(string(b), " "))
	}
	for _, q := range qs {
		if rec, total, missing := FactRecall(docs.String(), q.Gold); rec != total {
			t.Errorf("%s: the docs recall %d/%d; missing %v", q.ID, rec, total, missing)
		}
		// and the question text alone must not give the answers away
		if rec, total, _ := FactRecall(q.Question, q.Gold); rec*2 > total {
			t.Errorf("%s: the question itself recalls %d/%d facts", q.ID, rec, total)
		}
	}
}

// BenchmarkFactRecall scores a 20 KB report against the largest gold set of the Go questions.
func BenchmarkFactRecall(b *testing.B) {
	f, err := os.Open("testdata/go-questions.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	qs, err := ParseQuestions(f)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("A send on a channel is synchronized before the completion of the corresponding receive [1]. ", 220)
	b.ReportAllocs()
	for b.Loop() {
		FactRecall(text, qs[1].Gold)
		CheckCitations(text, 8)
	}
}

// TestSeedVariesTheEpsilonDrawAcrossQuestions: each question's eval runs draw from their own
// seed, stable from run to run, so the pass-through fires on about its share of the gated
// rounds. One seed for every question (the 1 used before) drew the same numbers each time and
// never passed a round, so saturation's measured searches left out what the pass-through costs.
func TestSeedVariesTheEpsilonDrawAcrossQuestions(t *testing.T) {
	files, err := filepath.Glob("testdata/*-questions.jsonl")
	if err != nil || len(files) < 5 {
		t.Fatalf("question sets: %v %v", files, err)
	}
	seen := map[int64]string{}
	passed, gated := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := ParseQuestions(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, q := range qs {
			s := Seed(q.ID)
			if s <= 0 || s != Seed(q.ID) {
				t.Fatalf("%s: seed %d (again %d), want one positive seed", q.ID, s, Seed(q.ID))
			}
			if other, ok := seen[s]; ok {
				t.Errorf("%s and %s share seed %d", q.ID, other, s)
			}
			seen[s] = q.ID
			for round := 3; round <= 5; round++ {
				gated++
				if novelty.EpsilonPass(s, round, 0.15) {
					passed++
				}
			}
		}
	}
	if share := float64(passed) / float64(gated); share < 0.08 || share > 0.25 {
		t.Errorf("the pass-through fired on %d of %d gated rounds (%.2f), want about 0.15", passed, gated, share)
	}
}
