package report

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/testenv"
	"github.com/sated-dev/sated/internal/text"
)

func clearParsedCache() {
	parsedCache.Lock()
	parsedCache.texts = map[parsedKey]parsedText{}
	parsedCache.Unlock()
}

// memoQuestions ask about a passage the corpus merged sections into, a qualified name the
// evidence writes bare, boilerplate one question asks about, and a repeated sentence: what the
// answer's memos (parsed sentences, the lexicon, titles) must not freeze for a question.
func memoQuestions() []AnswerInput {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Cookies", Provider: "corpus", DocID: "d1"}, Text: "Session cookies expire when the browser closes. A cookie with Max-Age set persists until that many seconds pass.\n\n## Once\n\nThe Once type runs a function exactly once. once.Do(f) calls f only the first time it is called."},
		{N: 2, Result: search.Result{Title: "sync"}, Text: "Package sync provides basic synchronization primitives such as mutual exclusion locks. Other than the Once and WaitGroup types, most are intended for use by low-level library routines.\n\nAccept all cookies to continue reading this page today."},
		{N: 3, Result: search.Result{Title: "Copy"}, Text: "Package sync provides basic synchronization primitives such as mutual exclusion locks!"},
	}
	questions := []AnswerInput{
		{Question: "How does sync.Once make a function run only once?", Sources: sources},
		{Question: "When do cookies expire, and which cookies persist?", Aspects: []string{"When do cookies expire", "which cookies persist"}, Sources: sources},
		{Question: "What synchronization primitives does package sync provide?", Sources: sources, Budget: 200},
	}
	return questions
}

// answerAll writes n answers concurrently, the k-th to questions[k%len(questions)].
func answerAll(questions []AnswerInput, n int) []AnswerOutput {
	var wg sync.WaitGroup
	got := make([]AnswerOutput, n)
	for k := range got {
		wg.Go(func() { got[k] = Answer(questions[k%len(questions)]) })
	}
	wg.Wait()
	return got
}

// The parsed-sentence cache is a memo: the findings written from cached sentences are the
// findings written from a cold parse, for any question, also when answers run concurrently,
// and the question's own choices (boilerplate it asks about, its qualified names written bare)
// are made per question, not frozen by whichever question parsed the text first.
func TestAnswerIsTheSameFromTheParsedCache(t *testing.T) {
	questions := memoQuestions()
	cold := make([]AnswerOutput, len(questions))
	for i, in := range questions {
		clearParsedCache()
		cold[i] = Answer(in)
	}
	if !strings.Contains(cold[0].Body, "once.Do(f) calls f only the first time") {
		t.Errorf("the qualified name's bare spelling went unquoted:\n%s", cold[0].Body)
	}
	if !strings.Contains(cold[1].Body, "Session cookies expire when the browser closes.") {
		t.Errorf("a question about cookies lost its answer as boilerplate:\n%s", cold[1].Body)
	}
	for _, a := range []AnswerOutput{cold[0], cold[2]} {
		if strings.Contains(a.Body, "Accept all cookies") {
			t.Errorf("boilerplate quoted for a question not about cookies:\n%s", a.Body)
		}
	}
	for i, in := range questions { // warm, in another order than the cold runs
		if got := Answer(in); !reflect.DeepEqual(got, cold[i]) {
			t.Errorf("question %d from the cache:\n%s\nwant:\n%s", i, got.Body, cold[i].Body)
		}
	}
	for k, a := range answerAll(questions, 4*len(questions)) {
		if !reflect.DeepEqual(a, cold[k%len(questions)]) {
			t.Errorf("concurrent answer %d differs:\n%s", k, a.Body)
		}
	}
}

