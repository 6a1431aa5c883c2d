package investigate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// LoopSummary is one source loop's outcome for one hypothesis.
type LoopSummary struct {
	Task       string `json:"task"`
	Hypothesis string `json:"hypothesis"`
	Source     string `json:"source"`
	Queries    int    `json:"queries"`
	Unique     int    `json:"unique"` // unique within the source
	New        int    `json:"new"`    // new across all sources when merged
	StopReason string `json:"stop_reason"`
	Error      string `json:"error,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty"`
}

// HypothesisSummary is one hypothesis with what it added and the coverage assessment after it.
type HypothesisSummary struct {
	Task       string    `json:"task"`
	Hypothesis string    `json:"hypothesis"`
	Sources    []string  `json:"sources"`
	NewUnique  int       `json:"new_unique"`
	Coverage   *Coverage `json:"coverage,omitempty"`
	Skipped    string    `json:"skipped,omitempty"`
}

// Lead is a breadcrumb and what following it found.
type Lead struct {
	Breadcrumb
	// Hypothesis is the hypothesis whose results named the lead ("" when leads were extracted
	// once after every hypothesis).
	Hypothesis string `json:"hypothesis,omitempty"`
	Source     string `json:"source,omitempty"`
	Query      string `json:"query,omitempty"`
	New        int    `json:"new"`
	Error      string `json:"error,omitempty"`
}

// Actor is a key actor: an entity, its profile from the findings and why it matters.
type Actor struct {
	Entity  Breadcrumb `json:"entity"`
	Profile []string   `json:"profile"` // sentences with [n] citations
	Why     string     `json:"why"`
	Query   string     `json:"query,omitempty"`
	New     int        `json:"new"`
	Error   string     `json:"error,omitempty"`
}

// Health is a provider's record over the investigation.
type Health struct {
	Source    string `json:"source"`
	Queries   int    `json:"queries"`
	Failures  int    `json:"failures"`
	LastError string `json:"last_error,omitempty"`
}

// Report is everything the investigation report is rendered from.
type Report struct {
	Question    string              `json:"question"`
	WorkflowID  string              `json:"workflow_id"`
	GeneratedAt time.Time           `json:"generated_at"`
	Tasks       []string            `json:"tasks"`
	Hypotheses  []HypothesisSummary `json:"hypotheses"`
	Loops       []LoopSummary       `json:"loops"`
	Findings    []Finding           `json:"findings"`
	Leads       []Lead              `json:"leads,omitempty"`
	Claims      []VerifiedClaim     `json:"claims,omitempty"`
	Actors      []Actor             `json:"actors,omitempty"`
	Health      []Health            `json:"health"`
	Events      []QueryEvent        `json:"events"`
	Spend       Spend               `json:"spend"`
	Budget      Budget              `json:"budget"`
	StopReason  string              `json:"stop_reason,omitempty"`
	Fallbacks   []string            `json:"fallbacks,omitempty"`
	Notes       []string            `json:"notes,omitempty"`
	// Answer is the extractive answer to the question over the findings (report.Answer), cited
	// by finding number; empty for runs from before it was written.
	Answer string `json:"answer,omitempty"`
}

// Profile builds an actor's profile from the findings that mention it: up to n sentences,
// each cited, and why it matters (how many findings, which hypotheses).
func Profile(e Breadcrumb, findings []Finding, n int) Actor {
	return ProfileFrom(e, findings, nil, n)
}

// ProfileFrom is Profile reading each finding's page text where pages has it (keyed by the
// finding's Key), its title and snippet otherwise.
func ProfileFrom(e Breadcrumb, findings []Finding, pages map[string]string, n int) Actor {
	a := Actor{Entity: e}
	hyps := map[string]bool{}
	var cites []string
	for _, f := range findings {
		text := f.Text()
		if p, ok := pages[f.Key]; ok {
			text = f.Title + ". " + p
		}
		ss := MentioningActor([]string{text}, e, n-len(a.Profile))
		if len(ss) == 0 {
			continue
		}
		cites = append(cites, fmt.Sprintf("[%d]", f.N))
		for _, at := range f.FoundBy {
			hyps[at.Hypothesis] = true
		}
		for _, s := range ss {
			if len(a.Profile) < n {
				a.Profile = append(a.Profile, fmt.Sprintf("%s [%d]", s, f.N))
			}
		}
	}
	//workflowcheck:ignore the hypotheses are sorted before use
	hs := slices.Sorted(maps.Keys(hyps))
	if len(cites) == 0 {
		a.Why = fmt.Sprintf("named in %d result(s), though no retrieved snippet says more about it", e.Count)
		return a
	}
	if len(cites) > 8 {
		cites = append(cites[:8], "…")
	}
	a.Why = fmt.Sprintf("%s mentioned in %d finding(s) %s, across %d hypothesis(es): %s", e.Kind, len(cites), strings.Join(cites, ""), len(hs), strings.Join(hs, "; "))
	return a
}

