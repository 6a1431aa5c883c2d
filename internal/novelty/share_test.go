package novelty

import "testing"

func TestShareScore(t *testing.T) {
	for _, tc := range []struct{ share, want float64 }{
		{0, 0},
		{0.05, 1.5},
		{0.1, 3}, // the default threshold: a tenth of the findings
		{0.2, 6},
		{1.0 / 3, 10},
		{0.9, 10},
		{-0.1, 0},
	} {
		if got := ShareScore(tc.share); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("ShareScore(%v) = %v, want %v", tc.share, got, tc.want)
		}
	}
}
