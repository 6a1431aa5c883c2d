package plan

import (
	"reflect"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	got := Terms("How does the Go garbage collector decide when to run, and how can GOGC tune it?")
	want := []string{"Go", "garbage", "collector", "decide", "run", "GOGC", "tune"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Terms = %v, want %v", got, want)
	}
	// "list" is the subject here, not the asker's request ("List the tables")
	got = Terms("Why does a list I use as a default argument in my Python function keep growing?")
	want = []string{"list", "default", "argument", "Python", "function", "keep", "growing"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Terms = %v, want %v", got, want)
	}
}

func TestQueriesNeverTheRawQuestion(t *testing.T) {
	questions := []string{
		"How does the Go garbage collector decide when to run, and how can GOGC and GOMEMLIMIT tune it?",
		"garbage collector",
		"What is the Go memory model?",
		"Explain   modules",
		"?!",
	}
	for _, q := range questions {
		qs := Queries(q)
		for _, x := range qs {
			if SameAsQuestion(x, q) {
				t.Errorf("%q: query %q is the raw question", q, x)
			}
			if x == "" {
				t.Errorf("%q: empty query", q)
			}
		}
		if len(qs) > 3 {
			t.Errorf("%q: %d queries", q, len(qs))
		}
	}
	if got := Queries("How does the Go garbage collector decide when to run, and how can GOGC and GOMEMLIMIT tune it?"); len(got) != 3 {
		t.Fatalf("want 3 queries, got %v", got)
	}
	for _, q := range Queries("What does the Go memory model guarantee, and how do channels and sync.Once create happens-before edges?") {
		seen := map[string]bool{}
		for _, w := range Terms(q) {
			if seen[strings.ToLower(w)] {
				t.Errorf("query %q repeats %q", q, w)
			}
			seen[strings.ToLower(w)] = true
		}
	}
	if got := Queries("?!"); got != nil {
		t.Fatalf("no terms must give no queries, got %v", got)
	}
}

func TestSimplify(t *testing.T) {
	for in, want := range map[string]string{
		// jargon stripped, the first words of the core concept kept (the old fallback kept
		// the jargon: "GOGC GOMEMLIMIT")
		"Go garbage collector GOGC GOMEMLIMIT tuning":  "garbage collector tuning",
		"sync.Once memory ordering guarantees":         "memory ordering guarantees",
		"HTTP2 server push deprecated in Chrome":       "server push deprecated",
		"how channels create edges between goroutines": "channels create edges",
		// short queries get a fallback when a simplification exists
		"GOGC tuning":    "tuning",
		"Rust lifetimes": "lifetimes",
		// no simpler query: plain already, or nothing but jargon
		"garbage collector": "",
		"gc":                "",
		"GOGC GOMEMLIMIT":   "",
		"":                  "",
	} {
		if got := Simplify(in); got != want {
			t.Errorf("Simplify(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SimplifyV0("Go garbage collector GOGC GOMEMLIMIT tuning"); got != "GOGC GOMEMLIMIT" {
		t.Errorf("SimplifyV0 changed: %q", got)
	}
}

func TestGapQuery(t *testing.T) {
	q := "How do GOGC and GOMEMLIMIT tune the garbage collector?"
	// knowledge covers GOGC and garbage collector: the gap is GOMEMLIMIT and tuning
	got := GapQuery(q, "- GOGC sets the garbage collector target percentage", nil)
	if got != "GOMEMLIMIT tune" {
		t.Fatalf("gap query = %q", got)
	}
	// a repeated query is replaced
	again := GapQuery(q, "- GOGC sets the garbage collector target percentage", []string{got})
	if again == got || again == "" {
		t.Fatalf("repeat not replaced: %q", again)
	}
	// everything covered: a facet query, never repeating
	all := "- GOGC GOMEMLIMIT tune garbage collector"
	seen := map[string]bool{}
	var prev []string
	for i := 0; i < 5; i++ {
		g := GapQuery(q, all, prev)
		if g == "" || seen[Normalize(g)] || SameAsQuestion(g, q) {
			t.Fatalf("round %d: bad gap query %q (prev %v)", i, g, prev)
		}
		seen[Normalize(g)] = true
		prev = append(prev, g)
	}
}
