// Package chunk cuts a page too big for the model's context down to a character budget: by
// section priority when the page is structured, otherwise by similarity of fixed-size chunks
// to the task.
package chunk

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/text"
)

// Defaults from the product design.
const (
	DefaultBudget    = 12000
	DefaultChunkSize = 600
	DefaultOverlap   = 80
	// MinHeadings is how many level-2/3 headings make a page "structured".
	MinHeadings = 3
)

// Modes reported in Result.Mode.
const (
	ModeWhole    = "whole"    // the page fits the budget
	ModeSections = "sections" // section-by-section extraction in priority order
	ModeChunks   = "chunks"   // most task-similar fixed-size chunks, in document order
)

// Similarity scores each text against the task; higher is more similar. Embeddings or the
// lexical fallback (LexicalSimilarity) implement it.
type Similarity func(ctx context.Context, task string, texts []string) ([]float64, error)

// Options tune Extract; zero values take the defaults.
type Options struct {
	Budget     int
	ChunkSize  int
	Overlap    int        // negative: no overlap
	Similarity Similarity // nil: LexicalSimilarity
}

func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	switch {
	case o.Overlap == 0:
		o.Overlap = DefaultOverlap
	case o.Overlap < 0: // explicitly none
		o.Overlap = 0
	}
	if o.Overlap*2 >= o.ChunkSize {
		o.Overlap = o.ChunkSize / 4
	}
	if o.Similarity == nil {
		o.Similarity = LexicalSimilarity
	}
	return o
}

// Result is the extracted text and how it was chosen.
type Result struct {
	Text     string   `json:"text"`
	Mode     string   `json:"mode"`
	Sections []string `json:"sections,omitempty"` // headings kept, in output order (sections mode)
	Chunks   int      `json:"chunks,omitempty"`   // chunks kept (chunks mode)
	Total    int      `json:"total"`              // length of the page in bytes
}

// Extract returns at most opt.Budget bytes of page, chosen for task.
func Extract(ctx context.Context, page, task string, opt Options) (Result, error) {
	opt = opt.withDefaults()
	res := Result{Total: len(page)}
	if len(page) <= opt.Budget {
		res.Text, res.Mode = page, ModeWhole
		return res, nil
	}
	if secs := Sections(page); countHeadings(secs) >= MinHeadings {
		return extractSections(ctx, secs, task, opt, res)
	}
	return extractChunks(ctx, page, task, opt, res)
}

// Section is one part of a page: a level-2/3 heading and the text up to the next one. The
// text before the first heading is a section with an empty heading.
type Section struct {
	Heading string // heading text without the leading #s
	Text    string // heading line included
	Class   Class
}

// Class is a section's kind; lower values are extracted first.
type Class int

// Section classes in extraction priority order.
const (
	ClassAbstract Class = iota
	ClassConclusion
	ClassIntroduction
	ClassResults
	ClassFindings
	ClassMethods
	ClassDiscussion
	ClassOther
)

var classNames = [...]string{"abstract", "conclusion", "introduction", "results", "findings", "methods", "discussion", "other"}

func (c Class) String() string { return classNames[c] }

// classWords maps heading words to classes; the first match in this order wins.
var classWords = []struct {
	class Class
	words []string
}{
	{ClassAbstract, []string{"abstract", "summary", "tl;dr", "tldr", "key takeaways"}},
	{ClassConclusion, []string{"conclusion", "concluding", "closing thoughts", "final thoughts"}},
	{ClassIntroduction, []string{"introduction", "overview", "background"}},
	{ClassResults, []string{"result", "evaluation", "benchmark"}},
	{ClassFindings, []string{"finding"}},
	{ClassMethods, []string{"method", "approach", "experimental setup", "procedure"}},
	{ClassDiscussion, []string{"discussion", "limitations", "analysis"}},
}

// Classify names the class of a heading.
func Classify(heading string) Class {
	h := strings.ToLower(heading)
	for _, cw := range classWords {
		for _, w := range cw.words {
			if strings.Contains(h, w) {
				return cw.class
			}
		}
	}
	return ClassOther
}

var headingRE = regexp.MustCompile(`^#{2,3}[ \t]+(.+?)[ \t#]*$`)

// Sections splits Markdown at level-2/3 ATX headings outside fenced code blocks.
func Sections(page string) []Section {
	var secs []Section
	var cur strings.Builder
	heading := ""
	flush := func() {
		if cur.Len() > 0 || heading != "" {
			secs = append(secs, Section{Heading: heading, Text: cur.String(), Class: sectionClass(heading)})
		}
		cur.Reset()
	}
	inFence := false
	for _, line := range strings.SplitAfter(page, "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			inFence = !inFence
		}
		if !inFence {
			if m := headingRE.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
				flush()
				heading = m[1]
			}
		}
		cur.WriteString(line)
	}
	flush()
	return secs
}

func sectionClass(heading string) Class {
	if heading == "" {
		return ClassOther
	}
	return Classify(heading)
}

func countHeadings(secs []Section) int {
	n := 0
	for _, s := range secs {
		if s.Heading != "" {
			n++
		}
	}
	return n
}

