package workflows

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/search"
)

// docsPages is a documentation corpus as an investigation reads it: headings in title case
// whose words the prose writes in lower case, SQL keywords in capitals, a page note with each
// page's own date, and one person the pages name.
var docsPages = []search.Result{
	{URL: "file:///doc/lockingv3.html", Title: "File Locking And Concurrency",
		Snippet: "File Locking decides when a writer may proceed. The file locking code takes a RESERVED lock before writing; two writers at once get SQLITE_BUSY. Richard Hipp wrote the locking code in 2004. This page last modified on 2020-02-10 20:33:26 UTC."},
	{URL: "file:///doc/lang_conflict.html", Title: "The ON CONFLICT Clause",
		Snippet: "INSERT OR REPLACE and ON CONFLICT resolve a constraint conflict on the row: an insert may replace it. Write Ahead Logging lets readers go on while one writer writes ahead in the log. This page last modified on 2022-12-07 10:00:00 UTC."},
	{URL: "file:///doc/wal.html", Title: "Write Ahead Logging",
		Snippet: "Write Ahead Logging keeps readers working while a writer writes ahead; the locking is per file. Richard Hipp designed it for version 3.7.0, released on 2010-07-21. ON CONFLICT is not needed for it. This page last modified on 2018-11-30 09:00:00 UTC."},
	{URL: "file:///doc/faq.html", Title: "Frequently Asked Questions",
		Snippet: "Two programs can read at once but only one may write: the file locking serializes writers, ON and OR aside. Richard Hipp answers these questions. This page last modified on 2016-12-03 08:00:00 UTC."},
}

const docsQuestion = "Why do two programs writing one SQLite database at once get an error?"

// runDocs investigates docsPages from the corpus alone, as a new run or as one started before
// docLeadsChange.
func runDocs(t *testing.T, legacy bool) InvestigationReport {
	t.Helper()
	var before string
	if legacy {
		before = docLeadsChange
	}
	return investigateCorpus(t, docsPages, docsQuestion, before)
}

// investigateCorpus investigates the question over a corpus that answers every query with
// pages, pages read from their snippets, as a new run or, when before names a change
// (docLeadsChange, passageKeysChange), as one started before it.
func investigateCorpus(t *testing.T, pages []search.Result, question, before string) InvestigationReport {
	t.Helper()
	corpus := &storyProvider{name: "corpus", answer: func(string) []search.Result { return pages }}
	h := newInvHarness(t)
	h.acts = activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"corpus": corpus}, ReportDir: t.TempDir()})
	h.env.RegisterActivity(h.acts)
	h.env.OnActivity(h.acts.FetchPage, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FetchInput) (activities.FetchOutput, error) {
		return activities.FetchOutput{}, fmt.Errorf("no page for %s", in.URL) // verified from the snippets
	}).Maybe()
	if before != "" {
		h.env.OnGetVersion(before, workflow.DefaultVersion, workflow.Version(1)).Return(workflow.DefaultVersion)
	}
	return h.run(t, InvestigationRequest{Question: question, Sources: []string{"corpus"}, NoModel: true, Ceilings: map[string]int{"corpus": 2}})
}

func actorNames(rep InvestigationReport) []string {
	var out []string
	for _, a := range rep.Actors {
		out = append(out, a.Entity.Text)
	}
	return out
}

func pageNoteContested(rep InvestigationReport) bool {
	for _, c := range rep.Claims {
		if strings.Contains(c.Text, "page last modified") && c.Tag == investigate.Contradicted {
			return true
		}
	}
	return false
}

// A new run reads documentation as documentation: the person the pages name is the one person
// among the key actors, the headings ("File Locking") are topics and the SQL keywords ("ON",
// "OR") no acronyms, and the pages' notes about their own dates contradict nothing. A run started before
// docLeadsChange reads as it did.
func TestInvestigationReadsDocumentationLeads(t *testing.T) {
	rep := runDocs(t, false)
	actors := actorNames(rep)
	require.Contains(t, actors, "Richard Hipp", "the person the pages name")
	for _, a := range rep.Actors {
		require.NotContains(t, []string{"ON", "OR"}, a.Entity.Text, "an SQL keyword is no acronym")
		if a.Entity.Text != "Richard Hipp" && a.Entity.Kind == investigate.KindPerson {
			t.Fatalf("a heading read as a person: %+v", a.Entity)
		}
	}
	for _, l := range rep.Leads {
		require.NotContains(t, []string{"ON", "OR"}, l.Breadcrumb.Text, "followed as a lead")
		if l.Breadcrumb.Text == "File Locking" {
			require.Equal(t, investigate.KindTopic, l.Breadcrumb.Kind)
		}
	}
	require.False(t, pageNoteContested(rep), "each page's note about itself is no claim")
	for _, a := range rep.Actors {
		for _, p := range a.Profile {
			if a.Entity.Kind == investigate.KindAcronym {
				require.Contains(t, p, a.Entity.Text, "an acronym's profile quotes sentences writing it in capitals")
			}
			require.Contains(t, strings.ToLower(p), strings.ToLower(a.Entity.Text), "an actor's profile quotes sentences naming it")
		}
	}

	// the report answers first, from the findings, cited by finding number
	require.Contains(t, rep.Answer, "Richard Hipp")
	require.Regexp(t, `\[\d+\]\n`, rep.Answer)
	require.Less(t, strings.Index(rep.Markdown, "## Answer"), strings.Index(rep.Markdown, "## Findings"))

	old := runDocs(t, true)
	oldActors := actorNames(old)
	require.Contains(t, oldActors, "ON", "before docLeadsChange an upper-case keyword was an acronym")
	for _, a := range old.Actors {
		if a.Entity.Text == "ON" {
			require.NotEmpty(t, a.Profile)
		}
	}
	require.True(t, pageNoteContested(old), "before docLeadsChange the page notes contradicted each other")
}
