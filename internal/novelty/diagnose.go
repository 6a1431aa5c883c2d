package novelty

import (
	"fmt"

	"github.com/sated-dev/sated/internal/config"
)

// Query diagnosis thresholds, from the design: a run whose every round is this new never met
// the gate (the queries may be too broad); rounds 2-5 all this stale ask the same thing again.
const (
	BroadNovelty     = 7.0
	DuplicateNovelty = 3.5
	// diagnosedRounds is the last round the near-duplicate rule looks at.
	diagnosedRounds = 5
)

// RoundNovelty is one scored round's novelty (round 1 is never scored).
type RoundNovelty struct {
	Round   int
	Novelty float64
	// Repeats says the round's query shares most of its terms with an earlier round's
	// (plan.NearDuplicate).
	Repeats bool
	// Method is the novelty method that scored the round; "answer" scores what the findings
	// would quote, so a stale round is one the report would not use.
	Method string
}

// DiagnoseQueries reads the novelty curve of a run's scored rounds and says what it suggests
// about the queries: every round above BroadNovelty (at least two scored) means the gate never
// bit and the queries may be too broad; every scored round of 2-5 below DuplicateNovelty (at
// least two of them) means the queries are near-duplicates when their queries repeat earlier
// ones, and otherwise that distinct queries found little new: novelty measures what a round
// teaches, so stale rounds of different queries say the corpus holds little more on the
// question, not that the queries repeat. Nil when neither holds.
func DiagnoseQueries(rounds []RoundNovelty) []string {
	var out []string
	if len(rounds) >= 2 {
		broad := true
		for _, r := range rounds {
			broad = broad && r.Novelty > BroadNovelty
		}
		if broad {
			out = append(out, fmt.Sprintf("every scored round had novelty above %.1f: the gate never bit; the queries may be too broad", BroadNovelty))
		}
	}
	var early []RoundNovelty
	for _, r := range rounds {
		if r.Round >= 2 && r.Round <= diagnosedRounds {
			early = append(early, r)
		}
	}
	if len(early) >= 2 {
		stale, repeats := true, true
		for _, r := range early {
			stale = stale && r.Novelty < DuplicateNovelty
			repeats = repeats && r.Repeats
		}
		switch {
		case stale && repeats:
			out = append(out, fmt.Sprintf("rounds %d-%d all had novelty below %.1f: the queries are near-duplicates of each other",
				early[0].Round, early[len(early)-1].Round, DuplicateNovelty))
		case stale && early[0].Method == config.NoveltyAnswer:
			out = append(out, fmt.Sprintf("rounds %d-%d all had novelty below %.1f although their queries differ: the findings would quote little of what they found, the first round's passages already answering what the report can; the corpus may hold little more on this question",
				early[0].Round, early[len(early)-1].Round, DuplicateNovelty))
		case stale:
			out = append(out, fmt.Sprintf("rounds %d-%d all had novelty below %.1f although their queries differ: they found little the first round had not; the corpus may hold little more on this question",
				early[0].Round, early[len(early)-1].Round, DuplicateNovelty))
		}
	}
	return out
}
