package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/search"
)

// linkingProvider is a scripted corpus whose results link to other passages: each result id
// "p<i>" links to "ref-p<i>".
type linkingProvider struct {
	*scriptedProvider
	mu    sync.Mutex
	calls [][]string
	fail  error
}

func (p *linkingProvider) References(_ context.Context, query string, ids []string, per int) ([]search.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, ids)
	if p.fail != nil {
		return nil, p.fail
	}
	var out []search.Result
	for _, id := range ids {
		out = append(out, search.Result{URL: "file:///docs/ref-" + id + ".html", Title: "ref " + id, DocID: "ref-" + id,
			Snippet: strings.Repeat("referenced text for "+id+" ", 8)})
	}
	return out, nil
}

// withIDs gives a batch's results corpus passage ids.
func withIDs(rs []search.Result, tag string) []search.Result {
	out := make([]search.Result, len(rs))
	for i, r := range rs {
		r.DocID = fmt.Sprintf("%s%d", tag, i)
		out[i] = r
	}
	return out
}

func newLinkingEnv(t *testing.T, batches ...[]search.Result) (*researchEnv, *linkingProvider) {
	lp := &linkingProvider{scriptedProvider: &scriptedProvider{batches: batches}}
	return newResearchEnvWith(t, lp.scriptedProvider, lp), lp
}

func TestFirstRoundFollowsItsResultsCrossReferences(t *testing.T) {
	h, lp := newLinkingEnv(t, withIDs(novel("a"), "p"), withIDs(novel("b"), "q"), withIDs(novel("c"), "r"))
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 2}})

	require.Equal(t, 1, h.started["FollowReferences"], "only the first round's results are followed")
	require.Equal(t, [][]string{{"p0", "p1", "p2"}}, lp.calls)
	r1 := rep.Rounds[0]
	require.Equal(t, 3, r1.References)
	require.Equal(t, 6, r1.Results, "the search's 3 results and the 3 passages they link to")
	require.Equal(t, 6, r1.NewResults)
	require.Contains(t, r1.Note, "cross-references: 3 passages they link to join after them")
	// they rank after the search's results, and join the evidence as sources
	require.Equal(t, []string{"p0", "p1", "p2", "ref-p0", "ref-p1", "ref-p2"}, keysOf(r1.Ranked))
	var urls []string
	for _, s := range rep.Sources {
		urls = append(urls, s.URL)
	}
	require.Contains(t, urls, "file:///docs/ref-p0.html")
	require.Zero(t, rep.Rounds[1].References)
}

// keysOf strips SourceKey's provider prefix, if any, to the passage ids.
func keysOf(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k[strings.LastIndex(k, ":")+1:]
	}
	return out
}

func TestAFailedReferenceFollowKeepsTheRoundAndSaysSo(t *testing.T) {
	h, lp := newLinkingEnv(t, withIDs(novel("a"), "p"), withIDs(novel("b"), "q"))
	lp.fail = errors.New("corpus locked")
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 2}})
	require.Equal(t, 4, h.started["FollowReferences"], "retried as a search is")
	require.Zero(t, rep.Rounds[0].References)
	require.Equal(t, 3, rep.Rounds[0].Results)
	require.Equal(t, DecisionAccepted, rep.Rounds[0].Decision)
	require.Len(t, rep.Rounds, 2, "the run goes on")
	require.Contains(t, strings.Join(rep.Fallbacks, "\n"), "following the results' cross-references failed")
}

func TestBeforeFollowReferencesNothingIsFollowed(t *testing.T) {
	h, lp := newLinkingEnv(t, withIDs(novel("a"), "p"), withIDs(novel("b"), "q"))
	h.env.OnGetVersion(followReferencesChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	rep := h.run(t, ResearchRequest{Question: question, Seed: 7, Config: config.Research{Strategy: config.StrategyFixed, FixedRounds: 2}})
	require.Zero(t, h.started["FollowReferences"])
	require.Empty(t, lp.calls)
	require.Equal(t, 3, rep.Rounds[0].Results)
}
