package text

import (
	"reflect"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"prose", "Go is FAST, isn't it?", []string{"go", "is", "fast", "isn't", "it"}},
		{"versions", "Go 1.21 (go1.21.0) and v2.5.2-rc.1 shipped.", []string{"go", "1.21", "go1.21.0", "and", "v2.5.2-rc.1", "shipped"}},
		{"identifiers", "Lock a sync.Mutex in x86_64 code; utf-8 is snake_case.", []string{"lock", "a", "sync.mutex", "in", "x86_64", "code", "utf-8", "is", "snake_case"}},
		{"hyphens join next to digits only", "A mark-and-sweep, read-only GC for x86-64 with SHA-256 and go-1.2", []string{"a", "mark", "and", "sweep", "read", "only", "gc", "for", "x86-64", "with", "sha-256", "and", "go-1.2"}},
		{"file names and calls", "Edit main.go, then call x.Close() or os.Exit(1).", []string{"edit", "main.go", "then", "call", "x.close", "or", "os.exit", "1"}},
		{"sentence dots are not joiners", "It ends. Next one...", []string{"it", "ends", "next", "one"}},
		{"leading and trailing joiners dropped", "__init__ -flag --verbose 'quoted' trailing-", []string{"init", "flag", "verbose", "quoted", "trailing"}},
		{"possessive dropped, curly apostrophe straightened", "Go’s runtime and the GC's pacer don’t block.", []string{"go", "runtime", "and", "the", "gc", "pacer", "don't", "block"}},
		{"paths and urls split at slashes and colons", "See https://go.dev/ref/mem and net/http or std::vector.", []string{"see", "https", "go.dev", "ref", "mem", "and", "net", "http", "or", "std", "vector"}},
		{"markdown marks are not words", "**Bold** and `code` and _em_", []string{"bold", "and", "code", "and", "em"}},
		{"unicode letters and marks", "Café naïve Übergröße 東京", []string{"café", "naïve", "übergröße", "東京"}},
		{"numbers with commas split", "1,000 rows at 3.5 ms", []string{"1", "000", "rows", "at", "3.5", "ms"}},
		{"empty", " \t\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Words(tt.in))
		})
	}
}

func TestTokensKeepCase(t *testing.T) {
	assert.Equal(t, []string{"Go", "GOMAXPROCS", "sync.Mutex", "x86_64"}, Tokens("Go's GOMAXPROCS, sync.Mutex, x86_64."))
}

func TestContentAndTerms(t *testing.T) {
	tests := []struct {
		in            string
		content, term []string
	}{
		{"What does GOGC do, and how should I set it?", []string{"gogc", "set"}, []string{"gogc", "set"}},
		{"Which goroutines can read the indexes? e.g. workers, i.e. readers, etc.", []string{"goroutines", "read", "indexes", "workers", "readers"}, []string{"goroutin", "read", "index", "worker", "reader"}},
		{"Use a C compiler via cgo", []string{"compiler", "cgo"}, []string{"compil", "cgo"}},
		{"Rounds repeat: rounds, round.", []string{"rounds", "repeat", "rounds", "round"}, []string{"round", "repeat", "round", "round"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.content, Content(tt.in), tt.in)
		assert.Equal(t, tt.term, Terms(tt.in), tt.in)
	}
}

func TestIsStopword(t *testing.T) {
	for _, w := range []string{"what", "how", "why", "which", "when", "does", "do", "can", "should", "the", "e.g", "i.e", "etc", "vs", "don't", "using"} {
		assert.True(t, IsStopword(w), w)
	}
	for _, w := range []string{"memory", "goroutine", "gc", "index", "go", "make", "list", "get", "new"} {
		assert.False(t, IsStopword(w), w)
	}
}

func TestIsContent(t *testing.T) {
	for w, want := range map[string]bool{"gogc": true, "go": true, "東": false, "東京": true, "c": false, "the": false, "how": false} {
		assert.Equal(t, want, IsContent(w), w)
	}
}

func TestDistinct(t *testing.T) {
	assert.Equal(t, []string{"b", "a", "c"}, Distinct([]string{"b", "a", "b", "c", "a"}))
	assert.Empty(t, Distinct(nil))
}

func TestIsQuestionForm(t *testing.T) {
	for w, want := range map[string]bool{"explain": true, "way": true, "get": true, "make": true, "memory": false, "index": false} {
		assert.Equal(t, want, IsQuestionForm(w), w)
	}
}

// The ASCII fast path of isWordRune answers as the Unicode tables do.
func TestIsWordRuneASCIIFastPath(t *testing.T) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		want := unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
		if got := isWordRune(r); got != want {
			t.Errorf("isWordRune(%q) = %v, want %v", r, got, want)
		}
	}
}

