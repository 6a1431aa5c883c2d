package memory

import "github.com/sated-dev/sated/internal/text"

// RelevanceFloor is the share of a task's content words a remembered fact must hold to enter a
// new run's plan and report: recall ranks by similarity among what memory holds, so its best
// hits for a new topic can still be about something else.
const RelevanceFloor = 0.3

// Relevance is the share of the task's distinct content words (stemmed) the fact holds, 0-1;
// a task with no content words makes every fact irrelevant.
func Relevance(task, fact string) float64 {
	want := text.Distinct(text.Terms(task))
	if len(want) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range text.Terms(fact) {
		have[t] = true
	}
	n := 0
	for _, t := range want {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}
