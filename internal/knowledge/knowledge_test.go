package knowledge

import (
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/search"
)

func res(title, snippet string) search.Result { return search.Result{Title: title, Snippet: snippet} }

func TestInitialIsCappedAndBuiltFromResults(t *testing.T) {
	var rs []search.Result
	for i := 0; i < 50; i++ {
		rs = append(rs, res("Doc", strings.Repeat("word", 1)+" unique"+string(rune('a'+i%26))+string(rune('a'+i/26))+" filler text about garbage collection"))
	}
	for _, cap := range []int{100, 300, 1500} {
		got := Initial(rs, cap)
		if len(got) > cap {
			t.Fatalf("cap %d: state has %d chars", cap, len(got))
		}
		if got == "" || !strings.HasPrefix(got, "- Doc: ") {
			t.Fatalf("cap %d: state not built from results: %q", cap, got)
		}
	}
}

func TestCompressAddsNewFactsAndKeepsCap(t *testing.T) {
	state := Initial([]search.Result{res("GC", "The garbage collector runs when the heap doubles")}, 1500)
	next := Compress(state, []search.Result{
		res("GC", "The garbage collector runs when the heap doubles"), // adds nothing
		res("Limit", "GOMEMLIMIT sets a soft memory limit for the runtime"),
	}, 1500)
	b := Bullets(next)
	if len(b) != 2 {
		t.Fatalf("want the old fact plus the new one, got %q", b)
	}
	if !strings.Contains(next, "GOMEMLIMIT") || !strings.Contains(next, "heap doubles") {
		t.Fatalf("facts lost: %q", next)
	}
	// a tight cap keeps whole bullets only
	tight := Compress(state, []search.Result{res("Limit", "GOMEMLIMIT sets a soft memory limit for the runtime")}, 80)
	if len(tight) > 80 {
		t.Fatalf("cap exceeded: %d", len(tight))
	}
	for _, f := range Bullets(tight) {
		if strings.HasSuffix(f, "…") {
			t.Fatalf("bullet cut in the middle: %q", f)
		}
	}
}

func TestJoinCutsASingleOverlongFact(t *testing.T) {
	got := Join([]string{strings.Repeat("x", 500)}, 100)
	if len(got) > 100 || got == "" {
		t.Fatalf("got %d chars", len(got))
	}
}

func TestAttribute(t *testing.T) {
	cands := []string{
		"Scheduler: goroutines are multiplexed onto threads",
		"GC guide: GOGC sets the garbage collector target heap growth",
		"Blog: the garbage collector and GOGC explained with heap growth examples",
	}
	got := Attribute("GC guide: GOGC sets the garbage collector target heap growth", cands, 3)
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("Attribute = %v, want [1 2]", got)
	}
	if got := Attribute("GOGC garbage collector heap", cands, 1); len(got) != 1 {
		t.Fatalf("n not respected: %v", got)
	}
	if got := Attribute("the and of", cands, 3); got != nil {
		t.Fatalf("no content words must attribute nothing: %v", got)
	}
}
