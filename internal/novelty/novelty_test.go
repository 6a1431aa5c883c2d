package novelty

import (
	"math"
	"reflect"
	"testing"
)

func TestContentWords(t *testing.T) {
	got := ContentWords("What does GOGC=100 do to the GC's pacing? GOGC sets pacing.")
	if want := []string{"gogc", "100", "gc", "pacing", "sets"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ContentWords = %v, want %v", got, want)
	}
}

func TestHeuristic(t *testing.T) {
	cases := []struct {
		name        string
		text, known string
		want        float64
	}{
		{"empty text is not novel", "", "anything", 0},
		{"nothing known: all new", "garbage collector pacing", "", 10},
		{"all known", "garbage collector", "the garbage collector runs", 0},
		{"half known", "garbage collector pacing heap", "garbage collector", 5},
		{"stopwords ignored", "the and of garbage", "garbage", 0},
		{"case insensitive", "GARBAGE Collector", "garbage collector", 0},
		{"one of four", "alpha beta gamma delta", "alpha beta gamma", 2.5},
		{"inflections are known", "Indexes rebuilt by rounds", "index rebuilt each round", 0},
	}
	for _, c := range cases {
		if got := Heuristic(c.text, c.known); got != c.want {
			t.Errorf("%s: Heuristic = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOverlapAndSelection(t *testing.T) {
	known := "garbage collector heap pacing"
	snips := []string{
		"garbage collector heap",          // overlap 1
		"scheduler goroutines preemption", // overlap 0
		"garbage scheduler",               // 0.5
		"",                                // empty: 1
		"channels select statements",      // 0
	}
	if got := Overlap(snips[2], known); got != 0.5 {
		t.Fatalf("overlap = %v", got)
	}
	if got := SelectForEnrichment(snips, known, 0.6, 3); !reflect.DeepEqual(got, []int{1, 2, 4}) {
		t.Fatalf("selected %v", got)
	}
	if got := SelectForEnrichment(snips, known, 0.6, 1); !reflect.DeepEqual(got, []int{1}) {
		t.Fatalf("count not respected: %v", got)
	}
	if got := SelectForEnrichment(snips, known, 0, 5); !reflect.DeepEqual(got, []int{1, 4}) {
		t.Fatalf("cut 0: %v", got)
	}
}

func TestDrawIsReproducibleAndUniform(t *testing.T) {
	if Draw(42, 3) != Draw(42, 3) {
		t.Fatal("same seed and round must give the same draw")
	}
	if Draw(42, 3) == Draw(43, 3) && Draw(42, 4) == Draw(43, 4) {
		t.Fatal("different seeds give identical draws")
	}
	// the pass-through rate over many seeds is close to epsilon
	pass := 0
	n := 20000
	for s := 0; s < n; s++ {
		if EpsilonPass(int64(s), 3, 0.15) {
			pass++
		}
	}
	if rate := float64(pass) / float64(n); math.Abs(rate-0.15) > 0.02 {
		t.Fatalf("pass-through rate %v, want about 0.15", rate)
	}
	for s := int64(0); s < 100; s++ {
		if EpsilonPass(s, 2, 0) {
			t.Fatal("epsilon 0 must never pass")
		}
		if !EpsilonPass(s, 2, 1) {
			t.Fatal("epsilon 1 must always pass")
		}
	}
}

// epsilonSeeds are a seed whose epsilon draw for round passes at epsilon 0.5 and one whose
// draw does not.
func epsilonSeeds(round int) (pass, stop int64) {
	pass, stop = -1, -1
	for s := int64(1); s < 1000 && (pass < 0 || stop < 0); s++ {
		if EpsilonPass(s, round, 0.5) {
			if pass < 0 {
				pass = s
			}
		} else if stop < 0 {
			stop = s
		}
	}
	return pass, stop
}

// Gate decides the rounds after the minimum; Kept the rounds within it, which it never
// discards: only the last of them, scored below the threshold, ends the search (unless the
// epsilon draw passes it).
func TestGateAndKept(t *testing.T) {
	pass3, stop3 := epsilonSeeds(3)
	pass2, stop2 := epsilonSeeds(2)
	type decide func(score, threshold float64, round, minRounds int, seed int64, epsilon float64) Decision
	cases := []struct {
		name       string
		decide     decide
		score, thr float64
		round, min int
		seed       int64
		eps        float64
		want       Decision
	}{
		{"above threshold accepted", Gate, 5, 3, 3, 2, stop3, 0.5, Accept},
		{"at threshold accepted", Gate, 3, 3, 3, 2, stop3, 0.5, Accept},
		{"below before minimum continues", Gate, 1, 3, 2, 3, stop3, 0, DiscardContinue},
		{"below at minimum stops", Gate, 1, 3, 2, 2, stop3, 0, Stop},
		{"below after minimum stops", Gate, 1, 3, 3, 2, stop3, 0.5, Stop},
		{"epsilon lets it through", Gate, 1, 3, 3, 2, pass3, 0.5, EpsilonContinue},
		{"last kept round above threshold goes on", Kept, 5, 3, 2, 2, stop2, 0.5, Accept},
		{"last kept round at threshold goes on", Kept, 3, 3, 2, 2, stop2, 0.5, Accept},
		{"earlier kept round below threshold goes on", Kept, 0, 3, 2, 3, stop2, 0, Accept},
		{"last kept round below threshold stops", Kept, 1, 3, 2, 2, stop2, 0.5, KeepAndStop},
		{"last kept round of three below threshold stops", Kept, 0, 3, 3, 3, stop2, 0, KeepAndStop},
		{"epsilon lets the run go on", Kept, 1, 3, 2, 2, pass2, 0.5, EpsilonContinue},
	}
	for _, c := range cases {
		if got := c.decide(c.score, c.thr, c.round, c.min, c.seed, c.eps); got != c.want {
			t.Errorf("%s: got %v want %v", c.name, got, c.want)
		}
	}
}

func TestEmbedding(t *testing.T) {
	a := []float32{1, 0}
	b := []float32{0, 1}
	cases := []struct {
		name         string
		fresh, known [][]float32
		want         float64
	}{
		{"nothing fresh", nil, [][]float32{a}, 0},
		{"nothing known", [][]float32{a}, nil, 10},
		{"identical", [][]float32{a}, [][]float32{a}, 0},
		{"orthogonal", [][]float32{b}, [][]float32{a}, 10},
		{"one of each", [][]float32{a, b}, [][]float32{a}, 5},
		{"best match wins", [][]float32{b}, [][]float32{a, b}, 0},
	}
	for _, c := range cases {
		if got := Embedding(c.fresh, c.known); got != c.want {
			t.Errorf("%s: got %v want %v", c.name, got, c.want)
		}
	}
	if Cosine(a, []float32{1}) != 0 || Cosine(a, []float32{0, 0}) != 0 {
		t.Fatal("mismatched or zero vectors must score 0")
	}
}

func TestEnrichmentCandidates(t *testing.T) {
	known := "the collector is concurrent and paced by the heap goal"
	for _, tc := range []struct {
		name     string
		snippet  string
		indexed  bool
		wantSkip bool
		wantOver float64
	}{
		{name: "new page", snippet: "GOMEMLIMIT sets a soft memory limit", wantOver: 0},
		{name: "mostly known", snippet: "collector concurrent heap goal paced", wantSkip: true, wantOver: 1},
		{name: "empty snippet is a candidate, not fully known", snippet: "", wantOver: 0},
		{name: "indexed passage is never fetched nor skipped", snippet: "collector concurrent heap goal", indexed: true, wantOver: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := EnrichmentCandidates([]string{tc.snippet}, []bool{tc.indexed}, known, 0.5)
			if len(got) != 1 || got[0].Skip != tc.wantSkip || got[0].Overlap != tc.wantOver || got[0].Indexed != tc.indexed {
				t.Fatalf("got %+v, want skip %v overlap %v", got, tc.wantSkip, tc.wantOver)
			}
		})
	}
}
