package meili

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/meili/meilitest"
	"github.com/sated-dev/sated/internal/memory"
)

var ctx = context.Background()

type target struct {
	name string
	c    *Client
	url  string
	key  string
}

// targets runs every conformance test against the fake and, when MEILI_URL is set, a real server.
func targets(t *testing.T) []target {
	fake := meilitest.New(t, "test-key")
	ts := []target{{name: "fake", c: New(fake.URL, "test-key"), url: fake.URL, key: "test-key"}}
	if u := os.Getenv("MEILI_URL"); u != "" {
		ts = append(ts, target{name: "real", c: New(u, os.Getenv("MEILI_API_KEY")), url: u, key: os.Getenv("MEILI_API_KEY")})
	}
	return ts
}

func forEach(t *testing.T, f func(t *testing.T, tg target, uid string)) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			uid := fmt.Sprintf("sated-test-%s-%d", strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())), time.Now().UnixNano())
			if len(uid) > 100 {
				uid = uid[:100]
			}
			t.Cleanup(func() { _ = tg.c.DeleteIndex(context.Background(), uid) })
			f(t, tg, uid)
		})
	}
}

// TestRealServerConfigured checks the opt-in real server is reachable. No Meilisearch server
// runs on the development and CI machines, so this suite is opt-in even when integration tests
// are required: set MEILI_URL (docker compose up meilisearch) to run it and the conformance tests
// against the real server.
func TestRealServerConfigured(t *testing.T) {
	if os.Getenv("MEILI_URL") == "" {
		t.Skip("MEILI_URL is not set: the conformance tests ran against the loopback server only")
	}
	require.NoError(t, New(os.Getenv("MEILI_URL"), os.Getenv("MEILI_API_KEY")).Health(ctx))
}

func TestConformanceCorpus(t *testing.T) {
	forEach(t, func(t *testing.T, tg target, uid string) {
		p := tg.c.Corpus(uid)
		require.Equal(t, "meilisearch", p.Name())
		long := strings.Repeat("filler words about nothing in particular ", 40) + "the saturation gate stops searching when results stop being novel"
		docs := []Document{
			{ID: "doc-1", URL: "https://example.com/temporal", Title: "Temporal workflows", Body: "Durable execution with workflows and activities."},
			{URL: "https://example.com/gate", Title: "Saturation", Body: long},
			{ID: "doc_3", URL: "https://example.com/meili", Title: "Meilisearch tasks", Body: "Index settings are applied through asynchronous tasks."},
		}
		require.NoError(t, p.IndexDocuments(ctx, docs))

		res, err := p.Search(ctx, "asynchronous tasks", 5)
		require.NoError(t, err)
		require.NotEmpty(t, res)
		require.Equal(t, "doc_3", res[0].DocID)
		require.Equal(t, "https://example.com/meili", res[0].URL)
		require.Equal(t, "Meilisearch tasks", res[0].Title)
		require.Equal(t, "meilisearch", res[0].Provider)
		require.Contains(t, res[0].Snippet, "asynchronous")

		res, err = p.Search(ctx, "saturation gate novel", 5)
		require.NoError(t, err)
		require.NotEmpty(t, res)
		require.Equal(t, DocID("https://example.com/gate"), res[0].DocID, "empty id derived from the URL")
		require.Less(t, len(res[0].Snippet), len(long)/2, "body is cropped around the match")
		require.Contains(t, res[0].Snippet, "saturation")

		d, err := p.Document(ctx, "doc-1")
		require.NoError(t, err)
		require.Equal(t, docs[0], d)

		_, err = p.Document(ctx, "no-such-doc")
		require.ErrorIs(t, err, ErrBadInput, "404 is bad input: %v", err)
		_, err = p.Search(ctx, " ", 5)
		require.ErrorIs(t, err, ErrBadInput)
		_, err = p.Search(ctx, "x", 0)
		require.ErrorIs(t, err, ErrBadInput)
		require.ErrorIs(t, p.IndexDocuments(ctx, []Document{{ID: "bad id!", URL: "u"}}), ErrBadInput)

		// removed by URL (the pages a corpus removal or prune drops), unknown URLs ignored
		require.NoError(t, p.RemoveURLs(ctx, []string{"https://example.com/gate", "https://example.com/never-stored"}))
		_, err = p.Document(ctx, DocID("https://example.com/gate"))
		require.ErrorIs(t, err, ErrBadInput, "the removed document is gone")
		res, err = p.Search(ctx, "saturation gate novel", 5)
		require.NoError(t, err)
		for _, r := range res {
			require.NotEqual(t, "https://example.com/gate", r.URL)
		}
		_, err = p.Document(ctx, "doc-1")
		require.NoError(t, err, "the others stay")
		require.NoError(t, p.RemoveURLs(ctx, nil))
	})
}

func TestConformanceMemoryIndex(t *testing.T) {
	forEach(t, func(t *testing.T, tg target, uid string) {
		m := tg.c.Memory(uid)
		require.NoError(t, m.Health(ctx))
		task := `task with "quotes"`
		require.NoError(t, m.Index(ctx, []memory.TextDoc{
			{ID: "a1", Text: "The garbage collector runs concurrently with the program.", Task: task},
			{ID: "b2", Text: "Channels carry typed values between goroutines.", Task: "other"},
			{ID: "c3", Text: "Garbage collection pauses are short.", Task: task},
		}))
		hits, err := m.Search(ctx, "garbage collector", 10)
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		require.Equal(t, "a1", hits[0].ID)
		for i, h := range hits {
			require.Greater(t, h.Score, 0.0)
			require.LessOrEqual(t, h.Score, 1.0)
			if i > 0 {
				require.LessOrEqual(t, h.Score, hits[i-1].Score, "best first")
			}
		}
		require.NoError(t, m.Delete(ctx, []string{"b2"}))
		hits, err = m.Search(ctx, "channels goroutines", 10)
		require.NoError(t, err)
		require.Empty(t, hits)

		require.NoError(t, m.DeleteTask(ctx, task), "filter on the filterable task attribute, quotes escaped")
		hits, err = m.Search(ctx, "garbage", 10)
		require.NoError(t, err)
		require.Empty(t, hits)

		// A failed task comes back from WaitForTask with a nil error; the wrapper must see it.
		err = m.Index(ctx, []memory.TextDoc{{ID: "", Text: "no id"}})
		require.Error(t, err)
		require.ErrorIs(t, err, ErrBadInput, "%v", err)
		require.False(t, IsUnavailable(err))
	})
}

