package investigate

import (
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
	fs, _ = Merge(fs, []search.Result{{URL: "https://a.org/1", Snippet: "RFC 9113 and HTTP/2"}, {URL: "https://a.org/2", Snippet: "RFC 9113 again"}}, Attribution{Source: "corpus"})
	fs, _ = Merge(fs, []search.Result{{URL: "https://b.org/1", Snippet: "Rob Pike on RFC 9113"}, {URL: "https://b.org/2", Snippet: "Rob Pike talks"}}, Attribution{Source: "searxng"})
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
	fs, _ = Merge(fs, []search.Result{{URL: "https://a.org/1", Title: "Talk", Snippet: "Jane Smith spoke."}}, Attribution{Source: "corpus", Hypothesis: "h"})
	pages := map[string]string{fs[0].Key: "Jane Smith spoke. Jane Smith leads the runtime team. Jane Smith wrote the pacer. Unrelated. Jane Smith joined in 2019."}
	require.Len(t, Profile(Breadcrumb{Text: "Jane Smith", Kind: KindPerson}, fs, 6).Profile, 1)
	require.Len(t, ProfileFrom(Breadcrumb{Text: "Jane Smith", Kind: KindPerson}, fs, pages, 6).Profile, 4)
}
