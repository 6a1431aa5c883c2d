package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/text"
)

// A question that spells as two words what the documents spell as one ("auto-incrementing",
// "AUTOINCREMENT") still finds the page that uses the one word, over a page that shares only a
// part of it ("auto-vacuum") and that the searches ranked higher.
func TestAnswerJoinsCompoundsTheEvidenceUses(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Pragmas — auto_vacuum"}, Text: "Query or set the auto-vacuum status in the database. When auto-vacuum is enabled, free pages move to the end of the file and the file is truncated at every commit, which the auto mode does for you."},
		{N: 2, Result: search.Result{Title: "Keyword summary"}, Text: "The AUTOINCREMENT keyword imposes extra CPU, memory, disk space, and disk I/O overhead and should be avoided if not strictly needed."},
		{N: 3, Result: search.Result{Title: "Create Table"}, Text: "A column declared INTEGER PRIMARY KEY with AUTOINCREMENT never reuses a rowid of a deleted row."},
	}
	out := Answer(AnswerInput{
		Question: "Do I need auto-incrementing ids?",
		Sources:  sources,
		Budget:   200,
		Prior:    []float64{1, 0.4, 0.3},
	})
	if !strings.Contains(out.Body, "The AUTOINCREMENT keyword imposes extra CPU") {
		t.Errorf("the budget of one passage went elsewhere:\n%s", out.Body)
	}
}

// A question naming a qualified name ("sync.Once") finds the passage that names it bare, as
// documentation does once the package is clear ("the Once type", "once.Do(f)"), over one the
// searches ranked higher that names only the package.
func TestAnswerReadsAQualifiedNameWrittenBare(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "The Go Memory Model — Synchronization > Locks"}, Text: "The sync package implements two lock data types, sync.Mutex and sync.RWMutex. For any sync.Mutex variable l, call n of l.Unlock() is synchronized before call m of l.Lock() returns."},
		{N: 2, Result: search.Result{Title: "The Go Memory Model — Synchronization > Once"}, Text: "The sync package provides a safe mechanism for initialization in the presence of multiple goroutines through the use of the Once type. The completion of a single call of f() from once.Do(f) is synchronized before the return of any call of once.Do(f)."},
		{N: 3, Result: search.Result{Title: "The Go Memory Model — Synchronization > Atomic Values"}, Text: "The APIs in the sync/atomic package are collectively atomic operations that can be used to synchronize the execution of different goroutines."},
	}
	out := Answer(AnswerInput{
		Question: "What does sync.Once guarantee?",
		Sources:  sources,
		Budget:   260,
		Prior:    []float64{1, 0.6, 0.8},
	})
	if !strings.Contains(out.Body, "through the use of the Once type") {
		t.Errorf("the passage on the Once type was left out:\n%s", out.Body)
	}
}

// A long passage is quoted by its gist, up to the passage quota, so that the budget reaches
// further passages; the sentence naming the question's subject is among those kept.
func TestAnswerQuotesALongPassageByItsGist(t *testing.T) {
	var b strings.Builder
	for i := range 80 {
		fmt.Fprintf(&b, "Frame %d of the write-ahead log records salt %d and checksum %d. ", i, 3*i+1, 7*i+2)
		if i == 17 {
			b.WriteString("The checkpoint runs when the write-ahead log reaches 1000 pages by default. ")
		}
	}
	second := "A checkpoint can also be run by hand with the wal_checkpoint pragma."
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Write-ahead log internals"}, Text: b.String()},
		{N: 2, Result: search.Result{Title: "Checkpoints"}, Text: second},
	}
	out := Answer(AnswerInput{Question: "When does the write-ahead log checkpoint run?", Sources: sources, Prior: []float64{1, 0.5}})
	if !strings.Contains(out.Body, "reaches 1000 pages by default") {
		t.Errorf("the passage's gist was left out:\n%s", out.Body)
	}
	quoted := 0
	for _, q := range out.Quotes[1] {
		quoted += len(q)
	}
	if quota := passageQuota(0, DefaultFindingsBudget); quoted > quota || quoted == 0 || quoted > len(b.String())*3/4 {
		t.Errorf("quoted %d of the long passage's %d characters; the quota is %d", quoted, len(b.String()), quota)
	}
	if !strings.Contains(out.Body, second) {
		t.Errorf("the second passage did not get the budget the first left:\n%s", out.Body)
	}
}

