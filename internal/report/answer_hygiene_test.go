package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

func src(n int, title, text string) research.Source {
	return research.Source{N: n, Result: search.Result{Title: title, URL: "https://example.org/" + title}, Text: text}
}

// What the answer must never quote, whatever it ranks first: site chrome, a source's own
// footnote markers, a repeat of a sentence it already quoted, headings, questions, and sources
// that share nothing with the question.
func TestAnswerQuotesOnlyFindings(t *testing.T) {
	sources := []research.Source{
		src(1, "Saturation gates", "# Saturation gates\n\nAccept all cookies to continue reading this page today.\n\n"+
			"Does a gate ever stop too early?\n\nA saturation gate stops searching when novelty falls below a threshold.[12] "+
			"The threshold for novelty is usually set near three points per round. This page last modified on 2022-06-24 16:56:23 UTC"),
		src(2, "Copy", "A saturation gate stops searching when novelty falls below a threshold."),
		src(3, "Release notes", "Release notes should be added to the next directory. Ask the author to add a file to the change list."),
		src(4, "Menu", "Home\nMenu"),
	}
	out := Answer(AnswerInput{Question: "When does a saturation gate stop on its novelty threshold?", Sources: sources})
	body := out.Body
	for _, bad := range []string{"cookies", "[12]", "# Saturation", "stop too early?", "Release notes", "Menu", "last modified"} {
		if strings.Contains(body, bad) {
			t.Errorf("quoted %q:\n%s", bad, body)
		}
	}
	if strings.Count(body, "stops searching when novelty falls") != 1 {
		t.Errorf("a sentence two sources share must be quoted once:\n%s", body)
	}
	if !strings.Contains(body, "The threshold for novelty is usually set near three points per round.") {
		t.Errorf("the finding is missing:\n%s", body)
	}
	// every quote is cited, and only sources it quotes are cited
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		if strings.HasPrefix(line, "- ") && !strings.HasSuffix(line, "[1]") && !strings.HasSuffix(line, "[2]") {
			t.Errorf("uncited or mis-cited quote %q", line)
		}
	}
	if len(out.Order) != 4 || out.Order[0] != 1 {
		t.Errorf("the quoted source comes first in the new numbering: order %v", out.Order)
	}
}

func TestAnswerEscapesMarkupButKeepsCharacters(t *testing.T) {
	out := Answer(AnswerInput{Question: "How is the gate configured?",
		Sources: []research.Source{src(1, "T", "The gate is configured with the `threshold` option, e.g. gate[0] = *3* in the config file.")}})
	if !strings.Contains(out.Body, "gate\\[0\\] = \\*3\\*") || !strings.Contains(out.Body, "\\`threshold\\`") {
		t.Errorf("markup must be escaped, never stripped:\n%s", out.Body)
	}
}

func TestAnswerWithNothingQuotable(t *testing.T) {
	out := Answer(AnswerInput{Question: "q", Sources: []research.Source{src(1, "Menu", "Home\nMenu")}})
	if strings.Contains(out.Body, "[1]") {
		t.Errorf("nothing quotable, yet cited:\n%s", out.Body)
	}
}

// A quote that starts a source's list item does not carry the source's bullet into ours.
func TestAnswerDropsTheSourcesListBullet(t *testing.T) {
	out := Answer(AnswerInput{Question: "When is a write visible to a read?",
		Sources: []research.Source{src(1, "Memory model", "- w does not happen before any other write that happens before the read r.")}})
	if strings.Contains(out.Body, "- - ") || !strings.Contains(out.Body, "- w does not happen before") {
		t.Errorf("bullet handling:\n%s", out.Body)
	}
}

