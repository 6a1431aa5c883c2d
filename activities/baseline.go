package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/search"
)

// BaselineInput asks for the plain search box's answer: the raw question as one query, the
// top results read in turn until the findings budget is spent.
type BaselineInput struct {
	Provider string `json:"provider"`
	Question string `json:"question"`
	Budget   int    `json:"budget"`
}

// BaselineOutput is the baseline's findings (its text up to the budget) and its sources.
type BaselineOutput struct {
	Markdown string   `json:"markdown"`
	Evidence string   `json:"evidence,omitempty"`
	URLs     []string `json:"urls"`
}

// baselineResults is how many results the baseline reads, at most, to fill its budget.
const baselineResults = 50

// BaselineAnswer is the floor every eval prints: one BM25 query of the raw question over the
// same corpus, its top passages concatenated until the budget. It is the only activity that
// sends the raw question to a provider: that is what a search box does.
func (a *Activities) BaselineAnswer(ctx context.Context, in BaselineInput) (BaselineOutput, error) {
	if err := config.ValidateQuestion(in.Question); err != nil {
		return BaselineOutput{}, badInput(nil, "baseline: %v", err)
	}
	if in.Budget <= 0 {
		in.Budget = config.DefaultFindingsBudget
	}
	p, err := a.provider("baseline", in.Provider)
	if err != nil {
		return BaselineOutput{}, err
	}
	rs, err := p.Search(ctx, in.Question, baselineResults)
	if err != nil {
		return BaselineOutput{}, classify("baseline search "+in.Provider, err)
	}
	sources := make([]Source, len(rs))
	for i, r := range rs {
		if r.Provider == "" {
			r.Provider = in.Provider
		}
		sources[i] = Source{N: i + 1, Result: r}
	}
	a.readPassages(ctx, sources)
	var b strings.Builder
	var out BaselineOutput
	for _, s := range sources {
		text := s.Text
		if text == "" {
			text = s.Snippet
		}
		chunk := fmt.Sprintf("%s [%d]\n%s\n\n", s.Title, s.N, strings.TrimSpace(text))
		if left := in.Budget - b.Len(); len(chunk) > left {
			chunk = search.Truncate(chunk, left)
		}
		b.WriteString(chunk)
		out.URLs = append(out.URLs, s.URL)
		if b.Len() >= in.Budget {
			break
		}
	}
	out.Markdown = "## Findings\n\n" + b.String()
	out.Evidence = evidenceText("", sources)
	return out, nil
}
