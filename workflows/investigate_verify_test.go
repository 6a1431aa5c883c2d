package workflows

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/search"
)

// storyProvider is a fake source whose answers depend on the query: answer gives the results.
type storyProvider struct {
	name    string
	answer  func(q string) []search.Result
	mu      sync.Mutex
	queries []string
}

func (p *storyProvider) Name() string { return p.name }

func (p *storyProvider) Search(_ context.Context, q string, _ int) ([]search.Result, error) {
	p.mu.Lock()
	p.queries = append(p.queries, q)
	p.mu.Unlock()
	return p.answer(q), nil
}

func (p *storyProvider) asked(sub string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, q := range p.queries {
		if strings.Contains(strings.ToLower(q), strings.ToLower(sub)) {
			out = append(out, q)
		}
	}
	return out
}

const storyQuestion = "When did Acme Corp close its Series C round, and for how much?"

// storySources: the web source has the two conflicting reports (2024 against Oct 2023) naming
// six leads; the corpus answers most queries with filler, the confirmation queries with the
// official GSA page, and the entity query about Jane Smith with her profile.
func storySources() (web, corpus *storyProvider) {
	web = &storyProvider{name: "searxng", answer: func(q string) []search.Result {
		h := fnv.New32a()
		h.Write([]byte(q))
		return []search.Result{
			{URL: "https://news-a.example/acme", Title: "Acme Corp Series C round", Snippet: "Acme Corp raised $200M in its Series C round in 2024. Jane Smith of Zeta Ventures Group confirmed it."},
			{URL: "https://blog-b.example/acme", Title: "Acme Corp Series C round", Snippet: "Acme Corp closed its $200M Series C round in Oct 2023 under contract GS-35F-0119Y; see RFC 9113, CVE-2023-39325 and the NSA note by Rob Pike."},
			{URL: fmt.Sprintf("https://site%d.example/q", h.Sum32()%97), Title: "More on " + q, Snippet: "Coverage of " + q + " by the trade press."},
		}
	}}
	corpus = &storyProvider{name: "corpus", answer: func(q string) []search.Result {
		lq := strings.ToLower(q)
		switch {
		case strings.Contains(lq, "gs-35f-0119y") || strings.Contains(lq, "raised"):
			return []search.Result{{URL: "https://www.gsa.gov/acme-award", Title: "GSA award",
				Snippet: "Acme Corp closed its $200M Series C round in Oct 2023, as the award under contract GS-35F-0119Y records."}}
		case strings.Contains(lq, "jane smith"):
			return []search.Result{{URL: "https://people.example/jane", Title: "Jane Smith", Snippet: "Jane Smith became the CEO of Acme Corp in March 2021."}}
		}
		var out []search.Result
		for i := range 5 {
			out = append(out, search.Result{URL: fmt.Sprintf("file:///corpus/%s/%d", strings.ReplaceAll(lq, " ", "-"), i), Title: "note", Snippet: "a corpus note on this topic."})
		}
		return out
	}}
	return web, corpus
}

// pageText is what FetchPage reads for the web reports: more than their snippets say.
func pageText(u string) string {
	switch u {
	case "https://news-a.example/acme":
		return "Acme Corp raised $200M in its Series C round in 2024. Jane Smith of Zeta Ventures Group confirmed it. " +
			"Jane Smith is the CEO of Acme Corp and has led it since March 2021. Jane Smith said the money goes to hiring."
	case "https://blog-b.example/acme":
		return "Acme Corp closed its $200M Series C round in Oct 2023 under contract GS-35F-0119Y. The Zeta Ventures Group led the round with $120 million in 2023."
	}
	return ""
}

func runStory(t *testing.T, legacy bool) (InvestigationReport, *storyProvider, *storyProvider, []string) {
	web, corpus := storySources()
	h := newInvHarness(t)
	h.acts = activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"searxng": web, "corpus": corpus}, ReportDir: t.TempDir()})
	h.env.RegisterActivity(h.acts)
	var mu sync.Mutex
	var fetched []string
	h.env.OnActivity(h.acts.FetchPage, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FetchInput) (activities.FetchOutput, error) {
		mu.Lock()
		fetched = append(fetched, in.URL)
		mu.Unlock()
		text := pageText(in.URL)
		if text == "" {
			return activities.FetchOutput{}, fmt.Errorf("no page for %s", in.URL)
		}
		return activities.FetchOutput{Text: text, From: "web"}, nil
	}).Maybe()
	if legacy {
		h.env.OnGetVersion(pageVerifyChange, workflow.DefaultVersion, pageVerifyVersion).Return(workflow.DefaultVersion)
	}
	rep := h.run(t, InvestigationRequest{Question: storyQuestion, Sources: []string{"corpus", "searxng"}, NoModel: true, Ceilings: map[string]int{"corpus": 2, "searxng": 2}})
	return rep, web, corpus, fetched
}