// The lexicon starts over when full, and with it the parsed sentences and titles holding its
// numbers, never while an answer holds numbers from before: answers written across restarts,
// concurrently, are the answers written without any.
func TestAnswerIsTheSameAcrossLexiconRestarts(t *testing.T) {
	questions := memoQuestions()
	want := make([]AnswerOutput, len(questions))
	for i, in := range questions {
		want[i] = Answer(in)
	}
	defer func(n int) { maxLexicon = n }(maxLexicon)
	maxLexicon = 1 // every answer finds the lexicon full
	before := lexiconRestarts
	got := answerAll(questions, 8*len(questions))
	if lexiconRestarts == before {
		t.Fatal("the lexicon never started over")
	}
	for k, a := range got {
		if !reflect.DeepEqual(a, want[k%len(questions)]) {
			t.Errorf("answer %d across restarts differs:\n%s\nwant:\n%s", k, a.Body, want[k%len(questions)].Body)
		}
	}
}

func TestParsedCacheStartsOverWhenFull(t *testing.T) {
	clearParsedCache()
	for i := range maxParsedTexts + 1 {
		parseSource("Sentence "+strconv.Itoa(i)+" is long enough to quote as a finding.", false)
	}
	parsedCache.Lock()
	n := len(parsedCache.texts)
	parsedCache.Unlock()
	if n != 1 {
		t.Errorf("cache holds %d texts after %d, want 1: it starts over when full", n, maxParsedTexts+1)
	}
}

// Two keys of one hash are two sentences; a key is a repeat only of itself.
func TestQuotedKeysTellKeysOfOneHashApart(t *testing.T) {
	q := quotedKeys{byHash: map[uint64]string{}}
	q.add(7, "a lock is held")
	for _, c := range []struct {
		hash uint64
		key  string
		want bool
	}{{7, "a lock is held", true}, {7, "a channel is closed", false}, {8, "a lock is held", false}} {
		if got := q.has(c.hash, c.key); got != c.want {
			t.Errorf("has(%d, %q) = %v, want %v", c.hash, c.key, got, c.want)
		}
	}
	q.add(7, "a channel is closed")
	if !q.has(7, "a channel is closed") || !q.has(7, "a lock is held") || q.has(7, "a third sentence") {
		t.Errorf("after a second key of hash 7: %+v", q)
	}
}

