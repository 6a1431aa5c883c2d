package workflows

import (
	"fmt"
	"time"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/investigate"
	"github.com/sated-dev/sated/internal/search"
)

// InvestigationWorkflowName is the registered name the starter starts; the investigation and
// its source loops answer ProgressQuery.
const InvestigationWorkflowName = "InvestigationWorkflow"

// Investigation defaults.
const (
	DefaultSourceTimeLimit = 30 * time.Minute
	// DefaultBreadcrumbs are followed per hypothesis (the design's 5-10); DefaultEntities key
	// actors are researched per investigation.
	DefaultBreadcrumbs = 5
	DefaultEntities    = 5
	maxLeads           = 20
	// legacy defaults, for runs from before pageVerifyChange
	legacyBreadcrumbs = 3
	legacyEntities    = 3
)

// withLegacyDefaults fills unset breadcrumb and entity counts with the defaults of runs from
// before pageVerifyChange, so they replay as recorded.
func withLegacyDefaults(req InvestigationRequest) InvestigationRequest {
	if req.Breadcrumbs == nil {
		v := legacyBreadcrumbs
		req.Breadcrumbs = &v
	}
	if req.Entities == nil {
		v := legacyEntities
		req.Entities = &v
	}
	return req
}

// InvestigationRequest is the input of InvestigationWorkflow.
type InvestigationRequest struct {
	Question string   `json:"question"`
	Sources  []string `json:"sources"`
	// Ceilings override the catalogue's per-source query ceilings.
	Ceilings map[string]int `json:"ceilings,omitempty"`
	// TimeLimit bounds each source loop; 0 means DefaultSourceTimeLimit.
	TimeLimit time.Duration `json:"time_limit,omitempty"`
	// Breadcrumbs and Entities: how many leads to follow and actors to research (nil: default).
	Breadcrumbs     *int     `json:"breadcrumbs,omitempty"`
	Entities        *int     `json:"entities,omitempty"`
	ResultsPerQuery int      `json:"results_per_query,omitempty"`
	MaxModelCalls   int      `json:"max_model_calls,omitempty"`
	MaxSearchCalls  int      `json:"max_search_calls,omitempty"`
	OfficialDomains []string `json:"official_domains,omitempty"`
	NoModel         bool     `json:"no_model,omitempty"`
	NoCache         bool     `json:"no_cache,omitempty"`
}

// ValidateInvestigation applies the defaults and checks a request; the starter calls it before
// starting anything (plus investigate.CheckKeys for API keys) and the workflow on entry.
func ValidateInvestigation(req InvestigationRequest) (InvestigationRequest, error) {
	if err := config.ValidateQuestion(req.Question); err != nil {
		return req, err
	}
	ceil, err := investigate.Ceilings(req.Sources, req.Ceilings)
	if err != nil {
		return req, err
	}
	seen := map[string]bool{}
	for _, s := range req.Sources {
		if seen[s] {
			return req, fmt.Errorf("source %s named twice", s)
		}
		seen[s] = true
	}
	req.Ceilings = ceil
	if req.TimeLimit == 0 {
		req.TimeLimit = DefaultSourceTimeLimit
	}
	if req.TimeLimit < time.Second || req.TimeLimit > 24*time.Hour {
		return req, fmt.Errorf("time limit %s out of range [1s,24h]", req.TimeLimit)
	}
	for _, l := range []struct {
		name string
		p    **int
		def  int
	}{{"breadcrumbs", &req.Breadcrumbs, DefaultBreadcrumbs}, {"entities", &req.Entities, DefaultEntities}} {
		if *l.p == nil {
			v := l.def
			*l.p = &v
		}
		if n := **l.p; n < 0 || n > maxLeads {
			return req, fmt.Errorf("%s %d out of range [0,%d]", l.name, n, maxLeads)
		}
	}
	if req.ResultsPerQuery == 0 {
		req.ResultsPerQuery = config.DefaultResultsPerQuery
	}
	if req.ResultsPerQuery < 1 || req.ResultsPerQuery > 50 {
		return req, fmt.Errorf("results per query %d out of range [1,50]", req.ResultsPerQuery)
	}
	if req.MaxModelCalls < 0 || req.MaxSearchCalls < 0 {
		return req, fmt.Errorf("budgets must not be negative")
	}
	if req.OfficialDomains == nil {
		req.OfficialDomains = investigate.DefaultOfficialDomains
	}
	return req, nil
}

