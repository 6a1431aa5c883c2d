package search

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// duckduckgo scrapes DuckDuckGo's HTML results page.
type duckduckgo struct {
	endpoint string
	client   *http.Client
}

// NewDuckDuckGo returns a provider posting queries to endpoint (DuckDuckGo's
// script-free results page in production); a nil client means one with a 30s timeout.
func NewDuckDuckGo(endpoint string, client *http.Client) Provider {
	return &duckduckgo{endpoint: endpoint, client: orDefault(client)}
}

func (d *duckduckgo) Name() string { return "duckduckgo" }

func (d *duckduckgo) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	if err := checkRequest("duckduckgo", query, limit); err != nil {
		return nil, err
	}
	form := url.Values{"q": {strings.TrimSpace(query)}, "b": {""}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("duckduckgo: %v: %w", err, ErrBadInput)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	body, err := do(d.client, req, "duckduckgo")
	if err != nil {
		return nil, err
	}
	return parseDuckDuckGo(body, limit)
}

// parseDuckDuckGo reads the organic results of a results page, skipping ads.
func parseDuckDuckGo(page []byte, limit int) ([]Result, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("duckduckgo: parsing results page: %w", err)
	}
	if doc.Find("div.result").Length() == 0 && doc.Find("form#challenge-form, .anomaly-modal__modal").Length() > 0 {
		// DuckDuckGo answers bots with a challenge page instead of a 429.
		return nil, fmt.Errorf("duckduckgo: challenge page instead of results (rate limited; retryable)")
	}
	var out []Result
	seen := map[string]bool{}
	doc.Find("div.result").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.HasClass("result--ad") {
			return true
		}
		a := s.Find("a.result__a").First()
		href, ok := a.Attr("href")
		if !ok {
			return true // "No results." placeholder
		}
		target := resultURL(href)
		if target == "" || seen[NormalizeURL(target)] {
			return true
		}
		seen[NormalizeURL(target)] = true
		out = append(out, Result{
			URL:      target,
			Title:    strings.Join(strings.Fields(a.Text()), " "),
			Snippet:  Truncate(strings.Join(strings.Fields(s.Find(".result__snippet").First().Text()), " "), MaxSnippetChars),
			Provider: "duckduckgo",
		})
		return len(out) < limit
	})
	return out, nil
}

// resultURL unwraps DuckDuckGo's redirect links (//duckduckgo.com/l/?uddg=<url>) and drops
// its ad links; "" means no usable target.
func resultURL(href string) string {
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Hostname(), "duckduckgo.com") {
		if u.Path != "/l/" && u.Path != "/l" {
			return "" // ad redirects (/y.js) and internal links
		}
		href = u.Query().Get("uddg")
		if u, err = url.Parse(href); err != nil {
			return ""
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return href
}
