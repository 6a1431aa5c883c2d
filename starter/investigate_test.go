package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/workflows"
)

func TestParseInvestigate(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	req, o, err := parseInvestigate([]string{"How does GOGC tune the collector?", "--sources", "corpus,duckduckgo",
		"--ceiling", "corpus=4", "--ceiling", "duckduckgo=2", "--time-limit", "5m", "--breadcrumbs", "1", "--entities", "0",
		"--max-search-calls", "30", "--json", "--detach"}, get)
	require.NoError(t, err)
	require.Equal(t, []string{"corpus", "duckduckgo"}, req.Sources)
	require.Equal(t, map[string]int{"corpus": 4, "duckduckgo": 2}, req.Ceilings)
	require.Equal(t, 5*time.Minute, req.TimeLimit)
	require.Equal(t, 1, *req.Breadcrumbs)
	require.Equal(t, 0, *req.Entities)
	require.Equal(t, 30, req.MaxSearchCalls)
	require.True(t, o.asJSON && o.detach)
	require.Contains(t, investigationID(req), "investigate-gogc-tune-collector-")

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"Q about GOGC", "--sources", ""}, "no sources"},
		{[]string{"Q about GOGC", "--sources", "corpus,altavista"}, "unknown source"},
		{[]string{"Q about GOGC", "--ceiling", "corpus=0"}, "at least 1"},
		{[]string{"Q about GOGC", "--ceiling", "corpus"}, "name=N"},
		{[]string{"Q about GOGC", "--sources", "corpus,brave"}, investigate.BraveKeyEnv},
		{[]string{"Q about GOGC", "--time-limit", "0s"}, "time-limit"},
		{[]string{}, "exactly one question"},
	} {
		_, _, err := parseInvestigate(tc.args, get)
		require.ErrorContains(t, err, tc.err, tc.args)
		require.ErrorAs(t, err, new(usageError))
	}
	env[investigate.BraveKeyEnv] = "k"
	_, _, err = parseInvestigate([]string{"Q about GOGC", "--sources", "corpus,brave"}, get)
	require.NoError(t, err)
}

func TestEvalCountsAnInvestigationsRoundsAsTheHypothesesItResearched(t *testing.T) {
	rep := workflows.InvestigationReport{}
	rep.Hypotheses = []investigate.HypothesisSummary{{Hypothesis: "a"}, {Hypothesis: "b"}, {Hypothesis: "c", Skipped: "coverage assessment: covered"}}
	rep.Events = make([]investigate.QueryEvent, 17)
	if got := hypothesesRun(rep); got != 2 {
		t.Fatalf("rounds %d, want the 2 hypotheses researched (not the 17 queries)", got)
	}
}
