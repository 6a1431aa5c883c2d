package investigate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/search"
)

// TestContractNumbersAreIdentifiers: a contract number was an acronym ("GS") before.
func TestContractNumbersAreIdentifiers(t *testing.T) {
	bs := Breadcrumbs([]string{"The GSA awarded contract GS-35F-0119Y to Acme Corp; task order FA8750-19-C-0092 followed NIST SP 800-53 controls."}, 0)
	kinds := map[string]string{}
	for _, b := range bs {
		kinds[b.Text] = b.Kind
	}
	require.Equal(t, KindIdentifier, kinds["GS-35F-0119Y"])
	require.Equal(t, KindIdentifier, kinds["FA8750-19-C-0092"])
	require.Equal(t, KindIdentifier, kinds["NIST SP 800-53"])
	require.NotContains(t, kinds, "GS", "the contract number is no acronym")
	for _, b := range bs[:3] {
		require.Equal(t, KindIdentifier, b.Kind, "identifiers lead: %v", bs)
	}
}

// TestKeyEntitiesRankByFrequencyAndRelevanceWithoutTheQuestionsTerms: the question's own
// actor is left out, and an actor named beside the subject outranks one named as often in
// passing.
func TestKeyEntitiesRankByFrequencyAndRelevanceWithoutTheQuestionsTerms(t *testing.T) {
	question := "What did the Acme Foundation fund in the garbage collector?"
	texts := []string{
		"The Acme Foundation funded garbage collector work by Jane Smith.",
		"Jane Smith tuned the garbage collector pacer.",
		"Rob Pike gave a talk on concurrency.",
		"Rob Pike wrote about naming.",
		"The Acme Foundation met the NSA.",
	}
	terms := []string{"Acme", "Foundation", "garbage", "collector", "fund"}
	es := KeyEntities(question, terms, texts, 0)
	var names []string
	for _, e := range es {
		names = append(names, e.Text)
	}
	require.NotContains(t, names, "Acme Foundation", "the question names it")
	require.Equal(t, "Jane Smith", names[0], "two mentions, both beside the subject")
	require.Equal(t, "Rob Pike", names[1])
	// frequency alone ranked them by count only, the question's own actor first
	old := Entities(texts, 0)
	require.Equal(t, "Acme Foundation", old[0].Text)
	require.Len(t, KeyEntities(question, terms, texts, 2), 2)
}

func TestBestSourceForEachBreadcrumb(t *testing.T) {
	var fs []Finding
	fs, _ = Merge(fs, []search.Result{{URL: "https://a.org/1", Snippet: "RFC 9113 and HTTP/2"}, {URL: "https://a.org/2", Snippet: "RFC 9113 again"}}, Attribution{Source: "corpus"}, URLKey)
	fs, _ = Merge(fs, []search.Result{{URL: "https://b.org/1", Snippet: "Rob Pike on RFC 9113"}, {URL: "https://b.org/2", Snippet: "Rob Pike talks"}}, Attribution{Source: "searxng"}, URLKey)
	usable := []string{"corpus", "searxng"}
	require.Equal(t, "corpus", BestSourceFor(Breadcrumb{Text: "RFC 9113"}, fs, usable))
	require.Equal(t, "searxng", BestSourceFor(Breadcrumb{Text: "Rob Pike"}, fs, usable))
	require.Equal(t, "", BestSourceFor(Breadcrumb{Text: "Rob Pike"}, fs, []string{"corpus"}))
	require.Equal(t, "", BestSourceFor(Breadcrumb{Text: "nobody"}, fs, usable))
}

func TestRankClaimsVerifiedFirst(t *testing.T) {
	vs := []VerifiedClaim{{Tag: UnverifiedSingle, Claim: Claim{Text: "u"}}, {Tag: Contradicted, Claim: Claim{Text: "c"}},
		{Tag: VerifiedMulti, Claim: Claim{Text: "m"}}, {Tag: VerifiedOfficial, Claim: Claim{Text: "o"}}, {Tag: VerifiedMulti, Claim: Claim{Text: "m2"}}}
	var got []string
	for _, v := range RankClaims(vs) {
		got = append(got, v.Text)
	}
	require.Equal(t, []string{"o", "m", "m2", "c", "u"}, got)
	require.Contains(t, Markdown(Report{Question: "q", Claims: vs}), "- o () — **✔ official**\n- m () — **✔ multiple")
}

