package novelty

import (
	"strings"
	"testing"
)

func TestLearning(t *testing.T) {
	q := "How does the write-ahead log affect readers and checkpoints?"
	known := []string{
		"The write-ahead log lets readers continue while a writer commits.",
		"A checkpoint copies pages from the log back into the database file.",
	}
	for _, tc := range []struct {
		name     string
		fresh    []string
		min, max float64
	}{
		{"nothing fresh", nil, 0, 0},
		{"new pages repeating known facts", []string{
			"The write-ahead log lets readers continue while a writer commits!",
			"A checkpoint copies pages from the log back into the database file, as before.",
		}, 0, 1.5},
		{"new pages off the question", []string{
			"Tomatoes need full sun and regular watering.", "The gardening club meets on Tuesdays.",
		}, 0, 0},
		{"new relevant facts", []string{
			"Readers never block on the write-ahead log; each reader sees a snapshot of the log.",
			"An automatic checkpoint runs when the log reaches 1000 pages, and readers can delay it.",
		}, 6, 10},
		{"one new relevant fact among repeats", []string{
			"The write-ahead log lets readers continue while a writer commits.",
			"A checkpoint copies pages from the log back into the database file.",
			"An automatic checkpoint runs when the log reaches 1000 pages, and readers can delay it.",
		}, 1.5, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Learning(LearningInput{Question: q, Fresh: tc.fresh, Known: known, KnownRounds: 1})
			if out.Score < tc.min || out.Score > tc.max {
				t.Errorf("score %.2f (new share %.2f, relevant %.2f), want %.1f-%.1f", out.Score, out.NewShare, out.Relevant, tc.min, tc.max)
			}
		})
	}
}

func TestLearningScalesDownThinRounds(t *testing.T) {
	q := "How does the write-ahead log affect readers and checkpoints?"
	var known []string
	for i := 0; i < 20; i++ {
		known = append(known, "Readers and the write-ahead log: fact number "+strings.Repeat("x", i+1)+" about checkpoints.")
	}
	fresh := []string{"A checkpoint can be started by hand with a pragma, which readers may delay."}
	thin := Learning(LearningInput{Question: q, Fresh: fresh, Known: known, KnownRounds: 2})
	full := Learning(LearningInput{Question: q, Fresh: fresh, Known: known[:1], KnownRounds: 1})
	if !(thin.Score < full.Score) {
		t.Errorf("a round far thinner than the average earlier one should score lower: thin %.2f, full %.2f", thin.Score, full.Score)
	}
}
