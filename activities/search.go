package activities

import (
	"context"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/internal/search"
)

// SearchCache is the 24-hour search cache keyed by provider, the provider's index version,
// normalized query and result limit: re-indexing the corpus invalidates what it cached.
type SearchCache interface {
	GetKey(ctx context.Context, k search.Key) ([]search.Result, bool, error)
	PutKey(ctx context.Context, k search.Key, results []search.Result) error
}

// SearchRecord is the run's record of completed searches, keyed by workflow run and activity:
// a search retried after its worker died answers from it instead of asking the provider again,
// with or without the cache.
type SearchRecord interface {
	GetRun(ctx context.Context, k search.RunKey) ([]search.Result, bool, error)
	PutRun(ctx context.Context, k search.RunKey, results []search.Result) error
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
	p, err := a.provider("search", in.Provider)
	if err != nil {
		return SearchOutput{}, err
	}
	rk := runKey(ctx)
	if a.record != nil {
		if rs, ok, err := a.record.GetRun(ctx, rk); err == nil && ok {
			activity.GetLogger(ctx).Info("search answered from the run's record: the provider already answered this activity before its worker stopped",
				"provider", in.Provider, "query", q, "attempt", activity.GetInfo(ctx).Attempt)
			return SearchOutput{Results: rs, Chars: chars(rs)}, nil
		} else if err != nil {
			activity.GetLogger(ctx).Warn("search run record read failed", "error", err)
		}
	}
	key, cacheable := a.cacheKey(ctx, p, in.Provider, q, in.Limit)
	if cacheable && !in.NoCache {
		if rs, ok, err := a.cache.GetKey(ctx, key); err == nil && ok {
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
	settle(rs, in.Provider)
	if a.record != nil {
		if err := a.record.PutRun(ctx, rk, rs); err != nil {
			activity.GetLogger(ctx).Warn("search run record write failed", "error", err)
		}
	}
	if cacheable {
		if err := a.cache.PutKey(ctx, key, rs); err != nil {
			activity.GetLogger(ctx).Warn("search cache write failed", "error", err)
		}
	}
	return SearchOutput{Results: rs, Chars: chars(rs)}, nil
}

// provider is the configured provider name, or the error the activity what returns: a provider
// this worker lacks is unusable for the whole run, not a failure a retry can fix.
func (a *Activities) provider(what, name string) (search.Provider, error) {
	p, ok := a.providers[name]
	if ok {
		return p, nil
	}
	if config.KnownProvider(name) {
		return nil, unusable("%s: provider %q is not configured on this worker (see the README's configuration)", what, name)
	}
	return nil, unusable("%s: unknown provider %q", what, name)
}

// settle bounds provider results' snippets and names their provider where they do not.
func settle(rs []search.Result, provider string) {
	for i := range rs {
		rs[i].Snippet = search.Truncate(rs[i].Snippet, search.MaxSnippetChars)
		if rs[i].Provider == "" {
			rs[i].Provider = provider
		}
	}
}

// runKey names this search activity in the run's record; its retries share it.
func runKey(ctx context.Context) search.RunKey {
	info := activity.GetInfo(ctx)
	return search.RunKey{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID, ActivityID: info.ActivityID}
}

// cacheKey is the cache entry for a search; a provider whose index version cannot be read is
// not cached, so a search never answers from an index that has since changed.
func (a *Activities) cacheKey(ctx context.Context, p search.Provider, provider, q string, limit int) (search.Key, bool) {
	if a.cache == nil {
		return search.Key{}, false
	}
	k := search.Key{Provider: provider, Query: q, Limit: limit}
	if v, ok := p.(search.Versioned); ok {
		ver, err := v.Version(ctx)
		if err != nil {
			activity.GetLogger(ctx).Warn("search cache skipped: index version unreadable", "provider", provider, "error", err)
			return k, false
		}
		k.Version = ver
	}
	return k, true
}

func chars(rs []search.Result) int {
	n := 0
	for _, r := range rs {
		n += len(r.Title) + len(r.Snippet)
	}
	return n
}
