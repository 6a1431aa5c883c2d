// Package fetch reads one web page safely: public addresses only (checked on the resolved IP
// at dial time, so DNS tricks and redirects cannot reach the private network), bounded size,
// and text out rather than bytes.
package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/sated-dev/sated/internal/extract"
	"github.com/sated-dev/sated/internal/search"
)

// Defaults applied by New to zero fields.
const (
	DefaultMaxBytes     int64 = 2 << 20
	DefaultMaxTextChars       = 20000
	DefaultTimeout            = 20 * time.Second
	// MaxRedirects bounds redirect chains; every hop is checked like the first URL.
	MaxRedirects = 5
	// UserAgent names the fetcher to the sites it reads.
	UserAgent = "sated/1 (research fetcher)"
)

var (
	// ErrBadInput marks failures a retry cannot fix (bad scheme, blocked address, 4xx,
	// unsupported content); it wraps search.ErrBadInput so either sentinel matches.
	ErrBadInput = fmt.Errorf("fetch: %w", search.ErrBadInput)
	// ErrBlocked marks an address outside the public internet and the allow-list.
	ErrBlocked = fmt.Errorf("%w: address not allowed", ErrBadInput)
)

// Page is a fetched page reduced to readable text.
type Page struct {
	URL         string `json:"url"`
	FinalURL    string `json:"final_url"`
	Title       string `json:"title"`
	Text        string `json:"text"` // Markdown for HTML pages, the body itself for text
	ContentType string `json:"content_type"`
	Truncated   bool   `json:"truncated"` // the body or the text was cut to its bound
	Bytes       int    `json:"bytes"`     // body bytes read
}

// Fetcher fetches pages; build it with New.
type Fetcher struct {
	// Client is optional. Its Transport, when an *http.Transport or nil, is cloned and given
	// the checking dialer; any other RoundTripper is trusted to do its own address checks.
	Client       *http.Client
	MaxBytes     int64         // body bytes read at most
	MaxTextChars int           // text bytes kept at most, cut on a rune boundary
	Timeout      time.Duration // whole request, body included
	// Allow lists hosts, IPs, CIDRs or host:port the fetcher may reach even when private or
	// loopback (a local SearXNG, test servers).
	Allow []string

	client *http.Client
	allow  allowList
}

// New fills defaults and builds the checking HTTP client.
func New(opts Fetcher) *Fetcher {
	f := opts
	if f.MaxBytes <= 0 {
		f.MaxBytes = DefaultMaxBytes
	}
	if f.MaxTextChars <= 0 {
		f.MaxTextChars = DefaultMaxTextChars
	}
	if f.Timeout <= 0 {
		f.Timeout = DefaultTimeout
	}
	f.allow = parseAllow(f.Allow)
	c := &http.Client{}
	if f.Client != nil {
		*c = *f.Client
	}
	c.Transport = f.transport(c.Transport)
	c.CheckRedirect = f.checkRedirect
	f.client = c
	return &f
}

// HTTPClient is the checking client itself, for callers that fetch on their own (corpus
// indexing): private and loopback addresses are refused at dial time, redirects included.
func (f *Fetcher) HTTPClient() *http.Client { return f.client }

func (f *Fetcher) transport(base http.RoundTripper) http.RoundTripper {
	var t *http.Transport
	switch b := base.(type) {
	case nil:
		t = &http.Transport{ForceAttemptHTTP2: true, IdleConnTimeout: 90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
	case *http.Transport:
		t = b.Clone()
	default:
		return base
	}
	t.Proxy = nil // a proxy would dial on our behalf, past the address check
	t.DialContext = f.dial
	t.DialTLSContext = nil
	t.MaxResponseHeaderBytes = 64 << 10
	return t
}

// dial connects only to allowed addresses; the check runs on each resolved IP just before
// connect, so what is checked is what is reached.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	trusted := f.allow.host(host, port)
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			if trusted {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrBlocked, address)
			}
			if IsPublic(ap.Addr()) || f.allow.addr(ap.Addr(), port) {
				return nil
			}
			return fmt.Errorf("%w: %s resolves to %s", ErrBlocked, host, ap.Addr())
		}}
	return d.DialContext(ctx, network, addr)
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrBadInput, MaxRedirects)
	}
	return f.checkURL(req.URL)
}

