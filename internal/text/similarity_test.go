package text

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want float64
	}{
		{"identical", []string{"gc", "heap"}, []string{"heap", "gc"}, 1},
		{"disjoint", []string{"gc"}, []string{"heap"}, 0},
		{"counts weigh", []string{"gc", "gc", "heap"}, []string{"gc"}, 2 / 2.23606797749979},
		{"half", []string{"a", "b"}, []string{"b", "c"}, 0.5},
		{"empty", nil, []string{"gc"}, 0},
		{"both empty", nil, nil, 0},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, Cosine(NewBag(tt.a), NewBag(tt.b)), 1e-9, tt.name)
		assert.InDelta(t, tt.want, Cosine(NewBag(tt.b), NewBag(tt.a)), 1e-9, tt.name+" (symmetric)")
	}
}

func TestCosineOfTextsMatchesInflections(t *testing.T) {
	q := NewBag(Terms("How do I rebuild indexes?"))
	assert.Greater(t, Cosine(q, NewBag(Terms("Rebuilding an index takes a lock."))), 0.7)
	assert.Zero(t, Cosine(q, NewBag(Terms("The garbage collector is concurrent."))))
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want float64
	}{
		{"identical sets, repeats ignored", []string{"a", "b", "a"}, []string{"b", "a"}, 1},
		{"one of three", []string{"a", "b"}, []string{"b", "c"}, 1.0 / 3},
		{"disjoint", []string{"a"}, []string{"b"}, 0},
		{"one empty", nil, []string{"a"}, 0},
		{"both empty", nil, nil, 0},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, Jaccard(tt.a, tt.b), 1e-9, tt.name)
		assert.InDelta(t, tt.want, Jaccard(tt.b, tt.a), 1e-9, tt.name+" (symmetric)")
	}
}

func TestOverlap(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want float64
	}{
		{"all of a known", []string{"a", "b"}, []string{"a", "b", "c"}, 1},
		{"half of a known, repeats ignored", []string{"a", "b", "b"}, []string{"a"}, 0.5},
		{"not symmetric", []string{"a", "b", "c"}, []string{"a", "b"}, 2.0 / 3},
		{"nothing known", []string{"a"}, nil, 0},
		{"empty a brings nothing new", nil, []string{"a"}, 1},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, Overlap(tt.a, tt.b), 1e-9, tt.name)
	}
}

func TestInOrder(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"a send is synchronized before the completion of the corresponding receive",
			"a send is synchronized before the completion of the corresponding receive", 1},
		{"a send is synchronized before the completion of the corresponding receive",
			"a receive is synchronized before the completion of the corresponding send", 0.6}, // send, receive swapped: 3 of 5 in order
		{"the checkpoint runs at 1000 pages", "by default the checkpoint runs at 1000 pages", 0.8},
		{"", "checkpoint", 0},
		{"alpha beta", "gamma delta", 0},
	} {
		if got := InOrder(Terms(c.a), Terms(c.b)); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("InOrder(%q, %q) = %v, want %v (%v / %v)", c.a, c.b, got, c.want, Terms(c.a), Terms(c.b))
		}
	}
}
