// Package workflows holds the deterministic orchestration: one workflow per file, their
// inputs and outputs here, and the task-queue, signal, query and update names as constants.
package workflows

import (
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/research"
)

// Names shared by the worker, the starter and the tests.
const (
	ResearchWorkflowName = "ResearchWorkflow"
	ProgressQuery        = "progress"
	StopSignal           = "stop-search"
)

// ResearchRequest is the input of ResearchWorkflow.
type ResearchRequest struct {
	Question string          `json:"question"`
	Config   config.Research `json:"config"`
	// Seed drives the epsilon-greedy pass-through. 0 asks the workflow to draw one through
	// workflow.SideEffect; either way the seed used is recorded in the report.
	Seed int64 `json:"seed,omitempty"`
	// Eval asks the workflow to include the full evidence text in the report for scoring.
	Eval bool `json:"eval,omitempty"`
	// NoModel runs every stage deterministically even when the worker has models.
	NoModel bool `json:"no_model,omitempty"`
	// NoMemory neither recalls nor remembers: eval runs stay independent of each other.
	NoMemory bool `json:"no_memory,omitempty"`
}

// Round decisions.
const (
	DecisionAccepted    = "accepted"
	DecisionDiscarded   = research.DecisionDiscarded
	DecisionEpsilon     = "epsilon-pass-through"
	DecisionFallback    = "fallback"
	DecisionFixed       = "accepted (fixed)"
	DecisionSearchError = "search-error"
)

// RoundRecord is one search round as shown in progress and in the report.
type RoundRecord = research.Round

// Plan is the research plan made before any search.
type Plan = research.Plan

// Source is one retrieved, deduplicated result with its citation number.
type Source = research.Source

// Progress is what the progress query returns.
type Progress struct {
	Phase         string         `json:"phase"` // validating, planning, searching, enriching, synthesizing, remembering, done, failed
	Question      string         `json:"question"`
	Strategy      string         `json:"strategy"`
	Threshold     float64        `json:"threshold"`
	Plan          *Plan          `json:"plan,omitempty"`
	Rounds        []RoundRecord  `json:"rounds"`
	StopReason    string         `json:"stop_reason,omitempty"`
	Sources       int            `json:"sources"`
	Enriched      int            `json:"enriched"`
	Fallbacks     []string       `json:"fallbacks,omitempty"`
	StopRequested bool           `json:"stop_requested,omitempty"`
	ReportPath    string         `json:"report_path,omitempty"`
	Usage         research.Usage `json:"usage"`
	Notes         []string       `json:"notes,omitempty"`
	// Coverage is, per aspect of the question, the largest share of its terms one evidence text
	// holds (0-1; plan.AspectCoverage).
	Coverage []float64 `json:"coverage,omitempty"`
	// Enrichment is every enrichment decision: fetched, failed, replacement, skipped (with overlap).
	Enrichment []research.Enrichment `json:"enrichment,omitempty"`
	// Diagnosis is what the rounds' novelty curve says about the queries (novelty.DiagnoseQueries).
	Diagnosis []string `json:"diagnosis,omitempty"`
}

// ResearchReport is the output of ResearchWorkflow.
type ResearchReport struct {
	WorkflowID string          `json:"workflow_id"`
	Question   string          `json:"question"`
	Config     config.Research `json:"config"`
	Seed       int64           `json:"seed"`
	Plan       Plan            `json:"plan"`
	Rounds     []RoundRecord   `json:"rounds"`
	StopReason string          `json:"stop_reason"`
	Sources    []Source        `json:"sources"`
	Knowledge  string          `json:"knowledge"`
	// Findings are the findings' quotes per source (activities.SynthesizeOutput.Findings).
	Findings         []research.SourceFindings `json:"findings,omitempty"`
	Markdown         string                    `json:"markdown"`
	Extractive       bool                      `json:"extractive"`
	RemovedCitations int                       `json:"removed_citations"`
	Fallbacks        []string                  `json:"fallbacks,omitempty"`
	SearchCalls      int                       `json:"search_calls"`
	MarkdownPath     string                    `json:"markdown_path"`
	JSONPath         string                    `json:"json_path"`
	SVGPath          string                    `json:"svg_path"`
	// Evidence is the text the report was written from; filled only for eval runs.
	Evidence string         `json:"evidence,omitempty"`
	Usage    research.Usage `json:"usage"`
	Notes    []string       `json:"notes,omitempty"`
	Task     string         `json:"task,omitempty"` // the question after the vision bridge
	// Enrichment is every enrichment decision, numbered as the report's sources.
	Enrichment []research.Enrichment `json:"enrichment,omitempty"`
	// Diagnosis is what the rounds' novelty curve says about the queries; also in Notes.
	Diagnosis []string `json:"diagnosis,omitempty"`
}