var tagMark = map[string]string{VerifiedOfficial: "✔ official", VerifiedMulti: "✔ multiple independent sources",
	UnverifiedSingle: "⚠ unverified (single source)", Contradicted: "✖ contradicted"}

// Markdown renders the report with an appendix of every query event, also as JSON.
func Markdown(r Report) string {
	var b strings.Builder
	writeHeader(&b, r)
	writeAnswer(&b, r)
	writeFindings(&b, r)
	writeClaims(&b, r)
	writeActors(&b, r)
	writeLeads(&b, r)
	writeHypotheses(&b, r)
	writeSources(&b, r)
	writeNotes(&b, r)
	writeAppendix(&b, r)
	return b.String()
}

func writeHeader(b *strings.Builder, r Report) {
	fmt.Fprintf(b, "# Investigation: %s\n\n", oneLine(r.Question))
	fmt.Fprintf(b, "_%d unique results from %d queries (%d model calls); generated %s; run %s._\n\n",
		len(r.Findings), r.Spend.SearchCalls, r.Spend.ModelCalls, r.GeneratedAt.Format(time.RFC3339), r.WorkflowID)
	if r.StopReason != "" {
		fmt.Fprintf(b, "**Stopped early:** %s\n\n", r.StopReason)
	}
}

// writeAnswer puts the answer first: what the findings say of the question, quoted and cited.
func writeAnswer(b *strings.Builder, r Report) {
	if strings.TrimSpace(r.Answer) == "" {
		return
	}
	b.WriteString("## Answer\n\n")
	b.WriteString("_Quoted from the findings below, the best first under each part of the question; [n] is the finding._\n\n")
	b.WriteString(strings.TrimSpace(r.Answer) + "\n\n")
}

