package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/text"
)

func TestAnswerPicksRelevantQuotesGroupsAndRenumbers(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Release notes"}, Text: "Prev Up Home Next\n\nThis release fixes bugs in the parser. It also updates the manual."},
		{N: 2, Result: search.Result{Title: "Write-ahead log"}, Text: "The write-ahead log lets readers proceed while a writer commits. A checkpoint copies the WAL content back into the database file. By default a checkpoint runs when the WAL reaches 1000 pages."},
		{N: 3, Result: search.Result{Title: "Locking"}, Text: "Readers take a shared lock on the database. A writer needs an exclusive lock before it writes to the database file."},
		{N: 4, Result: search.Result{Title: "Copy of WAL"}, Text: "The write-ahead log lets readers proceed while a writer commits!"},
	}
	out := Answer(AnswerInput{
		Question: "How do readers and writers share the database, and when does a checkpoint run?",
		Aspects:  []string{"How do readers and writers share the database", "when does a checkpoint run"},
		Sources:  sources,
	})
	for _, want := range []string{
		"### How do readers and writers share the database",
		"### when does a checkpoint run",
		"By default a checkpoint runs when the WAL reaches 1000 pages.",
		"Readers take a shared lock on the database.",
	} {
		if !strings.Contains(out.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, out.Body)
		}
	}
	for _, bad := range []string{"Prev Up", "parser", "commits!"} {
		if strings.Contains(out.Body, bad) {
			t.Errorf("body quotes %q (chrome, off-topic or a repeat):\n%s", bad, out.Body)
		}
	}
	// every line of findings is cited, and numbers follow first citation
	first := map[int]bool{}
	next := 1
	for _, line := range strings.Split(out.Body, "\n") {
		if !strings.HasPrefix(line, "- ") {
			continue
		}
		var n int
		i := strings.LastIndex(line, "[")
		if _, err := fmtSscanf(line[i:], &n); err != nil {
			t.Fatalf("uncited finding %q", line)
		}
		if !first[n] {
			if n != next {
				t.Errorf("source [%d] first cited where [%d] was due:\n%s", n, next, out.Body)
			}
			first[n] = true
			next++
		}
	}
	if len(out.Order) != len(sources) {
		t.Fatalf("order %v does not list every source", out.Order)
	}
	if out.Order[len(out.Order)-1] != 1 && out.Order[len(out.Order)-1] != 4 {
		t.Errorf("uncited sources should come last: %v", out.Order)
	}
	if len(out.Coverage) != 2 || out.Coverage[1].Findings == 0 || out.Coverage[1].Coverage < 0.5 {
		t.Errorf("coverage = %+v", out.Coverage)
	}
}

func TestAnswerKeepsBudgetAndQuotesExactly(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("The cache_size pragma sets the number of *pages* the page cache keeps in memory for variant ")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(string(rune('a'+i%26)) + " of the test. ")
	}
	out := Answer(AnswerInput{Question: "How big is the page cache kept in memory?", Sources: []research.Source{{N: 1, Result: search.Result{Title: "Pragmas"}, Text: b.String()}}, Budget: 1000})
	if len(out.Body) > 1000 {
		t.Errorf("findings are %d chars, budget 1000", len(out.Body))
	}
	if !strings.Contains(out.Body, `cache_size pragma sets the number of \*pages\*`) {
		t.Errorf("quote not exact (underscore kept, * escaped not stripped):\n%s", out.Body)
	}
}

func TestAnswerWithNothingRelevant(t *testing.T) {
	out := Answer(AnswerInput{Question: "What is the default journal mode?", Sources: []research.Source{{N: 1, Result: search.Result{Title: "x"}, Text: "Completely unrelated prose about gardening and tomatoes."}}})
	if strings.Contains(out.Body, "gardening") {
		t.Errorf("quoted an off-topic sentence:\n%s", out.Body)
	}
}

func fmtSscanf(s string, n *int) (int, error) { return fmt.Sscanf(s, "[%d]", n) }