func TestNameAliases(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Aliases
	}{
		{"How do sync.Mutex and sync.Once order memory?", Aliases{{"Mutex", "sync.mutex"}, {"Once", "sync.onc"}}},
		{"Is http.Client safe for concurrent use?", Aliases{{"Client", "http.client"}}},
		{"what does asyncio.to_thread do", nil},                                 // a function, not a type: written whole in the docs
		{"upgrade from go1.21 to 1.22 or edit foo.go", nil},                     // versions and file names
		{"the Once type and once.Do", nil},                                      // no qualified name
		{"a path like os.path.Join or x.Y.", Aliases{{"Join", "os.path.join"}}}, // a one-letter package is a variable
	} {
		if got := NameAliases(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("NameAliases(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestAliasesTerms(t *testing.T) {
	a := NameAliases("How does sync.Once order memory?")
	for _, c := range []struct {
		in   string
		want bool // the terms hold sync.Once's
	}{
		{"through the use of the Once type", true},
		{"a single call of f() from once.Do(f) is synchronized", true},
		{"ONCE.DO(F) in capitals", true},
		{"call sync.Once's Do", true},
		{"once the file is written", false}, // the stopword, not the name
		{"Once the file is written", true},  // the name's spelling at a sentence's start: a known false match
		{"oncemore.Do and xonce", false},
	} {
		if got := slices.Contains(a.Terms(c.in), "sync.onc"); got != c.want {
			t.Errorf("Terms(%q) holds sync.onc: %v, want %v (%v)", c.in, got, c.want, a.Terms(c.in))
		}
	}
	if got, want := Aliases(nil).Terms("the Once type"), Terms("the Once type"); !reflect.DeepEqual(got, want) {
		t.Errorf("no aliases: %v, want Terms' %v", got, want)
	}
}

func TestQuestionFormAt(t *testing.T) {
	for _, tt := range []struct {
		sentence, word string
		form           bool
	}{
		{"Why does a list I use as a default argument keep growing?", "list", false},
		{"the site list grows", "list", true}, // no determiner right before it
		{"as the list grows", "list", false},
		{"List the tables of a database", "list", true},
		{"list default argument Python function", "list", false}, // a query's keywords
		{"git show merge", "show", false},
		{"How do I get the current time?", "get", true},
		{"How do I run a program and get its output?", "get", true},
		{"Why does adding 0.1 and 0.2 not give exactly 0.3?", "give", true},
		{"Show me the plan of a query", "show", true},
		{"How do I find out what is using memory?", "find", true},
		{"Please explain the memory model", "explain", true},
		{"explain memory model", "explain", true},
		{"What is the best way to copy a table?", "way", true},
	} {
		words := Words(tt.sentence)
		i := slices.Index(words, tt.word)
		if i < 0 {
			t.Fatalf("%q holds no %q", tt.sentence, tt.word)
		}
		if got := QuestionFormAt(words, i); got != tt.form {
			t.Errorf("QuestionFormAt(%q, %q) = %v, want %v", tt.sentence, tt.word, got, tt.form)
		}
	}
}