func writeFindings(b *strings.Builder, r Report) {
	b.WriteString("## Findings\n\n")
	if len(r.Findings) == 0 {
		b.WriteString("No source returned anything.\n\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(b, "[%d] **%s** — %s  \n    found by %s\n", f.N, cellText(orUntitled(f.Title)), f.URL, strings.Join(f.SourcesOf(), ", "))
		if f.Snippet != "" {
			fmt.Fprintf(b, "    > %s\n", oneLine(f.Snippet))
		}
	}
	b.WriteString("\n")
}

func writeClaims(b *strings.Builder, r Report) {
	if len(r.Claims) == 0 {
		return
	}
	b.WriteString("## Key claims and verification\n\n")
	// a claim names the page it came from: it cites the first finding of that page
	idx := map[string]int{}
	for _, f := range r.Findings {
		if k := normalizedKey(f.URL); idx[k] == 0 {
			idx[k] = f.N
		}
	}
	for _, c := range RankClaims(r.Claims) {
		fmt.Fprintf(b, "- %s %s — **%s**\n", oneLine(c.Text), cite(idx, c.URL), tagMark[c.Tag])
		for _, x := range c.Contradictions {
			fmt.Fprintf(b, "  - contradicted by %s\n", x)
		}
		if len(c.Corroborations) > 0 {
			fmt.Fprintf(b, "  - corroborated by %s\n", strings.Join(c.Corroborations, ", "))
		}
		for _, x := range c.Coarser {
			fmt.Fprintf(b, "  - at another precision: %s\n", x)
		}
		if c.Confirmation != "" {
			fmt.Fprintf(b, "  - confirmation: %s\n", c.Confirmation)
		}
	}
	b.WriteString("\n")
}

func writeActors(b *strings.Builder, r Report) {
	if len(r.Actors) > 0 {
		b.WriteString("## Key actors\n\n")
	}
	for _, a := range r.Actors {
		writeActor(b, a)
	}
}

// writeActor renders one actor as a subsection: why it matters, its profile, its follow-up.
func writeActor(b *strings.Builder, a Actor) {
	fmt.Fprintf(b, "### %s (%s)\n\n", a.Entity.Text, a.Entity.Kind)
	fmt.Fprintf(b, "Why it matters: %s.\n\n", a.Why)
	for _, s := range a.Profile {
		fmt.Fprintf(b, "- %s\n", oneLine(s))
	}
	if a.Query != "" {
		fmt.Fprintf(b, "- researched with %q: %d new result(s)%s\n", a.Query, a.New, errSuffix(a.Error))
	}
	b.WriteString("\n")
}

func writeLeads(b *strings.Builder, r Report) {
	if len(r.Leads) == 0 {
		return
	}
	b.WriteString("## Breadcrumbs followed\n\n| lead | kind | mentions | from hypothesis | query | source | new |\n|---|---|---|---|---|---|---|\n")
	for _, l := range r.Leads {
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %d%s |\n", cellText(l.Text), l.Kind, l.Count, cellText(l.Hypothesis), cellText(l.Query), l.Source, l.New, errSuffix(l.Error))
	}
	b.WriteString("\n")
}

func writeHypotheses(b *strings.Builder, r Report) {
	b.WriteString("## Hypotheses\n\n")
	for _, h := range r.Hypotheses {
		fmt.Fprintf(b, "- **%s** / %s — sources %s: %d new unique result(s)", cellText(h.Task), cellText(h.Hypothesis), strings.Join(h.Sources, ", "), h.NewUnique)
		if h.Skipped != "" {
			fmt.Fprintf(b, " — skipped: %s", h.Skipped)
		}
		if h.Coverage != nil {
			fmt.Fprintf(b, " — next: %s (%s)", map[bool]string{true: "continue", false: "stop"}[h.Coverage.Continue], h.Coverage.Reason)
		}
		b.WriteString("\n")
	}
}

// writeSources renders each source loop and each provider's health.
func writeSources(b *strings.Builder, r Report) {
	b.WriteString("\n## Sources\n\n| hypothesis | source | queries | unique | new overall | stopped because |\n|---|---|---|---|---|---|\n")
	for _, l := range r.Loops {
		why := l.StopReason
		if l.Error != "" {
			why += " — error: " + l.Error
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %s |\n", cellText(l.Hypothesis), l.Source, l.Queries, l.Unique, l.New, cellText(why))
	}
	b.WriteString("\n### Provider health\n\n| source | queries | failures | last error |\n|---|---|---|---|\n")
	for _, h := range r.Health {
		fmt.Fprintf(b, "| %s | %d | %d | %s |\n", h.Source, h.Queries, h.Failures, cellText(h.LastError))
	}
	b.WriteString("\n")
}

func writeNotes(b *strings.Builder, r Report) {
	if len(r.Fallbacks) == 0 && len(r.Notes) == 0 {
		return
	}
	b.WriteString("## Notes\n\n")
	for _, s := range append(append([]string{}, r.Fallbacks...), r.Notes...) {
		fmt.Fprintf(b, "- %s\n", oneLine(s))
	}
	b.WriteString("\n")
}

// writeAppendix renders every query event as a table row and, whole, as JSON.
func writeAppendix(b *strings.Builder, r Report) {
	b.WriteString("## Appendix: query events\n\n| task | hypothesis | source | # | query | results | new | dup | new % | decider | reasoning |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, e := range r.Events {
		reason := e.Reasoning
		if e.Error != "" {
			reason = "error: " + e.Error
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %d | %d | %d | %.0f | %s | %s |\n", cellText(e.Task), cellText(e.Hypothesis), e.Source, e.N,
			cellText(e.Query), e.Results, e.New, e.Duplicates, e.Incremental, e.Decider, cellText(reason))
	}
	js, _ := json.MarshalIndent(r.Events, "", "  ")
	fmt.Fprintf(b, "\n```json\n%s\n```\n", js)
}

func cite(idx map[string]int, u string) string {
	if n, ok := idx[normalizedKey(u)]; ok {
		return fmt.Sprintf("[%d]", n)
	}
	return "(" + u + ")"
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return " (error: " + oneLine(e) + ")"
}

func orUntitled(s string) string {
	if strings.TrimSpace(s) == "" {
		return "untitled"
	}
	return s
}

func cellText(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}