func TestPassageQuota(t *testing.T) {
	for _, c := range []struct{ i, budget, want int }{
		{0, 8000, 2500}, {1, 8000, 1923}, {5, 8000, 1000}, {10, 8000, 625}, {17, 8000, 409}, {30, 8000, 400},
		// the quotas scale with the budget: a small budget is not spent on two passages
		{0, 4000, 1250}, {30, 4000, 200}, {0, 16000, 5000}, {1, 16000, 3846},
	} {
		if got := passageQuota(c.i, c.budget); got != c.want {
			t.Errorf("passageQuota(%d, %d) = %d, want %d", c.i, c.budget, got, c.want)
		}
	}
}

func TestRoundWeights(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []float64
	}{
		{0, []float64{}},
		{1, []float64{3}},
		{5, []float64{3, 1.5, 1, 0.75, 0.6}},
	} {
		got := RoundWeights(c.n)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("RoundWeights(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// Two statements on one topic that share most words still say different things: a word one of
// them repeats does not make them repeats of each other.
func TestAnswerKeepsStatementsThatShareWords(t *testing.T) {
	sources := []research.Source{{N: 1, Result: search.Result{Title: "Close"}, Text: "For a channel ch, the built-in function close(ch) records that no more values will be sent on the channel. " +
		"Sending to or closing a closed channel causes a run-time panic. Closing the nil channel also causes a run-time panic."}}
	out := Answer(AnswerInput{Question: "What happens when a Go program closes a channel?", Sources: sources})
	for _, want := range []string{"Sending to or closing a closed channel causes a run-time panic.", "Closing the nil channel also causes a run-time panic."} {
		if !strings.Contains(out.Body, want) {
			t.Errorf("lacks %q:\n%s", want, out.Body)
		}
	}
}

// Two statements with the same words in another order are two facts ("a send is synchronized
// before the receive", "a receive is synchronized before the send"), while a line of data
// reordered is the same records.
func TestAnswerKeepsStatementsThatSwapTheirWords(t *testing.T) {
	sources := []research.Source{{N: 1, Result: search.Result{Title: "Channel communication"}, Text: "A send on a channel is synchronized before the completion of the corresponding receive from that channel.\n\n" +
		"A receive from an unbuffered channel is synchronized before the completion of the corresponding send on that channel.\n\n" +
		"The channel records are sorted by age.\n\n[('john', 'A', 15), ('jane', 'B', 12), ('dave', 'B', 10)]\n\n" +
		"Then the channel records are sorted the other way.\n\n[('dave', 'B', 10), ('jane', 'B', 12), ('john', 'A', 15)]"}}
	out := Answer(AnswerInput{Question: "How do channel sends and receives synchronize, and what do the records read?", Sources: sources})
	for _, want := range []string{"A send on a channel is synchronized", "A receive from an unbuffered channel is synchronized"} {
		if !strings.Contains(out.Body, want) {
			t.Errorf("lacks %q:\n%s", want, out.Body)
		}
	}
	if strings.Contains(out.Body, "('john', 'A', 15)") && strings.Contains(out.Body, "('dave', 'B', 10), ('jane'") {
		t.Errorf("quotes the records twice:\n%s", out.Body)
	}
	for _, c := range []struct {
		s     string
		prose bool
	}{
		{"A send on a channel is synchronized before the completion of the corresponding receive.", true},
		{"[('dave', 'B', 10), ('jane', 'B', 12), ('john', 'A', 15)]", false},
		{"var c = make(chan int, 10)", false},
		{"True if an item of s is equal to x, else False", true},
	} {
		if got := isProse(c.s); got != c.prose {
			t.Errorf("isProse(%q) = %v, want %v", c.s, got, c.prose)
		}
	}
}

// A line of a code block of several says nothing on its own ("var c = make(chan int, 10)" of a
// program), while a statement that is the example whole ("ATTACH DATABASE ...") may be the
// answer.
func TestAnswerQuotesNoLoneLineOfACodeBlock(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Channel communication"}, Text: "A buffered channel holds values until they are received.\n\n" +
			"This program:\n\nvar c = make(chan int, 10)\nvar a string\n\nfunc f() {\n\ta = \"hello, world\"\n\tc <- 0\n}\n\nis guaranteed to print \"hello, world\"."},
		{N: 2, Result: search.Result{Title: "In-memory databases"}, Text: "A database can live in memory only.\n\nAttach it like so.\n\nATTACH DATABASE 'file::memory:' AS aux1;\n\nThe database is gone when the connection closes."},
	}
	out := Answer(AnswerInput{Question: "How do I make a buffered chan int, and attach a database in memory?", Sources: sources})
	if strings.Contains(out.Body, "var c = make(chan int, 10)") {
		t.Errorf("quotes a line of a program alone:\n%s", out.Body)
	}
	if !strings.Contains(out.Body, "ATTACH DATABASE 'file::memory:' AS aux1;") {
		t.Errorf("lost the one-statement example:\n%s", out.Body)
	}
	body := "Intro.\n\nvar c = make(chan int)\nvar a string\n\nATTACH x;\n\n\tc <- 0\n}\n\nsay x; and more"
	for _, c := range []struct {
		line string
		want bool
	}{
		{"var c = make(chan int)", true}, // a line after it
		{"var a string", true},           // a line before it
		{"c <- 0", true},                 // indented, a line after it
		{"ATTACH x;", false},             // its paragraph whole
		{"say x;", false},                // not a line of its own
		{"absent", false},
	} {
		if got := inBlock(body, c.line); got != c.want {
			t.Errorf("inBlock(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// A line without the small words of prose (a list of names, a table row) is a weaker quote
// than a sentence.
func TestSentenceQualityDiscountsLinesWithoutProse(t *testing.T) {
	for _, c := range []struct {
		s    string
		weak bool
	}{
		{"Mark Shannon, Dong-hee Na, Brandt Bucher, Dennis Sweeney", true},
		{"binary add multiply subtract int float str", true},
		{"Binary add, multiply and subtract for common types take custom fast paths.", false},
		{"The default maxsize is 128.", false},
	} {
		q := sentenceQuality(c.s, strings.Fields(strings.ToLower(c.s)))
		if weak := q <= 0.5; weak != c.weak {
			t.Errorf("sentenceQuality(%q) = %.2f, want weak %v", c.s, q, c.weak)
		}
	}
}

// When the corpus tells which words its titles and headings use, a passage that matches the
// question's subject ("backup") outranks one that matches only its rarer everyday words
// ("someone accidentally"); without that vocabulary the everyday words win, as idf says.
func TestAnswerWeighsTheCorpusTopicWordsOverEverydayOnes(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Crash reports"}, Text: "Someone accidentally reported a crash in the statistics collector."},
		{N: 2, Result: search.Result{Title: "Continuous archiving"}, Text: "A base backup is what you restore the cluster from."},
		{N: 3, Result: search.Result{Title: "File system level"}, Text: "Taking a backup of the data directory needs the server stopped."},
		{N: 4, Result: search.Result{Title: "Dump programs"}, Text: "To restore a dump, feed it to the interactive terminal."},
	}
	question := "How do I restore a backup after someone accidentally broke the database?"
	in := AnswerInput{Question: question, Sources: sources, Budget: 80, Prior: []float64{1, 1, 1, 1}}
	plain := Answer(in)
	if !strings.Contains(plain.Body, "Someone accidentally reported") {
		t.Fatalf("without the corpus's vocabulary the rare everyday words should win (the comparison is real):\n%s", plain.Body)
	}
	in.Topical = func(stems []string) map[string]bool {
		out := map[string]bool{}
		for _, s := range stems {
			out[s] = s == text.Stem("backup") || s == text.Stem("restore") || s == text.Stem("database")
		}
		return out
	}
	topic := Answer(in)
	if strings.Contains(topic.Body, "Someone accidentally reported") || !strings.Contains(topic.Body, "A base backup is what you restore") {
		t.Errorf("the everyday words still won over the subject:\n%s", topic.Body)
	}
}

func TestTopicScale(t *testing.T) {
	weights := map[string]float64{"backup": 2, "someon": 3, "sync.mutex": 3, "0.1": 3}
	v := newCallVocab()
	defer v.release()
	idf := idfTable{}
	for w, x := range weights {
		v.add(intern([]string{w})[0])
		idf.w = append(idf.w, x)
	}
	titled := func([]string) map[string]bool { return map[string]bool{"backup": true} }
	none := func([]string) map[string]bool { return nil }
	for _, tc := range []struct {
		name    string
		topical func([]string) map[string]bool
		term    string
		want    float64
	}{
		{"no vocabulary", nil, "someon", 1},
		{"a vocabulary that knows no term", none, "someon", 1},
		{"a heading word", titled, "backup", 1},
		{"an everyday word", titled, "someon", untitledWeight},
		{"an identifier", titled, "sync.mutex", 1},
		{"a bare number", titled, "0.1", untitledWeight},
	} {
		scale := topicScale(tc.topical, idf, v)
		if got := scale.of(tc.term); got != tc.want {
			t.Errorf("%s: scale(%q) = %v, want %v", tc.name, tc.term, got, tc.want)
		}
		if got := scale.local[v.of(intern([]string{tc.term})[0])]; got != tc.want {
			t.Errorf("%s: the evidence's scale of %q = %v, want %v", tc.name, tc.term, got, tc.want)
		}
	}
}

func TestIsReleaseNotes(t *testing.T) {
	for title, want := range map[string]bool{
		"E.10. Release 15.11 — E.10.2. Changes":                   true,
		"What’s New In Python 3.11 — Python 3.11.2 documentation": true,
		"What's new in 2.4":                                              true,
		"Release 3.45.0 On 2024-01-15":                                   true,
		"SQLite Release 3.40.1 On 2022-12-28":                            true,
		"SQLite Changes From Version 3.4.2 To 3.5.0":                     true,
		"Release History Of SQLite":                                      true,
		"History Of SQLite Releases":                                     true,
		"SQLite Older News":                                              true,
		"Recent SQLite News":                                             true,
		"Change in Default Page Size in SQLite Version 3.12.0":           false,
		"File Format Changes in SQLite":                                  false,
		"Data Change Notification Callbacks":                             false,
		"Release Notes":                                                  true,
		"Changelog":                                                      true,
		"Changes in version 2.4":                                         true,
		"RELEASE SAVEPOINT":                                              false,
		"Continuous Archiving and Point-in-Time Recovery (PITR)":         false,
		"Explicit Locking — 13.3.2. Row-Level Locks":                     false,
		"What is new about the event MPM? (not a release page, but new)": false,
	} {
		if got := IsReleaseNotes(title); got != want {
			t.Errorf("IsReleaseNotes(%q) = %v, want %v", title, got, want)
		}
	}
}

// Of two passages that answer alike and rank alike, the manual's comes before the release
// note's, unless the question asks about versions.
func TestAnswerWeighsReleaseNotesLessUnlessAskedAboutVersions(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "E.4. Release 15.17 — E.4.2. Changes"}, Text: "Fix a crash after a deadlock on a busy standby server."},
		{N: 2, Result: search.Result{Title: "Concurrency Control — 13.3.4"}, Text: "A deadlock is when two transactions each hold a lock the other wants."},
	}
	manualFirst := func(q string) bool {
		body := Answer(AnswerInput{Question: q, Sources: sources, Budget: 300, Prior: []float64{1, 0.95}}).Body
		m, r := strings.Index(body, "two transactions"), strings.Index(body, "Fix a crash")
		if m < 0 || r < 0 {
			t.Fatalf("%q: both passages should be quoted:\n%s", q, body)
		}
		return m < r
	}
	if !manualFirst("Why does a deadlock happen?") {
		t.Error("the release note came before the manual")
	}
	if manualFirst("Which release fixed a deadlock?") {
		t.Error("a question about releases put the manual before the release note")
	}
}