func TestHeadingScoresNameAspectsAndCompounds(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Release History — 2022-12-28 (3.40.1)"}},
		{N: 2, Result: search.Result{Title: "SQLite Autoincrement — 1. Summary"}},
	}
	defer beginAnswer()()
	v := newCallVocab()
	defer v.release()
	titles := localize(v, nil, titleTerms(sources))
	terms := text.Terms("auto incrementing ids")
	for _, g := range intern(terms) {
		v.add(g)
	}
	idf := idfTable{w: make([]float64, v.size())}
	for _, l := range v.localOf(terms) {
		idf.w[l] = 1
	}
	got := headingScores(sources, titles, []asked{newAsked(v, terms)}, idf, 1, v)
	if got[0][0] != 0 || got[1][0] <= 0.5 {
		t.Fatalf("heading scores %v: want the Autoincrement section to name most of the aspect, the release notes none", got)
	}
}

func TestLooksLikeCode(t *testing.T) {
	for _, c := range []struct {
		s    string
		code bool
	}{
		{`a = "hello, world" done = true`, true},
		{`var l sync.Mutex var a string`, false}, // no code punctuation: judged as words
		{`l.Lock() go f() l.Lock() print(a)`, true},
		{`if i < 0 || i >= len(funcs) { panic("invalid function index")`, false}, // its small words read as prose: a miss, kept on purpose
		{`The sqlite3_threadsafe() interface returns zero if and only if SQLite was compiled with mutexing code omitted.`, false},
		{`Set PRAGMA journal_mode=WAL to let readers continue while a writer appends to the log.`, false},
		{`A send on a channel is synchronized before the completion of the corresponding receive from that channel.`, false},
		// prompts, plan nodes and comments are program text however many small words they hold
		{`>>> format(math.pi, '.2f') # give 2 digits after the point`, true},
		{`... def __init__(self, name, grade, age):`, true},
		{`-> Index Scan using tenk1_unique2 on tenk1 t1 (cost=0.29..656.28 rows=101 width=244)`, true},
		{`/* Continue with cleanup code */`, true},
		{`** Otherwise, if an error occurs, an SQLite error code is returned. */`, true},
		// a shell command often is the answer; prose that names an arrow is prose
		{`$ git stash pop`, false},
		{`The -> operator extracts a JSON subcomponent and returns a JSON representation of it.`, false},
	} {
		if got := looksLikeCode(c.s); got != c.code {
			t.Errorf("looksLikeCode(%q) = %v, want %v", c.s, got, c.code)
		}
	}
}