func TestResolveWithOfficialSources(t *testing.T) {
	a := NewClaim("https://a.example/1", "Python 3.3 was released on September 29, 2012.")
	b := NewClaim("https://b.example/2", "Python 3.3 was released on September 29, 2013.")
	v := Verify([]Claim{a, b}, nil, nil)
	require.Equal(t, Contradicted, v[0].Tag)
	q := ConfirmationQuery(a, 5)
	require.Contains(t, q, "3.3")
	official := []Claim{NewClaim("file:///doc/3.3.html", "What's New In Python 3.3: Python 3.3 was released on September 29, 2012.")}
	r := Resolve(v[0], official, q, "corpus")
	require.Equal(t, VerifiedOfficial, r.Tag)
	require.Contains(t, r.Confirmation, "an official source agrees")
	require.NotEmpty(t, r.Contradictions, "the conflict stays listed")
	r = Resolve(v[1], official, q, "corpus")
	require.Equal(t, Contradicted, r.Tag)
	require.Contains(t, r.Confirmation, "1 official page(s) disagree")
	r = Resolve(v[0], []Claim{NewClaim("file:///doc/x.html", "Go 1.21 was released in August 2023.")}, q, "corpus")
	require.Equal(t, Contradicted, r.Tag)
	require.Contains(t, r.Confirmation, "no official page states it")
}

func TestProfileReadsPageText(t *testing.T) {
	var fs []Finding
	fs, _ = Merge(fs, []search.Result{{URL: "https://a.org/1", Title: "Talk", Snippet: "Jane Smith spoke."}}, Attribution{Source: "corpus", Hypothesis: "h"}, URLKey)
	pages := map[string]string{fs[0].Key: "Jane Smith spoke. Jane Smith leads the runtime team. Jane Smith wrote the pacer. Unrelated. Jane Smith joined in 2019."}
	require.Len(t, Profile(Breadcrumb{Text: "Jane Smith", Kind: KindPerson}, fs, 6).Profile, 1)
	require.Len(t, ProfileFrom(Breadcrumb{Text: "Jane Smith", Kind: KindPerson}, fs, pages, 6).Profile, 4)
}

// TestDocumentationLeads: in documentation, a capitalised pair whose head word is common is a
// heading, read as a topic (followed and researched, but not as a person), and an upper-case word the texts write in lower
// case (or a stopword) a keyword, dropped; people and real acronyms stay what they were. The V1
// reading, for runs before docLeads, read headings as people and keywords as acronyms.
func TestDocumentationLeads(t *testing.T) {
	texts := []string{
		"File Locking And Concurrency. The file locking code takes a lock; see Shared-Cache Mode and Implementation Restrictions.",
		"In shared-cache mode every connection shares one cache. INSERT OR REPLACE and ON CONFLICT resolve a conflict: an insert may replace the row.",
		"Richard Hipp wrote the locking code in 2004, as NASA and the FAA know; Mark Hammond agreed.",
		"Ask Richard Hipp; the FROM clause comes from SQL, and the mode is set per file.",
	}
	kinds := func(bs []Breadcrumb) map[string]string {
		m := map[string]string{}
		for _, b := range bs {
			m[b.Text] = b.Kind
		}
		return m
	}
	got, old := kinds(Breadcrumbs(texts, 0)), kinds(BreadcrumbsV1(texts, 0))
	for _, tc := range []struct{ lead, v1, now string }{
		{"Richard Hipp", KindPerson, KindPerson},
		{"Mark Hammond", KindPerson, KindPerson}, // "mark" is a common word, "hammond" is not
		{"NASA", KindAcronym, KindAcronym},
		{"FAA", KindAcronym, KindAcronym},
		{"SQL", KindAcronym, KindAcronym},                      // never written in lower case here
		{"File Locking", KindPerson, KindTopic},                // "locking" in these texts
		{"Shared-Cache Mode", KindPerson, KindTopic},           // "mode"
		{"Implementation Restrictions", KindPerson, KindTopic}, // common in technical English
		{"ON", KindAcronym, ""},                                // a stopword
		{"OR", KindAcronym, ""},
		{"FROM", KindAcronym, ""},
		{"INSERT", KindAcronym, ""}, // "an insert may replace"
		{"REPLACE", KindAcronym, ""},
	} {
		require.Equal(t, tc.v1, old[tc.lead], "V1 reads %q", tc.lead)
		require.Equal(t, tc.now, got[tc.lead], "%q now", tc.lead)
	}
	// topics rank after people and before acronyms
	ranked := Breadcrumbs(texts, 0)
	last := -1
	for _, b := range ranked {
		require.GreaterOrEqual(t, kindRank[b.Kind], last, "%v", ranked)
		last = kindRank[b.Kind]
	}
	// key entities read the same: topics as topics, no keywords
	actors := kinds(KeyEntities("Why is the database locked?", []string{"database", "locked"}, texts, 0))
	require.Equal(t, KindPerson, actors["Richard Hipp"])
	require.Equal(t, KindTopic, actors["File Locking"])
	require.Equal(t, KindTopic, actors["Implementation Restrictions"])
	require.NotContains(t, actors, "ON")
	require.Equal(t, KindPerson, kinds(KeyEntitiesV1("Why is the database locked?", []string{"database", "locked"}, texts, 0))["File Locking"])
}

