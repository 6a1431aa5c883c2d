// Package report renders a research run as a cited Markdown report with a saturation chart,
// and saves the report, its JSON and the chart side by side.
package report

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/research"
)

// Data is everything the report shows.
type Data struct {
	Question   string `json:"question"`
	Extractive bool   `json:"extractive"`
	// ExtractiveWhy is why a run with a model got an extractive report (refused or failed).
	ExtractiveWhy    string               `json:"extractive_why,omitempty"`
	Plan             *research.Plan       `json:"plan,omitempty"`
	Rounds           []research.Round     `json:"rounds"`
	Threshold        float64              `json:"threshold"`
	StopReason       string               `json:"stop_reason"`
	Sources          []research.Source    `json:"sources"`
	Body             string               `json:"body"` // LLM-written body when not extractive
	RemovedCitations int                  `json:"removed_citations"`
	Fallbacks        []string             `json:"fallbacks,omitempty"`
	Notes            []string             `json:"notes,omitempty"`
	PriorKnowledge   []research.PriorFact `json:"prior_knowledge,omitempty"`
	// Enrichment is every enrichment decision: which pages were read in full and why not others.
	Enrichment []research.Enrichment `json:"enrichment,omitempty"`
	// Coverage is how much of each aspect of the question the findings answer.
	Coverage    []AspectCoverage `json:"coverage,omitempty"`
	GeneratedAt time.Time        `json:"generated_at"`
	WorkflowID  string           `json:"workflow_id,omitempty"`
	Strategy    string           `json:"strategy,omitempty"`
	SearchCalls int              `json:"search_calls"`
	SVGFile     string           `json:"svg_file,omitempty"` // chart path relative to the report
}

// ExtractiveNotice opens every report written without a language model.
const ExtractiveNotice = "Extractive report: no language model was configured; the sentences below are quoted from the sources."

