package report

import "strings"

// FreshShare is the share (0-1) of the findings' quoted characters that come from the sources
// isFresh picks (by their number in the answer's input): how much of the report a round's new
// passages wrote. Heading lines do not count; findings quoting nothing share nothing.
func FreshShare(out AnswerOutput, isFresh func(n int) bool) float64 {
	var mine, all int
	for k, lines := range out.Quotes {
		if k < 1 || k > len(out.Order) {
			continue
		}
		fresh := isFresh(out.Order[k-1])
		for _, l := range lines {
			if strings.HasPrefix(l, "#") {
				continue
			}
			all += len(l)
			if fresh {
				mine += len(l)
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(mine) / float64(all)
}