// TestKeyEntitiesCountAnAcronymWhereItIsWrittenInCapitals: "IN" was named by every text with
// "in"; an acronym is now counted, and profiled, only where it is written in capitals as a word.
func TestKeyEntitiesCountAnAcronymWhereItIsWrittenInCapitals(t *testing.T) {
	texts := []string{
		"The WAL file grows in WAL mode until a checkpoint.",
		"Readers in one process see the WAL.",
		"Nothing in this text names it; walrus and SWALLOW do not either.",
		"A swallow is a bird in the sky.",
	}
	count := func(es []Breadcrumb, name string) int {
		for _, e := range es {
			if e.Text == name {
				return e.Count
			}
		}
		return -1
	}
	es := KeyEntities("How does the log grow?", []string{"log", "grow"}, texts, 0)
	require.Equal(t, 2, count(es, "WAL"))
	a := ProfileFrom(Breadcrumb{Text: "WAL", Kind: KindAcronym, Count: 2}, []Finding{
		{N: 1, Result: search.Result{Title: "WAL", Snippet: texts[0]}},
		{N: 2, Result: search.Result{Title: "note", Snippet: texts[2]}},
		{N: 3, Result: search.Result{Title: "note", Snippet: texts[3]}},
	}, nil, 6)
	require.Len(t, a.Profile, 2, "the title and the sentence that write WAL: %q", a.Profile)
	for _, p := range a.Profile {
		require.True(t, writesWord(p, "WAL"), p)
	}
	for _, tc := range []struct {
		s, w string
		want bool
	}{
		{"in WAL mode", "WAL", true},
		{"SQL's grammar", "SQL", true},
		{"the walrus", "WAL", false},
		{"SWALLOW", "WAL", false},
		{"INSERT INTO", "IN", false},
		{"IN (1, 2)", "IN", true},
		{"", "IN", false},
	} {
		require.Equal(t, tc.want, writesWord(tc.s, tc.w), "%q in %q", tc.w, tc.s)
	}
}

// TestClaimsLeavePageNotesAndKeyBareVersions: every page says when it was last modified, of
// itself; two pages saying so with different dates do not disagree. A release history's bare
// version ("(2.3.1)") keys its date, so another release's date is no contradiction. V1 read
// both as contradictions.
func TestClaimsLeavePageNotesAndKeyBareVersions(t *testing.T) {
	pageA := "Atomic commit needs a rollback journal since 2004-06-18. This page last modified on 2020-02-10 20:33:26 UTC."
	pageB := "This page was last modified on 2022-12-07 10:00:00 UTC and describes the file format since 2004-06-18."
	for _, c := range Claims("https://a.example/atomic", pageA, 3) {
		require.NotContains(t, c.Text, "last modified", "a page's note about itself is no claim")
	}
	require.Empty(t, Claims("https://b.example/format", pageB, 3), "a page note is no claim, whatever else it says")
	var notes []Claim
	for _, c := range append(ClaimsV1("https://a.example/atomic", pageA, 3), ClaimsV1("https://b.example/format", pageB, 3)...) {
		if strings.Contains(c.Text, "last modified") {
			notes = append(notes, c)
		}
	}
	require.Len(t, notes, 2, "V1 kept both notes")
	require.Equal(t, Contradicted, Verify(notes, nil, nil)[0].Tag, "and contradicted one with the other")

	history := "Release History Of SQLite — 2002-02-13 (2.3.1) fixed the btree layer."
	release := "SQLite Release 3.17.0 On 2017-02-13 sped up the btree layer."
	tags := func(read func(string, string, int) []Claim) string {
		cs := append(read("https://a.example/history", history, 1), read("https://b.example/3170", release, 1)...)
		require.Len(t, cs, 2)
		return Verify(cs, nil, nil)[0].Tag
	}
	require.Equal(t, Contradicted, tags(ClaimsV1), "V1: one release's date against another's")
	require.NotEqual(t, Contradicted, tags(Claims), "different versions are different things")
	require.Contains(t, NewClaim("u", history).Keys, "2.3.1")
	require.NotContains(t, NewClaimV1("u", history).Keys, "2.3.1")
	require.Equal(t, []string{"3.8.7.1"}, NewClaim("u", "Fixed in 3.8.7.1, shipped 2014-10-30.").Keys)
}
