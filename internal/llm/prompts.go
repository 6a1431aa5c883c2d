package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PromptSource is one numbered source or search result shown to a model.
type PromptSource struct {
	Title string
	URL   string
	Text  string
}

// MaxQueryChars bounds a model-written search query.
const MaxQueryChars = 200

// normalize lowercases and collapses whitespace so near-identical strings compare equal.
func normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func bullets(items []string) string {
	if len(items) == 0 {
		return "(none)\n"
	}
	var b strings.Builder
	for _, it := range items {
		b.WriteString("- " + strings.TrimSpace(it) + "\n")
	}
	return b.String()
}

// trimmedResults renders results for the novelty and compression prompts: each result gets an
// equal share of PromptResultsChars (title and text, no URL), so the prompt stays small
// whatever the provider returned.
func trimmedResults(sources []PromptSource) string {
	if len(sources) == 0 {
		return "(none)\n"
	}
	share := PromptResultsChars / len(sources)
	var b strings.Builder
	for i, s := range sources {
		entry := strings.Join(strings.Fields(s.Title+": "+s.Text), " ")
		fmt.Fprintf(&b, "[%d] %s\n", i+1, clip(entry, share))
	}
	return b.String() + "\n"
}

// trimmedKnowledge is the knowledge state as the novelty and compression prompts show it:
// at most PromptKnowledgeChars.
func trimmedKnowledge(knowledge string) string {
	if k := strings.TrimSpace(knowledge); k != "" {
		return clip(k, PromptKnowledgeChars)
	}
	return "(nothing yet)"
}

// ---- Plan ----

// Plan is the planner's answer.
type Plan struct {
	SearchQueries []string `json:"search_queries"`
	KnownFacts    []string `json:"known_facts"`
	KnowledgeGaps []string `json:"knowledge_gaps"`
	Subtasks      []string `json:"subtasks"`
}

// PlanSchema constrains the planner's answer.
var PlanSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"search_queries":{"type":"array","items":{"type":"string","minLength":1,"maxLength":199},"minItems":3,"maxItems":5},` +
	`"known_facts":{"type":"array","items":{"type":"string"}},` +
	`"knowledge_gaps":{"type":"array","items":{"type":"string"}},` +
	`"subtasks":{"type":"array","items":{"type":"string"}}},` +
	`"required":["search_queries","known_facts","knowledge_gaps","subtasks"]}`)

const planSystem = "You plan web research. You answer with one JSON object and nothing else."

// PlanPrompt asks for 3-5 search queries, known facts, gaps and subtasks for a task.
func PlanPrompt(task string, knownFacts []string) (system, prompt string) {
	return planSystem, "Research task:\n" + strings.TrimSpace(task) + "\n\n" +
		"Facts already known from earlier research:\n" + bullets(knownFacts) + "\n" +
		"Write a research plan as JSON with:\n" +
		"- search_queries: 3 to 5 distinct, short web search queries (under 200 characters each) that together cover the task; do not repeat the task text verbatim\n" +
		"- known_facts: what the known facts above already answer\n" +
		"- knowledge_gaps: what is still unknown\n" +
		"- subtasks: the parts of the task the report must cover\n"
}

// Validate checks 3-5 non-empty, distinct queries under MaxQueryChars, none equal to the task.
func (p *Plan) Validate(task string) error {
	if n := len(p.SearchQueries); n < 3 || n > 5 {
		return fmt.Errorf("want 3-5 search queries, got %d", n)
	}
	seen := map[string]bool{normalize(task): true}
	for i, q := range p.SearchQueries {
		nq := normalize(q)
		switch {
		case nq == "":
			return fmt.Errorf("search query %d is empty", i+1)
		case len(strings.TrimSpace(q)) >= MaxQueryChars:
			return fmt.Errorf("search query %d is %d characters; the limit is %d", i+1, len(strings.TrimSpace(q)), MaxQueryChars-1)
		case nq == normalize(task):
			return fmt.Errorf("search query %d repeats the task", i+1)
		case seen[nq]:
			return fmt.Errorf("search query %d repeats an earlier query", i+1)
		}
		seen[nq] = true
	}
	return nil
}

// ---- Novelty ----

// NeutralNovelty is the score callers use when the evaluator's answer has no number.
const NeutralNovelty = 5

const noveltySystem = "You judge how much new information search results add. You answer with a single integer from 0 to 10 and nothing else."

// NoveltyPrompt asks how novel new results are against the knowledge state (answer: 0-10);
// knowledge and results are cut to PromptKnowledgeChars and PromptResultsChars.
func NoveltyPrompt(knowledge string, results []PromptSource) (system, prompt string) {
	return noveltySystem, "What we already know:\n" + trimmedKnowledge(knowledge) + "\n\n" +
		"New search results:\n" + trimmedResults(results) +
		"How much new, relevant information do the new results add to what we know? " +
		"0 means nothing new, 10 means almost everything is new. Answer with one integer from 0 to 10."
}

// ParseNovelty reads the evaluator's answer as a 0..10 score; false when it has no number.
func ParseNovelty(answer string) (float64, bool) {
	n, ok := FirstInt(answer)
	if !ok {
		return 0, false
	}
	return ClampScore(n), true
}

// ---- Compression ----

// Compression is the merged knowledge state as bullet facts.
type Compression struct {
	Facts []string `json:"facts"`
}

// MaxFacts is the most facts a compression may hold.
const MaxFacts = 8

// CompressionSchema constrains the compressor's answer.
var CompressionSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"facts":{"type":"array","items":{"type":"string","minLength":1},"minItems":1,"maxItems":8}},` +
	`"required":["facts"]}`)

