package workflows

import "github.com/sated-dev/sated/internal/novelty"

func noveltyPass(seed int64, round int, eps float64) bool {
	return novelty.EpsilonPass(seed, round, eps)
}