// The documented error object, straight over HTTP.
func TestConformanceErrorObject(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", tg.url+"/indexes/sated-test-missing-index-xyz", nil)
			if tg.key != "" {
				req.Header.Set("Authorization", "Bearer "+tg.key)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusNotFound, resp.StatusCode)
			var e map[string]string
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
			require.Equal(t, "index_not_found", e["code"])
			require.Equal(t, "invalid_request", e["type"])
			require.NotEmpty(t, e["message"])
			require.Contains(t, e["link"], "index_not_found")
		})
	}
}

func TestFakeTaskLifecycle(t *testing.T) {
	fake := meilitest.New(t, "")
	post := func(path, body string) map[string]any {
		resp, err := http.Post(fake.URL+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusAccepted, resp.StatusCode)
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		return m
	}
	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(fake.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		return resp.StatusCode, m
	}
	info := post("/indexes", `{"uid":"movies","primaryKey":"id"}`)
	require.Equal(t, "enqueued", info["status"])
	require.Equal(t, "indexCreation", info["type"])
	_, tk := get(fmt.Sprintf("/tasks/%v", info["taskUid"]))
	require.Equal(t, "enqueued", tk["status"])
	_, tk = get(fmt.Sprintf("/tasks/%v", info["taskUid"]))
	require.Equal(t, "succeeded", tk["status"])
	require.Nil(t, tk["error"])

	info = post("/indexes", `{"uid":"movies"}`)
	get(fmt.Sprintf("/tasks/%v", info["taskUid"]))
	_, tk = get(fmt.Sprintf("/tasks/%v", info["taskUid"]))
	require.Equal(t, "failed", tk["status"])
	require.Equal(t, "index_already_exists", tk["error"].(map[string]any)["code"])

	code, e := get("/tasks/999")
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, "task_not_found", e["code"])

	resp, err := http.Post(fake.URL+"/indexes", "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
}

func TestAuthErrorsAreBadInput(t *testing.T) {
	fake := meilitest.New(t, "right")
	err := New(fake.URL, "wrong").Memory("m").Index(ctx, []memory.TextDoc{{ID: "a", Text: "x"}})
	require.ErrorIs(t, err, ErrBadInput, "%v", err)
	require.ErrorContains(t, err, "invalid_api_key")
	err = New(fake.URL, "").Corpus("c").IndexDocuments(ctx, []Document{{URL: "u"}})
	require.ErrorContains(t, err, "missing_authorization_header")
}

func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestUnavailable(t *testing.T) {
	c := New(closedURL(t), "")
	err := c.Health(ctx)
	require.True(t, IsUnavailable(err), "%v", err)
	require.ErrorContains(t, err, "127.0.0.1", "names the server")
	_, err = c.Corpus("").Search(ctx, "q", 3)
	require.True(t, IsUnavailable(err))
	require.NotErrorIs(t, err, ErrBadInput)
	_, err = c.Memory("").Search(ctx, "q", 3)
	require.ErrorIs(t, err, memory.ErrFullTextUnavailable, "the memory store can detect it")

	// 5xx answers count as unavailable too (retries are off, Temporal retries).
	srv := meilitest.New(t, "")
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"message":"down","code":"internal","type":"internal","link":""}`))
	})
	err = New(srv.URL, "").Memory("").Index(ctx, []memory.TextDoc{{ID: "a", Text: "x"}})
	require.True(t, IsUnavailable(err), "%v", err)
}

// The memory store end to end on Meilisearch, then with Meilisearch gone.
func TestStoreOnMeilisearchFallsBack(t *testing.T) {
	fake := meilitest.New(t, "")
	s, err := memory.Open(ctx, memory.Options{Dir: t.TempDir(), FullText: New(fake.URL, "").Memory("")})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.CheckFullText(ctx))
	w, err := s.Remember(ctx, []memory.Observation{
		{Fact: "Temporal replays workflow history to rebuild state.", Task: "t"},
		{Fact: "Activities run side effects and are retried by Temporal.", Task: "t"},
	})
	require.NoError(t, err)
	require.Equal(t, 2, w.Stored)
	require.Empty(t, w.Note)
	got, err := s.Search(ctx, "workflow history replay", 1)
	require.NoError(t, err)
	require.Equal(t, "meilisearch", got.FullText)
	require.Greater(t, got.Hits[0].Text, 0.0)

	fake.Close()
	err = s.CheckFullText(ctx)
	require.True(t, errors.Is(err, memory.ErrFullTextUnavailable) && IsUnavailable(err), "%v", err)
	got, err = s.Search(ctx, "workflow history replay", 1)
	require.NoError(t, err)
	require.Equal(t, "sqlite-fts5", got.FullText)
	require.Contains(t, got.Note, "meilisearch unreachable")
	require.Contains(t, got.Hits[0].Fact, "replays workflow history")
}
