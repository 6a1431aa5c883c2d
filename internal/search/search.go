// Package search defines the result type every provider returns and the provider contract.
package search

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// Result is one search hit. It travels through workflow history, so it stays small:
// the snippet is bounded and whole pages never ride along.
type Result struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	Snippet  string `json:"snippet"`
	Provider string `json:"provider"`
	// DocID names the stored corpus document for corpus results, so enrichment reads the
	// stored document rather than fetching anything.
	DocID string `json:"doc_id,omitempty"`
}

// Provider is one search backend.
type Provider interface {
	Name() string
	Search(ctx context.Context, query string, limit int) ([]Result, error)
}

// ErrBadInput marks errors caused by the request (empty query, bad limit, 4xx answers):
// activities turn it into a non-retryable error.
var ErrBadInput = errors.New("bad input")

// MaxSnippetChars bounds a snippet so that results stay small in workflow history.
const MaxSnippetChars = 600

// NormalizeURL gives the key results are deduplicated by: lower-case scheme and host,
// no default port, no fragment, no trailing slash, tracking parameters dropped and the
// remaining query parameters sorted.
func NormalizeURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return strings.TrimRight(strings.ToLower(strings.TrimSpace(raw)), "/")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	host = strings.TrimPrefix(host, "www.")
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.Fragment = ""
	u.RawFragment = ""
	q := u.Query()
	//workflowcheck:ignore the keys are sorted before use
	keys := slices.Sorted(maps.Keys(q))
	var parts []string
	for _, k := range keys {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "utm_") || lk == "fbclid" || lk == "gclid" || lk == "ref" {
			continue
		}
		vals := q[k]
		sort.Strings(vals)
		for _, v := range vals {
			parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(v))
		}
	}
	u.RawQuery = strings.Join(parts, "&")
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String()
}

// Truncate cuts s to at most n bytes on a rune boundary, adding an ellipsis when cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Versioned is a provider whose results change when its data does (a local corpus that is
// re-indexed); the version goes into cache keys so a change invalidates cached searches.
type Versioned interface {
	Version(ctx context.Context) (string, error)
}

// Referencer is a provider whose documents link to each other, so that a result's
// cross-references ("see Section 23.6") can be followed: References returns, for each of the
// result ids in order, up to per of the documents it links to that are not among ids, once
// each, as results whose snippets are chosen for query.
type Referencer interface {
	References(ctx context.Context, query string, ids []string, per int) ([]Result, error)
}