// InvestigationProgress is what the investigation's progress query returns. Events holds the
// query events of finished source loops; Running names the loops still searching, whose own
// progress query shows their events live.
type InvestigationProgress struct {
	Phase      string                          `json:"phase"`
	Question   string                          `json:"question"`
	Planner    string                          `json:"planner,omitempty"`
	Tasks      []activities.InvestigationTask  `json:"tasks,omitempty"`
	Current    string                          `json:"current,omitempty"`
	Running    []string                        `json:"running,omitempty"`
	Events     []investigate.QueryEvent        `json:"events"`
	Loops      []investigate.LoopSummary       `json:"loops,omitempty"`
	Hypotheses []investigate.HypothesisSummary `json:"hypotheses,omitempty"`
	Health     []investigate.Health            `json:"health,omitempty"`
	Findings   int                             `json:"findings"`
	// FindingsCapped is whether the findings reached the most one investigation keeps
	FindingsCapped bool              `json:"findings_capped,omitempty"`
	Spend          investigate.Spend `json:"spend"`
	StopReason     string            `json:"stop_reason,omitempty"`
	Fallbacks      []string          `json:"fallbacks,omitempty"`
	ReportPath     string            `json:"report_path,omitempty"`
}

// Investigation phases beyond the research ones.
const (
	PhaseInvestigating = "investigating"
	PhaseBreadcrumbs   = "breadcrumbs"
	PhaseVerifying     = "verifying"
	PhaseActors        = "actors"
	PhaseReporting     = "reporting"
)

// Rendered is the report's Markdown: as the run saved it, or rendered again from the report
// when the result left it out (maxResultMarkdown).
func (r InvestigationReport) Rendered() string {
	if r.Markdown != "" {
		return r.Markdown
	}
	return investigate.Markdown(r.Report)
}

// InvestigationReport is the output of InvestigationWorkflow. Markdown is empty when it would
// make the result too large (maxResultMarkdown): Rendered renders it from the report.
type InvestigationReport struct {
	investigate.Report
	Planner      string                         `json:"planner"`
	Plan         []activities.InvestigationTask `json:"plan"`
	Markdown     string                         `json:"markdown"`
	MarkdownPath string                         `json:"markdown_path,omitempty"`
	JSONPath     string                         `json:"json_path,omitempty"`
}

// SourceLoopRequest is the input of SourceLoopWorkflow: one source, one hypothesis.
type SourceLoopRequest struct {
	Question        string             `json:"question"`
	Task            string             `json:"task"`
	Hypothesis      string             `json:"hypothesis"`
	Source          string             `json:"source"`
	SeedQueries     []string           `json:"seed_queries,omitempty"`
	OpenGaps        []string           `json:"open_gaps,omitempty"`
	Ceiling         int                `json:"ceiling"`
	TimeLimit       time.Duration      `json:"time_limit"`
	ResultsPerQuery int                `json:"results_per_query"`
	Known           []string           `json:"known,omitempty"` // keys of the results the source found before (resultKey)
	Asked           []string           `json:"asked,omitempty"` // queries the source ran before
	Budget          investigate.Budget `json:"budget"`
	UseModel        bool               `json:"use_model"`
	NoCache         bool               `json:"no_cache,omitempty"`
	// PassageKeys keys results as passages (investigate.PassageKey), as the investigation that
	// started the loop does (passageKeysChange); false: by URL
	PassageKeys bool `json:"passage_keys,omitempty"`
}

// SourceLoopResult is what one source loop found and why it stopped.
type SourceLoopResult struct {
	Source     string                   `json:"source"`
	Events     []investigate.QueryEvent `json:"events"`
	Results    []search.Result          `json:"results"` // unique within the source, new to it
	StopReason string                   `json:"stop_reason"`
	TimedOut   bool                     `json:"timed_out,omitempty"`
	Failures   int                      `json:"failures"`
	LastError  string                   `json:"last_error,omitempty"`
	Spend      investigate.Spend        `json:"spend"`
	Fallbacks  []string                 `json:"fallbacks,omitempty"`
}
