package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const ddgHead = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
  <meta http-equiv="content-type" content="text/html; charset=UTF-8">
  <meta name="viewport" content="width=device-width, initial-scale=1.0, maximum-scale=3.0, user-scalable=1" />
  <meta name="referrer" content="origin" />
  <meta name="robots" content="noindex, nofollow" />
  <title>go garbage collector at DuckDuckGo</title>
  <link title="DuckDuckGo (HTML)" type="application/opensearchdescription+xml" rel="search" href="//duckduckgo.com/opensearch_html_v2.xml" />
  <link rel="stylesheet" media="handheld, all" href="//duckduckgo.com/dist/h.cd0e2ad5a3a2ffb8ef3e.css" type="text/css"/>
</head>
<body class="body--html">
  <a name="top" id="top"></a>
  <form action="/html/" method="post"><input type="text" name="state_hidden" id="state_hidden" /></form>
  <div>
    <div class="site-wrapper-border"></div>
    <div id="header" class="header cw header--html">
      <a title="DuckDuckGo" href="/html/" class="header__logo-wrap"><span class="header__logo">DuckDuckGo</span></a>
      <form name="x" class="header__form" action="/html/" method="post">
        <div class="search search--header">
          <input name="q" autocomplete="off" class="search__input" id="search_form_input_homepage" type="text" value="go garbage collector" />
          <input name="b" id="search_button_homepage" class="search__button search__button--html" value="" title="Search" alt="Search" type="submit" />
        </div>
        <div class="frm__select"><select name="kl"><option value="" >All Regions</option><option value="us-en" >US (English)</option></select></div>
        <input type="hidden" name="df" value="" />
      </form>
    </div>
`

const ddgTail = `
    <div class="nav-link">
      <form action="/html/" method="post">
        <input type="submit" class='btn btn--alt' value="Next" />
        <input type="hidden" name="q" value="go garbage collector" />
        <input type="hidden" name="s" value="10" />
        <input type="hidden" name="nextParams" value="" />
        <input type="hidden" name="v" value="l" />
        <input type="hidden" name="o" value="json" />
        <input type="hidden" name="dc" value="11" />
        <input type="hidden" name="api" value="d.js" />
        <input type="hidden" name="vqd" value="4-21190817293411986458817425925131399432" />
      </form>
    </div>
    <div class=" feedback-btn"><a rel="nofollow" href="//duckduckgo.com/feedback.html" target="_new">Feedback</a></div>
    <div class="clear"></div>
  </div>
  </div> <!-- links wrapper //-->
  </div>
