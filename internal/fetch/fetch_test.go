package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/search"
)

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func loopback() *Fetcher { return New(Fetcher{Allow: []string{"127.0.0.1"}}) }

func TestIsPublic(t *testing.T) {
	tests := []struct {
		ip     string
		public bool
	}{
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"172.32.0.1", true},
		{"192.168.1.1", false},
		{"127.0.0.1", false},
		{"127.8.9.10", false},
		{"::1", false},
		{"fe80::1", false},
		{"fc00::1", false},
		{"100.64.0.1", false},
		{"100.127.255.254", false},
		{"100.128.0.1", true},
		{"169.254.169.254", false},
		{"0.0.0.0", false},
		{"::", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"255.255.255.255", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"64:ff9b::a00:1", false}, // NAT64 of 10.0.0.1
		{"64:ff9b::5db8:d822", true},
		{"93.184.216.34", true},
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			assert.Equal(t, tt.public, IsPublic(netip.MustParseAddr(tt.ip)))
		})
	}
}

func TestAllowList(t *testing.T) {
	a := parseAllow([]string{"10.0.0.0/8", "127.0.0.1:8080", "Searx.Local", "db:5432", " [::1] ", ""})
	tests := []struct {
		name string
		host string
		port string
		want bool
	}{
		{"cidr", "10.9.8.7", "80", true},
		{"ip with matching port", "127.0.0.1", "8080", true},
		{"ip with other port", "127.0.0.1", "9090", false},
		{"bracketed v6", "::1", "1", true},
		{"v4-mapped v6 in cidr", "::ffff:10.1.1.1", "80", true},
		{"not listed", "192.168.0.1", "80", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, a.addr(netip.MustParseAddr(tt.host), tt.port))
		})
	}
	assert.True(t, a.host("searx.local.", "80"))
	assert.True(t, a.host("db", "5432"))
	assert.False(t, a.host("db", "80"))
	assert.False(t, a.host("evil.example", "80"))
}

