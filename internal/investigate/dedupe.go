package investigate

import (
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// Attribution names who found a result: which task, hypothesis and source.
type Attribution struct {
	Task       string `json:"task"`
	Hypothesis string `json:"hypothesis"`
	Source     string `json:"source"`
}

// Finding is one unique result across every source, with everyone who found it.
type Finding struct {
	N   int    `json:"n"`   // citation number, in order of discovery
	Key string `json:"key"` // its key (URLKey, or PassageKey from the workflow's passage-keys version on)
	search.Result
	FoundBy []Attribution `json:"found_by"`
}

// MaxFindings is the most findings one investigation keeps (from the workflow's
// investigation-findings-cap version on) and so the most its activities read at once: a
// finding rides in the report payloads at about 0.26 KB compressed, so 4,000 keep a report near
// 1 MB, under Temporal's 2 MB payload limit.
const MaxFindings = 4000

// Text is a finding as leads, actors and claims read it: its title and snippet.
func (f Finding) Text() string { return f.Title + ". " + f.Snippet }

// URLKey identifies a result by its normalized URL: how findings were keyed before
// PassageKey, so that every passage of one page (or one section, for a file:// URL that keeps
// its fragment) was one finding, the first found.
func URLKey(r search.Result) string { return normalizedKey(r.URL) }

// PassageKey identifies a result as a research run's sources do (research.SourceKey): a corpus
// passage by its id, since several passages of one page or section are different evidence,
// anything else by its normalized URL.
func PassageKey(r search.Result) string { return research.SourceKey(r) }

// Within keeps the results whose key the source has not seen yet (once each) and marks them
// seen; it returns them with the number of duplicates.
func Within(seen map[string]bool, results []search.Result, key func(search.Result) string) (fresh []search.Result, duplicates int) {
	for _, r := range results {
		k := key(r)
		if seen[k] {
			duplicates++
			continue
		}
		seen[k] = true
		fresh = append(fresh, r)
	}
	return fresh, duplicates
}

// Merge adds one source's results to the cross-source findings: a new key becomes a finding,
// a known one gains the attribution (once). It returns the findings and how many were new.
func Merge(findings []Finding, results []search.Result, at Attribution, key func(search.Result) string) ([]Finding, int) {
	idx := make(map[string]int, len(findings))
	for i, f := range findings {
		idx[f.Key] = i
	}
	added := 0
	for _, r := range results {
		k := key(r)
		if i, ok := idx[k]; ok {
			if !hasAttribution(findings[i].FoundBy, at) {
				findings[i].FoundBy = append(findings[i].FoundBy, at)
			}
			continue
		}
		idx[k] = len(findings)
		findings = append(findings, Finding{N: len(findings) + 1, Key: k, Result: r, FoundBy: []Attribution{at}})
		added++
	}
	return findings, added
}

func hasAttribution(as []Attribution, a Attribution) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

// SourcesOf lists the distinct sources that found a finding, in order.
func (f Finding) SourcesOf() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range f.FoundBy {
		if !seen[a.Source] {
			seen[a.Source] = true
			out = append(out, a.Source)
		}
	}
	return out
}

func normalizedKey(u string) string { return search.NormalizeURL(u) }