</body>
</html>
`

// ddgResultsPage mirrors html.duckduckgo.com/html/: an ad first, redirect-wrapped organic
// links, one direct link, and a duplicate.
var ddgResultsPage = ddgHead + `
<!-- Web results are present -->
  <div>
  <div class="serp__results">
  <div id="links" class="results">
    <div class="result results_links results_links_deep result--ad ">
      <div class="links_main links_deep result__body">
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=apm.example&amp;ad_provider=bingv7aa&amp;ad_type=txad&amp;rut=4a1b&amp;u3=https%3A%2F%2Fwww.bing.com%2Faclick">Go Memory Leaks? - Try Our APM Free</a>
        </h2>
        <div class="result__extras"><div class="result__extras__url">
          <a class="result__url" href="https://duckduckgo.com/y.js?ad_domain=apm.example">apm.example</a>
          <span class="badge--ad">Ad</span>
        </div></div>
        <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=apm.example">Find <b>garbage</b> <b>collector</b> pauses in production. Start your trial.</a>
      </div>
    </div>
    <div class="result results_links results_links_deep web-result ">
      <div class="links_main links_deep result__body"> <!-- This is the visible part -->
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Fgc%2Dguide&amp;rut=8f2c1e0a7b0d3c6f9b4e2a1d5c7e9f0b1a2c3d4e5f60718293a4b5c6d7e8f901">A Guide to the <b>Go</b> <b>Garbage</b> <b>Collector</b> - The <b>Go</b> Programming Language</a>
        </h2>
        <div class="result__extras">
          <div class="result__extras__url">
            <span class="result__icon">
              <a rel="nofollow" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Fgc%2Dguide&amp;rut=8f2c"><img class="result__icon__img" width="16" height="16" alt="" src="//external-content.duckduckgo.com/ip3/go.dev.ico" name="i15" /></a>
            </span>
            <a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Fgc%2Dguide&amp;rut=8f2c">go.dev/doc/gc-guide</a>
          </div>
        </div>
        <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Fgc%2Dguide&amp;rut=8f2c">This guide is intended to aid advanced <b>Go</b> users in better understanding their application costs by providing insights into the <b>Go</b> <b>garbage</b> <b>collector</b>.</a>
        <div class="clear"></div>
      </div>
    </div>
    <div class="result results_links results_links_deep web-result ">
      <div class="links_main links_deep result__body">
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Ftip.golang.org%2Fsrc%2Fruntime%2Fmgc.go%3Fm%3Dtext%26s%3D1&amp;rut=ab12">- The <b>Go</b> Programming Language</a>
        </h2>
        <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Ftip.golang.org%2Fsrc%2Fruntime%2Fmgc.go%3Fm%3Dtext%26s%3D1&amp;rut=ab12">` + strings.Repeat("The GC runs concurrently with mutator threads, is type accurate (aka precise), allows multiple GC thread to run in parallel. ", 8) + `</a>
      </div>
    </div>
    <div class="result results_links results_links_deep web-result ">
      <div class="links_main links_deep result__body">
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="https://www.ardanlabs.com/blog/2018/12/garbage-collection-in-go-part1-semantics.html">Garbage Collection In <b>Go</b> : Part I - Semantics - Ardan Labs</a>
        </h2>
        <a class="result__snippet" href="https://www.ardanlabs.com/blog/2018/12/garbage-collection-in-go-part1-semantics.html">Garbage collectors have the responsibility of tracking heap memory allocations.</a>
      </div>
    </div>
    <div class="result results_links results_links_deep web-result ">
      <div class="links_main links_deep result__body">
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Fgc%2Dguide%23Introduction&amp;rut=77aa">A Guide to the Go Garbage Collector</a>
        </h2>
        <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Fgc%2Dguide%23Introduction&amp;rut=77aa">Duplicate hit.</a>
      </div>
    </div>
    <div class="result results_links results_links_deep web-result ">
      <div class="links_main links_deep result__body">
        <h2 class="result__title">
          <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fpkg.go.dev%2Fruntime%2Fdebug&amp;rut=99cd">debug package - runtime/debug - <b>Go</b> Packages</a>
        </h2>
        <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fpkg.go.dev%2Fruntime%2Fdebug&amp;rut=99cd">SetGCPercent sets the <b>garbage</b> <b>collection</b> target percentage.</a>
      </div>
    </div>
` + ddgTail

// ddgNoResultsPage is what DuckDuckGo answers for a query with no hits.
var ddgNoResultsPage = ddgHead + `
<!-- Web results are present -->
  <div>
  <div class="serp__results">
  <div id="links" class="results">
    <div class="result results_links results_links_deep web-result result--no-result">
      <div class="no-results">No  results.</div>
    </div>