// A passage that uses the evidence's own vocabulary is nearer its centroid than one that shares
// only a word with the question.
func TestCentroidCosines(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "pg_dump"}, Text: "pg_dump writes a consistent dump of the database to an archive file."},
		{N: 2, Result: search.Result{Title: "pg_restore"}, Text: "pg_restore reads an archive file made by pg_dump and restores the database."},
		{N: 3, Result: search.Result{Title: "Dump formats"}, Text: "The custom archive format of pg_dump is compressed and lets pg_restore pick objects."},
		{N: 4, Result: search.Result{Title: "Dumping large databases"}, Text: "pg_dump can write the archive in parallel jobs and pg_restore reads it back the same way."},
		{N: 5, Result: search.Result{Title: "pg_dumpall"}, Text: "pg_dumpall writes every database of a cluster, roles included, to one script file."},
		{N: 6, Result: search.Result{Title: "Statistics"}, Text: "The statistics collector counts the rows each table returned since the server started."},
	}
	defer beginAnswer()()
	v := newCallVocab()
	defer v.release()
	cands := answerCandidates("How do I make a backup?", sources, parseSources(sources), nil, v)
	titles := localize(v, cands, titleTerms(sources))
	cos := centroidCosines(newSourceIndex(cands, sources, titles, v), v, newAsked(v, text.Terms("How do I make a backup?")), []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5})
	if cos[2] <= cos[5] {
		t.Errorf("the dump-format passage (%.2f) should be nearer the evidence than the statistics one (%.2f)", cos[2], cos[5])
	}
	if best := slices.Max(cos); best != 1 {
		t.Errorf("cosines are not scaled to the best source's: max %.2f", best)
	}
}