// The quick checks before the expressions (isNavigation, isTOCEntry, stripFootnotes,
// dropHeadingLines, splitSections' "##") skip only texts the expressions would not change:
// every line and sentence of the Go docs, and made-up edge cases, give what the expressions give.
func TestQuickChecksAgreeWithTheirExpressions(t *testing.T) {
	lines := []string{"Prev Up Home Next", "« Previous topic | Next topic »", "é prev next", "_prev next", "Preview next",
		"Table of contents Index", "1. Install", "12.3 Index Maintenance", "x1. Not an entry", "[1] a note", "see [a] and [Z]",
		"[citation needed] here", "[[2]]", "sys.exc_info()[2] and (born 1950)[3]", "text [", "# Title", "  ## Sub\nbody", "a # not a heading", "###", "",
		"Accept All COOKIES", "COPYRIGHT © 2024", "Sign In to read MORE", "coo\u212aie policy", "S\u0130GN up", "Ünïcödé \xc2 text"}
	for _, name := range []string{"go_mem.html", "go_spec.html", "godebug.md", "asm.html"} {
		raw, err := os.ReadFile(filepath.Join(testenv.GoDocDir(t), name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(raw), "\n") {
			lines = append(lines, l)
			lines = append(lines, text.Sentences(l)...)
		}
	}
	for _, l := range lines {
		if got, want := isNavigation(l), reNavigation.MatchString(l); got != want {
			t.Errorf("isNavigation(%q) = %v, the expression %v", l, got, want)
		}
		if got, want := isTOCEntry(l), reTOCEntry.MatchString(l); got != want {
			t.Errorf("isTOCEntry(%q) = %v, the expression %v", l, got, want)
		}
		if got, want := stripFootnotes(l), stripMarkers(l); got != want {
			t.Errorf("stripFootnotes(%q) = %q, the expression %q", l, got, want)
		}
		if got, want := dropHeadingLines(l), reHeading.ReplaceAllString(l, ""); got != want {
			t.Errorf("dropHeadingLines(%q) = %q, the expression %q", l, got, want)
		}
		if got, want := boilerplateBits(l), boilerplateBitsLowered(l); got != want {
			t.Errorf("boilerplateBits(%q) = %b, with strings.ToLower %b", l, got, want)
		}
		if !strings.Contains(l, "##") && text.InnerHeading.MatchString(l) {
			t.Errorf("an inner heading without ##: %q", l)
		}
	}
}

// boilerplateBitsLowered is boilerplateBits as it was written first, with strings.ToLower.
func boilerplateBitsLowered(s string) uint32 {
	ls := strings.ToLower(s)
	var bits uint32
	for i, p := range boilerplate {
		if strings.Contains(ls, p) {
			bits |= 1 << i
		}
	}
	return bits
}

func TestJoinSamples(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"prose is left alone", "One sentence.\nAnother one.", "One sentence.\nAnother one."},
		{"a sample is one line", "Add this:\n\n<Directory \"/\">\n    Require all denied\n</Directory>\n\nThen restart.",
			"Add this:\n\n<Directory \"/\"> Require all denied </Directory>\n\nThen restart."},
		{"a blank line inside an open tag", "<VirtualHost *:80>\n    ServerName a.example\n\n</VirtualHost>\n\nNext.",
			"<VirtualHost *:80> ServerName a.example </VirtualHost>\n\nNext."},
		{"a comment inside an open tag", "<VirtualHost *:80>\n    ServerName a.example\n\n    # Other directives here\n</VirtualHost>",
			"<VirtualHost *:80> ServerName a.example # Other directives here </VirtualHost>"},
		{"a comment outside one ends the run", "Listen 80\n# Ensure that it listens\n<Location /a>\n</Location>",
			"Listen 80\n# Ensure that it listens\n<Location /a> </Location>"},
		{"two samples stay two", "<Location /a>\n  Dav On\n</Location>\n\n<Location /b>\n  Dav Off\n</Location>",
			"<Location /a> Dav On </Location>\n\n<Location /b> Dav Off </Location>"},
		{"the lines before a tag join it", "Listen 80\nListen 8080\n<VirtualHost *:80>\n</VirtualHost>", "Listen 80 Listen 8080 <VirtualHost *:80> </VirtualHost>"},
		{"no tag at all", "Listen 80\nListen 8080", "Listen 80\nListen 8080"},
		{"a sentence ends the run", "<IfModule mod_ssl.c>\nThe module is loaded.\n</IfModule>", "<IfModule mod_ssl.c>\nThe module is loaded.\n</IfModule>"},
		{"code inside an open tag is the sample's", "<script>\nvar x = 1;\n</script>", "<script> var x = 1; </script>"},
		{"code outside a tag is left alone", "var x = 1;\nvar y = 2;\n<br>", "var x = 1;\nvar y = 2;\n<br>"},
	} {
		if got, _ := joinSamples(c.in); got != c.want {
			t.Errorf("%s: joinSamples(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// A footnote marker goes, an index after a call's parentheses stays: it is code.
func TestStripFootnotes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"the search.[12] Then", "the search. Then"},
		{"as in [4]", "as in "},
		{"He was born (in 1950)[3] in Ohio.", "He was born (in 1950) in Ohio."},
		{"sys.exc_info()[2] is the traceback", "sys.exc_info()[2] is the traceback"},
		{"sorted(iterable, key=keyfunc)[0] is the smallest", "sorted(iterable, key=keyfunc)[0] is the smallest"},
		{"f(g(x))[1], then (a note)[2]", "f(g(x))[1], then (a note)"},
		{"gate[0] stays", "gate[0] stays"},
	} {
		if got := stripFootnotes(c.in); got != c.want {
			t.Errorf("stripFootnotes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
