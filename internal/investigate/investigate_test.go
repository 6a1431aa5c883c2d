package investigate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/search"
)

func TestNormalizeDate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Oct 2023", "2023-10"},
		{"October 2023", "2023-10"},
		{"2023-10", "2023-10"},
		{"Sept. 2021", "2021-09"},
		{"October 5, 2023", "2023-10-05"},
		{"Oct. 5th, 2023", "2023-10-05"},
		{"5 October 2023", "2023-10-05"},
		{"5th of Oct 2023", "2023-10-05"},
		{"2023-10-05", "2023-10-05"},
		{"released on 2024-2-1 at noon", "2024-02-01"},
		{"2023-13", ""},
		{"no date here", ""},
		{"version 1.21", ""},
	} {
		got, ok := NormalizeDate(tc.in)
		require.Equal(t, tc.want != "", ok, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestDatesAgree(t *testing.T) {
	a, _ := NormalizeDate("Oct 2023")
	b, _ := NormalizeDate("2023-10")
	c, _ := NormalizeDate("October 17, 2023")
	d, _ := NormalizeDate("November 2023")
	require.True(t, DatesAgree(a, b))
	require.True(t, DatesAgree(a, c), "a day agrees with its month")
	require.False(t, DatesAgree(c, d))
	require.False(t, DatesAgree("2023-01", "2023-10"), "prefix must end at a field")
}

func TestNormalizeAmount(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"$1.5 million", "USD 1500000"},
		{"$1,500,000", "USD 1500000"},
		{"US$ 1.5m", "USD 1500000"},
		{"1,500,000 dollars", "USD 1500000"},
		{"€2 billion", "EUR 2000000000"},
		{"EUR 2bn", "EUR 2000000000"},
		{"£300k", "GBP 300000"},
		{"$0.25", "USD 0.25"},
		{"1.5 million users", ""},
		{"GOGC=100", ""},
	} {
		got, ok := NormalizeAmount(tc.in)
		require.Equal(t, tc.want != "", ok, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestNormalizeName(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"José García", "jose garcia"},
		{"  Rob   Pike ", "rob pike"},
		{"Zoë O'Brien", "zoe o brien"},
		{"MÜLLER", "muller"},
	} {
		require.Equal(t, tc.b, NormalizeName(tc.a))
	}
	require.NotEqual(t, NormalizeName("Rob Pike"), NormalizeName("Ken Thompson"))
}

func TestSiteOfficialIndependent(t *testing.T) {
	require.Equal(t, "go.dev", Site("https://pkg.go.dev/sync"))
	require.Equal(t, "example.co.uk", Site("https://www.news.example.co.uk/a"))
	require.Equal(t, "", Site("file:///usr/local/go/doc/go_mem.html"))

	official := []string{"go.dev", "*.gov", ".edu"}
	for u, want := range map[string]bool{
		"https://go.dev/ref/mem": true, "https://pkg.go.dev/x": true, "https://www.nist.gov/x": true,
		"https://cs.stanford.edu/": true, "https://notgo.dev/": false, "https://example.org/go.dev": false,
		"file:///go.dev": false,
	} {
		require.Equal(t, want, IsOfficial(u, official), u)
	}

	for _, tc := range []struct {
		a, b Page
		ok   bool
		why  string
	}{
		{Page{"https://a.org/x", ""}, Page{"https://b.org/y", ""}, true, ""},
		{Page{"https://a.org/x", ""}, Page{"https://a.org/x/#frag", ""}, false, "same page"},
		{Page{"https://blog.a.org/x", ""}, Page{"https://www.a.org/y", ""}, false, "same site"},
		{Page{"https://a.org/x", "as reported at https://b.org/y today"}, Page{"https://b.org/y", ""}, false, "one cites the other"},
		{Page{"https://a.org/x", ""}, Page{"https://b.org/y", "see a.org/x for more"}, false, "one cites the other"},
		{Page{"file:///doc/a.html", ""}, Page{"file:///doc/b.html", ""}, false, "same site"},
	} {
		ok, why := Independent(tc.a, tc.b)
		require.Equal(t, tc.ok, ok, "%v %v", tc.a, tc.b)
		require.Equal(t, tc.why, why)
	}
}

func TestVerifyTags(t *testing.T) {
	official := []string{"go.dev"}
	mk := func(u, s string) Claim { return Claims(u, s, 1)[0] }
	claims := []Claim{
		mk("https://a.org/1", "The Acme Foundation raised $1.5 million for the compiler project in Oct 2023."),
		mk("https://b.org/2", "The Acme Foundation raised $1,500,000 for the compiler project in 2023-10."),
		mk("https://go.dev/3", "Go 1.21 was released by the Go team on August 8, 2023 with new builtins min and max."),
		mk("https://c.org/4", "The Widget Corporation shipped the widget toolkit release on March 3, 2022 to customers."),
		mk("https://d.org/5", "The Widget Corporation shipped the widget toolkit release on May 9, 2022 to customers."),
		mk("https://e.org/6", "Totally unrelated sentence about Zanzibar Group spice trading in June 2020 and beyond."),
	}
	v := Verify(claims, nil, official)
	tags := make([]string, len(v))
	for i, c := range v {
		tags[i] = c.Tag
	}
	require.Equal(t, []string{VerifiedMulti, VerifiedMulti, VerifiedOfficial, Contradicted, Contradicted, UnverifiedSingle}, tags)
	require.Contains(t, v[3].Contradictions[0], "dates differ: 2022-03-03 vs 2022-05-09")

	// a page citing the other is no independent witness
	pages := map[string]string{"https://b.org/2": "copied from https://a.org/1"}
	v = Verify(claims[:2], pages, official)
	require.Equal(t, UnverifiedSingle, v[0].Tag)
	require.Contains(t, v[0].Dependent[0], "one cites the other")

	// amounts that differ contradict
	v = Verify([]Claim{claims[0], mk("https://f.org/7", "The Acme Foundation raised $2 million for the compiler project in Oct 2023.")}, nil, official)
	require.Equal(t, Contradicted, v[0].Tag)
	require.Contains(t, v[0].Contradictions[0], "amounts differ")
}

func TestBreadcrumbsRanking(t *testing.T) {
	texts := []string{
		"CVE-2023-39325 affects net/http; see RFC 9113 and golang/go#63417. The Apache Software Foundation noted it.",
		"Rob Pike and Dr. Jane Smith discussed the HTTP2 rapid reset (CVE-2023-39325) at Google Inc with the NSA.",
		"The NSA and Rob Pike again; ISO 8601 dates; Go 1.21.3 fixed it in v0.17.0 of x/net.",
	}
	bs := Breadcrumbs(texts, 0)
	kinds := map[string]string{}
	var order []string
	for _, b := range bs {
		kinds[b.Text] = b.Kind
		order = append(order, b.Kind)
	}
	require.Equal(t, KindIdentifier, kinds["CVE-2023-39325"])
	require.Equal(t, KindIdentifier, kinds["RFC 9113"])
	require.Equal(t, KindIdentifier, kinds["golang/go#63417"])
	require.Equal(t, KindIdentifier, kinds["ISO 8601"])
	require.Equal(t, KindIdentifier, kinds["Go 1.21.3"])
	require.Equal(t, KindIdentifier, kinds["v0.17.0"])
	require.Equal(t, KindOrganisation, kinds["Apache Software Foundation"])
	require.Equal(t, KindOrganisation, kinds["Google Inc"])
	require.Equal(t, KindPerson, kinds["Rob Pike"])
	require.Equal(t, KindPerson, kinds["Dr. Jane Smith"])
	require.Equal(t, KindAcronym, kinds["NSA"])
	// identifiers, then organisations, then people, then acronyms
	rank := func(k string) int { return kindRank[k] }
	for i := 1; i < len(order); i++ {
		require.LessOrEqual(t, rank(order[i-1]), rank(order[i]), "%v", bs)
	}
	require.Equal(t, "CVE-2023-39325", bs[0].Text, "the most mentioned identifier leads")
	require.Equal(t, 2, bs[0].Count)
	require.Len(t, Breadcrumbs(texts, 3), 3)

	es := Entities(texts, 2)
	require.Len(t, es, 2)
	require.ElementsMatch(t, []string{"Rob Pike", "NSA"}, []string{es[0].Text, es[1].Text}, "mentioned in two texts each")
}

func TestClaimsPickSentencesWithFacts(t *testing.T) {
	text := "Go is a language. The Go 1.0 release shipped on March 28, 2012 after years of work. " +
		"Google Inc funded the project with $2 million in 2009. It is fun to write."
	cs := Claims("https://go.dev/x", text, 5)
	require.Len(t, cs, 2)
	require.Equal(t, []string{"USD 2000000"}, cs[0].Amounts)
	require.Contains(t, cs[1].Dates, "2012-03-28")
}

func TestHeuristicStop(t *testing.T) {
	ev := func(n, results, dups int) QueryEvent {
		return QueryEvent{N: n, Results: results, New: results - dups, Duplicates: dups}
	}
	for _, tc := range []struct {
		name    string
		history []QueryEvent
		ceiling int
		stop    bool
		why     string
	}{
		{"first query", nil, 5, false, ""},
		{"fresh", []QueryEvent{ev(1, 10, 0)}, 5, false, ""},
		{"exactly 80% duplicates continues", []QueryEvent{ev(1, 10, 8)}, 5, false, ""},
		{"over 80% duplicates stops", []QueryEvent{ev(1, 10, 0), ev(2, 10, 9)}, 5, true, "saturated"},
		{"ceiling", []QueryEvent{ev(1, 10, 0), ev(2, 10, 0)}, 2, true, "ceiling"},
		{"two empty answers", []QueryEvent{ev(1, 0, 0), ev(2, 0, 0)}, 5, true, "nothing"},
		{"a failure does not count as saturation", []QueryEvent{ev(1, 10, 0), {N: 2, Error: "boom"}}, 5, false, ""},
	} {
		stop, why := HeuristicStop(tc.history, tc.ceiling)
		require.Equal(t, tc.stop, stop, tc.name)
		require.Contains(t, why, tc.why, tc.name)
	}
}

func TestNextQueryNeverRepeatsNorAsksTheQuestion(t *testing.T) {
	c := DecisionContext{Question: "How does the Go garbage collector use GOGC?", Hypothesis: "garbage collector GOGC pacing",
		SeedQueries: []string{"garbage collector GOGC", "How does the Go garbage collector use GOGC?"}, Ceiling: 20}
	seen := map[string]bool{}
	for i := 0; i < 8; i++ {
		d := HeuristicDecision(c)
		if d.Action == ActionStop {
			break
		}
		require.NoError(t, d.Validate(c), "heuristic decisions pass the model's validation")
		require.False(t, seen[d.NextQuery], "repeat %q", d.NextQuery)
		seen[d.NextQuery] = true
		c.History = append(c.History, QueryEvent{N: i + 1, Query: d.NextQuery, Results: 8, New: 8})
		c.RecentTitles = []string{fmt.Sprintf("Pacer tuning heap%d target memory limit", i)}
	}
	require.GreaterOrEqual(t, len(seen), 4)
	require.Equal(t, "garbage collector GOGC", c.History[0].Query)
}

func TestDecisionValidate(t *testing.T) {
	c := DecisionContext{Question: "What is GOGC?", History: []QueryEvent{{N: 1, Query: "GOGC tuning"}}}
	good := Decision{Action: "continue", Reasoning: "r", NextQuery: "GOGC memory limit", ExpectedNewResults: "high", ConfidenceGapsFillable: 50}
	for _, tc := range []struct {
		name string
		mod  func(*Decision)
		err  string
	}{
		{"good", func(*Decision) {}, ""},
		{"stop needs no query", func(d *Decision) { d.Action, d.NextQuery = "STOP", "" }, ""},
		{"bad action", func(d *Decision) { d.Action = "maybe" }, "action"},
		{"no reasoning", func(d *Decision) { d.Reasoning = " " }, "reasoning"},
		{"bad expectation", func(d *Decision) { d.ExpectedNewResults = "lots" }, "expected_new_results"},
		{"confidence range", func(d *Decision) { d.ConfidenceGapsFillable = 101 }, "confidence"},
		{"empty query", func(d *Decision) { d.NextQuery = "" }, "empty"},
		{"raw question", func(d *Decision) { d.NextQuery = "what is gogc" }, "raw question"},
		{"repeat", func(d *Decision) { d.NextQuery = "gogc  TUNING" }, "repeats"},
		{"too long", func(d *Decision) { d.NextQuery = strings.Repeat("x ", 120) }, "limit"},
	} {
		d := good
		tc.mod(&d)
		err := d.Validate(c)
		if tc.err == "" {
			require.NoError(t, err, tc.name)
		} else {
			require.ErrorContains(t, err, tc.err, tc.name)
		}
	}
	p := DecisionPrompt(DecisionContext{Question: "Q?", Task: "T", Hypothesis: "H", Source: "corpus", Characteristics: "deep",
		History:     []QueryEvent{{N: 1, Query: "q1", Results: 8, New: 2, Duplicates: 6, Incremental: 25, Reasoning: "why"}},
		UniqueSoFar: 9, Ceiling: 12, OpenGaps: []string{"gap one"}})
	for _, want := range []string{"Question: Q?", "Task: T", "Hypothesis: H", "Source: corpus", "characteristics: deep",
		`"q1" -> 8 results, 2 new, 6 duplicates (25% new); reasoning: why`, "Unique results so far: 9", "ceiling for this source: 12", "gap one"} {
		require.Contains(t, p, want)
	}
}

// Two passages of one section share its URL (file:///doc/go_mem.html#chan): keyed by URL
// the second was lost, the channel rules that open the section behind the example that ends
// it; keyed as passages, each is a finding of its own and the same passage found again is not.
func TestPassageKeysKeepEveryPassageOfASection(t *testing.T) {
	p := func(id string) search.Result {
		return search.Result{URL: "file:///doc/go_mem.html#chan", Title: "Channel communication", Provider: "corpus", DocID: id}
	}
	web := search.Result{URL: "https://go.dev/ref/mem#chan", Title: "Channel communication", Provider: "searxng"}
	seen := map[string]bool{}
	fresh, dups := Within(seen, []search.Result{p("mem:7"), p("mem:8"), p("mem:7"), web}, PassageKey)
	require.Len(t, fresh, 3)
	require.Equal(t, 1, dups)
	fs, n := Merge(nil, fresh, Attribution{Source: "corpus"}, PassageKey)
	require.Equal(t, 3, n)
	require.Equal(t, []string{"corpus:mem:7", "corpus:mem:8", "https://go.dev/ref/mem"}, []string{fs[0].Key, fs[1].Key, fs[2].Key})
	fs, n = Merge(fs, []search.Result{p("mem:8"), {URL: "https://go.dev/ref/mem#chan?utm_source=x", Provider: "brave"}}, Attribution{Source: "brave"}, PassageKey)
	require.Equal(t, 0, n, "a passage or page found again only gains the attribution")
	require.Equal(t, []string{"corpus", "brave"}, fs[1].SourcesOf())

	// keyed by URL (runs started before the passage-keys version), the section is one finding
	urlSeen := map[string]bool{}
	fresh, dups = Within(urlSeen, []search.Result{p("mem:7"), p("mem:8")}, URLKey)
	require.Len(t, fresh, 1)
	require.Equal(t, 1, dups)
}

func TestDedupeWithinThenAcross(t *testing.T) {
	r := func(u string) search.Result { return search.Result{URL: u, Title: u} }
	seen := map[string]bool{}
	fresh, dups := Within(seen, []search.Result{r("https://a.org/x"), r("https://www.a.org/x/"), r("https://a.org/y")}, URLKey)
	require.Len(t, fresh, 2)
	require.Equal(t, 1, dups)
	fresh2, dups2 := Within(seen, []search.Result{r("https://a.org/y#top"), r("https://a.org/z")}, URLKey)
	require.Len(t, fresh2, 1)
	require.Equal(t, 1, dups2)

	h1c := Attribution{Task: "t", Hypothesis: "h1", Source: "corpus"}
	h1s := Attribution{Task: "t", Hypothesis: "h1", Source: "searxng"}
	h2c := Attribution{Task: "t", Hypothesis: "h2", Source: "corpus"}
	fs, n := Merge(nil, fresh, h1c, URLKey)
	require.Equal(t, 2, n)
	fs, n = Merge(fs, []search.Result{r("https://a.org/x?utm_source=z"), r("https://b.org/")}, h1s, URLKey)
	require.Equal(t, 1, n)
	fs, n = Merge(fs, []search.Result{r("https://a.org/x")}, h2c, URLKey)
	require.Equal(t, 0, n)
	fs, _ = Merge(fs, []search.Result{r("https://a.org/x")}, h2c, URLKey)
	require.Len(t, fs, 3)
	require.Equal(t, []Attribution{h1c, h1s, h2c}, fs[0].FoundBy, "every source and hypothesis that found it, once each")
	require.Equal(t, []string{"corpus", "searxng"}, fs[0].SourcesOf())
	require.Equal(t, []int{1, 2, 3}, []int{fs[0].N, fs[1].N, fs[2].N})
}

func TestCeilingsAndKeys(t *testing.T) {
	c, err := Ceilings([]string{"corpus", "duckduckgo"}, map[string]int{"duckduckgo": 2})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"corpus": 12, "duckduckgo": 2}, c)
	require.Greater(t, Sources["corpus"].Ceiling, Sources["duckduckgo"].Ceiling, "rich sources get higher ceilings")
	for _, tc := range []struct {
		sources []string
		over    map[string]int
		err     string
	}{
		{nil, nil, "no sources"},
		{[]string{"altavista"}, nil, "unknown source"},
		{[]string{"corpus"}, map[string]int{"corpus": 0}, "at least 1"},
		{[]string{"corpus"}, map[string]int{"corpus": -3}, "at least 1"},
		{[]string{"corpus"}, map[string]int{"brave": 3}, "not among"},
	} {
		_, err := Ceilings(tc.sources, tc.over)
		require.ErrorContains(t, err, tc.err)
	}
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	require.ErrorContains(t, CheckKeys([]string{"corpus", "brave"}, get), BraveKeyEnv)
	env[BraveKeyEnv] = "k"
	require.NoError(t, CheckKeys([]string{"corpus", "brave"}, get))
}