func claimWith(rep InvestigationReport, sub string) *investigate.VerifiedClaim {
	for i, c := range rep.Claims {
		if strings.Contains(c.Text, sub) {
			return &rep.Claims[i]
		}
	}
	return nil
}

// TestInvestigationFollowsBreadcrumbsPerHypothesisInTheirOwnSource: leads are extracted after
// each hypothesis (5 by default), followed before the next hypothesis starts, and each in the
// source whose results name it, not the one best source overall.
func TestInvestigationFollowsBreadcrumbsPerHypothesisInTheirOwnSource(t *testing.T) {
	rep, web, _, _ := runStory(t, false)
	require.GreaterOrEqual(t, len(rep.Hypotheses), 2)
	first := rep.Hypotheses[0].Hypothesis
	var ofFirst []investigate.Lead
	for _, l := range rep.Leads {
		require.NotEmpty(t, l.Hypothesis, "every lead names its hypothesis")
		if l.Hypothesis == first {
			ofFirst = append(ofFirst, l)
		}
	}
	require.Len(t, ofFirst, DefaultBreadcrumbs, "%+v", rep.Leads)
	require.Equal(t, 5, DefaultBreadcrumbs)
	for _, l := range ofFirst {
		require.Equal(t, "searxng", l.Source, "only the web results name %s (the corpus found more overall)", l.Text)
	}
	require.Equal(t, investigate.KindIdentifier, ofFirst[0].Kind)
	require.NotEmpty(t, web.asked("GS-35F-0119Y"), "the contract number is followed as an identifier")
	// the first hypothesis's breadcrumbs ran before the second hypothesis's loops
	crumb, second := -1, -1
	for i, e := range rep.Events {
		if crumb < 0 && e.Decider == investigate.DeciderBreadcrumb {
			crumb = i
		}
		if second < 0 && e.Hypothesis == rep.Hypotheses[1].Hypothesis {
			second = i
		}
	}
	require.True(t, crumb >= 0 && second >= 0 && crumb < second, "breadcrumb event %d, second hypothesis %d", crumb, second)
}

// TestInvestigationVerifiesPageTextAndConfirmsContestedClaims: claims come from the pages
// FetchPage read (a sentence no snippet has is judged), the year-only 2024 contradicts Oct 2023,
// each contested claim gets one confirmation query in the corpus, the official page settles
// them, entity findings are judged too, and verified claims come first.
func TestInvestigationVerifiesPageTextAndConfirmsContestedClaims(t *testing.T) {
	rep, _, corpus, fetched := runStory(t, false)
	require.Contains(t, fetched, "https://news-a.example/acme")
	require.NotNil(t, claimWith(rep, "has led it since March 2021"), "a claim only the page text holds: %+v", rep.Claims)

	oct := claimWith(rep, "closed its $200M Series C round in Oct 2023 under contract")
	y24 := claimWith(rep, "raised $200M in its Series C round in 2024")
	require.NotNil(t, oct)
	require.NotNil(t, y24)
	require.Equal(t, investigate.Contradicted, y24.Tag, "%+v", y24)
	require.Contains(t, strings.Join(y24.Contradictions, " "), "dates differ: 2024 vs 2023-10")
	require.Contains(t, y24.Confirmation, "official page(s) disagree")
	require.Equal(t, investigate.VerifiedOfficial, oct.Tag, "%+v", oct)
	require.Contains(t, oct.Confirmation, "an official source agrees (https://www.gsa.gov/acme-award)")

	var confirmations int
	for _, e := range rep.Events {
		if e.Decider == investigate.DeciderConfirmation {
			confirmations++
			require.Equal(t, "corpus", e.Source, "the official source is the corpus")
		}
	}
	require.GreaterOrEqual(t, confirmations, 2)
	require.LessOrEqual(t, confirmations, maxConfirmations)
	require.NotEmpty(t, corpus.asked("raised"))

	// the key actor's own finding is judged, and the question's Acme Corp is no key actor
	require.NotNil(t, claimWith(rep, "Jane Smith became the CEO of Acme Corp in March 2021"), "entity findings are verified")
	require.NotEmpty(t, rep.Actors)
	require.Len(t, rep.Actors, min(DefaultEntities, len(rep.Actors)))
	for _, a := range rep.Actors {
		require.NotEqual(t, "Acme Corp", a.Entity.Text)
	}
	var jane *investigate.Actor
	for i, a := range rep.Actors {
		if a.Entity.Text == "Jane Smith" {
			jane = &rep.Actors[i]
		}
	}
	require.NotNil(t, jane, "%+v", rep.Actors)
	require.Greater(t, len(jane.Profile), 3, "the profile reads page text: %v", jane.Profile)

	// verified first
	order := map[string]int{investigate.VerifiedOfficial: 0, investigate.VerifiedMulti: 1, investigate.Contradicted: 2, investigate.UnverifiedSingle: 3}
	for i := 1; i < len(rep.Claims); i++ {
		require.LessOrEqual(t, order[rep.Claims[i-1].Tag], order[rep.Claims[i].Tag])
	}
	require.Less(t, strings.Index(rep.Markdown, "✔ official"), strings.Index(rep.Markdown, "✖ contradicted"))
}

