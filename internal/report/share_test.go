package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

func TestFreshShare(t *testing.T) {
	out := AnswerOutput{
		Order: []int{3, 1, 2}, // the report's [1] is input source 3, [2] is 1, [3] is 2
		Quotes: map[int][]string{
			1: {"### Locks", strings.Repeat("a", 60)},
			2: {strings.Repeat("b", 30)},
			3: {strings.Repeat("c", 10)},
		},
	}
	for _, tc := range []struct {
		name  string
		fresh map[int]bool
		want  float64
	}{
		{"none fresh", nil, 0},
		{"the top source fresh, its heading line not counted", map[int]bool{3: true}, 0.6},
		{"two fresh", map[int]bool{1: true, 2: true}, 0.4},
		{"all fresh", map[int]bool{1: true, 2: true, 3: true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FreshShare(out, func(n int) bool { return tc.fresh[n] }); fmt.Sprintf("%.3f", got) != fmt.Sprintf("%.3f", tc.want) {
				t.Fatalf("share %v, want %v", got, tc.want)
			}
		})
	}
	if got := FreshShare(AnswerOutput{}, func(int) bool { return true }); got != 0 {
		t.Fatalf("empty findings share %v, want 0", got)
	}
}

// TestFreshShareOfARealAnswer: a round whose passage the answer quotes shares in the findings;
// one whose passages the answer passes over shares nothing.
func TestFreshShareOfARealAnswer(t *testing.T) {
	src := func(n int, title, text string) research.Source {
		return research.Source{N: n, Result: search.Result{URL: fmt.Sprintf("https://x/%d", n), Title: title, Snippet: text}, Text: text}
	}
	sources := []research.Source{
		src(1, "Write-ahead logging", "In WAL mode readers do not block writers and a writer does not block readers. The WAL file is checkpointed back into the database when it reaches 1000 pages."),
		src(2, "Busy timeout", "The busy timeout makes a connection wait for a lock instead of failing at once with SQLITE_BUSY. Set it with PRAGMA busy_timeout in milliseconds."),
		src(3, "Release history", "Version 3.7.0 added many things to the library and fixed several bugs in the shell tool."),
	}
	a := Answer(AnswerInput{Question: "How do readers and writers share a database in WAL mode, and how long does a writer wait for a lock?", Sources: sources, Budget: 2000})
	quoted := FreshShare(a, func(n int) bool { return n == 2 })
	if quoted <= 0 || quoted >= 1 {
		t.Fatalf("the busy-timeout source's share %v, want inside (0,1)\n%s", quoted, a.Body)
	}
	if got := FreshShare(a, func(n int) bool { return n == 3 }); got != 0 {
		t.Fatalf("the release notes' share %v, want 0\n%s", got, a.Body)
	}
}
