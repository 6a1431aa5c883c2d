package search

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// userAgent names sated to the web services it queries.
const userAgent = "sated/1 (research engine; +https://github.com/sated-dev/sated)"

// maxResponseBytes bounds a search response read into memory.
const maxResponseBytes = 4 << 20

// searxng queries a SearXNG instance through its JSON API.
type searxng struct {
	base   string
	client *http.Client
}

// NewSearXNG returns a provider for the SearXNG instance at baseURL (its JSON format must
// be enabled); a nil client means one with a 30s timeout.
func NewSearXNG(baseURL string, client *http.Client) Provider {
	return &searxng{base: strings.TrimRight(baseURL, "/"), client: orDefault(client)}
}

func (s *searxng) Name() string { return "searxng" }

// searxngResponse is the part of SearXNG's /search?format=json answer sated reads.
type searxngResponse struct {
	Results []struct {
		URL     string  `json:"url"`
		Title   string  `json:"title"`
		Content string  `json:"content"`
		Engine  string  `json:"engine"`
		Score   float64 `json:"score"`
	} `json:"results"`
	// UnresponsiveEngines lists [engine, reason] pairs of engines that failed this query.
	UnresponsiveEngines [][]string `json:"unresponsive_engines"`
}

func (s *searxng) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	if err := checkRequest("searxng", query, limit); err != nil {
		return nil, err
	}
	q := url.Values{"q": {strings.TrimSpace(query)}, "format": {"json"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/search?"+q.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("searxng: %v: %w", err, ErrBadInput)
	}
	req.Header.Set("Accept", "application/json")
	body, err := do(s.client, req, "searxng")
	if err != nil {
		return nil, err
	}
	var resp searxngResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("searxng: decoding response: %w", err)
	}
	if len(resp.Results) == 0 && len(resp.UnresponsiveEngines) > 0 {
		// Every engine failing is an outage, not an empty answer: let the caller retry.
		return nil, fmt.Errorf("searxng: no results, engines unresponsive: %v", resp.UnresponsiveEngines)
	}
	var out []Result
	seen := map[string]bool{}
	for _, r := range resp.Results {
		key := NormalizeURL(r.URL)
		if r.URL == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Result{
			URL:      r.URL,
			Title:    strings.TrimSpace(r.Title),
			Snippet:  Truncate(strings.Join(strings.Fields(r.Content), " "), MaxSnippetChars),
			Provider: "searxng",
		})
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// checkRequest rejects what no provider can answer.
func checkRequest(provider, query string, limit int) error {
	if strings.TrimSpace(query) == "" {
		return fmt.Errorf("%s: empty query: %w", provider, ErrBadInput)
	}
	if limit < 1 {
		return fmt.Errorf("%s: limit %d: %w", provider, limit, ErrBadInput)
	}
	return nil
}

func orDefault(c *http.Client) *http.Client {
	if c == nil {
		return &http.Client{Timeout: 30 * time.Second}
	}
	return c
}

// do sends req and returns the bounded body of a 200 answer. A 4xx other than 429 is the
// request's fault (ErrBadInput); 429, 5xx and network failures are worth retrying.
func do(client *http.Client, req *http.Request, provider string) ([]byte, error) {
	req.Header.Set("User-Agent", userAgent)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: reading response: %w", provider, err)
	}
	switch code := resp.StatusCode; {
	case code == http.StatusOK:
		return body, nil
	case code >= 400 && code < 500 && code != http.StatusTooManyRequests:
		return nil, fmt.Errorf("%s: HTTP %s: %s: %w", provider, resp.Status, Truncate(strings.TrimSpace(string(body)), 200), ErrBadInput)
	default:
		return nil, fmt.Errorf("%s: HTTP %s (retryable)", provider, resp.Status)
	}
}