func TestPageSupport(t *testing.T) {
	src := func(url string) research.Source { return research.Source{Result: search.Result{URL: url}} }
	sources := []research.Source{src("file:///a.html#one"), src("file:///b.html#x"), src("file:///a.html#two"), src("file:///c.html")}
	got := pageSupport(sources, []float64{1, 1, 0.5, 0.25})
	want := []float64{1, 1 / 1.5, 1, 0.25 / 1.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("source %d: support %.3f, want %.3f", i, got[i], want[i])
		}
	}
	if got := pageSupport(sources, nil); got != nil {
		t.Errorf("without a prior: %v, want nil", got)
	}
}

// Of two passages the searches ranked alike, the one whose page the searches returned more
// of is quoted first.
func TestAnswerPrefersThePageTheSearchesReturnedMostOf(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{URL: "file:///misc.html#timeouts", Title: "Miscellaneous"}, Text: "The statement timeout aborts any statement waiting longer than the given time."},
		{N: 2, Result: search.Result{URL: "file:///locks.html#wait", Title: "Lock waits"}, Text: "The lock timeout aborts a wait for a lock that lasts longer than the given time."},
		{N: 3, Result: search.Result{URL: "file:///locks.html#deadlock", Title: "Lock waits"}, Text: "A deadlock check runs after a lock wait of one second."},
	}
	body := Answer(AnswerInput{Question: "How do I stop a statement from waiting forever?", Sources: sources, Budget: 400, Prior: []float64{1, 1, 1}}).Body
	m, l := strings.Index(body, "statement timeout aborts"), strings.Index(body, "lock timeout aborts")
	if l < 0 || (m >= 0 && m < l) {
		t.Errorf("the page with one hit came first:\n%s", body)
	}
}

