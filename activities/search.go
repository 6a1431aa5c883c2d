package activities

import (
	"context"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// SearchCache is the 24-hour search cache keyed by provider and normalized query.
type SearchCache interface {
	Get(ctx context.Context, provider, query string) ([]search.Result, bool, error)
	Put(ctx context.Context, provider, query string, results []search.Result) error
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

// Search runs one query against one provider through the cache.
func (a *Activities) Search(ctx context.Context, in SearchInput) (SearchOutput, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return SearchOutput{}, badInput(nil, "search: empty query")
	}
	if in.Question != "" && plan.SameAsQuestion(q, in.Question) {
		return SearchOutput{}, badInput(nil, "search: refusing to send the raw question to a provider")
	}
	if in.Limit < 1 || in.Limit > 50 {
		return SearchOutput{}, badInput(nil, "search: limit %d out of range [1,50]", in.Limit)
	}
	p, ok := a.providers[in.Provider]
	if !ok {
		if config.KnownProvider(in.Provider) {
			return SearchOutput{}, unusable("search: provider %q is not configured on this worker (see the README's configuration)", in.Provider)
		}
		return SearchOutput{}, unusable("search: unknown provider %q", in.Provider)
	}
	if a.cache != nil && !in.NoCache {
		if rs, ok, err := a.cache.Get(ctx, in.Provider, q); err == nil && ok {
			if len(rs) > in.Limit {
				rs = rs[:in.Limit]
			}
			return SearchOutput{Results: rs, Chars: chars(rs), Cached: true}, nil
		} else if err != nil {
			activity.GetLogger(ctx).Warn("search cache read failed", "error", err)
		}
	}
	rs, err := p.Search(ctx, q, in.Limit)
	if err != nil {
		return SearchOutput{}, classify("search "+in.Provider, err)
	}
	if len(rs) == 0 {
		// nothing found: say so plainly when the reason is an index with nothing in it
		if c, ok := p.(interface {
			Count(context.Context) (int, error)
		}); ok {
			if n, err := c.Count(ctx); err == nil && n == 0 {
				return SearchOutput{}, unusable("search: the %s index is empty: index documents with 'starter corpus index PATH...'", in.Provider)
			}
		}
	}
	for i := range rs {
		rs[i].Snippet = search.Truncate(rs[i].Snippet, search.MaxSnippetChars)
		if rs[i].Provider == "" {
			rs[i].Provider = in.Provider
		}
	}
	if a.cache != nil {
		if err := a.cache.Put(ctx, in.Provider, q, rs); err != nil {
			activity.GetLogger(ctx).Warn("search cache write failed", "error", err)
		}
	}
	return SearchOutput{Results: rs, Chars: chars(rs)}, nil
}

func chars(rs []search.Result) int {
	n := 0
	for _, r := range rs {
		n += len(r.Title) + len(r.Snippet)
	}
	return n
}
