package novelty

import (
	"strings"
	"testing"
)

func TestDiagnoseQueries(t *testing.T) {
	rn := func(scores ...float64) []RoundNovelty {
		out := make([]RoundNovelty, len(scores))
		for i, s := range scores {
			out[i] = RoundNovelty{Round: i + 2, Novelty: s, Repeats: true} // round 1 is never scored
		}
		return out
	}
	// distinct: the same curve from queries that do not repeat each other
	distinct := func(rs []RoundNovelty) []RoundNovelty {
		out := make([]RoundNovelty, len(rs))
		for i, r := range rs {
			r.Repeats = false
			out[i] = r
		}
		return out
	}
	// answered: the same curve scored by the answer gate
	answered := func(rs []RoundNovelty) []RoundNovelty {
		for i := range rs {
			rs[i].Method = "answer"
		}
		return rs
	}
	someRepeat := rn(2, 3)
	someRepeat[1].Repeats = false
	for _, tc := range []struct {
		name   string
		rounds []RoundNovelty
		want   []string // substrings, in order; nil: no diagnosis
	}{
		{name: "no scored round", rounds: nil},
		{name: "one scored round says nothing", rounds: rn(9)},
		{name: "a normal curve", rounds: rn(8, 6, 4, 2.5)},
		{name: "gate never bit", rounds: rn(8.5, 7.5, 9, 7.1), want: []string{"gate never bit; the queries may be too broad"}},
		{name: "7.0 exactly is not above", rounds: rn(8, 7.0)},
		{name: "rounds 2-5 near-duplicate", rounds: rn(2, 3, 1.5, 3.4), want: []string{"rounds 2-5 all had novelty below 3.5: the queries are near-duplicates"}},
		{name: "rounds 2-3 near-duplicate, later rounds ignored", rounds: rn(1, 2, 3.4, 3.4, 9), want: []string{"rounds 2-5 all had novelty below 3.5"}},
		{name: "stale rounds of distinct queries are no duplicates", rounds: distinct(rn(2.4, 1.1)),
			want: []string{"rounds 2-3 all had novelty below 3.5 although their queries differ: they found little the first round had not"}},
		{name: "one repeated query of two stale rounds is no duplicate set", rounds: someRepeat, want: []string{"although their queries differ"}},
		{name: "stale under the answer gate: the findings would not use them", rounds: answered(distinct(rn(0, 0))),
			want: []string{"rounds 2-3 all had novelty below 3.5 although their queries differ: the findings would quote little of what they found"}},
		{name: "saturating after a new round is normal", rounds: rn(6, 2)},
		{name: "a single stale round is a normal stop", rounds: rn(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DiagnoseQueries(tc.rounds)
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %d diagnoses", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("diagnosis %d: %q lacks %q", i, got[i], w)
				}
			}
		})
	}
}