// extractSections takes whole sections by class priority (within a class, most similar to
// the task first) until the budget is spent; the first section that does not fit is cut.
func extractSections(ctx context.Context, secs []Section, task string, opt Options, res Result) (Result, error) {
	texts := make([]string, len(secs))
	for i, s := range secs {
		texts[i] = s.Text
	}
	sims, err := opt.Similarity(ctx, task, texts)
	if err != nil {
		return Result{}, fmt.Errorf("section similarity: %w", err)
	}
	if len(sims) != len(secs) {
		return Result{}, fmt.Errorf("section similarity: %d scores for %d sections", len(sims), len(secs))
	}
	order := make([]int, len(secs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		sa, sb := secs[order[a]], secs[order[b]]
		if sa.Class != sb.Class {
			return sa.Class < sb.Class
		}
		return sims[order[a]] > sims[order[b]]
	})
	const sep = "\n\n"
	var out strings.Builder
	for _, i := range order {
		text := strings.TrimSpace(secs[i].Text)
		if text == "" {
			continue
		}
		room := opt.Budget - out.Len()
		if out.Len() > 0 {
			room -= len(sep)
		}
		if room <= 0 {
			break
		}
		if out.Len() > 0 {
			out.WriteString(sep)
		}
		if len(text) > room {
			out.WriteString(cut(text, room))
			res.Sections = append(res.Sections, secs[i].Heading)
			break
		}
		out.WriteString(text)
		res.Sections = append(res.Sections, secs[i].Heading)
	}
	res.Text, res.Mode = out.String(), ModeSections
	return res, nil
}

// extractChunks scores overlapping fixed-size chunks against the task, keeps the best that
// fit the budget and joins them in document order, merging neighbours over their overlap.
func extractChunks(ctx context.Context, page, task string, opt Options, res Result) (Result, error) {
	spans := Split(page, opt.ChunkSize, opt.Overlap)
	texts := make([]string, len(spans))
	for i, sp := range spans {
		texts[i] = page[sp[0]:sp[1]]
	}
	sims, err := opt.Similarity(ctx, task, texts)
	if err != nil {
		return Result{}, fmt.Errorf("chunk similarity: %w", err)
	}
	if len(sims) != len(spans) {
		return Result{}, fmt.Errorf("chunk similarity: %d scores for %d chunks", len(sims), len(spans))
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sims[order[a]] > sims[order[b]] })
	const gap = "\n…\n"
	keep := make([]bool, len(spans))
	used := 0
	for _, i := range order {
		// Counting a full separator and the whole chunk keeps the merged output within budget.
		cost := spans[i][1] - spans[i][0] + len(gap)
		if used+cost > opt.Budget {
			continue
		}
		keep[i] = true
		used += cost
		res.Chunks++
	}
	var out strings.Builder
	end := -1
	for i, sp := range spans {
		if !keep[i] {
			continue
		}
		start := sp[0]
		switch {
		case end >= start: // neighbour: continue after the overlap
			start = end
		case out.Len() > 0:
			out.WriteString(gap)
		}
		out.WriteString(page[start:sp[1]])
		end = sp[1]
	}
	res.Text, res.Mode = out.String(), ModeChunks
	return res, nil
}

// Split returns [start,end) byte spans of about size bytes, each starting overlap bytes before
// the previous one ended. Span ends move back to a space or a rune boundary when they can.
func Split(s string, size, overlap int) [][2]int {
	if overlap >= size {
		overlap = 0
	}
	var spans [][2]int
	start := 0
	for start < len(s) {
		end := start + size
		if end >= len(s) {
			spans = append(spans, [2]int{start, len(s)})
			break
		}
		end = boundary(s, start+size-overlap, end)
		spans = append(spans, [2]int{start, end})
		next := end - overlap
		for next > start && next < len(s) && !utf8.RuneStart(s[next]) {
			next--
		}
		if next <= start {
			next = end
		}
		start = next
	}
	return spans
}

// boundary picks the last whitespace in s[min:end], else the nearest rune boundary at or before end.
func boundary(s string, min, end int) int {
	if i := strings.LastIndexFunc(s[min:end], unicode.IsSpace); i > 0 {
		return min + i + 1
	}
	for end > min && !utf8.RuneStart(s[end]) {
		end--
	}
	return end
}

// cut shortens s to at most n bytes, at a paragraph, sentence or word end when one is near.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	for _, stop := range []string{"\n\n", ". ", "\n", " "} {
		if i := strings.LastIndex(s, stop); i > n/3 {
			return strings.TrimSpace(s[:i+len(stop)])
		}
	}
	return s
}

// LexicalSimilarity is the offline fallback: cosine similarity of term-count vectors (stop
// words dropped, words stemmed). It matches shared words only, not meaning.
func LexicalSimilarity(_ context.Context, task string, texts []string) ([]float64, error) {
	q := text.NewBag(text.Terms(task))
	out := make([]float64, len(texts))
	for i, t := range texts {
		out[i] = text.Cosine(q, text.NewBag(text.Terms(t)))
	}
	return out, nil
}

// EmbeddingSimilarity builds a Similarity from an embedding call (one batch per Extract).
func EmbeddingSimilarity(embed func(ctx context.Context, texts []string) ([][]float32, error)) Similarity {
	return func(ctx context.Context, task string, texts []string) ([]float64, error) {
		vecs, err := embed(ctx, append([]string{task}, texts...))
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(texts)+1 {
			return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts)+1)
		}
		out := make([]float64, len(texts))
		for i := range texts {
			out[i] = novelty.Cosine(vecs[0], vecs[i+1])
		}
		return out, nil
	}
}

// Tokens returns the content words of s (text.Content): lower case, stop words and one-letter
// words dropped, not stemmed.
func Tokens(s string) []string { return text.Content(s) }
