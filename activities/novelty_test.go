package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/search"
)

// The answer gate writes the findings as Synthesize will, each source weighed by the round that
// found it: a round's passage that matches an aspect's words one for one teaches the report less
// than the score it would have were it found by the first round's search of the whole question.
func TestAnswerNoveltyReadsTheRoundsSourcesCameFrom(t *testing.T) {
	known := search.Result{Title: "The Password File", URL: "https://docs.example/pgpass",
		Snippet: "The file .pgpass in a user's home directory can contain passwords to be used if the connection requires a password. Each line of the file has the format hostname:port:database:username:password."}
	fresh := search.Result{Title: "Extension files", URL: "https://docs.example/extend",
		Snippet: "The control file of an extension should look like this example: each line of the file sets one parameter."}
	in := NoveltyInput{Method: config.NoveltyAnswer, Question: "What does the password file have to look like?",
		Sources: []Source{{Result: known}}, Results: []search.Result{fresh},
		Rounds: []RoundRecord{{Round: 1}, {Round: 2}}, Budget: 250}
	a := &Activities{}
	alike := a.answerNovelty(context.Background(), in) // an older caller: every source weighs alike
	in.Sources[0].Round = 1
	weighed := a.answerNovelty(context.Background(), in)
	require.Greater(t, alike.Score, 0.0, "weighed alike, round 2's passage is quoted")
	require.Less(t, weighed.Score, alike.Score, "found only by round 2, its passage weighs less")
}