func TestBudget(t *testing.T) {
	b := Budget{MaxModelCalls: 10, MaxSearchCalls: 7}
	over, _ := b.Tripped(Spend{ModelCalls: 9, SearchCalls: 6})
	require.False(t, over)
	over, why := b.Tripped(Spend{SearchCalls: 7})
	require.True(t, over)
	require.Contains(t, why, "search budget")
	over, why = b.Tripped(Spend{ModelCalls: 10})
	require.True(t, over)
	require.Contains(t, why, "model budget")

	shares, ok := b.Split(Spend{ModelCalls: 3, SearchCalls: 2}, 3)
	sumQ, sumM := 0, 0
	for i, s := range shares {
		require.True(t, ok[i])
		sumQ += s.MaxSearchCalls
		sumM += s.MaxModelCalls
	}
	require.Equal(t, 5, sumQ, "the shares add up to what is left, never more")
	require.Equal(t, 7, sumM)
	_, ok = b.Split(Spend{SearchCalls: 6}, 3)
	require.Equal(t, []bool{true, false, false}, ok)
	shares, ok = Budget{}.Split(Spend{SearchCalls: 100}, 2)
	require.Equal(t, []bool{true, true}, ok)
	require.Zero(t, shares[0].MaxSearchCalls, "unlimited stays unlimited")

	require.True(t, Budget{MaxModelCalls: 4}.ModelFits(Spend{ModelCalls: 2}))
	require.False(t, Budget{MaxModelCalls: 4}.ModelFits(Spend{ModelCalls: 3}), "a decision may need a repair call")
	require.False(t, Budget{MaxModelCalls: -1}.ModelFits(Spend{}))
	require.True(t, Budget{}.ModelFits(Spend{ModelCalls: 1000}))
}

