// Package activities holds every side effect of sated: search, novelty, compression, planning,
// fetching, synthesis and memory. Activities are methods on structs holding narrow interfaces.
package activities

import (
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/search"
)

// Plan is the research plan made before any search.
type Plan = report.Plan

// Usage counts model calls and tokens as Ollama reports them.
type Usage = llm.Usage

// PlanInput asks for a research plan.
type PlanInput struct {
	Question   string   `json:"question"`
	KnownFacts []string `json:"known_facts,omitempty"`
	UseModel   bool     `json:"use_model"`
}

// PlanOutput is the plan and what making it cost.
type PlanOutput struct {
	Plan  Plan  `json:"plan"`
	Usage Usage `json:"usage"`
}

// SearchInput is one query to one provider. Question is carried so the activity can refuse to
// send the raw question to a provider.
type SearchInput struct {
	Provider string `json:"provider"`
	Query    string `json:"query"`
	Question string `json:"question"`
	Limit    int    `json:"limit"`
	NoCache  bool   `json:"no_cache,omitempty"`
}

// SearchOutput is a provider's answer.
type SearchOutput struct {
	Results []search.Result `json:"results"`
	Chars   int             `json:"chars"` // characters of title+snippet text returned
	Cached  bool            `json:"cached"`
}

// NoveltyInput asks how new a round's unseen results are against the knowledge state.
type NoveltyInput struct {
	Method    string          `json:"method"`
	Knowledge string          `json:"knowledge"`
	Results   []search.Result `json:"results"`
}

// NoveltyOutput is the score (0-10) and how it was reached.
type NoveltyOutput struct {
	Score    float64 `json:"score"`
	Method   string  `json:"method"`
	Fallback string  `json:"fallback,omitempty"`
	Usage    Usage   `json:"usage"`
}

// CompressInput merges an accepted round's results into the knowledge state.
type CompressInput struct {
	Question  string          `json:"question"`
	Knowledge string          `json:"knowledge"`
	Results   []search.Result `json:"results"`
	Cap       int             `json:"cap"`
	UseModel  bool            `json:"use_model"`
}

// CompressOutput is the new knowledge state, always within the cap.
type CompressOutput struct {
	Knowledge  string `json:"knowledge"`
	Compressor string `json:"compressor"` // deterministic or model
	Fallback   string `json:"fallback,omitempty"`
	Usage      Usage  `json:"usage"`
}

// GapQueryInput asks for the next query for what the knowledge state does not yet cover.
type GapQueryInput struct {
	Question  string   `json:"question"`
	Knowledge string   `json:"knowledge"`
	Previous  []string `json:"previous"`
	UseModel  bool     `json:"use_model"`
}

// GapQueryOutput is the planned query; empty when nothing new can be asked.
type GapQueryOutput struct {
	Query    string `json:"query"`
	Planner  string `json:"planner"`
	Fallback string `json:"fallback,omitempty"`
	Usage    Usage  `json:"usage"`
}

// FetchInput names a result to read in full.
type FetchInput struct {
	URL      string `json:"url"`
	DocID    string `json:"doc_id,omitempty"`
	Provider string `json:"provider"`
	Question string `json:"question"`
	UseModel bool   `json:"use_model,omitempty"` // rank chunks with the embedding model
}

// FetchOutput is the page's text, bounded to the chunker's budget.
type FetchOutput struct {
	Title     string `json:"title"`
	Text      string `json:"text"`
	From      string `json:"from"` // corpus or web
	Truncated bool   `json:"truncated"`
	Chars     int    `json:"chars"` // characters of the whole page before bounding
	Mode      string `json:"mode"`  // how the chunker chose the text: whole, sections or chunks
	Usage     Usage  `json:"usage"`
}

// RoundRecord is one search round as shown in progress and in the report.
type RoundRecord struct {
	Round       int     `json:"round"`
	Query       string  `json:"query"`
	QuerySource string  `json:"query_source"` // plan, gap, model-gap
	Novelty     float64 `json:"novelty"`
	Scored      bool    `json:"scored"`           // false for the first round: nothing to compare with
	Method      string  `json:"method,omitempty"` // heuristic, model, embedding; none when nothing was new
	Decision    string  `json:"decision"`
	Results     int     `json:"results"`
	NewResults  int     `json:"new_results"`
	Chars       int     `json:"chars"`
	Cached      bool    `json:"cached"`
	Note        string  `json:"note,omitempty"`
}

// Source is one retrieved, deduplicated result with its citation number, and the page text
// when it was enriched.
type Source struct {
	N int `json:"n"`
	search.Result
	Round    int    `json:"round"`
	Enriched bool   `json:"enriched"`
	Text     string `json:"text,omitempty"`
}

// PriorFact is an observation recalled from memory, with its original sources.
type PriorFact = report.Prior

// SynthesizeInput is everything the report is written from.
type SynthesizeInput struct {
	WorkflowID  string        `json:"workflow_id"`
	Question    string        `json:"question"`
	Strategy    string        `json:"strategy"`
	Threshold   float64       `json:"threshold"`
	Seed        int64         `json:"seed"`
	Plan        Plan          `json:"plan"`
	Rounds      []RoundRecord `json:"rounds"`
	StopReason  string        `json:"stop_reason"`
	Sources     []Source      `json:"sources"`
	Knowledge   string        `json:"knowledge"`
	Prior       []PriorFact   `json:"prior,omitempty"`
	Fallbacks   []string      `json:"fallbacks,omitempty"`
	Notes       []string      `json:"notes,omitempty"`
	SearchCalls int           `json:"search_calls"`
	UseModel    bool          `json:"use_model"`
	Eval        bool          `json:"eval,omitempty"`
	Usage       Usage         `json:"usage"`
}

// SynthesizeOutput is the written report and where it was saved.
type SynthesizeOutput struct {
	Markdown         string `json:"markdown"`
	Extractive       bool   `json:"extractive"`
	RemovedCitations int    `json:"removed_citations"`
	MarkdownPath     string `json:"markdown_path"`
	JSONPath         string `json:"json_path"`
	SVGPath          string `json:"svg_path"`
	Fallback         string `json:"fallback,omitempty"`
	Evidence         string `json:"evidence,omitempty"`
	Usage            Usage  `json:"usage"`
}

// PrepareInput is the raw task before planning.
type PrepareInput struct {
	Question string `json:"question"`
	UseModel bool   `json:"use_model"`
	MaxCalls int    `json:"max_calls,omitempty"` // images to describe at most; 0: all
}

// PrepareOutput is the task with local images replaced by their descriptions.
type PrepareOutput struct {
	Task   string   `json:"task"`
	Images int      `json:"images"`
	Notes  []string `json:"notes,omitempty"`
	Usage  Usage    `json:"usage"`
}