// Markdown renders the full report. The body is sanitized again so that no citation points
// at a source the list does not have; the count shown includes those removals.
func Markdown(d Data) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	question := escapeInline(oneLine(d.Question))
	if question == "" {
		question = "Research report"
	}
	w("# %s\n\n", question)
	switch {
	case d.Extractive && d.ExtractiveWhy != "":
		w("> Extractive report: %s. The sentences below are quoted from the sources.\n\n", escapeInline(oneLine(d.ExtractiveWhy)))
	case d.Extractive:
		w("> %s\n\n", ExtractiveNotice)
	}
	if meta := metaLine(d); meta != "" {
		w("_%s_\n\n", meta)
	}

	w("## Findings\n\n")
	body := d.Body
	if d.Extractive && strings.TrimSpace(body) == "" {
		body = Answer(AnswerInput{Question: d.Question, Aspects: planAspects(d.Plan), Sources: d.Sources}).Body
	}
	valid := map[int]bool{}
	for _, s := range d.Sources {
		valid[s.N] = true
	}
	cited := map[int]bool{}
	body, removed := SanitizeCitations(strings.TrimSpace(body), func(n int) bool {
		cited[n] = cited[n] || valid[n]
		return valid[n]
	})
	if body == "" {
		body = "_No findings were written._"
	}
	w("%s\n\n", body)
	writeCoverage(&b, d.Coverage)

	if len(d.PriorKnowledge) > 0 {
		w("## Prior knowledge\n\n")
		w("_Remembered from earlier research runs, not from this run's sources; not re-checked._\n\n")
		for _, p := range d.PriorKnowledge {
			w("- %s", escapeInline(oneLine(p.Fact)))
			if len(p.Sources) > 0 {
				w(" (originally from: %s)", strings.Join(p.Sources, ", "))
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}

	w("## Sources\n\n")
	if len(d.Sources) == 0 {
		w("_No sources._\n")
	}
	shared := map[string]int{} // sources per title and URL: passages of one long section
	for _, s := range d.Sources {
		shared[sourceTitle(s)+" "+s.URL]++
	}
	// the sources the findings cite, then those read but not quoted (an extractive answer
	// numbers the cited ones first; a model's body may cite any), each list by number
	readOnly := 0
	for _, s := range d.Sources {
		if !cited[s.N] {
			readOnly++
		}
	}
	for _, quoted := range []bool{true, false} {
		if !quoted && readOnly > 0 && readOnly < len(d.Sources) {
			w("\nRead, not quoted in the findings:\n\n")
		}
		for _, s := range d.Sources {
			if cited[s.N] != quoted {
				continue
			}
			title := sourceTitle(s)
			if part := passagePart(s); shared[title+" "+s.URL] > 1 && part != "" {
				title += " (" + part + ")" // else two entries read as one source listed twice
			}
			w("- [%d] %s — %s", s.N, escapeInline(title), s.URL)
			if s.Enriched {
				w(" (enriched: full page read)")
			}
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')

	// how the findings were researched, for whoever audits them: the plan, the rounds and
	// the run's details
	w("## Plan\n\n")
	writePlan(&b, d.Plan)

	w("## Saturation curve\n\n")
	if d.SVGFile != "" {
		w("![saturation curve](%s)\n\n", (&url.URL{Path: d.SVGFile}).String())
	}
	writeRounds(&b, d.Rounds, d.Threshold)

	w("## Run details\n\n")
	w("- Stop reason: %s\n", orNone(oneLine(d.StopReason)))
	w("- Search calls: %d\n", d.SearchCalls)
	w("- Citations removed: %d\n", d.RemovedCitations+removed)
	if len(d.Fallbacks) == 0 {
		w("- Fallbacks: none\n")
	} else {
		w("- Fallbacks:\n")
		for _, f := range d.Fallbacks {
			w("  - %s\n", oneLine(f))
		}
	}
	writeEnrichment(&b, d.Enrichment)
	b.WriteByte('\n')

	if len(d.Notes) > 0 {
		w("## Notes\n\n")
		for _, n := range d.Notes {
			w("- %s\n", oneLine(n))
		}
		b.WriteByte('\n')
	}

	return strings.TrimRight(b.String(), "\n") + "\n"
}

// writeEnrichment lists the enrichment decisions under the run details: pages read in full,
// failed fetches and what replaced them, and the pages skipped as already known.
func writeEnrichment(b *strings.Builder, recs []research.Enrichment) {
	if len(recs) == 0 {
		return
	}
	b.WriteString("- Enrichment:\n")
	for _, e := range recs {
		switch e.Decision {
		case research.EnrichSkipped:
			fmt.Fprintf(b, "  - skipped [%d] %s: %.0f%% overlap with the knowledge state\n", e.N, e.URL, 100*e.Overlap)
		case research.EnrichFailed:
			fmt.Fprintf(b, "  - failed [%d] %s: %s\n", e.N, e.URL, oneLine(e.Note))
		default:
			fmt.Fprintf(b, "  - %s [%d] %s (%.0f%% overlap)\n", e.Decision, e.N, e.URL, 100*e.Overlap)
		}
	}
}

func metaLine(d Data) string {
	var parts []string
	if !d.GeneratedAt.IsZero() {
		parts = append(parts, "Generated "+d.GeneratedAt.UTC().Format(time.RFC3339))
	}
	if d.WorkflowID != "" {
		parts = append(parts, "workflow `"+d.WorkflowID+"`")
	}
	if d.Strategy != "" {
		parts = append(parts, "strategy "+oneLine(d.Strategy))
	}
	return strings.Join(parts, " · ")
}

// planAspects are the aspects' texts of a plan, if it has any.
func planAspects(p *research.Plan) []string {
	if p == nil {
		return nil
	}
	out := make([]string, len(p.Aspects))
	for i, a := range p.Aspects {
		out[i] = a.Text
	}
	return out
}

// writeCoverage says, per aspect of the question, how much of it the findings answer: a reader
// sees at once which part the evidence left thin, and which of its words no source read uses
// (a question's "linter" where git's manual says "pre-commit hook"): the quotes answer the other words.
func writeCoverage(b *strings.Builder, cov []AspectCoverage) {
	if len(cov) == 0 || len(cov) == 1 && len(cov[0].Unread) == 0 {
		return
	}
	if len(cov) == 1 {
		fmt.Fprintf(b, "## Coverage\n\nNo source read uses %s: the findings answer the question's other words.\n\n", quotedWords(cov[0].Unread))
		return
	}
	b.WriteString("## Coverage\n\nThe share of each aspect's words the findings name, all their quotes together " +
		"(the progress line's figure is the share one evidence passage holds), and the aspect's words no source read uses.\n\n" +
		"| Aspect | Coverage | Findings | In no source read |\n|---|---|---|---|\n")
	for _, c := range cov {
		unread := "–"
		if len(c.Unread) > 0 {
			unread = cell(strings.Join(c.Unread, ", "))
		}
		fmt.Fprintf(b, "| %s | %.0f%% | %d | %s |\n", cell(c.Aspect), 100*c.Coverage, c.Findings, unread)
	}
	b.WriteByte('\n')
}

// quotedWords lists words for a sentence: “a”, “b” and “c”.
func quotedWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "“" + escapeInline(w) + "”"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func writePlan(b *strings.Builder, p *research.Plan) {
	if p == nil {
		b.WriteString("_No plan was recorded._\n\n")
		return
	}
	fmt.Fprintf(b, "Planner: %s", orNone(oneLine(p.Planner)))
	if p.FallbackReason != "" {
		fmt.Fprintf(b, " (fallback: %s)", oneLine(p.FallbackReason))
	}
	b.WriteString("\n\n")
	for _, sec := range []struct {
		name  string
		items []string
	}{
		{"Search queries", p.SearchQueries},
		{"Known facts", p.KnownFacts},
		{"Knowledge gaps", p.KnowledgeGaps},
		{"Subtasks", notSearches(p.Subtasks, p.SearchQueries)},
	} {
		if len(sec.items) == 0 {
			continue
		}
		fmt.Fprintf(b, "**%s**\n\n", sec.name)
		for _, it := range sec.items {
			fmt.Fprintf(b, "- %s\n", escapeInline(oneLine(it)))
		}
		b.WriteByte('\n')
	}
}

// notSearches are the subtasks that say more than "search: " one of the plan's queries (the
// deterministic planner's subtasks all do: listed again they would repeat the queries).
func notSearches(subtasks, queries []string) []string {
	var out []string
	for _, t := range subtasks {
		if q, ok := strings.CutPrefix(t, "search: "); !ok || !slices.Contains(queries, q) {
			out = append(out, t)
		}
	}
	return out
}

// methodMeaning says in a few words what each novelty method's score measures.
var methodMeaning = map[string]string{
	config.NoveltyLearning:  "the new question-relevant information the round adds against all evidence so far",
	config.NoveltyAnswer:    "the share of the findings the round's new passages would write, 30x capped at 10 (3: a tenth)",
	config.NoveltyHeuristic: "the share of the round's words the knowledge state lacks",
	config.NoveltyModel:     "the evaluator model's 0-10 judgement",
	config.NoveltyEmbedding: "the distance of the round's embeddings from the knowledge state",
}

func writeRounds(b *strings.Builder, rounds []research.Round, threshold float64) {
	if len(rounds) == 0 {
		b.WriteString("_No search rounds were recorded._\n\n")
		return
	}
	var methods []string
	for _, r := range rounds {
		if r.Scored && r.Method != "" && !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	scored := ""
	for i, m := range methods {
		if i > 0 {
			scored += "; "
		}
		scored += "`" + m + "`"
		if d := methodMeaning[m]; d != "" {
			scored += ", " + d
		}
	}
	if scored != "" {
		scored = "; scored by " + scored
	}
	fmt.Fprintf(b, "Novelty threshold: %.1f (a round scoring below it counts as saturated%s).\n\n", threshold, scored)
	b.WriteString("| Round | Query | From | Novelty vs threshold | Decision | New results |\n")
	b.WriteString("| ---: | --- | --- | --- | --- | ---: |\n")
	for i, r := range rounds {
		novelty := "not scored"
		if r.Scored {
			cmp := "≥"
			if r.Novelty < threshold {
				cmp = "<"
			}
			novelty = fmt.Sprintf("%.1f %s %.1f", r.Novelty, cmp, threshold)
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %d / %d |\n", roundNumber(r, i), cell(r.Query),
			cell(r.QuerySource), novelty, cell(r.Decision), r.NewResults, r.Results)
	}
	b.WriteByte('\n')
}

func roundNumber(r research.Round, i int) int {
	if r.Round > 0 {
		return r.Round
	}
	return i + 1
}

func sourceTitle(s research.Source) string {
	if t := oneLine(s.Title); t != "" {
		return t
	}
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return fmt.Sprintf("Source %d", s.N)
}

// passagePart names which passage of its page a corpus source is ("passage 3"), "" for any
// other source.
func passagePart(s research.Source) string {
	i := strings.LastIndex(s.DocID, ":")
	if !s.Indexed() || i < 0 {
		return ""
	}
	n, err := strconv.Atoi(s.DocID[i+1:])
	if err != nil {
		return ""
	}
	return fmt.Sprintf("passage %d", n+1)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`).Replace(escapeInline(oneLine(s)))
}

// escapeInline keeps titles, facts and queries from reading as links, citations or HTML.
func escapeInline(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`, "<", `\<`).Replace(s)
}

// Paths are where Save wrote the report files.
type Paths struct {
	Markdown string `json:"markdown"`
	JSON     string `json:"json"`
	SVG      string `json:"svg"`
}

// Save writes baseName.md, baseName.json (jsonValue, indented) and baseName.svg into dir, each
// atomically, so a reader never sees a half-written report.
func Save(dir, baseName string, d Data, jsonValue any) (Paths, error) {
	if baseName == "" || baseName != filepath.Base(baseName) || baseName == "." || baseName == ".." {
		return Paths{}, fmt.Errorf("report: bad base name %q", baseName)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Paths{}, fmt.Errorf("report: %w", err)
	}
	js, err := json.MarshalIndent(jsonValue, "", "  ")
	if err != nil {
		return Paths{}, fmt.Errorf("report: marshal json: %w", err)
	}
	p := Paths{
		Markdown: filepath.Join(dir, baseName+".md"),
		JSON:     filepath.Join(dir, baseName+".json"),
		SVG:      filepath.Join(dir, baseName+".svg"),
	}
	d.SVGFile = filepath.Base(p.SVG)
	for _, f := range []struct {
		path string
		data []byte
	}{
		{p.SVG, []byte(SaturationSVG(d.Rounds, d.Threshold))},
		{p.JSON, append(js, '\n')},
		{p.Markdown, []byte(Markdown(d))},
	} {
		if err := writeAtomic(f.path, f.data); err != nil {
			return Paths{}, err
		}
	}
	return p, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	return nil
}
