package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// BraveEndpoint is the Brave Search web API.
const BraveEndpoint = "https://api.search.brave.com/res/v1/web/search"

// braveMaxCount is the most results Brave returns per request.
const braveMaxCount = 20

// Brave searches the web through the Brave Search API (an API key is required).
type Brave struct {
	endpoint string
	key      string
	client   *http.Client
}

// NewBrave builds the provider; an empty endpoint means BraveEndpoint and a nil client
// http.DefaultClient (the activity's context bounds each call). A missing key is an error.
func NewBrave(apiKey, endpoint string, client *http.Client) (*Brave, error) {
	if strings.TrimSpace(apiKey) == "" {
		return nil, errors.New("brave: no API key (set SATED_BRAVE_API_KEY)")
	}
	if endpoint == "" {
		endpoint = BraveEndpoint
	}
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("brave: bad endpoint %q", endpoint)
	}
	if client == nil {
		client = http.DefaultClient
	}
	return &Brave{endpoint: endpoint, key: strings.TrimSpace(apiKey), client: client}, nil
}

// Name implements Provider.
func (b *Brave) Name() string { return "brave" }

type braveResponse struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

var tagRe = regexp.MustCompile(`<[^>]*>`)

// plainText drops the highlighting tags Brave puts in titles and descriptions.
func plainText(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRe.ReplaceAllString(s, ""))), " ")
}

// Search implements Provider. 401, 403 and 422 (bad key, bad parameters) wrap ErrBadInput;
// 429 and 5xx are plain errors for Temporal to retry.
func (b *Brave) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, fmt.Errorf("brave: empty query: %w", ErrBadInput)
	}
	if limit < 1 {
		return nil, fmt.Errorf("brave: limit %d: %w", limit, ErrBadInput)
	}
	v := url.Values{"q": {q}, "count": {strconv.Itoa(min(limit, braveMaxCount))}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.endpoint+"?"+v.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("brave: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.key)
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("brave: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("brave: reading answer: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, fmt.Errorf("brave: %s (retryable): %s", resp.Status, Truncate(strings.TrimSpace(string(body)), 200))
	default:
		return nil, fmt.Errorf("brave: %s: %s: %w", resp.Status, Truncate(strings.TrimSpace(string(body)), 200), ErrBadInput)
	}
	var br braveResponse
	if err := json.Unmarshal(body, &br); err != nil {
		return nil, fmt.Errorf("brave: answer is not the expected JSON: %w", err)
	}
	out := make([]Result, 0, len(br.Web.Results))
	for _, r := range br.Web.Results {
		if r.URL == "" {
			continue
		}
		out = append(out, Result{URL: r.URL, Title: plainText(r.Title), Snippet: Truncate(plainText(r.Description), MaxSnippetChars), Provider: "brave"})
		if len(out) == limit {
			break
		}
	}
	return out, nil
}