func TestFetchHTML(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, UserAgent, r.Header.Get("User-Agent"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Gate</title><script>EVIL()</script></head><body>
			<nav>menu</nav><p>The novelty gate <a href="/more">stops</a> early.</p></body></html>`)
	})
	p, err := loopback().Fetch(context.Background(), srv.URL+"/page")
	require.NoError(t, err)
	assert.Equal(t, "Gate", p.Title)
	assert.Equal(t, "text/html", p.ContentType)
	assert.Equal(t, srv.URL+"/page", p.FinalURL)
	assert.Contains(t, p.Text, "The novelty gate [stops]("+srv.URL+"/more) early.")
	assert.NotContains(t, p.Text, "EVIL")
	assert.NotContains(t, p.Text, "menu")
	assert.False(t, p.Truncated)
	assert.Positive(t, p.Bytes)
}

func TestFetchTextAndCharsets(t *testing.T) {
	tests := []struct {
		name, contentType, body, title, text string
	}{
		{"plain", "text/plain", "just text\n", "", "just text"},
		{"markdown title", "text/markdown; charset=utf-8", "# Notes\n\nBody.", "Notes", "# Notes\n\nBody."},
		{"latin1 html", "text/html; charset=iso-8859-1", "<title>Caf\xe9</title><p>Cr\xe8me br\xfbl\xe9e</p>", "Café", "Crème brûlée"},
		{"meta charset", "text/html", "<meta charset=\"windows-1252\"><p>\x93quoted\x94</p>", "", "“quoted”"},
		{"sniffed html", "", "<!DOCTYPE html><html><body><p>Sniffed page</p></body></html>", "", "Sniffed page"},
		{"invalid utf-8 repaired", "text/plain; charset=utf-8", "ok \xff\xfe end", "", "ok \uFFFD\uFFFD end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{tt.contentType}
				if tt.contentType == "" {
					w.Header()["Content-Type"] = nil
				}
				fmt.Fprint(w, tt.body)
			})
			p, err := loopback().Fetch(context.Background(), srv.URL)
			require.NoError(t, err)
			assert.Equal(t, tt.title, p.Title)
			assert.Equal(t, tt.text, p.Text)
		})
	}
}

func TestFetchRefusesSchemes(t *testing.T) {
	for _, raw := range []string{"file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "gopher://x", "data:text/plain,hi", "//no-scheme", "http://"} {
		t.Run(raw, func(t *testing.T) {
			_, err := loopback().Fetch(context.Background(), raw)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadInput)
			assert.ErrorIs(t, err, search.ErrBadInput)
		})
	}
	// A redirect to another scheme is refused too.
	redir := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	_, err := loopback().Fetch(context.Background(), redir.URL)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.Contains(t, err.Error(), "scheme")
}

func TestFetchRefusesLoopbackWithoutAllowList(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1); fmt.Fprint(w, "secret") })
	u, _ := url.Parse(srv.URL)
	for name, raw := range map[string]string{
		"literal ip":             srv.URL,
		"name resolving to loop": "http://localhost:" + u.Port(),
		"v4-mapped v6 literal":   "http://[::ffff:127.0.0.1]:" + u.Port(),
		"allowed ip, other port": "http://127.0.0.1:1",
	} {
		t.Run(name, func(t *testing.T) {
			f := New(Fetcher{})
			if name == "allowed ip, other port" {
				f = New(Fetcher{Allow: []string{"127.0.0.1:" + u.Port()}})
			}
			_, err := f.Fetch(context.Background(), raw)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadInput)
		})
	}
	assert.Zero(t, hits.Load(), "no request may reach the loopback server")
}

func TestDialTimeCheckCatchesHostNames(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello there") })
	u, _ := url.Parse(srv.URL)
	// "localhost" is not an IP literal: only the dial-time check on the resolved IP stops it.
	_, err := New(Fetcher{}).Fetch(context.Background(), "http://localhost:"+u.Port())
	require.ErrorIs(t, err, ErrBlocked)
	assert.Contains(t, err.Error(), "resolves to")

	// Allowing the name lets it through; allowing an unrelated CIDR does not.
	p, err := New(Fetcher{Allow: []string{"localhost"}}).Fetch(context.Background(), "http://localhost:"+u.Port())
	require.NoError(t, err)
	assert.Equal(t, "hello there", p.Text)
	_, err = New(Fetcher{Allow: []string{"10.0.0.0/8"}}).Fetch(context.Background(), "http://localhost:"+u.Port())
	require.ErrorIs(t, err, ErrBlocked)
	p, err = New(Fetcher{Allow: []string{"127.0.0.0/8"}}).Fetch(context.Background(), "http://localhost:"+u.Port())
	require.NoError(t, err)
	assert.Equal(t, "hello there", p.Text)
}

func TestFetchRedirects(t *testing.T) {
	var targetHits atomic.Int32
	target := serve(t, func(w http.ResponseWriter, r *http.Request) { targetHits.Add(1); fmt.Fprint(w, "private data") })
	tu, _ := url.Parse(target.URL)
	final := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "landed fine") })
	hops := map[string]string{
		"/to-target":    target.URL,                      // loopback, other port: not allowed
		"/to-localhost": "http://localhost:" + tu.Port(), // resolves to loopback
		"/to-private":   "http://10.0.0.1/",              // refused before any dial
		"/to-metadata":  "http://169.254.169.254/latest/meta-data",
		"/ok":           final.URL + "/end",
	}
	var loops atomic.Int32
	start := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/loop" {
			loops.Add(1)
			http.Redirect(w, r, "/loop", http.StatusFound)
			return
		}
		http.Redirect(w, r, hops[r.URL.Path], http.StatusMovedPermanently)
	})
	su, _ := url.Parse(start.URL)
	fu, _ := url.Parse(final.URL)
	f := New(Fetcher{Allow: []string{su.Host, fu.Host}})

	for _, path := range []string{"/to-target", "/to-localhost", "/to-private", "/to-metadata"} {
		t.Run(path, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), start.URL+path)
			require.ErrorIs(t, err, ErrBlocked)
			assert.ErrorIs(t, err, search.ErrBadInput)
		})
	}
	assert.Zero(t, targetHits.Load())

	p, err := f.Fetch(context.Background(), start.URL+"/ok")
	require.NoError(t, err)
	assert.Equal(t, final.URL+"/end", p.FinalURL)
	assert.Equal(t, start.URL+"/ok", p.URL)
	assert.Equal(t, "landed fine", p.Text)

	_, err = f.Fetch(context.Background(), start.URL+"/loop")
	require.ErrorIs(t, err, ErrBadInput)
	assert.Contains(t, err.Error(), "redirects")
	assert.EqualValues(t, MaxRedirects+1, loops.Load(), "first request plus MaxRedirects followed")
}

func TestFetchTruncates(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := strings.Repeat("a", 1024)
		for range 3 * 1024 { // 3 MiB, more than the default bound
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	})
	p, err := loopback().Fetch(context.Background(), srv.URL)
	require.NoError(t, err)
	assert.True(t, p.Truncated)
	assert.EqualValues(t, DefaultMaxBytes, p.Bytes)
	assert.LessOrEqual(t, len(p.Text), DefaultMaxTextChars+len("…"))

	f := New(Fetcher{Allow: []string{"127.0.0.1"}, MaxBytes: 1000, MaxTextChars: 100})
	p, err = f.Fetch(context.Background(), srv.URL)
	require.NoError(t, err)
	assert.True(t, p.Truncated)
	assert.Equal(t, 1000, p.Bytes)
	assert.Equal(t, strings.Repeat("a", 100)+"…", p.Text)

	small := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "exactly ten") })
	p, err = New(Fetcher{Allow: []string{"127.0.0.1"}, MaxBytes: 11}).Fetch(context.Background(), small.URL)
	require.NoError(t, err)
	assert.False(t, p.Truncated, "a body exactly at the bound is whole")
	assert.Equal(t, "exactly ten", p.Text)
}

func TestFetchStatusAndContentType(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		badInput    bool
	}{
		{"not found", 404, "text/html", "nope", true},
		{"forbidden", 403, "text/html", "nope", true},
		{"gone", 410, "text/plain", "", true},
		{"too many requests retries", 429, "text/plain", "", false},
		{"server error retries", 500, "text/plain", "", false},
		{"bad gateway retries", 502, "text/html", "", false},
		{"pdf", 200, "application/pdf", "%PDF-1.7", true},
		{"image", 200, "image/png", "\x89PNG", true},
		{"binary", 200, "application/octet-stream", "\x00\x01", true},
		{"sniffed binary", 200, "", "\x00\x01\x02\x03binary", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{tt.contentType}
				if tt.contentType == "" {
					w.Header()["Content-Type"] = nil
				}
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
			_, err := loopback().Fetch(context.Background(), srv.URL)
			require.Error(t, err)
			assert.Equal(t, tt.badInput, errors.Is(err, ErrBadInput), err.Error())
			assert.Equal(t, tt.badInput, errors.Is(err, search.ErrBadInput))
		})
	}
}

func TestFetchNetworkErrorIsRetryable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close() // nothing listens there now
	_, err := loopback().Fetch(context.Background(), addr)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrBadInput)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = loopback().Fetch(ctx, "http://127.0.0.1:1/")
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrBadInput)
}

func TestCustomClientKeepsDialCheck(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hi there") })
	u, _ := url.Parse(srv.URL)
	f := New(Fetcher{Client: &http.Client{Transport: &http.Transport{}}})
	_, err := f.Fetch(context.Background(), "http://localhost:"+u.Port())
	assert.ErrorIs(t, err, ErrBlocked)
	_, err = (&Fetcher{}).Fetch(context.Background(), srv.URL)
	assert.Error(t, err, "a Fetcher not built by New refuses to run")
}

func BenchmarkFetchHTML(b *testing.B) {
	page := "<html><head><title>T</title></head><body>" +
		strings.Repeat("<p>Some <b>bold</b> text with a <a href='/x'>link</a>. Another sentence.</p>", 1000) + "</body></html>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	f := loopback()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := f.Fetch(context.Background(), srv.URL); err != nil {
			b.Fatal(err)
		}
	}
}