` + ddgTail

// ddgChallengePage is the bot check DuckDuckGo serves instead of results when it throttles.
const ddgChallengePage = `<!DOCTYPE html><html lang="en-US"><head><title>DuckDuckGo</title></head>
<body><div class="anomaly-modal__mask"><div class="anomaly-modal__modal" data-testid="anomaly-modal">
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=sre&amp;ti=1700000000&amp;gk=d4cd0dabcf4caa22ad92fab40844c786&amp;p=abc&amp;q=go&amp;s=web&amp;ct=US" method="POST">
<button class="btn btn--primary anomaly-modal__submit" type="submit">Submit</button></form></div></div></body></html>`

func ddgServer(t *testing.T, status int, page string, seen func(r *http.Request, form url.Values)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		if seen != nil {
			seen(r, form)
		}
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.WriteHeader(status)
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDuckDuckGoParsesResults(t *testing.T) {
	var method, ctype, ua, path string
	var form url.Values
	srv := ddgServer(t, 200, ddgResultsPage, func(r *http.Request, f url.Values) {
		method, ctype, ua, path, form = r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), r.URL.Path, f
	})
	p := NewDuckDuckGo(srv.URL+"/html/", srv.Client())
	require.Equal(t, "duckduckgo", p.Name())
	res, err := p.Search(context.Background(), " go garbage collector ", 10)
	require.NoError(t, err)
	require.Equal(t, http.MethodPost, method)
	require.Equal(t, "/html/", path)
	require.Equal(t, "application/x-www-form-urlencoded", ctype)
	require.Contains(t, ua, "sated")
	require.Equal(t, "go garbage collector", form.Get("q"))

	var urls []string
	for _, r := range res {
		urls = append(urls, r.URL)
		require.Equal(t, "duckduckgo", r.Provider)
		require.NotContains(t, r.URL, "duckduckgo.com")
		require.LessOrEqual(t, len(r.Snippet), MaxSnippetChars+len("…"))
	}
	require.Equal(t, []string{
		"https://go.dev/doc/gc-guide",
		"https://tip.golang.org/src/runtime/mgc.go?m=text&s=1",
		"https://www.ardanlabs.com/blog/2018/12/garbage-collection-in-go-part1-semantics.html",
		"https://pkg.go.dev/runtime/debug",
	}, urls, "ad skipped, redirects decoded, duplicate dropped")
	require.Equal(t, "A Guide to the Go Garbage Collector - The Go Programming Language", res[0].Title)
	require.Equal(t, "This guide is intended to aid advanced Go users in better understanding their application costs by providing insights into the Go garbage collector.", res[0].Snippet)
	require.True(t, strings.HasSuffix(res[1].Snippet, "…"), "long snippet is cut")

	res, err = p.Search(context.Background(), "go garbage collector", 2)
	require.NoError(t, err)
	require.Len(t, res, 2)
}

func TestDuckDuckGoNoResults(t *testing.T) {
	srv := ddgServer(t, 200, ddgNoResultsPage, nil)
	res, err := NewDuckDuckGo(srv.URL+"/html/", srv.Client()).Search(context.Background(), "zzqxj vlorp", 10)
	require.NoError(t, err)
	require.Empty(t, res)
}

func TestDuckDuckGoChallengeIsRetryable(t *testing.T) {
	for _, status := range []int{200, 202} {
		srv := ddgServer(t, status, ddgChallengePage, nil)
		_, err := NewDuckDuckGo(srv.URL+"/html/", srv.Client()).Search(context.Background(), "golang", 10)
		require.Error(t, err, status)
		require.False(t, errors.Is(err, ErrBadInput), "status %d: %v", status, err)
		require.Contains(t, err.Error(), "duckduckgo")
	}
}

func TestResultURL(t *testing.T) {
	for _, tc := range []struct{ href, want string }{
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2F&rut=abc", "https://go.dev/doc/"},
		{"https://duckduckgo.com/l/?uddg=http%3A%2F%2Fexample.org%2Fa%3Fb%3Dc&rut=x", "http://example.org/a?b=c"},
		{"https://example.org/direct", "https://example.org/direct"},
		{"https://duckduckgo.com/y.js?ad_domain=x.example&u3=abc", ""},
		{"/html/?q=next", ""},
		{"//duckduckgo.com/l/?uddg=javascript%3Aalert(1)", ""},
		{"//duckduckgo.com/l/?rut=missing", ""},
	} {
		require.Equal(t, tc.want, resultURL(tc.href), tc.href)
	}
}
