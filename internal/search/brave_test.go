package search

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// braveAnswer is the shape of a real Brave web search answer, trimmed to the fields we read
// plus some we ignore.
const braveAnswer = `{"type":"search","query":{"original":"go memory model"},"mixed":{"type":"mixed","main":[]},
"web":{"type":"search","results":[
 {"title":"The Go <strong>Memory Model</strong>","url":"https://go.dev/ref/mem","is_source_local":false,
  "description":"The Go <strong>memory model</strong> specifies the conditions under which reads &amp; writes...","profile":{"name":"Go"}},
 {"title":"Data races","url":"https://example.org/races","description":"A data race occurs when..."},
 {"title":"no url","url":"","description":"dropped"}
]}}`

func TestBraveSearch(t *testing.T) {
	var gotQ, gotCount, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQ, gotCount, gotKey = r.URL.Query().Get("q"), r.URL.Query().Get("count"), r.Header.Get("X-Subscription-Token")
		require.Equal(t, "/res/v1/web/search", r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(braveAnswer))
	}))
	defer srv.Close()
	b, err := NewBrave("secret", srv.URL+"/res/v1/web/search", srv.Client())
	require.NoError(t, err)
	rs, err := b.Search(context.Background(), "go memory model", 50)
	require.NoError(t, err)
	require.Equal(t, "go memory model", gotQ)
	require.Equal(t, "20", gotCount, "count is capped at Brave's maximum")
	require.Equal(t, "secret", gotKey)
	require.Len(t, rs, 2)
	require.Equal(t, Result{URL: "https://go.dev/ref/mem", Title: "The Go Memory Model",
		Snippet: "The Go memory model specifies the conditions under which reads & writes...", Provider: "brave"}, rs[0])

	rs, err = b.Search(context.Background(), "go memory model", 1)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, "1", gotCount)
}

func TestBraveErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		bad    bool
	}{
		{http.StatusUnauthorized, true}, {http.StatusForbidden, true}, {http.StatusUnprocessableEntity, true},
		{http.StatusTooManyRequests, false}, {http.StatusInternalServerError, false}, {http.StatusBadGateway, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":"nope"}`, tc.status)
		}))
		b, err := NewBrave("k", srv.URL, srv.Client())
		require.NoError(t, err)
		_, err = b.Search(context.Background(), "q", 5)
		require.Error(t, err)
		require.Equal(t, tc.bad, errors.Is(err, ErrBadInput), "status %d: %v", tc.status, err)
		require.Contains(t, err.Error(), http.StatusText(tc.status))
		srv.Close()
	}
}

func TestBraveBadInputAndConstruction(t *testing.T) {
	_, err := NewBrave("  ", "", nil)
	require.ErrorContains(t, err, "SATED_BRAVE_API_KEY")
	_, err = NewBrave("k", "ftp://x", nil)
	require.Error(t, err)
	b, err := NewBrave("k", "", nil)
	require.NoError(t, err)
	require.Equal(t, "brave", b.Name())
	_, err = b.Search(context.Background(), " ", 5)
	require.True(t, errors.Is(err, ErrBadInput))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<html>not json</html>"))
	}))
	defer srv.Close()
	b, _ = NewBrave("k", srv.URL, srv.Client())
	_, err = b.Search(context.Background(), "q", 5)
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrBadInput))
	require.True(t, strings.Contains(err.Error(), "JSON"))
}