func TestMergeThinAspects(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"nightly backups of the production database", "What are my options", "how does each work"},
			[]string{"nightly backups of the production database; What are my options; how does each work"}},
		{[]string{"is that safe", "how do I cache test results between builds"},
			[]string{"is that safe; how do I cache test results between builds"}},
		{[]string{"how checkpoints work", "whether readers block writers"}, []string{"how checkpoints work", "whether readers block writers"}},
		{[]string{"why", "is it safe"}, []string{"why", "is it safe"}},
		{[]string{"why is my build slow"}, []string{"why is my build slow"}},
	} {
		if got := mergeThinAspects(tc.in, evidenceSpelling{}); !slices.Equal(got, tc.want) {
			t.Errorf("mergeThinAspects(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// A clause with one word of its own gets no findings section of its own: it would quote any
// passage that says "options".
func TestAnswerGivesAThinAspectNoSectionOfItsOwn(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Continuous archiving"}, Text: "Point-in-time recovery restores a base backup and replays the archived log up to a chosen moment."},
		{N: 2, Result: search.Result{Title: "Client options"}, Text: "The options of the client program control its output format and verbosity."},
	}
	out := Answer(AnswerInput{Question: "How do I restore last night's backup to the moment before a mistake? What are my options?",
		Aspects: []string{"How do I restore last night's backup to the moment before a mistake", "What are my options"}, Sources: sources})
	if strings.Contains(out.Body, "### What are my options") || len(out.Coverage) != 1 {
		t.Errorf("the thin clause got its own section:\n%s\ncoverage %+v", out.Body, out.Coverage)
	}
	if !strings.Contains(out.Body, "Point-in-time recovery restores a base backup") {
		t.Errorf("the answer lost the passage that answers:\n%s", out.Body)
	}
}

func TestAnswerLabelsSourcesWhoseTitleNamesTheQuestion(t *testing.T) {
	src := func(n int, url, title, body string) research.Source {
		return research.Source{N: n, Result: search.Result{URL: url, Title: title}, Text: body}
	}
	sources := []research.Source{
		src(1, "https://sqlite.example/wal.html#ckpt", "SQLite docs — Write-ahead log > Checkpoints", "By default a checkpoint runs when the WAL reaches 1000 pages. An application can also run one itself."),
		src(2, "https://sqlite.example/wal.html#auto", "SQLite docs — Write-ahead log > Automatic checkpoints", "The automatic checkpoint threshold can be changed with a pragma or turned off altogether."),
		src(3, "https://sqlite.example/lock.html", "SQLite docs — Locking", "A checkpoint needs every reader of the old content of the log to finish before the log restarts."),
		src(4, "https://sqlite.example/pragma.html", "SQLite docs — Pragmas", "Most settings of a connection are changed with a pragma statement."),
	}
	out := Answer(AnswerInput{Question: "When does a write-ahead log checkpoint run?", Sources: sources})
	// the page's title introduces its first passage, its other passages only their own heading;
	// the part every title shares says nothing; a source after a labelled one is labelled too,
	// so its quotes do not read as under the title above them
	for _, want := range []string{"**Write-ahead log — Checkpoints** [1]\n- ", "\n\n**Automatic checkpoints** [2]\n- ", "\n\n**Locking** [3]\n- "} {
		if !strings.Contains(out.Body, want) {
			t.Errorf("body lacks the label %q:\n%s", want, out.Body)
		}
	}
	for _, bad := range []string{"SQLite docs", "- **"} {
		if strings.Contains(out.Body, bad) {
			t.Errorf("body holds %q:\n%s", bad, out.Body)
		}
	}
	// sections of one page: the page's title is the page's, not a site's name, and stays
	onePage := slices.Clone(sources[:2])
	onePage = append(onePage, src(3, "https://sqlite.example/wal.html#read", "SQLite docs — Write-ahead log > Readers", "A checkpoint cannot finish while a reader still uses the old content of the log."))
	if out := Answer(AnswerInput{Question: "When does a write-ahead log checkpoint run?", Sources: onePage}); !strings.Contains(out.Body, "**SQLite docs — Write-ahead log — Checkpoints** [1]") {
		t.Errorf("the page's title was dropped:\n%s", out.Body)
	}
	// no title names the question: no labels
	out = Answer(AnswerInput{Question: "How often does the log restart for readers?", Sources: sources[2:]})
	if strings.Contains(out.Body, "**") || !strings.Contains(out.Body, "- A checkpoint needs every reader") {
		t.Errorf("labels where no title names the question, or the finding lost:\n%s", out.Body)
	}
}

// titleTerms is each source's title terms by the lexicon's numbers, as Answer reads them for
// a question naming no qualified name.
func titleTerms(sources []research.Source) [][]int32 {
	out := make([][]int32, len(sources))
	for i, s := range sources {
		out[i] = intern(text.Terms(s.Title))
	}
	return out
}

func TestAnswerQuotesTheSentenceBetweenTwoQuotedOnes(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Checkpoints"}, Text: "A checkpoint copies the WAL content back into the database file. By default a checkpoint runs when the WAL reaches 1000 pages."},
		{N: 2, Result: search.Result{Title: "WAL mode"}, Text: "Readers keep reading the old pages of the WAL during a checkpoint. A checkpoint copies the WAL content back into the database file again. Writers append new pages to the WAL while a checkpoint runs."},
	}
	out := Answer(AnswerInput{Question: "How does a checkpoint of the WAL work?", Sources: sources})
	// the middle sentence of source 2 repeats source 1's; quoted alone it would be left out,
	// but between two quoted sentences it keeps the quote whole
	want := "Readers keep reading the old pages of the WAL during a checkpoint. A checkpoint copies the WAL content back into the database file again. Writers append new pages to the WAL while a checkpoint runs."
	if !strings.Contains(out.Body, want) {
		t.Errorf("body does not quote source 2 whole in one quote:\n%s", out.Body)
	}
	if n := strings.Count(out.Body, "A checkpoint copies the WAL content back into the database file"); n != 2 {
		t.Errorf("the repeated sentence is quoted %d times, want 2 (once alone, once inside source 2's quote):\n%s", n, out.Body)
	}
}
