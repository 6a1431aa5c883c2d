package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// searxngBody mirrors a real SearXNG /search?format=json answer (trimmed to three results).
var searxngBody = `{
  "query": "go garbage collector",
  "number_of_results": 0,
  "results": [
    {
      "url": "https://go.dev/doc/gc-guide",
      "title": "A Guide to the Go Garbage Collector - The Go Programming Language",
      "content": "This guide is intended to aid advanced Go users in better understanding their application costs by providing insights into the Go garbage collector.\n  It also provides guidance on how Go users may use these insights to improve their applications' resource utilization.",
      "publishedDate": null,
      "thumbnail": "",
      "engine": "duckduckgo",
      "template": "default.html",
      "parsed_url": ["https", "go.dev", "/doc/gc-guide", "", "", ""],
      "img_src": "",
      "priority": "",
      "engines": ["duckduckgo", "brave", "startpage"],
      "positions": [1, 1, 2],
      "score": 7.5,
      "category": "general"
    },
    {
      "url": "https://tip.golang.org/doc/gc-guide/?utm_source=feed",
      "title": "A Guide to the Go Garbage Collector",
      "content": "duplicate of the first hit under a tracking parameter",
      "engine": "brave",
      "engines": ["brave"],
      "positions": [4],
      "score": 0.25,
      "category": "general"
    },
    {
      "url": "https://www.ardanlabs.com/blog/2018/12/garbage-collection-in-go-part1-semantics.html",
      "title": "Garbage Collection In Go : Part I - Semantics",
      "content": "` + strings.Repeat("Garbage collectors have the responsibility of tracking heap memory allocations. ", 12) + `",
      "engine": "startpage",
      "engines": ["startpage", "duckduckgo"],
      "positions": [3, 5],
      "score": 1.1,
      "category": "general"
    },
    {
      "url": "https://go.dev/doc/gc-guide",
      "title": "A Guide to the Go Garbage Collector",
      "content": "exact duplicate",
      "engine": "qwant",
      "score": 0.1,
      "category": "general"
    },
    {
      "url": "https://pkg.go.dev/runtime/debug#SetGCPercent",
      "title": "debug package - runtime/debug - Go Packages",
      "content": "SetGCPercent sets the garbage collection target percentage.",
      "engine": "brave",
      "score": 0.9,
      "category": "general"
    }
  ],
  "answers": [],
  "corrections": [],
  "infoboxes": [],
  "suggestions": ["go garbage collector tuning", "golang gc pause"],
  "unresponsive_engines": [["google", "timeout"]]
}`

func TestSearXNGParsesResults(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, searxngBody)
	}))
	defer srv.Close()

	p := NewSearXNG(srv.URL+"/", srv.Client())
	require.Equal(t, "searxng", p.Name())
	res, err := p.Search(context.Background(), "  go garbage collector ", 10)
	require.NoError(t, err)
	require.Equal(t, "/search", got.URL.Path)
	require.Equal(t, "go garbage collector", got.URL.Query().Get("q"))
	require.Equal(t, "json", got.URL.Query().Get("format"))
	require.Contains(t, got.Header.Get("User-Agent"), "sated")

	require.Len(t, res, 4, "the exact duplicate is dropped")
	require.Equal(t, Result{
		URL:      "https://go.dev/doc/gc-guide",
		Title:    "A Guide to the Go Garbage Collector - The Go Programming Language",
		Snippet:  "This guide is intended to aid advanced Go users in better understanding their application costs by providing insights into the Go garbage collector. It also provides guidance on how Go users may use these insights to improve their applications' resource utilization.",
		Provider: "searxng",
	}, res[0])
	require.Equal(t, "https://tip.golang.org/doc/gc-guide/?utm_source=feed", res[1].URL)
	require.LessOrEqual(t, len(res[2].Snippet), MaxSnippetChars+len("…"))
	require.True(t, strings.HasSuffix(res[2].Snippet, "…"))
	require.Equal(t, "https://pkg.go.dev/runtime/debug#SetGCPercent", res[3].URL)

	res, err = p.Search(context.Background(), "go garbage collector", 2)
	require.NoError(t, err)
	require.Len(t, res, 2)
}

func TestSearXNGEmptyAndOutage(t *testing.T) {
	body := `{"query":"zzqx","number_of_results":0,"results":[],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	defer srv.Close()
	p := NewSearXNG(srv.URL, srv.Client())
	res, err := p.Search(context.Background(), "zzqx", 5)
	require.NoError(t, err)
	require.Empty(t, res)

	body = `{"query":"zzqx","results":[],"unresponsive_engines":[["duckduckgo","CAPTCHA"],["brave","too many requests"]]}`
	_, err = p.Search(context.Background(), "zzqx", 5)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrBadInput)
	require.Contains(t, err.Error(), "CAPTCHA")

	body = `<html>not json</html>`
	_, err = p.Search(context.Background(), "zzqx", 5)
	require.ErrorContains(t, err, "searxng: decoding")
}

// statusCases is how every web provider must classify HTTP failures.
var statusCases = []struct {
	code int
	bad  bool
}{
	{400, true}, {403, true}, {404, true}, {422, true},
	{429, false}, {500, false}, {502, false}, {503, false},
}

func TestWebProvidersClassifyFailures(t *testing.T) {
	for _, tc := range statusCases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "nope", tc.code)
		}))
		for _, p := range []Provider{NewSearXNG(srv.URL, srv.Client()), NewDuckDuckGo(srv.URL+"/html/", srv.Client())} {
			_, err := p.Search(context.Background(), "golang", 5)
			require.Error(t, err, "%s %d", p.Name(), tc.code)
			require.Equal(t, tc.bad, errors.Is(err, ErrBadInput), "%s %d: %v", p.Name(), tc.code, err)
			require.Contains(t, err.Error(), p.Name())
			require.Contains(t, err.Error(), fmt.Sprint(tc.code))
		}
		srv.Close()
	}

	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	for _, p := range []Provider{NewSearXNG(dead.URL, nil), NewDuckDuckGo(dead.URL, nil)} {
		_, err := p.Search(context.Background(), "golang", 5)
		require.Error(t, err)
		require.NotErrorIs(t, err, ErrBadInput, p.Name())
		require.Contains(t, err.Error(), p.Name())
	}
}

func TestWebProvidersRejectBadRequestsWithoutCalling(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	for _, p := range []Provider{NewSearXNG(srv.URL, srv.Client()), NewDuckDuckGo(srv.URL, srv.Client())} {
		for _, tc := range []struct {
			q     string
			limit int
		}{{"", 5}, {" \t ", 5}, {"golang", 0}, {"golang", -1}} {
			_, err := p.Search(context.Background(), tc.q, tc.limit)
			require.ErrorIs(t, err, ErrBadInput, "%s %q %d", p.Name(), tc.q, tc.limit)
		}
	}
	require.Zero(t, calls.Load())
}