const compressionSystem = "You merge research notes into a short list of facts. You answer with one JSON object and nothing else."

// CompressionPrompt asks to merge the knowledge state and new results into 5-8 facts;
// knowledge and results are cut as in NoveltyPrompt.
func CompressionPrompt(question, knowledge string, results []PromptSource) (system, prompt string) {
	return compressionSystem, "Research question:\n" + strings.TrimSpace(question) + "\n\n" +
		"Current knowledge:\n" + trimmedKnowledge(knowledge) + "\n\n" +
		"New search results:\n" + trimmedResults(results) +
		"Merge the current knowledge and the new results into 5 to 8 short, self-contained facts relevant to the question. " +
		"Keep numbers, names and dates; drop repetition. Answer as JSON: {\"facts\": [...]}."
}

// Validate checks 1-8 non-empty facts (the prompt asks for 5-8; fewer still carry knowledge).
func (c *Compression) Validate() error {
	if n := len(c.Facts); n < 1 || n > MaxFacts {
		return fmt.Errorf("want 1-%d facts, got %d", MaxFacts, n)
	}
	for i, f := range c.Facts {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf("fact %d is empty", i+1)
		}
	}
	return nil
}

// ---- Gap query ----

// GapQuery is the next search query aimed at a knowledge gap.
type GapQuery struct {
	Query     string `json:"query"`
	Rationale string `json:"rationale"`
}

// GapQuerySchema constrains the gap-query answer.
var GapQuerySchema = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":199},"rationale":{"type":"string"}},` +
	`"required":["query","rationale"]}`)

const gapSystem = "You choose the next web search for a research task. You answer with one JSON object and nothing else."

// GapQueryPrompt asks for one new query aimed at what is still unknown.
func GapQueryPrompt(question, knowledge string, gaps, tried []string) (system, prompt string) {
	if strings.TrimSpace(knowledge) == "" {
		knowledge = "(nothing yet)"
	}
	return gapSystem, "Research question:\n" + strings.TrimSpace(question) + "\n\n" +
		"What we know:\n" + strings.TrimSpace(knowledge) + "\n\n" +
		"Known gaps:\n" + bullets(gaps) + "\n" +
		"Queries already searched:\n" + bullets(tried) + "\n" +
		"Write one new web search query (under 200 characters) that targets the most important gap and differs from the queries already searched. " +
		"Answer as JSON: {\"query\": \"...\", \"rationale\": \"...\"}."
}

// Validate checks a non-empty query under MaxQueryChars.
func (g *GapQuery) Validate() error {
	q := strings.TrimSpace(g.Query)
	switch {
	case q == "":
		return errors.New("the query is empty")
	case len(q) >= MaxQueryChars:
		return fmt.Errorf("the query is %d characters; the limit is %d", len(q), MaxQueryChars-1)
	}
	return nil
}

// ---- Synthesis ----

// SynthesisSystem is the system prompt of the report writer.
const SynthesisSystem = "You write research reports in Markdown. Every claim taken from a source cites it as [n] with the source's number. " +
	"Claims that come only from prior knowledge are marked \"(prior knowledge)\". Do not invent sources or citations."

// SourceEvidence renders sources as the numbered evidence items GenerateFitted fits; item i
// is source [i+1], so dropping items from the end keeps the numbers valid.
func SourceEvidence(sources []PromptSource) []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = fmt.Sprintf("[%d] %s (%s)\n%s", i+1, s.Title, s.URL, strings.TrimSpace(s.Text))
	}
	return out
}

// SynthesisRender returns the render GenerateFitted uses: sources, then the compressed
// knowledge and the prior facts from memory.
func SynthesisRender(knowledge string, prior []string) func(evidence []string) string {
	return func(evidence []string) string {
		var b strings.Builder
		b.WriteString("Sources:\n")
		if len(evidence) == 0 {
			b.WriteString("(none)\n")
		}
		for _, e := range evidence {
			b.WriteString(e + "\n\n")
		}
		if k := strings.TrimSpace(knowledge); k != "" {
			b.WriteString("\nSummary of findings:\n" + k + "\n")
		}
		if len(prior) > 0 {
			b.WriteString("\nPrior knowledge from earlier research (not a source; mark it \"(prior knowledge)\"):\n" + bullets(prior))
		}
		return b.String()
	}
}

// SynthesisQuestion is the instruction block that ends the synthesis prompt.
func SynthesisQuestion(question string) string {
	return "Task:\n" + strings.TrimSpace(question) + "\n\n" +
		"Write a Markdown report that answers the task, organised by its parts, with a short summary first. " +
		"Cite the numbered sources above as [n] after each claim they support. Say plainly what the sources do not answer."
}

// SynthesisPrompt is the full synthesis prompt with every source, exactly what GenerateFitted
// sends when nothing has to be dropped.
func SynthesisPrompt(question string, sources []PromptSource, knowledge string, prior []string) (system, prompt string) {
	return SynthesisSystem, SynthesisRender(knowledge, prior)(SourceEvidence(sources)) + "\n\n" + SynthesisQuestion(question)
}

// ---- Vision ----

// VisionPrompt is what the vision model is asked about each image.
const VisionPrompt = "Extract what this image holds for a researcher, in four labelled lines. " +
	"Text: every word, number and label visible, verbatim. " +
	"Data: for a chart or table, its axes, series, columns and the values you can read. " +
	"Layout: the regions or panels and what each shows. " +
	"Objects: the things shown and how they relate. " +
	"Write none for a line that does not apply; do not guess values you cannot read."
