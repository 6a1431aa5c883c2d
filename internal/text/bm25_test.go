package text

import (
	"strings"
	"testing"
)

func TestBM25(t *testing.T) {
	docs := func(ss ...string) [][]string {
		out := make([][]string, len(ss))
		for i, s := range ss {
			out[i] = strings.Fields(s)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		query    string
		docs     [][]string
		higher   int // this document scores above
		lower    int // this one
		zeroDocs []int
	}{
		{"a matching document beats one without the terms", "lock writer",
			docs("lock writer wait", "page cache size"), 0, 1, []int{1}},
		{"a rare term weighs more than a common one", "busy lock",
			docs("lock x", "busy x", "lock y", "lock z"), 1, 0, nil},
		{"more occurrences score higher", "lock",
			docs("lock lock lock a b", "lock a b c d", "x"), 0, 1, []int{2}},
		{"occurrences saturate: three beat one by less than three times", "lock",
			docs("lock lock lock a", "lock a b c", "x y z w"), 0, 1, nil},
		{"the shorter of two documents with one occurrence scores higher", "lock",
			docs("lock a", "lock a b c d e f g h", "x"), 0, 1, nil},
		{"a query term written twice counts once", "lock lock",
			docs("lock a", "x y"), 0, 1, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := BM25(strings.Fields(tc.query), tc.docs)
			if !(s[tc.higher] > s[tc.lower]) {
				t.Fatalf("scores %v: doc %d should be above doc %d", s, tc.higher, tc.lower)
			}
			for _, z := range tc.zeroDocs {
				if s[z] != 0 {
					t.Fatalf("doc %d has no query term but scores %v", z, s[z])
				}
			}
			if strings.HasPrefix(tc.name, "occurrences saturate") && s[0] >= 3*s[1] {
				t.Fatalf("three occurrences %v, one %v: not saturating", s[0], s[1])
			}
		})
	}
	if got := BM25([]string{"a"}, nil); len(got) != 0 {
		t.Fatalf("no documents: %v", got)
	}
	if got := BM25([]string{"a"}, [][]string{{}, {}}); got[0] != 0 || got[1] != 0 {
		t.Fatalf("empty documents: %v", got)
	}
	// twice the same query term must equal once
	a, b := BM25([]string{"lock"}, docs("lock a", "b")), BM25([]string{"lock", "lock"}, docs("lock a", "b"))
	if a[0] != b[0] {
		t.Fatalf("a repeated query term changed the score: %v %v", a, b)
	}
}