// A quote reads as the source wrote it: only what Markdown would turn into markup or a false
// citation is escaped, so the plain text keeps "map[string]int" and "*T" as written.
func TestEscapeQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"make(map[string]int, 100) makes a map", "make(map[string]int, 100) makes a map"},
		{"It returns a value of type T (not *T).", "It returns a value of type T (not *T)."},
		{"a *bold* claim", `a \*bold\* claim`},
		{"see [2] for more", `see \[2\] for more`},
		{"the [docs](http://x) say", `the \[docs\](http://x) say`},
		{"as [a][b] says", `as \[a\][b] says`},
		{"delete(m, k) // remove element m[k] from map m", "delete(m, k) // remove element m[k] from map m"},
		{"[]T slice length", "[]T slice length"},
		{"use `go vet` first", "use \\`go vet\\` first"},
		{"a single ` tick", "a single ` tick"},
		{"x < y and <b>bold</b>", `x < y and \<b>bold\</b>`},
		{`the regex \d+ and \. escape`, `the regex \d+ and \\. escape`},
		{"> quoted", `\> quoted`},
		{"# not a heading", `\# not a heading`},
		{"#include <stdio.h>", `#include \<stdio.h>`},
		{"1. first step", `1\. first step`},
		{"1.5 GB of memory", "1.5 GB of memory"},
	} {
		if got := escapeQuote(tc.in); got != tc.want {
			t.Errorf("escapeQuote(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// A corpus passage holds the small sections merged into it under their own headings ("### Locks"
// inside "Channel communication"): a quote from such a section goes under that heading, never
// under the passage's, and no quote runs across the heading.
func TestAnswerQuotesAMergedSectionUnderItsOwnHeading(t *testing.T) {
	sources := []research.Source{
		corpusSource(1, "The Memory Model — Channel communication",
			"A send on a channel is synchronized before the receive from that channel completes.\n\n"+
				"### Locks\n\n"+
				"For any mutex variable l, call n of l.Unlock() is synchronized before call m of l.Lock() returns.\n\n"+
				"### Once\n\n"+
				"The completion of a single call of f() from once.Do(f) is synchronized before the return of any call of once.Do(f)."),
		corpusSource(2, "The Memory Model — Channel communication",
			"Channel communication is the main method of synchronization between goroutines in the memory model."),
	}
	out := Answer(AnswerInput{Question: "What does the memory model say about channel communication, mutex Unlock and once.Do(f)?", Sources: sources})
	body := out.Body
	merged := slices.Index(out.Order, 1) + 1 // the merged passage's number in the findings
	for _, want := range []string{
		fmt.Sprintf("**Locks** [%d]\n- For any mutex variable l, call n of l.Unlock() is synchronized before call m of l.Lock() returns. [%d]", merged, merged),
		fmt.Sprintf("**Once** [%d]\n- The completion of a single call of f() from once.Do(f)", merged),
	} {
		if !strings.Contains(body, want) {
			t.Errorf("want %q in:\n%s", want, body)
		}
	}
	if strings.Contains(body, "completes. For any mutex") || strings.Contains(body, "returns. The completion") {
		t.Errorf("a quote runs across a heading:\n%s", body)
	}
	// both passages sit under the heading "Channel communication": the one quoted second is
	// labelled with it again, or its quote would read as under the label before it
	if n := strings.Count(body, "Channel communication** ["); n != 2 {
		t.Errorf("the heading labels %d passages, want 2:\n%s", n, body)
	}
}

func TestSplitSections(t *testing.T) {
	got := splitSections("Intro text.\n\n## Locks\n\nLock text.\n# In .htaccess: a comment\nRewriteEngine on\n\n### Once\nOnce text.")
	want := []section{{"", "Intro text.\n\n"}, {"Locks", "\n\nLock text.\n\nRewriteEngine on\n\n"}, {"Once", "\nOnce text."}}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("section %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if got := splitSections("No headings here."); len(got) != 1 || got[0].heading != "" {
		t.Errorf("no headings: got %q", got)
	}
}

// A caption ("Cluster the table employees on its index:") is quoted with what it introduces, or
// not at all.
func TestAnswerQuotesACaptionOnlyWithWhatFollowsIt(t *testing.T) {
	sources := []research.Source{
		src(1, "CLUSTER", "CLUSTER reorders a table on disk following one of its indexes.\n\n"+
			"Cluster the table employees on the basis of its index employees_ind:\n\n"+
			"CLUSTER employees USING employees_ind;\n\n"+
			"Cluster every table that was clustered before, again on the same index:"),
	}
	out := Answer(AnswerInput{Question: "How do I cluster a table on an index?", Sources: sources})
	if !strings.Contains(out.Body, "employees_ind: CLUSTER employees USING employees_ind; [1]") {
		t.Errorf("the caption is not quoted with its example:\n%s", out.Body)
	}
	if strings.Contains(out.Body, "again on the same index:") {
		t.Errorf("a caption with nothing after it is quoted:\n%s", out.Body)
	}
	// a list item that runs on into the next is a lead-in too: at any budget, it is quoted
	// with the item after it or not at all
	listed := []research.Source{src(1, "Memory Model",
		"A memory operation in the memory model is modeled by its kind, its location and its value.\n\n"+
			"the memory location or variable being accessed by a memory operation, and\n\n"+
			"whatever the hardware happens to cache besides.")}
	quotedOnlyWithFollower(t, "What does a memory operation record in the memory model?", listed, "operation, and", "whatever the hardware")
	// a line that ends in a word no sentence ends in introduces the command after it
	merge := []research.Source{src(1, "git-merge(1) — HOW TO RESOLVE CONFLICTS",
		"A merge that conflicts stops and leaves the conflicted paths marked in the working tree.\n\n"+
			"If you get stuck and decide to give up on the merge, you can always return to the pre-merge state with\n\n"+
			"$ git merge --abort\n\n"+
			"To redo the merge later, run it again from the branch you merged from")}
	quotedOnlyWithFollower(t, "How do I give up on a merge that conflicts and return to the pre-merge state?", merge, "state with", "$ git merge --abort")
	for budget := 100; budget <= 400; budget += 10 {
		out = Answer(AnswerInput{Question: "How do I give up on a merge that conflicts and return to the pre-merge state?", Sources: merge, Budget: budget})
		if strings.Contains(out.Body, "merged from") {
			t.Errorf("budget %d: a lead-in with nothing after it is quoted:\n%s", budget, out.Body)
		}
	}
	// with no room for both, neither
	out = Answer(AnswerInput{Question: "How do I cluster a table on an index?", Sources: sources, Budget: 60 + 75})
	if strings.Contains(out.Body, "employees_ind:") && !strings.Contains(out.Body, "USING employees_ind;") {
		t.Errorf("a caption is quoted without its example:\n%s", out.Body)
	}
}

// quotedOnlyWithFollower checks that, at every budget from 100 to 400, the findings quote the
// lead-in ending in lead only together with the text after it that starts with follower.
func quotedOnlyWithFollower(t *testing.T, question string, sources []research.Source, lead, follower string) {
	t.Helper()
	for budget := 100; budget <= 400; budget += 10 {
		out := Answer(AnswerInput{Question: question, Sources: sources, Budget: budget})
		if strings.Contains(out.Body, lead) && !strings.Contains(out.Body, lead+" "+follower) {
			t.Errorf("budget %d: %q is quoted without %q after it:\n%s", budget, lead, follower, out.Body)
		}
	}
}

// A sentence a code sample interrupts carries on after it in lower case: quoted, it shows that it
// starts mid-sentence.
func TestMarkContinuations(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"For any mutex l:\n\nvar l sync.Mutex\nvar a string\n\nfunc main() {\n\tl.Lock()\n}\n\nis guaranteed to print \"hello, world\". The first call.",
			"For any mutex l:\n\nvar l sync.Mutex\nvar a string\n\nfunc main() {\n\tl.Lock()\n}\n\n… is guaranteed to print \"hello, world\". The first call."},
		// a code block opening in lower case is no prose
		{"In this program:\n\nvar a string\nvar once sync.Once", "In this program:\n\nvar a string\nvar once sync.Once"},
		// after a full stop a lower-case opening is the writer's own
		{"The first is done.\n\nmerges the branch into the current one.", "The first is done.\n\nmerges the branch into the current one."},
		// an identifier may open a sentence
		{"$ git commit --amend\n\nsqlite3_open() opens the file.", "$ git commit --amend\n\nsqlite3_open() opens the file."},
		{"$ git commit --amend\n\nwhich will replace the old commit.", "$ git commit --amend\n\n… which will replace the old commit."},
		// a list item run on without a full stop is not a continued sentence
		{"- the number of added lines;\n\n- the number of deleted lines;", "- the number of added lines;\n\n- the number of deleted lines;"},
		{"the first paragraph of a passage.", "the first paragraph of a passage."},
	} {
		if got := markContinuations(tc.in); got != tc.want {
			t.Errorf("markContinuations(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// The findings quote a continued sentence with its mark.
func TestAnswerMarksASentenceThatStartsAfterCode(t *testing.T) {
	s := corpusSource(1, "The Go Memory Model — Locks",
		"The sync package implements two lock data types, sync.Mutex and sync.RWMutex. For this program:\n\n"+
			"var l sync.Mutex\nvar a string\n\nfunc main() {\n\tl.Lock()\n\tgo f()\n\tl.Lock()\n\tprint(a)\n}\n\n"+
			"is guaranteed to print \"hello, world\" because the first call to l.Unlock() is synchronized before the second call to l.Lock() returns.")
	body := Answer(AnswerInput{Question: "What does l.Unlock() of a sync.Mutex guarantee before l.Lock() returns?", Sources: []research.Source{s}}).Body
	// after the program's code block, in a paragraph of its bullet or a bullet of its own
	if !strings.Contains(body, "- … is guaranteed to print") && !strings.Contains(body, "```\n  … is guaranteed to print") {
		t.Errorf("the continued sentence is not marked:\n%s", body)
	}
}

// A C block comment in a code sample is prose: quoted, it reads as its sentences, without the
// comment's markers and not cut at its lines' ends.
func TestUnwrapComments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"int x;\n/*\n** Perform an online backup of database pDb to the database file named\n** by zFilename. It copies 5 pages.\n**\n** The third argument must be a pointer to a progress\n** function.\n*/\nint backupDb(",
			"int x;\n\nPerform an online backup of database pDb to the database file named by zFilename. It copies 5 pages.\n\n\nThe third argument must be a pointer to a progress function.\n\nint backupDb("},
		// a one-line comment, and code after a comment's end on its line
		{"  /* Open the database file. */\n  rc = open();", "\nOpen the database file.\n\n  rc = open();"},
		{"/* Each iteration copies\n** 5 pages. */ do {\n  step();", "\nEach iteration copies 5 pages.\n\ndo {\n  step();"},
		// a comment after code on its line is the code's
		{"rc = 1; /* the return code */", "rc = 1; /* the return code */"},
		{"No comment here.\n10 ** 55 is large.", "No comment here.\n10 ** 55 is large."},
	} {
		if got := unwrapComments(tc.in); got != tc.want {
			t.Errorf("unwrapComments(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	s := corpusSource(1, "SQLite Backup API — Example 2: Online Backup of a Running Database",
		"The online backup API copies a live database.\n\n/*\n** Perform an online backup of database pDb to the database file named\n** by zFilename. This function copies 5 database pages from pDb to\n** zFilename, then unlocks pDb and sleeps for 250 ms.\n*/\nint backupDb(sqlite3 *pDb, const char *zFilename){")
	body := Answer(AnswerInput{Question: "How do I back up a live SQLite database with the online backup API?", Sources: []research.Source{s}}).Body
	if !strings.Contains(body, "Perform an online backup of database pDb to the database file named by zFilename. This function copies 5 database pages") || strings.Contains(body, `\*\*`) {
		t.Errorf("the comment is not quoted as its prose:\n%s", body)
	}
}

// A code block, table or list of names that the text's lines join into no sentence is quoted
// only after the caption that introduces it, never as a finding of its own.
func TestAnswerQuotesAFlattenedBlockOnlyAfterItsCaption(t *testing.T) {
	once := corpusSource(1, "The Go Memory Model — Once",
		"The sync package provides a safe mechanism for initialization through the use of the Once type.\n\n"+
			"var a string\nvar once sync.Once\n\n"+
			"The completion of a single call of f() from once.Do(f) is synchronized before the return of any call of once.Do(f).")
	body := Answer(AnswerInput{Question: "How does sync.Once order the memory operations of once.Do?", Sources: []research.Source{once}}).Body
	if strings.Contains(body, "var once sync.Once") {
		t.Errorf("a flattened code block is quoted on its own:\n%s", body)
	}
	if !strings.Contains(body, "The completion of a single call of f() from once.Do(f)") {
		t.Errorf("the passage's sentences are not quoted:\n%s", body)
	}
	captioned := corpusSource(1, "The Go Memory Model — Once",
		"The sync package provides a safe mechanism for initialization through the use of the Once type.\n\n"+
			"A program that sets up a string once declares a sync.Once beside it:\n\nvar a string\nvar once sync.Once")
	body = Answer(AnswerInput{Question: "How does a program declare a sync.Once to set up a string once?", Sources: []research.Source{captioned}}).Body
	if !strings.Contains(body, "declares a sync.Once beside it: var a string var once sync.Once") {
		t.Errorf("the block is not quoted after its caption:\n%s", body)
	}
}

// corpusSource is source n as the corpus provider returns it: an indexed passage, whose text is
// extracted (paragraphs split by blank lines, inner headings as "### " lines).
func corpusSource(n int, title, text string) research.Source {
	s := src(n, title, text)
	s.Provider, s.DocID = "corpus", fmt.Sprintf("page:%d", n)
	return s
}

// answerOne is the findings written for question from one corpus passage.
func answerOne(question, title, text string) string {
	return Answer(AnswerInput{Question: question, Sources: []research.Source{corpusSource(1, title, text)}}).Body
}

// A quote that stops inside a code block is quoted on to the block's end: the sentence splitter
// joins a caption to the block's first line, and the steps after it are what the caption
// promised ("do the age sort first and then sort again using grade"). A block after a whole
// sentence is not pulled in (TestAnswerQuotesAFlattenedBlockOnlyAfterItsCaption).
func TestAnswerQuotesACodeBlockOnToItsEnd(t *testing.T) {
	s := corpusSource(1, "Sorting HOW TO — Sort Stability and Complex Sorts",
		"Sorts are guaranteed to be stable. That means that when multiple records have the same key, their original order is preserved.\n\n"+
			"This wonderful property lets you build complex sorts in a series of sorting steps. For example, to sort the student data by descending grade and then ascending age, do the age sort first and then sort again using grade:\n\n"+
			">>> s = sorted(student_objects, key=attrgetter('age'))     # sort on secondary key\n"+
			">>> sorted(s, key=attrgetter('grade'), reverse=True)       # now sort on primary key, descending\n"+
			"[('dave', 'B', 10), ('jane', 'B', 12), ('john', 'A', 15)]\n\n"+
			"The Timsort algorithm used in Python does multiple sorts efficiently because it can take advantage of any ordering already present in a dataset.")
	body := Answer(AnswerInput{Question: "How do I sort records by several fields, some descending?", Sources: []research.Source{s}}).Body
	// laid out as the page lays it out, in a code block under the caption's bullet, with the
	// interpreter's output
	if !strings.Contains(body, "grade: [1]\n  ```\n  >>> s = sorted(student_objects, key=attrgetter('age'))     # sort on secondary key\n"+
		"  >>> sorted(s, key=attrgetter('grade'), reverse=True)       # now sort on primary key, descending\n"+
		"  [('dave', 'B', 10), ('jane', 'B', 12), ('john', 'A', 15)]\n  ```\n") {
		t.Errorf("the code block is cut after its first line, or not laid out:\n%s", body)
	}
}

// A caption that introduces a list is quoted with the list's items, not its first alone: "the
// logical sequence of events is: - Execute applicable BEFORE trigger programs," read without the
// steps after it.
func TestAnswerQuotesAListOnAfterItsCaption(t *testing.T) {
	s := corpusSource(1, "SQLite Foreign Key Support — 4.3. ON DELETE and ON UPDATE Actions",
		"Foreign key ON DELETE and ON UPDATE clauses are used to configure actions that take place when deleting rows from the parent table.\n\n"+
			"Whenever a row in the parent table of a foreign key constraint is deleted, or when the values stored in the parent key column or columns are modified, the logical sequence of events is:\n\n"+
			"- Execute applicable BEFORE trigger programs,\n\n- Check local (non foreign key) constraints,\n\n- Update or delete the row in the parent table,\n\n"+
			"- Perform any required foreign key actions,\n\n- Execute applicable AFTER trigger programs.\n\n"+
			"There is one important difference between ON UPDATE foreign key actions and SQL triggers.")
	for _, budget := range []int{600, 1000, 8000} {
		body := Answer(AnswerInput{Question: "What happens, in order, when a row of a parent table is deleted?", Sources: []research.Source{s}, Budget: budget}).Body
		// each item on a line of its own under the caption, as the page lists them
		if strings.Contains(body, "sequence of events is:") && !strings.Contains(body, "sequence of events is:\n  - Execute applicable BEFORE trigger programs,\n  - Check local (non foreign key) constraints,\n  - Update or delete the row in the parent table,\n  - Perform any required foreign key actions,\n  - Execute applicable AFTER trigger programs.") {
			t.Errorf("budget %d: the list is not quoted whole after its caption:\n%s", budget, body)
		}
	}
}

// With OwnNumbers the findings cite each source by its own number (an investigation's finding
// numbers), not by first citation; the order is the same, and a bracketed number a quote
// holds ("a[3]") is quoted as written.
func TestAnswerCitesOwnNumbers(t *testing.T) {
	sources := []research.Source{
		src(41, "Weather", "The weather is sunny today and the beach is full."),
		src(17, "Vacuum", "The VACUUM command rebuilds the database file, repacking it into a minimal amount of disk space; list a[3] holds the rest."),
	}
	in := AnswerInput{Question: "How does VACUUM get the disk space back?", Sources: sources}
	renumbered := Answer(in)
	in.OwnNumbers = true
	own := Answer(in)
	if !strings.Contains(own.Body, "a\\[3\\] holds the rest. [17]\n") && !strings.Contains(own.Body, "a[3] holds the rest. [17]\n") {
		t.Errorf("cited by its own number:\n%s", own.Body)
	}
	if strings.Contains(own.Body, "[41]") || strings.Contains(own.Body, "[1]\n") {
		t.Errorf("only the quoted source, by its own number:\n%s", own.Body)
	}
	if !slices.Equal(own.Order, renumbered.Order) || strings.ReplaceAll(own.Body, "[17]", "[1]") != renumbered.Body {
		t.Errorf("the same answer, numbered otherwise:\n%s\n---\n%s", own.Body, renumbered.Body)
	}
}

// A passage quoted after another passage's inner section is labelled, even when neither's title
// names the question: unlabelled, its quote would read as under that inner heading.
func TestAnswerLabelsAPassageQuotedAfterAnInnerHeading(t *testing.T) {
	sources := []research.Source{
		corpusSource(1, "Write Ahead Log",
			"The log records every change made to the data files, for crash safety.\n\n"+
				"### Settings\n\n"+
				"Setting the log level to minimal removes all logging except what crash recovery needs, so a bulk load runs faster."),
		corpusSource(2, "Enumerated Types — Ordering",
			"Each enumerated type is separate, and a bulk load into it checks every value."),
	}
	out := Answer(AnswerInput{Question: "How do I make a bulk load faster without losing crash safety?", Sources: sources, Prior: []float64{1, 0.9}})
	body := out.Body
	inner := strings.Index(body, "**Settings**")
	enum := strings.Index(body, "Each enumerated type")
	if inner < 0 || enum < 0 || enum < inner {
		t.Fatalf("both passages should be quoted, the inner section first:\n%s", body)
	}
	if !strings.Contains(body[inner:enum], "Enumerated Types") {
		t.Errorf("the passage after the inner heading is quoted without its own label:\n%s", body)
	}
}

// A configuration sample is quoted whole or not at all, laid out as the page lays it out in a
// code block under its bullet, so that a reader can copy it. Line by line, the second example
// lost its "ServerName www.example.com" (a repeat of the first example's line) and its
// "</VirtualHost>" (too short to quote), and the findings showed "<VirtualHost
// 172.20.30.40:8080>" and "DocumentRoot ..." as lines of their own: a configuration the page
// does not give. Joined on one line, it was whole but could not be copied.
func TestAnswerQuotesAConfigurationSampleWhole(t *testing.T) {
	names := corpusSource(1, "VirtualHost Examples — Running several name-based web sites on a single IP address",
		"Your server has a single IP address, and multiple aliases (CNAMES) point to this machine in DNS. You want to run a web server for www.example.com and www.example.org on this machine.\n\n"+
			"<VirtualHost *:80>\n    ServerName www.example.com\n    DocumentRoot \"/www/domain\"\n</VirtualHost>\n\n"+
			"<VirtualHost *:80>\n    ServerName www.example.org\n    DocumentRoot \"/www/otherdomain\"\n\n</VirtualHost>")
	ports := corpusSource(2, "VirtualHost Examples — Running different sites on different ports",
		"You have multiple domains going to the same IP and also want to serve multiple ports. The example below illustrates that the name-matching takes place after the best matching IP address and port combination is determined.\n\n"+
			"Listen 80\nListen 8080\n\n"+
			"<VirtualHost 172.20.30.40:80>\n    ServerName www.example.com\n    DocumentRoot \"/www/domain-80\"\n</VirtualHost>\n\n"+
			"<VirtualHost 172.20.30.40:8080>\n    ServerName www.example.com\n    DocumentRoot \"/www/domain-8080\"\n</VirtualHost>")
	out := Answer(AnswerInput{Question: "How do I serve several web sites with their own domain names on one IP address and different ports?",
		Sources: []research.Source{names, ports}})
	body := out.Body
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "- DocumentRoot") || strings.HasPrefix(line, `- \<VirtualHost`) || strings.HasPrefix(line, "- <VirtualHost") {
			t.Errorf("a line of a sample is quoted on its own: %q\n%s", line, body)
		}
	}
	for _, sample := range []string{
		"  ```\n  <VirtualHost *:80>\n      ServerName www.example.com\n      DocumentRoot \"/www/domain\"\n  </VirtualHost>\n",
		"  <VirtualHost *:80>\n      ServerName www.example.org\n      DocumentRoot \"/www/otherdomain\"\n\n  </VirtualHost>\n", // a blank line inside
		"  <VirtualHost 172.20.30.40:8080>\n      ServerName www.example.com\n      DocumentRoot \"/www/domain-8080\"\n  </VirtualHost>\n  ```\n",
		// under its caption's bullet, though "Listen 80" between them is too short to quote
		"combination is determined. [2]\n  ```\n  <VirtualHost 172.20.30.40:80>\n",
	} {
		if !strings.Contains(body, sample) {
			t.Errorf("the sample is not quoted whole, laid out:\n%s\nin\n%s", sample, body)
		}
	}
	// the quotes a model or memory reads hold the sample on one line, as before
	var quoted []string
	for _, qs := range out.Quotes {
		quoted = append(quoted, qs...)
	}
	if !slices.Contains(quoted, `\<VirtualHost 172.20.30.40:80> ServerName www.example.com DocumentRoot "/www/domain-80" \</VirtualHost> \<VirtualHost 172.20.30.40:8080> ServerName www.example.com DocumentRoot "/www/domain-8080" \</VirtualHost>`) {
		t.Errorf("quotes %q lack the samples on one line", quoted)
	}
}

// The coverage names, per aspect, the words no source read uses, as the question writes them: a
// word only a title holds is read ("subprocess"), so is one in another inflection ("commands")
// and one the evidence writes joined with its neighbour ("auto increment"), and one only a
// sentence no answer quotes holds ("quickly", in a question).
func TestAnswerNamesTheWordsNoSourceUses(t *testing.T) {
	sources := []research.Source{
		src(1, "Subprocess management", "The run function waits for the command to complete. If the timeout expires, the child process is killed and waited for."),
		src(2, "Autoincrement", "The AUTOINCREMENT keyword imposes extra CPU and memory overhead."),
		// a question is never quoted, but the source read uses its words
		src(3, "Jobs", "Can jobs finish quickly? Each job runs in its own process and reports its status when it exits."),
	}
	out := Answer(AnswerInput{
		Question: "How do I run several shell commands with subprocess and collect their output quickly, what happens if one of them hangs, and does auto increment cost memory?",
		Aspects:  []string{"How do I run several shell commands with subprocess and collect their output quickly", "what happens if one of them hangs", "does auto increment cost memory"},
		Sources:  sources,
	})
	want := [][]string{{"several", "shell", "collect", "output"}, {"happens", "one", "hangs"}, {"cost"}}
	if len(out.Coverage) != len(want) {
		t.Fatalf("coverage of %d aspects, want %d: %+v", len(out.Coverage), len(want), out.Coverage)
	}
	for j, w := range want {
		if !slices.Equal(out.Coverage[j].Unread, w) {
			t.Errorf("aspect %q: unread %q, want %q", out.Coverage[j].Aspect, out.Coverage[j].Unread, w)
		}
	}
}

// Commands at a shell prompt after their caption are laid out in a code block, their comments
// aligned as the page aligns them, and so is a command on a line of its own between two
// sentences; a quote that is one line of code alone stays on its bullet's line.
func TestAnswerLaysOutShellCommands(t *testing.T) {
	s := corpusSource(1, "Git User Manual — Browsing revisions",
		"The git-log command can show lists of commits. On its own, it shows all commits reachable from the parent commit; but you can also make more specific requests:\n\n"+
			"$ git log v2.5..        # commits since (not reachable from) v2.5\n"+
			"$ git log test..master  # commits reachable from master but not test\n\n"+
			"See the --pretty option in the git-log man page for more display options of the commits it lists.")
	alone := corpusSource(2, "git-bisect — Avoiding testing a commit",
		"If you know that the suggested revision is not a good one to test, you can skip the commits listed from the revision.\n\n"+
			"$ git bisect skip v2.5..v2.6\n\n"+
			"This tells the bisect process that no commit after v2.5, up to and including v2.6, should be tested.")
	body := Answer(AnswerInput{Question: "How do I list the commits since a release tag with git log, or skip commits while bisecting?", Sources: []research.Source{s, alone}}).Body
	for _, want := range []string{
		"requests: [1]\n  ```\n  $ git log v2.5..        # commits since (not reachable from) v2.5\n  $ git log test..master  # commits reachable from master but not test\n  ```\n",
		"from the revision. [2]\n  ```\n  $ git bisect skip v2.5..v2.6\n  ```\n  This tells the bisect process",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the commands are not laid out:\n%s\nin\n%s", want, body)
		}
	}
	var b strings.Builder
	cands := []candidate{{text: "$ git stash pop", lines: []string{"  $ git stash pop"}}}
	writeQuote(&b, cands, []int{0}, "$ git stash pop", 3, false)
	if b.String() != "- $ git stash pop [3]\n" {
		t.Errorf("one line of code alone: %q", b.String())
	}
}

// TestAnswerLaysOutCodeBeforeACaption: a command between its caption and a caption of the next
// paragraph ("...two fundamentally different ways to fix the problem:") is laid out; only text
// that ends no sentence and reads as program text sends the quote back onto one line.
func TestAnswerLaysOutCodeBeforeACaption(t *testing.T) {
	s := corpusSource(1, "Git User Manual — Fixing mistakes",
		"If you’ve messed up the working tree, but haven’t yet committed your mistake, you can return the entire working tree to the last committed state with\n\n"+
			"$ git restore --staged --worktree :/\n\n"+
			"If you make a commit that you later wish you hadn’t, there are two fundamentally different ways to fix the problem:\n\n"+
			"- You can create a new commit that undoes whatever was done by the old commit. This is the correct thing if your mistake has already been made public.")
	body := Answer(AnswerInput{Question: "How do I undo my last commit but keep the changes in my working tree?", Sources: []research.Source{s}}).Body
	want := "last committed state with [1]\n  ```\n  $ git restore --staged --worktree :/\n  ```\n  If you make a commit"
	if !strings.Contains(body, want) {
		t.Errorf("the command is not laid out:\n%s\nin\n%s", want, body)
	}
	// the list the caption introduces: an item a line, the item's second sentence on its line
	want = "ways to fix the problem:\n  - You can create a new commit that undoes whatever was done by the old commit. This is the correct thing if your mistake has already been made public.\n"
	if !strings.Contains(body, want) {
		t.Errorf("the list is not shown as a list:\n%s\nin\n%s", want, body)
	}
	for s, want := range map[string]bool{
		"If you make a commit that you later wish you hadn’t, there are two fundamentally different ways to fix the problem:": true,
		"There are several ways to enable asyncio debug mode:":                                                                true,
		"answer = args.square**2 if args.verbose:":                                                                            false,
		"for x in range(10):":        false,
		"while True:":                false,
		"with open(path) as f:":      false,
		"Use it as follows:":         false, // four words: a label as much as a caption
		"If the answer is yes, then": false,
	} {
		if got := isCaption(s); got != want {
			t.Errorf("isCaption(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestAnswerShowsAListAsAList: the items a caption introduces are shown a line each, an item's
// next sentences on its line and the paragraph after the list after a blank line; prose that
// opens with an item, or holds none, is joined on one line as before; the text is the same.
func TestAnswerShowsAListAsAList(t *testing.T) {
	cands := []candidate{
		{text: "Follow these steps to install the server by hand:", para: 0},
		{text: "- Create a directory called *Apache2* on a volume.", para: 1},
		{text: "It holds the modules.", para: 1},
		{text: "- Copy the *.NLM files to it.", para: 2},
		{text: "# Then restart the server from its console.", para: 3},
	}
	joined := func(g []int) string {
		var ts []string
		for _, k := range g {
			ts = append(ts, cands[k].text)
		}
		return escapeQuote(reListMarker.ReplaceAllString(strings.Join(ts, " "), ""))
	}
	got := listed(cands, []int{0, 1, 2, 3, 4}, joined([]int{0, 1, 2, 3, 4}))
	want := "Follow these steps to install the server by hand:\n" +
		"  - Create a directory called \\*Apache2\\* on a volume. It holds the modules.\n" +
		"  - Copy the \\*.NLM files to it.\n\n" +
		"  \\# Then restart the server from its console."
	if got != want {
		t.Errorf("listed:\n%s\nwant\n%s", got, want)
	}
	strip := func(s string) string {
		return strings.Join(strings.Fields(strings.NewReplacer("\\", "", "- ", "").Replace(s)), " ")
	}
	if strip(got) != strip(joined([]int{0, 1, 2, 3, 4})) {
		t.Errorf("the list's text differs from the quote's:\n%s\n%s", strip(got), strip(joined([]int{0, 1, 2, 3, 4})))
	}
	// an item after a sentence that introduces no list is joined as before
	cands = append(cands, candidate{text: "The server reads its configuration at start.", para: 4}, candidate{text: "- Copy the *.NLM files to it.", para: 5})
	for _, g := range [][]int{{1, 2, 3}, {0, 2}, {0}, {5, 6}} {
		if got := listed(cands, g, joined(g)); got != joined(g) {
			t.Errorf("group %v: %q, want it joined: %q", g, got, joined(g))
		}
	}
}

// TestAnswerFindingsFitTheBudget: the findings as written (code blocks' fences and indentation,
// escapes, labels, the aspects' headings) never run past the budget, whatever it is.
func TestAnswerFindingsFitTheBudget(t *testing.T) {
	host := func(name, root string) string {
		return "<VirtualHost *:80>\n        ServerName " + name + "\n        ServerAlias *." + name + "\n        DocumentRoot \"" + root + "\"\n        <Directory \"" + root + "\">\n                Require all granted\n        </Directory>\n</VirtualHost>"
	}
	names := corpusSource(1, "VirtualHost Examples — Running several name-based web sites on a single IP address",
		"Your server has a single IP address, and multiple aliases (CNAMES) point to this machine in DNS. You want to run a web server for www.example.com and www.example.org on this machine.\n\n"+
			host("www.example.com", "/www/domain")+"\n\n"+host("www.example.org", "/www/otherdomain")+"\n\n"+
			"The *asterisks* in the [ServerAlias] lines match every subdomain of the name.")
	ports := corpusSource(2, "VirtualHost Examples — Running different sites on different ports",
		"You have multiple domains going to the same IP and also want to serve multiple ports. The example below illustrates that the name-matching takes place after the best matching IP address and port combination is determined.\n\n"+
			host("www.example.net", "/www/domain-80")+"\n\n"+host("www.example.edu", "/www/domain-8080"))
	// the aspects' headings are longer than the picking's estimate of them
	aspects := []string{"We have a single IP address and several domain names pointing at this one machine in DNS, and each name needs its own web site",
		"how do we run different web sites on different ports of that same address and keep the *name-matching* of requests working"}
	q := strings.Join(aspects, ", and ") + "?"
	sources := []research.Source{names, ports}
	if full := Answer(AnswerInput{Question: q, Aspects: aspects, Sources: sources}).Body; !strings.Contains(full, "```") || !strings.Contains(full, "### ") {
		t.Fatalf("the fixture no longer lays out a code block under an aspect's heading:\n%s", full)
	}
	over := 0
	for budget := 100; budget <= 1600; budget += 5 {
		body := Answer(AnswerInput{Question: q, Aspects: aspects, Sources: sources, Budget: budget}).Body
		if len(body) > budget {
			over++
			if over <= 2 {
				t.Errorf("budget %d: the findings are %d characters:\n%s", budget, len(body), body)
			}
		}
	}
	if over > 0 {
		t.Errorf("%d budgets overrun", over)
	}
}

// An interpreter session is quoted with the lines no sentence holds: a call's continuation
// lines and its short output ("False"), too short to quote alone, stay in the code block, and
// the output line after them joins it; prose after the block, even on the next line and
// wrapped, is not taken into it.
func TestAnswerShowsAnInterpretersShortLines(t *testing.T) {
	dicts := corpusSource(1, "collections — OrderedDict objects",
		"Ordered dictionaries remember the order in which their keys were inserted, and equality between two of them checks that order too:\n\n"+
			">>> from collections import OrderedDict\n"+
			">>> d = OrderedDict([('first', 1),\n"+
			"...                  ('second', 2)])\n"+
			">>> d.items()\n"+
			"[('first', 1), ('second', 2), ('third', 3)]\n\n"+
			"Plain dictionaries keep insertion order too since Python 3.7.")
	sums := corpusSource(2, "math — Floating point sums",
		"Summing floating point numbers with math.fsum tracks the lost digits of the running total, unlike sum:\n\n"+
			">>> sum([0.1] * 10) == 1.0\n"+
			"False\n"+
			">>> round(2**56 / 10) % 10, 0\n"+
			"(6, 0)\n"+
			"Plain sum loses the digits of each\n"+
			"addition, so compare its floating point results with math.isclose, which reads (6, 0) as a pair.")
	body := Answer(AnswerInput{Question: "How do ordered dictionaries remember insertion order, and does summing floating point numbers with math.fsum lose digits?",
		Sources: []research.Source{dicts, sums}}).Body
	for _, want := range []string{
		"  >>> d = OrderedDict([('first', 1),\n  ...                  ('second', 2)])\n  >>> d.items()\n  [('first', 1), ('second', 2), ('third', 3)]\n  ```\n",
		// "(6, 0)" is in a sentence of the passage, yet no prose
		"  >>> sum([0.1] * 10) == 1.0\n  False\n  >>> round(2**56 / 10) % 10, 0\n  (6, 0)\n  ```\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the session is not quoted whole:\n%s\nin\n%s", want, body)
		}
	}
	if strings.Contains(body, "  Plain sum loses the digits of each\n") {
		t.Errorf("prose after the block was taken into it:\n%s", body)
	}
	// one line at a prompt quoted alone keeps its output under it
	var b strings.Builder
	cands := []candidate{{text: ">>> 0.1 + 0.2 == 0.3", lines: []string{">>> 0.1 + 0.2 == 0.3"}, after: []string{"False"}}}
	writeQuote(&b, cands, []int{0}, ">>> 0.1 + 0.2 == 0.3", 2, false)
	if want := "- [2]\n  ```\n  >>> 0.1 + 0.2 == 0.3\n  False\n  ```\n"; b.String() != want {
		t.Errorf("one line at a prompt alone: %q, want %q", b.String(), want)
	}
}

// A program (a block with lines indented under its first, and the indented blocks after it)
// is one quotable line with its lines as laid out, shown whole in a code block; a list item's
// indented continuation and a paragraph of prose are not programs.
func TestJoinPrograms(t *testing.T) {
	program := "async def main():\n    try:\n        await long_running_task()\n    except TimeoutError:\n        print(\"timed out\")\n\n    print(\"This statement will run regardless.\")"
	body := "Example:\n\n" + program + "\n\nNew in version 3.11.\n\n- an item that wraps\n  onto an indented line.\n\nA sentence of prose.\n  An indented line after it."
	joined, samples := joinPrograms(body, nil)
	one := "async def main(): try: await long_running_task() except TimeoutError: print(\"timed out\") print(\"This statement will run regardless.\")"
	if want := "Example:\n\n" + one + "\n\nNew in version 3.11.\n\n- an item that wraps\n  onto an indented line.\n\nA sentence of prose.\n  An indented line after it."; joined != want {
		t.Errorf("joined:\n%q\nwant\n%q", joined, want)
	}
	if got := strings.Join(samples[one], "\n"); got != program || len(samples) != 1 {
		t.Errorf("the program's lines:\n%s\nwant\n%s (%d samples)", got, program, len(samples))
	}
	if j, s := joinPrograms("No line is indented.\nNone at all.", nil); j != "No line is indented.\nNone at all." || s != nil {
		t.Errorf("a passage without indentation changed: %q %v", j, s)
	}
	out := answerOne("How do I cancel a long running task after a timeout?", "Coroutines and Tasks — Timeouts", "Use the context manager to bound the time a task may take:\n\n"+program+"\n\nIf long_running_task takes more than 10 seconds to complete, the context manager will cancel the current task.")
	if !strings.Contains(out, "  ```\n  async def main():\n      try:\n          await long_running_task()\n") {
		t.Errorf("the program is not shown whole as laid out:\n%s", out)
	}
}

// A list item is measured without its marker: "- File system level backup" (24 characters of
// text) is no finding alone, as "File system level backup" would not be; an item of 25 or more is.
func TestListItemLengthLeavesOutTheMarker(t *testing.T) {
	body := "There are three fundamentally different approaches to backing up PostgreSQL data:\n\n- SQL dump\n\n- File system level backup\n\n- Continuous archiving of the write-ahead log"
	var got []string
	for _, p := range parseSource(body, true).sents {
		got = append(got, p.text)
	}
	want := []string{"There are three fundamentally different approaches to backing up PostgreSQL data:", "- Continuous archiving of the write-ahead log"}
	if !slices.Equal(got, want) {
		t.Errorf("quotable sentences %q, want %q", got, want)
	}
	// the short items are shown under the caption that introduces them, with the long one
	if items := parseSource(body, true).sents[0].items; !slices.Equal(items, []string{"- SQL dump", "- File system level backup"}) {
		t.Errorf("the caption's short items: %q", items)
	}
	out := answerOne("What are the approaches to backing up PostgreSQL data?", "Chapter 26. Backup and Restore", "As with everything that contains valuable data, PostgreSQL databases should be backed up regularly.\n\n"+body)
	if !strings.Contains(out, "backing up PostgreSQL data:\n  - SQL dump\n  - File system level backup\n  - Continuous archiving of the write-ahead log") {
		t.Errorf("the list is not shown whole under its caption:\n%s", out)
	}
	// a list of short items alone completes its caption
	out = answerOne("What are the approaches to backing up PostgreSQL data?", "Chapter 26. Backup and Restore", "There are three fundamentally different approaches to backing up PostgreSQL data:\n\n- SQL dump\n\n- File system level backup\n\n- Continuous archiving")
	if !strings.Contains(out, "backing up PostgreSQL data:\n  - SQL dump\n  - File system level backup\n  - Continuous archiving [1]") {
		t.Errorf("the caption is not quoted with its short items:\n%s", out)
	}
}

// An example's caption carries the short program text after it, shown under it in a code
// block ("Compute the current date." and "SELECT date();"), when that text ends its block; a
// name alone is no example ("row_number()", the term a definition follows), nor the first line
// of a longer program ("var c = make(chan int)" above "var a string").
func TestExampleCaptionCarriesItsShortCode(t *testing.T) {
	body := "Compute the current date.\n\nSELECT date();\n\nCompute the last day of the current month.\n\nSELECT date('now','start of month','+1 month','-1 day');\n\n" +
		"SQLite supports the following built-in window functions that rank rows:\n\nrow_number()\n\nThe number of the row within the current partition, starting from 1.\n\n" +
		"This program is guaranteed to print the string it was given.\n\nvar c = make(chan int)\nvar a string\n\nThe write to a is sequenced before the send on c."
	code := map[string][]string{}
	for _, p := range parseSource(body, true).sents {
		code[p.text] = p.code
	}
	if got := code["Compute the current date."]; !slices.Equal(got, []string{"SELECT date();"}) {
		t.Errorf("the caption's short code: %q", got)
	}
	for _, s := range []string{"SQLite supports the following built-in window functions that rank rows:", "This program is guaranteed to print the string it was given."} {
		if got := code[s]; got != nil {
			t.Errorf("%q carries %q", s, got)
		}
	}
	out := answerOne("How do I compute the current date in SQLite?", "Date And Time Functions — 4. Examples", body)
	if !strings.Contains(out, "- Compute the current date. [1]\n  ```\n  SELECT date();\n  ```\n") {
		t.Errorf("the example is not shown with its code:\n%s", out)
	}
}

// A block of program text whose lines are not indented under its first is quoted whole, as laid
// out: "BEGIN;" and "COMMIT;" with the statements between them. Not a block with a line of
// prose, one too long to quote, one the sentence splitter would cut again, a list or a session
// at a prompt.
func TestJoinStatements(t *testing.T) {
	block := "BEGIN;\nINSERT INTO t1 SELECT b,a,c FROM t2;\nINSERT INTO t2 SELECT b,a,c FROM t1;\nCOMMIT;"
	body := "Test 11: INSERTs from a SELECT\n\n" + block + "\n\n" +
		"int sqlite3_reset(sqlite3_stmt *pStmt);\nThe sqlite3_reset() function is called to reset a prepared statement object.\n\n" +
		"IdentifierList = identifier { \",\" identifier } .\nExpressionList = Expression { \",\" Expression } .\n\n" +
		">>> x = 1\n>>> y = 2\n\n" + strings.Repeat("x = 1;\n", 100)
	// a statement with a comment of prose after it is program text too
	commented := "SELECT datetime(1092941466, 'unixepoch');\nSELECT datetime(1092941466, 'auto'); -- Does not work for early 1970!"
	body += "\n\nCompute the date and time given a unix timestamp 1092941466.\n\n" + commented
	joined, samples, statements := joinStatements(body, nil)
	one := "BEGIN; INSERT INTO t1 SELECT b,a,c FROM t2; INSERT INTO t2 SELECT b,a,c FROM t1; COMMIT;"
	two := "SELECT datetime(1092941466, 'unixepoch'); SELECT datetime(1092941466, 'auto'); -- Does not work for early 1970!"
	if want := strings.Replace(strings.Replace(body, block, one, 1), commented, two, 1); joined != want {
		t.Errorf("joined:\n%q\nwant\n%q", joined, want)
	}
	if got := strings.Join(samples[one], "\n"); got != block || len(samples) != 2 || !statements[one] || !statements[two] || len(statements) != 2 {
		t.Errorf("the block's lines:\n%s\nwant\n%s (%d samples, %v)", got, block, len(samples), statements)
	}
	s := corpusSource(1, "SQLite Database Speed Comparison — Test 11: INSERTs from a SELECT",
		"The statements below copy each table into the other within one transaction:\n\n"+block)
	out := Answer(AnswerInput{Question: "How fast are INSERTs from a SELECT within one transaction?", Sources: []research.Source{s}}).Body
	if !strings.Contains(out, "  ```\n  BEGIN;\n  INSERT INTO t1 SELECT b,a,c FROM t2;\n  INSERT INTO t2 SELECT b,a,c FROM t1;\n  COMMIT;\n  ```\n") {
		t.Errorf("the block is not shown whole after its caption:\n%s", out)
	}
}

// A sample or program is found by the sentence the splitter writes of it, its white space
// folded: a session whose comments line up ("$ git log v2.5..        # commits since v2.5") was
// shown as one run-on line in its code block.
func TestSampleWithAlignedLinesIsLaidOut(t *testing.T) {
	session := "$ git bisect start\n$ git bisect bad                # current version is bad\n$ git bisect good v2.6.13-rc2   # last known good revision\n" +
		"                                # test here, then:\n$ git bisect good               # if this revision is good"
	body := "Suppose you are trying to find the commit that broke a feature. You start a bisect session as follows:\n\n" + session
	for _, p := range parseSource(body, true).sents {
		if strings.HasPrefix(p.text, "$ git bisect start") {
			if got := strings.Join(p.lines, "\n"); got != session {
				t.Errorf("the session's lines:\n%s", got)
			}
			return
		}
	}
	t.Errorf("no sentence holds the session: %+v", parseSource(body, true).sents)
}

// A caption's short code and the program text quoted after it are one code block, the page's
// blank line between them, not two blocks one under the other.
func TestCaptionCodeJoinsTheProgramAfterIt(t *testing.T) {
	var b strings.Builder
	cands := []candidate{
		{text: "That is, these three uses of dataclass() are equivalent:", code: []string{"@dataclass", "class C:", "    ..."}, carried: 1},
		{text: "@dataclass() class C: ...", lines: []string{"@dataclass()", "class C:", "    ..."}},
	}
	writeQuote(&b, cands, []int{0, 1}, "That is, these three uses of dataclass() are equivalent: @dataclass() class C: ...", 1, false)
	want := "- That is, these three uses of dataclass() are equivalent: [1]\n  ```\n  @dataclass\n  class C:\n      ...\n\n  @dataclass()\n  class C:\n      ...\n  ```\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A passage is quoted for its best sentence: one chosen for a sentence that repeats a quote
// taken (a list of requirements, each a sentence copied from another page) quotes none of its
// other sentences, which only rode on that one.
func TestPassageWithoutItsBestSentenceIsNotQuoted(t *testing.T) {
	upsert := corpusSource(1, "UPSERT — 2. Description",
		"UPSERT is a clause added to INSERT that causes the INSERT to behave as an UPDATE or a no-op if the INSERT would violate a uniqueness constraint. "+
			"An UPSERT is an ordinary INSERT statement that is followed by a special ON CONFLICT clause.")
	reqs := corpusSource(2, "SQLite Requirements — 2.0 List Of Requirements",
		"R-25541-17189 UPSERT is a clause added to INSERT that causes the INSERT to behave as an UPDATE or a no-op if the INSERT would violate a uniqueness constraint.\n\n"+
			"R-25588-27181 The callbacks for triggers contain a UTF-8 SQL comment that identifies the trigger that was fired by the INSERT statement.\n\n"+
			"R-25616-61116 The database connection can be changed between full and incremental autovacuum mode at any time after an UPDATE.")
	out := Answer(AnswerInput{Question: "How do I make an INSERT update the existing row when the key is already there?", Sources: []research.Source{upsert, reqs}}).Body
	if !strings.Contains(out, "UPSERT is a clause added to INSERT") {
		t.Fatalf("the answer does not quote the UPSERT page:\n%s", out)
	}
	if strings.Contains(out, "R-25") || strings.Contains(out, "[2]") {
		t.Errorf("the requirements list is quoted for sentences that rode on a repeat:\n%s", out)
	}
}

// A chosen passage quotes its best sentence for the aspect first, then the others by their
// gist: quoted after a sentence that left it no room, the best one was lost, and with it the
// passage (a small budget's findings lost the passage that answers).
func TestPassageQuotesItsBestSentenceFirst(t *testing.T) {
	cands := []candidate{
		{src: 0, idx: 0, text: strings.Repeat("A sentence that says much of what the evidence is about. ", 3), rel: []float64{0.5}, gist: 0.9, line: -1},
		{src: 0, idx: 1, text: "The sentence that answers the question best.", rel: []float64{0.9}, gist: 0.5, line: -1},
	}
	labels := labelling{of: [][]string{{"First"}}, from: []bool{false}}
	budget := quoteCost(cands[0]) + quoteCost(cands[1])/2 // room for the first sentence, not both
	if picked := selectPassages(cands, labels, 1, budget); !slices.Equal(picked, []int{1}) {
		t.Errorf("picked %v at a budget of %d, want the best sentence [1]", picked, budget)
	}
}

// An example's line of code is quoted after its caption though codeQuality discounts it: asked
// for the last day of the month, the findings show the query that computes it, not only the
// caption (a floor of a share of the passage's best sentence kept such lines out).
func TestExampleCodeIsQuotedWithItsCaption(t *testing.T) {
	body := "Compute the current date.\n\nSELECT date();\n\n" +
		"Compute the date and time given a unix timestamp 1092941466.\n\nSELECT datetime(1092941466, 'unixepoch');\nSELECT datetime(1092941466, 'auto'); -- Does not work for early 1970!\n\n" +
		"Compute the number of days since the signing of the US Declaration of Independence.\n\nSELECT julianday('now') - julianday('1776-07-04');\n\n" +
		"Compute the last day of the current month.\n\nSELECT date('now','start of month','+1 month','-1 day');"
	out := answerOne("How do I get today's date and the last day of the current month in an SQLite query?", "Date And Time Functions — 4. Examples", body)
	if !strings.Contains(out, "Compute the last day of the current month.\n  ```\n  SELECT date('now','start of month','+1 month','-1 day');\n  ```") {
		t.Errorf("the caption is quoted without its code:\n%s", out)
	}
}

// An example's caption that is a paragraph of its own is quoted on through the block of
// statements after it, which is quoted only after what introduces it; the last sentence of a
// paragraph explaining the program before it is not.
func TestExampleCaptionIsQuotedWithItsStatements(t *testing.T) {
	body := "Compute the current unix timestamp.\n\nSELECT unixepoch();\nSELECT strftime('%s');\n\n" +
		"The program above prints the unix timestamp. It is guaranteed to print the current time.\n\nvar c = make(chan int);\nvar a = 1;"
	out := answerOne("How do I compute the current unix timestamp and print the current time?", "Date And Time Functions — 4. Examples", body)
	if !strings.Contains(out, "Compute the current unix timestamp. [1]\n  ```\n  SELECT unixepoch();\n  SELECT strftime('%s');\n  ```") {
		t.Errorf("the caption is quoted without its statements:\n%s", out)
	}
	if strings.Contains(out, "var c = make(chan int);") {
		t.Errorf("an explanation is quoted with the next program's statements:\n%s", out)
	}
}

// TestAnswerQuotesListItemsAsBullets: the items of a list that no caption introduces are
// bullets of their own; quoted one after another, the second ran on inside the first ("It is
// usually not needed. - In SQLite, a column with type INTEGER PRIMARY KEY is an alias...").
func TestAnswerQuotesListItemsAsBullets(t *testing.T) {
	body := answerOne("What does the AUTOINCREMENT keyword cost, and when does an INTEGER PRIMARY KEY autoincrement?", "SQLite Autoincrement — 1. Summary",
		"- The AUTOINCREMENT keyword imposes extra CPU, memory, disk space, and disk I/O overhead and should be avoided if not strictly needed. It is usually not needed.\n\n"+
			"- In SQLite, a column with type INTEGER PRIMARY KEY is an alias for the ROWID which is always a 64-bit signed integer.\n\n"+
			"- On an INSERT, if the INTEGER PRIMARY KEY column is not explicitly given a value, then it will be filled automatically with an unused integer.")
	findingsHold(t, body,
		"- The AUTOINCREMENT keyword imposes extra CPU, memory, disk space, and disk I/O overhead and should be avoided if not strictly needed. It is usually not needed. [1]\n",
		"\n- In SQLite, a column with type INTEGER PRIMARY KEY is an alias for the ROWID which is always a 64-bit signed integer. [1]\n",
		"\n- On an INSERT, if the INTEGER PRIMARY KEY column is not explicitly given a value, then it will be filled automatically with an unused integer. [1]\n")
	if strings.Contains(body, ". - ") {
		t.Errorf("an item runs on inside the one before it:\n%s", body)
	}
}

// TestCalloutItemsShowTheirCommand: an AsciiDoc example writes its commands marked <1>, <2>, <3>
// and then a list explaining each (git's manual pages); an item quoted without its block lacked
// the command it explains ("Changes between the index and your last commit" without "$ git diff
// --cached"). A session flattened onto one line, its numbers not starting at 1, lends no item
// its text.
func TestCalloutItemsShowTheirCommand(t *testing.T) {
	body := answerOne("How do I see what I staged for the next commit, and compare two branches, with git diff?", "git-diff(1) — EXAMPLES",
		"Various ways to check your working tree\n\n$ git diff            <1>\n$ git diff --cached   <2>\n$ git diff HEAD       <3>\n\n"+
			"- Changes in the working tree not yet staged for the next commit.\n\n"+
			"- Changes between the index and your last commit; what you would be committing if you run git commit without -a option.\n\n"+
			"- Changes in the working tree since your last commit; what you would be committing if you run git commit -a\n\n"+
			"Comparing branches\n\n$ git pull <1> Auto-merging nitfol Merge made by recursive. $ git diff topic...master     <2>\n\n"+
			"- Changes between the tips of the topic and the master branches, when two branches are compared.\n\n"+
			"- Changes that occurred on the master branch since when the topic branch was started off it.\n")
	findingsHold(t, body,
		"- Changes in the working tree not yet staged for the next commit. [1]\n  ```\n  $ git diff\n  ```\n",
		"- Changes between the index and your last commit; what you would be committing if you run git commit without -a option. [1]\n  ```\n  $ git diff --cached\n  ```\n")
	if strings.Contains(body, "Auto-merging") {
		t.Errorf("an item is shown with a flattened session:\n%s", body)
	}
}

// TestShownCodeIsNotRepeated: an item's command that the source's quoted block shows already
// is not shown again under it; cands itself is left as it was.
func TestShownCodeIsNotRepeated(t *testing.T) {
	cands := []candidate{
		{text: "$ git branch topic/wip <1> $ git reset --hard HEAD~3 <2>", lines: []string{"$ git branch topic/wip          <1>", "$ git reset --hard HEAD~3       <2>"}},
		{text: "- Rewind the master branch to get rid of those three commits.", code: []string{"$ git reset --hard HEAD~3"}},
		{text: "- Start a new branch for the work.", code: []string{"$ git switch -c topic/wip"}},
	}
	view := shownCode(cands, []int{0, 1, 2})
	if view[1].code != nil || view[2].code == nil {
		t.Errorf("codes shown: %q and %q; want the second only", view[1].code, view[2].code)
	}
	if cands[1].code == nil {
		t.Error("shownCode changed the candidates it was given")
	}
	if view := shownCode(cands, []int{1, 2}); view[1].code == nil {
		t.Error("without the block quoted, the item's command is left out")
	}
}

// TestAnswerQuotesTheParagraphAfterAnItemApart: the paragraph after a list's item, a caption of
// the list after it, is a bullet of its own with that list under it; it ran on inside the item
// ("...-W default command line option. When the debug mode is enabled: - asyncio checks...").
func TestAnswerQuotesTheParagraphAfterAnItemApart(t *testing.T) {
	body := answerOne("How do I enable asyncio debug mode and what does the debug mode check?", "Developing with asyncio — Debug Mode",
		"- configuring the warnings module to display ResourceWarning warnings in asyncio debug mode. One way of doing that is by using the -W default command line option.\n\n"+
			"When the asyncio debug mode is enabled:\n\n"+
			"- asyncio checks for coroutines that were not awaited and logs them in debug mode.\n\n"+
			"- Many non-threadsafe asyncio APIs raise an exception in debug mode if they are called from a wrong thread.")
	want := "- When the asyncio debug mode is enabled:\n  - asyncio checks for coroutines that were not awaited and logs them in debug mode.\n" +
		"  - Many non-threadsafe asyncio APIs raise an exception in debug mode if they are called from a wrong thread. [1]\n"
	findingsHold(t, body, want)
	if strings.Contains(body, "option. When") {
		t.Errorf("the paragraph after an item runs on inside it:\n%s", body)
	}
}

// findingsHold fails t for each of wants the findings body does not hold.
func findingsHold(t *testing.T, body string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(body, want) {
			t.Errorf("findings lack %q:\n%s", want, body)
		}
	}
}