// A passage that writes the aspect's words side by side, as the asker put them ("disk space"),
// outranks one that holds the same words apart; a pair of everyday words counts for nothing.
func TestAnswerPrefersThePassageThatWritesTheAskedPairTogether(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Journal files"}, Text: "Deleting the journal leaves space on the disk for other files of the database."},
		{N: 2, Result: search.Result{Title: "Vacuum"}, Text: "Rebuilding the database file gives its free disk space back to the system."},
	}
	in := AnswerInput{Question: "How do I get disk space back from a database file?", Sources: sources, Budget: 110, Prior: []float64{1, 0.8}}
	out := Answer(in)
	if !strings.Contains(out.Body, "free disk space back") || strings.Contains(out.Body, "Deleting the journal") {
		t.Errorf("the passage that says \"disk space\" should come first and fill the budget:\n%s", out.Body)
	}
}

func TestAdjacentPairs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][2]string
	}{
		{"free disk space back", [][2]string{{"free", "disk"}, {"disk", "space"}, {"space", "back"}}},
		{"order of memory operations", [][2]string{{"memori", "oper"}}},
		{"the disk", nil},
	} {
		got := adjacentPairs(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %v, want %v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: got %v, want %v", tc.in, got, tc.want)
				break
			}
		}
	}
}

