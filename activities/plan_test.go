package activities

import (
	"testing"

	"github.com/sated-dev/sated/internal/plan"
	"github.com/stretchr/testify/require"
)

// What memory already holds is searched last: an aspect the recalled facts cover moves behind
// the ones they do not; the whole-question query stays first.
func TestKnownAspectsAreSearchedLast(t *testing.T) {
	qs := []string{"write ahead log checkpoint run", "write ahead log work", "checkpoint run"}
	aspects := []plan.Aspect{{Text: "how does the write-ahead log work", Query: qs[1]}, {Text: "when does a checkpoint run", Query: qs[2]}}
	require.Equal(t, qs, knownLast(qs, aspects, nil))
	known := []string{"The write-ahead log appends changes to the WAL; the log work lets readers continue."}
	require.Equal(t, []string{qs[0], qs[2], qs[1]}, knownLast(qs, aspects, known))
	// a fact about something else moves nothing
	require.Equal(t, qs, knownLast(qs, aspects, []string{"VACUUM rebuilds the database file."}))
}
