// Package investigate is the pure logic of the investigation mode: the source catalogue, the
// per-source continue/stop decision, URL dedupe with attribution, breadcrumbs, claims,
// verification, entity counting, the budget breaker and the report renderer.
package investigate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SourceInfo describes one search source to the planner and the per-source loop.
type SourceInfo struct {
	Name string `json:"name"`
	// Characteristics is the text the decision prompt shows: what the source is good at.
	Characteristics string `json:"characteristics"`
	// Ceiling is the default hard cap on queries per hypothesis: rich sources high, shallow low.
	Ceiling int `json:"ceiling"`
	// RatePerSecond is the default activities-per-second limit of the source's task queue.
	RatePerSecond float64 `json:"rate_per_second"`
	// NeedsKey names the environment variable holding the source's API key, if it needs one.
	NeedsKey string `json:"needs_key,omitempty"`
}

// BraveKeyEnv is the environment variable holding the Brave Search API key.
const BraveKeyEnv = "SATED_BRAVE_API_KEY"

// Sources is the catalogue; rich sources get high ceilings, shallow ones low.
var Sources = map[string]SourceInfo{
	"corpus": {Name: "corpus", Ceiling: 12, RatePerSecond: 50,
		Characteristics: "Local full-text index (BM25) over the documents the user indexed: deep, exact-term matching, no synonyms; rephrasing with other exact terms surfaces other documents."},
	"meilisearch": {Name: "meilisearch", Ceiling: 12, RatePerSecond: 50,
		Characteristics: "Meilisearch index over the user's documents: typo-tolerant, ranks by term proximity; deep like the corpus."},
	"searxng": {Name: "searxng", Ceiling: 10, RatePerSecond: 2,
		Characteristics: "SearXNG metasearch over several web engines: broad web coverage, good for official pages and news; varied phrasing finds new sites."},
	"brave": {Name: "brave", Ceiling: 8, RatePerSecond: 1, NeedsKey: BraveKeyEnv,
		Characteristics: "Brave Search API: independent web index, good for recent pages and diverse sites; paid per query, so fewer queries."},
	"duckduckgo": {Name: "duckduckgo", Ceiling: 5, RatePerSecond: 0.5,
		Characteristics: "DuckDuckGo HTML results: shallow, about ten results per query and strict rate limits; stop early when results repeat."},
}

// SourceNames lists the catalogue in a stable order.
func SourceNames() []string {
	//workflowcheck:ignore the names are sorted before use
	return slices.Sorted(maps.Keys(Sources))
}

// Ceilings returns the ceiling of each named source: the override when given, else the
// catalogue default. It fails on an unknown source or a ceiling of zero or below.
func Ceilings(sources []string, overrides map[string]int) (map[string]int, error) {
	if len(sources) == 0 {
		return nil, fmt.Errorf("no sources named (want some of %s)", strings.Join(SourceNames(), ", "))
	}
	out := map[string]int{}
	for _, s := range sources {
		info, ok := Sources[s]
		if !ok {
			return nil, fmt.Errorf("unknown source %q (want one of %s)", s, strings.Join(SourceNames(), ", "))
		}
		out[s] = info.Ceiling
	}
	//workflowcheck:ignore the keys are sorted, for a stable first error
	for _, s := range slices.Sorted(maps.Keys(overrides)) {
		n := overrides[s]
		if _, ok := out[s]; !ok {
			return nil, fmt.Errorf("ceiling given for source %q, which is not among the sources %s", s, strings.Join(sources, ","))
		}
		if n <= 0 {
			return nil, fmt.Errorf("ceiling for %s is %d; it must be at least 1", s, n)
		}
		out[s] = n
	}
	return out, nil
}

// CheckKeys fails when a named source needs an API key that getenv does not give.
func CheckKeys(sources []string, getenv func(string) string) error {
	for _, s := range sources {
		if k := Sources[s].NeedsKey; k != "" && strings.TrimSpace(getenv(k)) == "" {
			return fmt.Errorf("source %s needs an API key: set %s", s, k)
		}
	}
	return nil
}