// A title the question names in full scores most; one it names in part or not at all less, a
// one-word heading less than a two-word one, and a section number counts for nothing.
func TestNamedTitles(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "34.16. The Password File"}, Text: "The file can contain passwords to be used if the connection requires a password."},
		{N: 2, Result: search.Result{Title: "pg_dump — Description"}, Text: "pg_dump is a utility for backing up a database; it reads the password from the file."},
		{N: 3, Result: search.Result{Title: "21.5. Password Authentication"}, Text: "Authentication sends the password to the server."},
		{N: 4, Result: search.Result{Title: "Client Applications — Files"}, Text: "The client reads its settings from a file in the home directory."},
	}
	got, top := namedTitlesFor("Our backup scripts type the password in plain text: where can the client read it from instead, and what must that file look like?", sources)
	if got[0] == 0 || top != got[0] {
		t.Errorf("the title the question names in full scores %.2f, want the largest (%.2f)", got[0], top)
	}
	if got[1] != 0 {
		t.Errorf("a title the question does not name scores %.2f, want 0", got[1])
	}
	if got[2] >= got[0] {
		t.Errorf("the title the question names in part (%.2f) should score below the one it names in full (%.2f)", got[2], got[0])
	}
	if !(got[3] > 0 && got[3] < got[0]) {
		t.Errorf("the one-word heading the question names (%.2f) should score above 0 and below the two-word one (%.2f)", got[3], got[0])
	}
}

// Of sections the searches ranked alike, the one the question names in full is quoted first,
// though others share more of the question's situation words.
func TestAnswerPrefersTheSectionTheQuestionNames(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "pg_dump — Description"}, Text: "pg_dump makes a backup of the database; scripts can run it nightly."},
		{N: 2, Result: search.Result{Title: "34.16. The Password File"}, Text: "Each line holds hostname:port:database:username:password; on Unix the file must not be readable by others."},
	}
	in := AnswerInput{Question: "Our nightly backup scripts run by cron put the database password in the shell. Where else can it come from, and what does that file look like?", Sources: sources, Budget: 160, Prior: []float64{1, 1}}
	body := Answer(in).Body
	p, d := strings.Index(body, "hostname:port"), strings.Index(body, "pg_dump makes")
	if p < 0 || (d >= 0 && d < p) {
		t.Errorf("the section the question names should come first:\n%s", body)
	}
}

// Every part of a title counts, not only its first and last: a Python module page's title
// opens with the module's name and describes it in its second part.
func TestNamedTitlesReadsEveryPartOfATitle(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "zoneinfo — IANA time zone support — Data sources"}, Text: "The zoneinfo module reads time zone data from the system or from the tzdata package."},
		{N: 2, Result: search.Result{Title: "calendar — General calendar-related functions"}, Text: "The calendar module prints the calendar of a month or a whole year."},
	}
	got, _ := namedTitlesFor("How do I attach a time zone to the current time?", sources)
	if got[0] == 0 || got[1] != 0 {
		t.Errorf("named %.2f and %.2f, want the page whose description the question names above 0 and the other 0", got[0], got[1])
	}
}

// namedTitlesFor is namedTitles over sources for question, weighed as an answer weighs them.
func namedTitlesFor(question string, sources []research.Source) ([]float64, float64) {
	defer beginAnswer()()
	v := newCallVocab()
	defer v.release()
	cands := answerCandidates(question, sources, parseSources(sources), nil, v)
	localize(v, cands, titleTerms(sources))
	idf := sentenceIDF(cands, v)
	return namedTitles(sources, newAsked(v, text.Terms(question)), idf, missingWeight(idf), v)
}

// A passage only a later round found (an aspect's or feedback query's) weighs less when the
// answer picks passages: matching the aspect's words one for one ("file", "look like") does not
// put it before the passage the whole question's search found.
func TestAnswerWeighsLaterRoundsLess(t *testing.T) {
	file := src(1, "The Password File", "The file .pgpass in a user's home directory can contain passwords to be used if the connection requires a password. Each line of the file has the format hostname:port:database:username:password.")
	other := src(2, "Extension files", "The control file of an extension should look like this example: each line of the file sets one parameter.")
	first := func(round int) int {
		other.Round = round
		file.Round = 1
		out := Answer(AnswerInput{Question: "What does the password file have to look like?", Sources: []research.Source{file, other}})
		return out.Order[0]
	}
	if n := first(1); n != 2 {
		t.Fatalf("found by the first round, the control file's passage should be quoted first (matching every word), got source %d", n)
	}
	if n := first(2); n != 1 {
		t.Errorf("found only by round 2, the control file's passage is still quoted before the password file's")
	}
}
