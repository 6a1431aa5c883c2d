package workflows

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/search"
)

// wideProvider answers every query with 15 results no other query returns, each with a long
// snippet: an investigation that never saturates.
type wideProvider struct{ name string }

func (p wideProvider) Name() string { return p.name }

func (p wideProvider) Search(_ context.Context, q string, limit int) ([]search.Result, error) {
	h := fnv.New32a()
	h.Write([]byte(q))
	var out []search.Result
	for i := range min(limit, 15) {
		out = append(out, search.Result{URL: fmt.Sprintf("https://%s.example/%d/%d", p.name, h.Sum32(), i), Title: fmt.Sprintf("Note %d on %s", i, q),
			Snippet: strings.Repeat(fmt.Sprintf("The garbage collector note %d on %s says the pacer tunes the heap goal. ", i, q), 8)})
	}
	return out, nil
}

// A large investigation's result leaves out the rendered report, which repeats its findings
// and query events (1,140 findings from four sources made a 2.03 MB result on the dev server,
// at Temporal's 2 MB payload limit); Rendered renders the same Markdown the run saved.
func TestLargeInvestigationResultLeavesTheRenderingOut(t *testing.T) {
	sources := []string{"corpus", "searxng", "meilisearch", "duckduckgo"}
	providers := map[string]search.Provider{}
	ceilings := map[string]int{}
	for _, s := range sources {
		providers[s], ceilings[s] = wideProvider{s}, 30
	}
	h := newInvHarness(t)
	h.acts = activities.NewActivities(activities.Deps{Providers: providers, ReportDir: t.TempDir()})
	h.env.RegisterActivity(h.acts)
	rep := h.run(t, InvestigationRequest{Question: "How does the garbage collector pacer tune the heap goal?", Sources: sources,
		NoModel: true, Ceilings: ceilings, MaxSearchCalls: 300})
	require.Greater(t, len(rep.Findings), 1000)
	require.Empty(t, rep.Markdown, "too large to carry twice")
	saved, err := os.ReadFile(rep.MarkdownPath)
	require.NoError(t, err)
	require.Greater(t, len(saved), maxResultMarkdown)
	require.Equal(t, string(saved), rep.Rendered(), "rendered again, the same report")

	// a small one carries it as before
	small := runDocs(t, false)
	require.NotEmpty(t, small.Markdown)
	require.Equal(t, small.Markdown, small.Rendered())
}
