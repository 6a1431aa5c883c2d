// Package research is the data model of a research run, defined once: the plan it starts
// from, its rounds, its sources, the facts recalled from memory and what the models cost.
// Workflows record these types in history, activities return them and the report renders
// them, so their JSON tags are part of the recorded histories and must not change.
package research

import (
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// Plan is the research plan made before any search.
type Plan struct {
	SearchQueries  []string `json:"search_queries"`
	KnownFacts     []string `json:"known_facts"`
	KnowledgeGaps  []string `json:"knowledge_gaps"`
	Subtasks       []string `json:"subtasks"`
	Planner        string   `json:"planner"`
	FallbackReason string   `json:"fallback_reason,omitempty"`
	// Aspects are the clauses the question asks about, each with the query that searches it;
	// the answer is grouped under them and progress shows how far each is covered.
	Aspects []plan.Aspect `json:"aspects,omitempty"`
}

// Round is one search round as the saturation gate saw it, shown in progress and in the report.
type Round struct {
	Round       int     `json:"round"`
	Query       string  `json:"query"`
	QuerySource string  `json:"query_source"`     // plan, gap, model-gap
	Novelty     float64 `json:"novelty"`          // 0-10
	Scored      bool    `json:"scored"`           // false for the first round: nothing to compare with
	Method      string  `json:"method,omitempty"` // heuristic, model, embedding; none when nothing was new
	Decision    string  `json:"decision"`
	Results     int     `json:"results"`
	NewResults  int     `json:"new_results"`
	Chars       int     `json:"chars"`
	Cached      bool    `json:"cached"`
	Note        string  `json:"note,omitempty"`
	// Ranked lists the keys (SourceKey) of every result the round's search returned, best
	// first, seen before or not: the answer fuses the rounds' rankings.
	Ranked []string `json:"ranked,omitempty"`
	// FallbackQuery is the simplified query the quality floor searched for a thin round.
	FallbackQuery string `json:"fallback_query,omitempty"`
	// References is how many of Results are passages the search's results link to (the first
	// round's cross-references, followed after its search).
	References int `json:"references,omitempty"`
}

// DecisionDiscarded is a round the saturation gate rejected: its results joined nothing.
const DecisionDiscarded = "discarded"

// Enrichment decisions: what happened to a source considered for reading in full.
const (
	EnrichFetched  = "fetched"
	EnrichFailed   = "failed"
	EnrichSkipped  = "skipped"
	EnrichReplaced = "replacement" // fetched in place of a failed one
)

// Enrichment records one enrichment decision about a source, so the report shows why a page
// was or was not read in full.
type Enrichment struct {
	N        int     `json:"n"`
	URL      string  `json:"url"`
	Decision string  `json:"decision"`
	Overlap  float64 `json:"overlap"` // share of the snippet's terms the knowledge state has
	Note     string  `json:"note,omitempty"`
}

// Source is one retrieved, deduplicated result with its citation number [N], and the page
// text when it was enriched.
type Source struct {
	N int `json:"n"`
	search.Result
	Round    int    `json:"round"`
	Enriched bool   `json:"enriched"`       // the full page was read, not just the snippet
	Text     string `json:"text,omitempty"` // page text when enriched
}

// SourceKey identifies a result across rounds: a corpus passage by its id (several passages of
// one page are different evidence), anything else by its normalized URL.
func SourceKey(r search.Result) string {
	if r.DocID != "" {
		return r.Provider + ":" + r.DocID
	}
	return search.NormalizeURL(r.URL)
}

// Indexed reports whether the source is a passage of the embedded corpus: its text can be read
// whole from the index by DocID, so it is never fetched, and it is quoted as extracted.
func (s Source) Indexed() bool { return s.Provider == "corpus" && s.DocID != "" }

// Renumber puts sources in the order given by their old numbers and numbers them 1..n in it;
// sources the order leaves out follow in their old order.
func Renumber(sources []Source, order []int) []Source {
	byN := make(map[int]Source, len(sources))
	for _, s := range sources {
		byN[s.N] = s
	}
	out := make([]Source, 0, len(sources))
	for _, n := range order {
		if s, ok := byN[n]; ok {
			s.N = len(out) + 1
			out = append(out, s)
			delete(byN, n)
		}
	}
	for _, s := range sources {
		if _, ok := byN[s.N]; ok {
			s.N = len(out) + 1
			out = append(out, s)
		}
	}
	return out
}

// RenumberEnrichment gives enrichment records the numbers Renumber gave their sources (order
// as there); records of sources not in order keep theirs. The input is not modified.
func RenumberEnrichment(recs []Enrichment, order []int) []Enrichment {
	if len(recs) == 0 {
		return nil
	}
	newN := make(map[int]int, len(order))
	for i, n := range order {
		newN[n] = i + 1
	}
	out := make([]Enrichment, len(recs))
	for i, e := range recs {
		if n, ok := newN[e.N]; ok {
			e.N = n
		}
		out[i] = e
	}
	return out
}

// SourceFindings are the sentences a report's findings quote from one source, N numbering the
// source as the report does.
type SourceFindings struct {
	N      int      `json:"n"`
	Quotes []string `json:"quotes"`
}

// PriorFact is an observation recalled from memory, with the sources it came from then.
type PriorFact struct {
	Fact    string   `json:"fact"`
	Sources []string `json:"sources"`
}

// Usage counts model calls and tokens as Ollama reports them.
type Usage struct {
	Calls        int  `json:"calls"`
	PromptTokens int  `json:"prompt_tokens"`
	OutputTokens int  `json:"output_tokens"`
	Truncated    bool `json:"truncated,omitempty"` // some prompt likely exceeded num_ctx and was cut
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.Calls += o.Calls
	u.PromptTokens += o.PromptTokens
	u.OutputTokens += o.OutputTokens
	u.Truncated = u.Truncated || o.Truncated
}

// Tokens is prompt plus output tokens.
func (u Usage) Tokens() int { return u.PromptTokens + u.OutputTokens }
