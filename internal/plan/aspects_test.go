package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/text"
)

// fakeVocab is a corpus's document frequencies by stem.
type fakeVocab struct {
	df   map[string]int
	docs int
}

func (v fakeVocab) DocFreq(stems []string) (map[string]int, int, error) {
	out := map[string]int{}
	for _, s := range stems {
		out[s] = v.df[s]
	}
	return out, v.docs, nil
}

func TestSplitAspects(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"What does the memory model guarantee for race-free programs, and what counts as a data race?",
			[]string{"What does the memory model guarantee for race-free programs", "what counts as a data race"}},
		{"How do sends, receives and close synchronize goroutines?", []string{"How do sends, receives and close synchronize goroutines"}},
		{"How should I split memory between cache and sorting; which settings matter?",
			[]string{"How should I split memory between cache and sorting", "which settings matter"}},
		{"Why is my build slow? How can I cache test results?", []string{"Why is my build slow", "How can I cache test results"}},
		{"Explain WAL mode, how checkpoints work and whether readers block writers.",
			[]string{"Explain WAL mode", "how checkpoints work", "whether readers block writers"}},
		{"why?", []string{"why?"}},
		// "between ... and what" is one thing asked
		{"How should I divide memory between caching data and what each query gets for sorting, and what else should I adjust?",
			[]string{"How should I divide memory between caching data and what each query gets for sorting", "what else should I adjust"}},
		{"What sits between the cache and the disk, and how is it flushed?", []string{"What sits between the cache and the disk", "how is it flushed"}},
	} {
		if got := SplitAspects(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("SplitAspects(%q)\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
}

func TestAspectPlanUsesCorpusIDF(t *testing.T) {
	v := fakeVocab{docs: 1000, df: map[string]int{
		"divid": 3, "server": 40, "memori": 300, "page": 500, "cach": 80, "sort": 30, "oper": 400,
		"set": 200, "matter": 20, "chang": 100,
	}}
	q := "How should I divide server memory between the page cache and sort operations; which settings matter?"
	queries, aspects := AspectPlan(q, v)
	if len(aspects) != 2 {
		t.Fatalf("aspects %+v", aspects)
	}
	if len(queries) != 3 {
		t.Fatalf("queries %q: want the whole question, then one per aspect", queries)
	}
	if !strings.Contains(queries[0], "divide") || !strings.Contains(queries[0], "settings") {
		t.Errorf("first query %q should keep every question term the corpus holds", queries[0])
	}
	if !strings.Contains(queries[0], "memory") {
		t.Errorf("the key noun is missing from %q", queries[0])
	}
	// without a vocabulary too: the whole question, then one query per aspect
	noVocab, _ := AspectPlan(q, nil)
	if len(noVocab) != 3 {
		t.Errorf("queries without a vocabulary %q: want the whole question, then one per aspect", noVocab)
	}
	var aspectQueries []string
	for _, a := range aspects {
		aspectQueries = append(aspectQueries, a.Query)
	}
	for _, qq := range append(append(queries, noVocab...), aspectQueries...) {
		if strings.Contains(qq, "between") || strings.Contains(qq, "should") {
			t.Errorf("stray word in %q", qq)
		}
		if SameAsQuestion(qq, q) {
			t.Errorf("raw question as query")
		}
	}
	for i := range aspectQueries {
		for j := i + 1; j < len(aspectQueries); j++ {
			if termOverlap(Terms(aspectQueries[i]), Terms(aspectQueries[j])) >= nearDuplicate {
				t.Errorf("near-duplicate aspect queries %q and %q", aspectQueries[i], aspectQueries[j])
			}
		}
	}
	// a word the corpus lacks is dropped
	queries, aspects = AspectPlan("What changed yesterday in the page cache sort?", v)
	for _, a := range aspects {
		queries = append(queries, a.Query)
	}
	for _, qq := range queries {
		if strings.Contains(qq, "yesterday") {
			t.Errorf("query %q holds a word the corpus lacks", qq)
		}
	}
}

// The feedback query keeps the question terms the passages most like the question hold (its
// subject, not its rare filler words) and adds the word those passages share.
func TestFeedbackQueryKeepsTheSubjectAndAddsTheSharedWord(t *testing.T) {
	v := fakeVocab{docs: 1000, df: map[string]int{"databas": 500, "file": 300, "stai": 15, "big": 12, "delet": 90,
		"row": 200, "vacuum": 40, "rebuild": 30, "free": 60, "page": 250, "releas": 50, "histori": 40, "fix": 100,
		"journal": 80, "commit": 90, "space": 70, "shrink": 25, "disk": 60, "minim": 30, "amount": 80, "truncat": 20}}
	question := "Why does my database file stay big after I delete rows?"
	evidence := []string{
		"VACUUM. VACUUM rebuilds the database file, repacking it into a minimal amount of disk space; deleted rows leave free pages.",
		"Pragma statements — auto_vacuum. With auto_vacuum, free pages of deleted rows are moved to the end of the database file, which shrinks.",
		"FAQ — Why does the file not shrink. When you delete rows the database file keeps its size until you run VACUUM.",
		"Release History. Fixed a big bug where the journal could stay open after a commit.",
	}
	previous := []string{"database file stay big delete rows"}
	q := FeedbackQuery(question, nil, evidence, previous, v)
	if !strings.Contains(strings.ToLower(q), "vacuum") {
		t.Errorf("feedback query %q lacks the word the relevant passages share", q)
	}
	for _, filler := range []string{"big", "stay"} {
		if strings.Contains(q, filler) {
			t.Errorf("feedback query %q leans on the filler word %q, not the subject", q, filler)
		}
	}
	if NearDuplicate(q, previous) || SameAsQuestion(q, question) {
		t.Errorf("feedback query %q repeats an earlier one", q)
	}
	// the next feedback query asks new words and leans on other terms of the question
	next := FeedbackQuery(question, nil, evidence, append(previous, q), v)
	if next == "" || NearDuplicate(next, append(previous, q)) || strings.Contains(strings.ToLower(next), "vacuum") {
		t.Errorf("second feedback query %q after %q should ask new words", next, q)
	}
}

func TestAspectCoverage(t *testing.T) {
	cov := AspectCoverage([]Aspect{{Text: "page cache size"}, {Text: "sort memory limit"}},
		[]string{"The page cache holds 2000 pages; its size is set per connection.", "Sorting spills to disk."})
	if cov[0] != 1 || cov[1] != 0 {
		t.Errorf("coverage = %v, want [1 0]", cov)
	}
	// terms scattered over texts that each answer something else are not an answer
	cov = AspectCoverage([]Aspect{{Text: "keep images and stylesheets for a month, compressed"}},
		[]string{"Keep other sites from using your images inline.", "Rotate the log every month; old logs are compressed.", "Stylesheets are static files."})
	if cov[0] != 0.4 {
		t.Errorf("scattered coverage = %v, want [0.4] (two of five terms in one text)", cov)
	}
	// a qualified name is covered by a text writing it bare, as documentation does
	cov = AspectCoverage([]Aspect{{Text: "how does sync.Once order initialization"}},
		[]string{"Initialization runs once: the completion of the single call of f() from once.Do(f) is ordered before any once.Do(f) returns."})
	if cov[0] != 1 {
		t.Errorf("coverage of an aspect naming sync.Once = %v, want [1]", cov)
	}
}

// The index splits identifiers into their parts: "sync.Mutex" is in the corpus when "sync" and
// "mutex" are, and the planner must not drop the question's key identifiers as unknown words.
func TestAspectPlanKeepsIdentifiersTheIndexSplits(t *testing.T) {
	v := fakeVocab{docs: 1000, df: map[string]int{"sync": 40, "mutex": 12, "onc": 30, "order": 300, "memori": 200,
		"oper": 400, "accord": 90, "go": 900, "model": 150}}
	queries, _ := AspectPlan("How do sync.Mutex and sync.Once order memory operations according to the Go memory model?", v)
	if len(queries) == 0 || !strings.Contains(queries[0], "sync.Mutex") || !strings.Contains(queries[0], "sync.Once") {
		t.Fatalf("queries %q lost the identifiers", queries)
	}
}

// A word several passages about the question share is a better lead than one passage's rare
// identifier (the gap queries used to read "avoid later turns trigram op_seekscan").
func TestFeedbackPrefersWordsPassagesShare(t *testing.T) {
	aspects := []Aspect{{Text: "how do transactions avoid the locked error"}}
	evidence := []string{
		"Transactions that hit a locked database wait on the busy timeout before the error is returned.",
		"A transaction retries while the database is locked, up to the busy timeout.",
		"Transactions, locked transactions, errors and avoided errors: the trigram tokenizer and op_seekscan opcode.",
	}
	// the corpus knows the rare words as rare, so idf alone favours them
	v := fakeVocab{docs: 1000, df: map[string]int{"transact": 80, "avoid": 200, "lock": 60, "error": 300, "busi": 40,
		"timeout": 30, "trigram": 2, "op_seekscan": 1, "wait": 150, "return": 400, "retri": 50, "databas": 500,
		"tokenize": 3, "opcod": 5, "unrel": 20, "intern": 60}}
	q := FeedbackQuery("How do transactions avoid the locked error?", aspects, evidence, []string{"transactions avoid locked error"}, v)
	if !strings.Contains(q, "busy") && !strings.Contains(q, "timeout") {
		t.Errorf("feedback query %q does not take the shared lead (busy timeout)", q)
	}
	for _, rare := range []string{"trigram", "op_seekscan"} {
		if strings.Contains(q, rare) {
			t.Errorf("feedback query %q takes one passage's rare word %q", q, rare)
		}
	}
}

// Identifiers several passages share (a column, a build flag, a check-in hash) are no lead for a
// question in words; a question that names one itself may get them.
func TestFeedbackTakesIdentifiersOnlyForCodeQuestions(t *testing.T) {
	v := fakeVocab{docs: 1000, df: map[string]int{"connect": 300, "share": 100, "thread": 80, "mutex": 40,
		"serial": 30, "sqlite": 900, "threadsaf": 4, "sqlite3": 400, "mode": 200, "config": 50}}
	evidence := []string{
		"Threads — Serialized mode. In serialized mode a connection may be shared by threads; the mutex guards it. SQLITE_THREADSAFE=1.",
		"Compile-time options — Threads. SQLITE_THREADSAFE sets the threading mode; serialized mode uses a mutex per connection.",
		"Configuration. sqlite3_config sets the threading mode (SQLITE_THREADSAFE), serialized or multi-thread, before a connection is shared.",
	}
	q := FeedbackQuery("Can threads share one connection?", nil, evidence, []string{"threads share connection"}, v)
	if !strings.Contains(q, "serialized") && !strings.Contains(q, "mutex") {
		t.Errorf("feedback query %q lacks the shared word", q)
	}
	if strings.Contains(strings.ToLower(q), "sqlite_threadsafe") || strings.Contains(q, "sqlite3_config") {
		t.Errorf("feedback query %q adds an identifier to a question in words", q)
	}
	for w, want := range map[string]bool{"sqlite_threadsafe": true, "f68dc596c4e6018d": true, "fts5": true,
		"serialized": false, "0.1": false, "utf-8": false} {
		if isIdentifier(w) != want {
			t.Errorf("isIdentifier(%q) = %v", w, !want)
		}
	}
}

// headingVocab is a fakeVocab that also knows which stems titles and headings use.
type headingVocab struct {
	fakeVocab
	hf map[string]int
}

func (v headingVocab) HeadingFreq(stems []string) (map[string]int, error) {
	out := map[string]int{}
	for _, s := range stems {
		out[s] = v.hf[s]
	}
	return out, nil
}

// A question's everyday words can be rarer in the corpus than its subject; when the corpus
// tells which words its headings use, an aspect query keeps the subject over the rare filler.
func TestAspectQueriesPreferTheCorpusTopicWords(t *testing.T) {
	df := map[string]int{"nightli": 4, "accident": 9, "someon": 8, "bring": 6, "backup": 40, "restor": 50,
		"delet": 60, "data": 300, "state": 70, "product": 30, "databas": 400, "need": 200, "option": 300, "work": 200}
	q := "I need nightly backups of our production database and I want to bring it back to the state before someone accidentally deleted data"
	plain, _ := AspectPlan(q, fakeVocab{docs: 1000, df: df})
	topic, _ := AspectPlan(q, headingVocab{fakeVocab{docs: 1000, df: df},
		map[string]int{"backup": 12, "restor": 9, "delet": 5, "databas": 30, "data": 20, "option": 40}})
	if len(plain) < 2 || len(topic) < 2 {
		t.Fatalf("queries %q / %q: want the whole question and its strongest terms", plain, topic)
	}
	if strings.Contains(plain[1], "deleted") || !strings.Contains(plain[1], "production") {
		t.Fatalf("by idf alone the rare filler word wins: %q (the comparison is real)", plain[1])
	}
	if !strings.Contains(topic[1], "backups") || !strings.Contains(topic[1], "deleted") || strings.Contains(topic[1], "production") {
		t.Errorf("strongest-terms query %q should hold the subject the corpus's headings name over the filler", topic[1])
	}
	if plain[0] != topic[0] {
		t.Errorf("the whole-question query changed: %q -> %q", plain[0], topic[0])
	}
}

// A long question's first query is still the whole question: a search box would search every
// word, and the corpus's common words ("index", "query") are the ones its rare everyday words
// ("dashboard", "Jonathan") would crowd out of a query of the rarest terms.
func TestAspectPlanFirstQueryKeepsEveryKnownTermOfALongQuestion(t *testing.T) {
	q := "Our nightly dashboard query scans a huge table and the planner ignores the index we built on the customer name column, " +
		"although someone named Jonathan Smith told us lookups by name prefix should use it; why does the planner choose a sequential scan instead, " +
		"and which statistics or settings change that choice?"
	df := map[string]int{}
	for i, t := range Terms(q) {
		df[text.Stem(strings.ToLower(t))] = 5 + 30*i // every term known, later ones more common
	}
	for _, w := range []string{"index", "query", "table"} {
		df[text.Stem(w)] = 990 // the corpus's own, very common words
	}
	queries, _ := AspectPlan(q, fakeVocab{df: df, docs: 1000})
	if len(queries) == 0 {
		t.Fatal("no queries")
	}
	first := strings.Fields(queries[0])
	for _, w := range Terms(q) {
		if !slices.Contains(first, w) {
			t.Errorf("first query %q lacks %q", queries[0], w)
		}
	}
}