func TestAssessCoverage(t *testing.T) {
	q := "How does GOGC tune the garbage collector?"
	c := AssessCoverage(q, "GOGC sets the garbage collector target", 1, 2)
	require.True(t, c.Continue)
	require.Equal(t, []string{"tune"}, c.Uncovered)
	c = AssessCoverage(q, "GOGC tune garbage collector", 1, 2)
	require.False(t, c.Continue)
	c = AssessCoverage(q, "GOGC tune garbage collector", 5, 2)
	require.True(t, c.Continue)
	c = AssessCoverage(q, "", 9, 0)
	require.False(t, c.Continue)
}

func TestMarkdownHasAppendixAndMarks(t *testing.T) {
	r := Report{Question: "Q?", Findings: []Finding{{N: 1, Key: "https://a.org/x", Result: search.Result{URL: "https://a.org/x", Title: "A"},
		FoundBy: []Attribution{{Source: "corpus"}}}},
		Claims: []VerifiedClaim{{Claim: Claim{Text: "c1", URL: "https://a.org/x"}, Tag: UnverifiedSingle},
			{Claim: Claim{Text: "c2", URL: "https://a.org/x"}, Tag: Contradicted, Contradictions: []string{"https://b.org: dates differ: 2022-03 vs 2022-05"}}},
		Actors: []Actor{{Entity: Breadcrumb{Text: "NSA", Kind: KindAcronym}, Why: "w", Profile: []string{"p [1]"}}},
		Events: []QueryEvent{{Task: "t", Hypothesis: "h", Source: "corpus", N: 1, Query: "q|x", Results: 3, New: 2, Duplicates: 1}}}
	md := Markdown(r)
	for _, want := range []string{"## Key actors", "### NSA", "⚠ unverified", "✖ contradicted", "dates differ", "c1 [1]",
		"## Appendix: query events", `q\|x`, "```json", `"query": "q|x"`} {
		require.Contains(t, md, want)
	}
}
