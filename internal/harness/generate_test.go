package harness

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/eval"
)

var genPassages = []SourcePassage{
	{ID: "p1:0", Page: "p1", Path: "Go GC > Costs", Text: "The Go garbage collector is a tracing collector that runs concurrently with the program and marks every reachable object.", Found: "the collector runs concurrently [1]"},
	{ID: "p1:1", Page: "p1", Path: "Go GC > Tuning", Text: "GOGC sets the heap growth target, and it defaults to 100 in every release of the toolchain."},
	{ID: "p2:0", Page: "p2", Path: "Memory Model > Channels", Text: "# Channels\nA send on a buffered channel with capacity C is synchronized before the completion of the matching receive."},
	{ID: "p3:0", Page: "p3", Path: "Effective Go > Defer", Text: "Short."},
	{ID: "p4:0", Page: "p4", Path: "Effective Go > Defer", Text: "Deferred functions are executed in last-in-first-out order when the surrounding function returns to its caller."},
}

func TestGenerateBenchmarks(t *testing.T) {
	h := Harness{Version: 2, Benchmarks: []Benchmark{{ID: "gogc", Question: "q", Gold: []eval.Fact{{Fact: "f", Patterns: []string{`defaults\W+to\W+100`}}}, Threshold: 1, Enabled: true}}}
	bs := GenerateBenchmarks(h, genPassages)
	// p1:0 (p1:1 is covered by gogc's pattern, and p1 is used anyway), p2:0, p4:0 (p3:0 has no
	// sentence long enough), then the two-page benchmark over the first two.
	if len(bs) != 4 {
		t.Fatalf("%d benchmarks: %+v", len(bs), bs)
	}
	for i, b := range bs[:3] {
		p := []SourcePassage{genPassages[0], genPassages[2], genPassages[4]}[i]
		re := regexp.MustCompile("(?i)" + b.Gold[0].Patterns[0])
		if !re.MatchString(p.Text) || !strings.Contains(b.Question, p.Path) || b.Enabled || b.Threshold != 1 || !strings.Contains(b.Origin, p.ID) {
			t.Errorf("%d: %+v", i, b)
		}
		if len(TrivialFacts(b.ID, b.Gold)) > 0 || !strings.Contains(b.Gold[0].Patterns[0], `\W+`) {
			t.Errorf("%d: pattern %q", i, b.Gold[0].Patterns[0])
		}
	}
	if !strings.Contains(bs[0].Origin, "expansion research found: the collector runs concurrently") || strings.Contains(bs[1].Origin, "research") {
		t.Errorf("origins %q / %q", bs[0].Origin, bs[1].Origin)
	}
	multi := bs[3]
	if !strings.HasPrefix(multi.ID, "gen-multi-") || len(multi.Gold) != 2 || !strings.Contains(multi.Question, "Go GC > Costs") || !strings.Contains(multi.Question, "Memory Model > Channels") {
		t.Errorf("multi %+v", multi)
	}
	// deterministic, and the proposal passes the ratchet as new disabled benchmarks
	if again := GenerateBenchmarks(h, genPassages); again[0].ID != bs[0].ID || again[0].Gold[0].Patterns[0] != bs[0].Gold[0].Patterns[0] {
		t.Error("not deterministic")
	}
	if ok, refused := Filter(h, Proposal{NewBenchmarks: bs}); len(refused) > 0 || len(ok.NewBenchmarks) != 4 {
		t.Errorf("ratchet refused %+v", refused)
	}
	// once committed, the same passages are covered and generate nothing new of them
	next, _ := Apply(h, Proposal{NewBenchmarks: bs})
	for _, b := range bs {
		next, _ = Enable(next, b.ID)
	}
	if again := GenerateBenchmarks(next, genPassages); len(again) != 0 {
		t.Errorf("covered passages generated %+v", again)
	}
	for _, b := range bs {
		t.Logf("%s: %s | %s", b.ID, b.Question, b.Gold[0].Patterns[0])
	}
}