// TestInvestigationBeforePageVerifyKeepsItsStages: a run from before the change (DefaultVersion)
// keeps its 3 leads extracted once, its snippet-only verification and no confirmation search.
func TestInvestigationBeforePageVerifyKeepsItsStages(t *testing.T) {
	rep, _, _, fetched := runStory(t, true)
	require.Empty(t, fetched, "no page is read")
	require.LessOrEqual(t, len(rep.Leads), legacyBreadcrumbs)
	require.NotEmpty(t, rep.Leads)
	for _, l := range rep.Leads {
		require.Empty(t, l.Hypothesis)
	}
	for _, e := range rep.Events {
		require.NotEqual(t, investigate.DeciderConfirmation, e.Decider)
	}
	require.Nil(t, claimWith(rep, "Jane Smith became the CEO"), "entity findings came after verification")
	require.LessOrEqual(t, len(rep.Actors), legacyEntities)
}

// Claims are read and verified in the VerifyInvestigationClaims activity and the key entities
// ranked in RankKeyEntities, with the same tags and actors as the workflow code that read them
// before readActivitiesChange (which such runs still use).
func TestInvestigationReadsInActivitiesAsItDidInWorkflowCode(t *testing.T) {
	tags := func(rep InvestigationReport) []string {
		var out []string
		for _, c := range rep.Claims {
			out = append(out, c.Tag+": "+c.Text+" | "+strings.Join(c.Contradictions, "; ")+" | "+c.Confirmation)
		}
		for _, a := range rep.Actors {
			out = append(out, "actor: "+a.Entity.Kind+" "+a.Entity.Text+" | "+a.Query+" | "+strings.Join(a.Profile, "; "))
		}
		return out
	}
	run := func(inWorkflow bool) (InvestigationReport, map[string]int) {
		web, corpus := storySources()
		h := newInvHarness(t)
		h.acts = activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"searxng": web, "corpus": corpus}, ReportDir: t.TempDir()})
		h.env.RegisterActivity(h.acts)
		h.env.OnActivity(h.acts.FetchPage, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FetchInput) (activities.FetchOutput, error) {
			if text := pageText(in.URL); text != "" {
				return activities.FetchOutput{Text: text, From: "web"}, nil
			}
			return activities.FetchOutput{}, fmt.Errorf("no page for %s", in.URL)
		}).Maybe()
		var mu sync.Mutex
		started := map[string]int{}
		h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
			mu.Lock()
			started[info.ActivityType.Name]++
			mu.Unlock()
		})
		if inWorkflow {
			h.env.OnGetVersion(readActivitiesChange, workflow.DefaultVersion, readActivitiesVersion).Return(workflow.DefaultVersion)
		}
		rep := h.run(t, InvestigationRequest{Question: storyQuestion, Sources: []string{"corpus", "searxng"}, NoModel: true, Ceilings: map[string]int{"corpus": 2, "searxng": 2}})
		return rep, started
	}
	now, started := run(false)
	require.Equal(t, 1, started["VerifyInvestigationClaims"], "one verification activity")
	require.Equal(t, 1, started["RankKeyEntities"], "one ranking of the key entities")
	require.NotNil(t, claimWith(now, "Oct 2023"), "the story's claims are tagged")
	require.NotEmpty(t, now.Actors)
	before, started := run(true)
	require.Zero(t, started["VerifyInvestigationClaims"]+started["RankKeyEntities"], "before the change the workflow read them itself")
	require.Equal(t, tags(before), tags(now))
}

// A verification that fails (after its retries) leaves the claims untagged and says so; the
// investigation still writes its report.
func TestInvestigationSurvivesAFailedVerification(t *testing.T) {
	web, corpus := storySources()
	h := newInvHarness(t)
	h.acts = activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"searxng": web, "corpus": corpus}, ReportDir: t.TempDir()})
	h.env.RegisterActivity(h.acts)
	h.env.OnActivity(h.acts.FetchPage, mock.Anything, mock.Anything).Return(activities.FetchOutput{}, fmt.Errorf("offline")).Maybe()
	h.env.OnActivity(h.acts.VerifyInvestigationClaims, mock.Anything, mock.Anything).Return(activities.VerifyClaimsOutput{},
		temporal.NewNonRetryableApplicationError("claims unreadable", "Test", nil))
	rep := h.run(t, InvestigationRequest{Question: storyQuestion, Sources: []string{"corpus", "searxng"}, NoModel: true, Ceilings: map[string]int{"corpus": 2, "searxng": 2}})
	require.Empty(t, rep.Claims)
	require.NotEmpty(t, rep.Findings)
	require.NotEmpty(t, rep.Markdown)
	found := false
	for _, f := range rep.Fallbacks {
		found = found || strings.Contains(f, "verification failed, no claims are tagged: ") && strings.Contains(f, "claims unreadable")
	}
	require.True(t, found, "%q", rep.Fallbacks)
}