// checkURL refuses other schemes and literal addresses that are not allowed, before any dial.
func (f *Fetcher) checkURL(u *url.URL) error {
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return fmt.Errorf("%w: scheme %q not allowed in %q", ErrBadInput, u.Scheme, u.Redacted())
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%w: no host in %q", ErrBadInput, u.Redacted())
	}
	ip, err := netip.ParseAddr(u.Hostname())
	if err != nil || IsPublic(ip) || f.allow.host(u.Hostname(), port(u)) || f.allow.addr(ip, port(u)) {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrBlocked, ip)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// Fetch reads rawURL and returns its readable text. Errors wrapping ErrBadInput are final;
// others (network, 5xx, 429) are worth retrying.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	if f.client == nil {
		return Page{}, errors.New("fetch: Fetcher not built with New")
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Page{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if err := f.checkURL(u); err != nil {
		return Page{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		return Page{}, fmt.Errorf("fetch: %w", err)
	}
	defer resp.Body.Close()
	page := Page{URL: rawURL, FinalURL: resp.Request.URL.String()}
	if err := statusError(resp); err != nil {
		return page, err
	}
	header := resp.Header.Get("Content-Type")
	page.ContentType, _, _ = mime.ParseMediaType(header)
	if header != "" && !readable(page.ContentType) {
		return page, fmt.Errorf("%w: unsupported content type %q at %s", ErrBadInput, page.ContentType, page.FinalURL)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.MaxBytes+1))
	if err != nil {
		return page, fmt.Errorf("fetch %s: read body: %w", page.FinalURL, err)
	}
	if int64(len(body)) > f.MaxBytes {
		body, page.Truncated = body[:f.MaxBytes], true
	}
	page.Bytes = len(body)
	if header == "" {
		header = http.DetectContentType(body)
		page.ContentType, _, _ = mime.ParseMediaType(header)
		if !readable(page.ContentType) {
			return page, fmt.Errorf("%w: unsupported content type %q at %s", ErrBadInput, page.ContentType, page.FinalURL)
		}
	}
	text := decode(body, header)
	if isHTML(page.ContentType) {
		p, err := extract.HTMLToMarkdown([]byte(text), page.FinalURL)
		if err != nil {
			return page, fmt.Errorf("%w: %v", ErrBadInput, err)
		}
		page.Title, text = p.Title, p.Markdown
	} else {
		text = strings.TrimSpace(text)
		if first, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "# ") {
			page.Title = strings.TrimSpace(first[2:])
		}
	}
	if len(text) > f.MaxTextChars {
		text, page.Truncated = search.Truncate(text, f.MaxTextChars), true
	}
	page.Text = text
	return page, nil
}

func statusError(resp *http.Response) error {
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests, code >= 500:
		return fmt.Errorf("fetch %s: status %s", resp.Request.URL, resp.Status)
	default:
		return fmt.Errorf("%w: status %s at %s", ErrBadInput, resp.Status, resp.Request.URL)
	}
}

func isHTML(mediaType string) bool {
	return mediaType == "text/html" || mediaType == "application/xhtml+xml"
}

func readable(mediaType string) bool {
	switch mediaType {
	case "text/plain", "text/markdown", "text/x-markdown":
		return true
	}
	return isHTML(mediaType)
}

// decode turns the body into valid UTF-8, honouring a declared or sniffed charset.
func decode(body []byte, contentType string) string {
	if r, err := charset.NewReader(bytes.NewReader(body), contentType); err == nil {
		if b, err := io.ReadAll(r); err == nil {
			body = b
		}
	}
	if utf8.Valid(body) {
		return string(body)
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}
