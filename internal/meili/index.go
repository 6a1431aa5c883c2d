package meili

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/meilisearch/meilisearch-go"

	"github.com/sated-dev/sated/internal/memory"
	"github.com/sated-dev/sated/internal/search"
)

// Default index names.
const (
	CorpusIndex  = "sated-corpus"
	MemoryIndex  = "sated-memory"
	ProviderName = "meilisearch"
	batchSize    = 1000
)

// index applies its settings on first use, so a server that is down when the worker starts
// is picked up once it is back.
type index struct {
	c        *Client
	uid      string
	settings IndexSettings
	mu       sync.Mutex
	ready    bool
}

func (ix *index) ensure(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.ready {
		return nil
	}
	if err := ix.c.EnsureIndex(ctx, ix.uid, ix.settings); err != nil {
		return err
	}
	ix.ready = true
	return nil
}

// add writes documents in batches, waiting for each task.
func (ix *index) add(ctx context.Context, n int, slice func(i, j int) any) error {
	if err := ix.ensure(ctx); err != nil {
		return err
	}
	pk := ix.settings.PrimaryKey
	for i := 0; i < n; i += batchSize {
		info, err := ix.c.sm.Index(ix.uid).AddDocuments(ctx, slice(i, min(i+batchSize, n)), &meilisearch.DocumentOptions{PrimaryKey: &pk})
		if err != nil {
			return ix.c.classify("add documents to "+ix.uid, err)
		}
		if err := ix.c.wait(ctx, "add documents to "+ix.uid, info); err != nil {
			return err
		}
	}
	return nil
}

// delete removes documents by id and waits for the task.
func (ix *index) delete(ctx context.Context, ids []string) error {
	if err := ix.ensure(ctx); err != nil {
		return err
	}
	info, err := ix.c.sm.Index(ix.uid).DeleteDocuments(ctx, ids, nil)
	if err != nil {
		return ix.c.classify("delete documents", err)
	}
	return ix.c.wait(ctx, "delete documents", info)
}

func (ix *index) search(ctx context.Context, req *meilisearch.SearchRequest, query string) (meilisearch.Hits, error) {
	if err := ix.ensure(ctx); err != nil {
		return nil, err
	}
	resp, err := ix.c.sm.Index(ix.uid).Search(ctx, query, req)
	if err != nil {
		return nil, ix.c.classify("search "+ix.uid, err)
	}
	return resp.Hits, nil
}

// Document is one corpus document as stored in Meilisearch.
type Document struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// DocID derives a valid document id from a URL.
func DocID(url string) string {
	sum := sha256.Sum256([]byte(search.NormalizeURL(url)))
	return hex.EncodeToString(sum[:16])
}

// Corpus is the corpus search provider backed by Meilisearch.
type Corpus struct{ ix *index }

// Corpus returns the provider over index uid (CorpusIndex when empty).
func (c *Client) Corpus(uid string) *Corpus {
	if uid == "" {
		uid = CorpusIndex
	}
	return &Corpus{ix: &index{c: c, uid: uid, settings: IndexSettings{
		PrimaryKey: "id",
		Searchable: []string{"title", "body", "url"},
		Filterable: []string{"url"},
	}}}
}

// Name is the provider name used in config and results.
func (p *Corpus) Name() string { return ProviderName }

// snippetWords is how many words Meilisearch crops the body to around the match.
const snippetWords = 60

// Search implements search.Provider.
func (p *Corpus) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf("meilisearch search: %w: empty query", ErrBadInput)
	}
	if limit < 1 || limit > 1000 {
		return nil, fmt.Errorf("meilisearch search: %w: limit %d out of range [1,1000]", ErrBadInput, limit)
	}
	hits, err := p.ix.search(ctx, &meilisearch.SearchRequest{
		Limit:                int64(limit),
		AttributesToRetrieve: []string{"id", "url", "title"},
		AttributesToCrop:     []string{"body"},
		CropLength:           snippetWords,
	}, query)
	if err != nil {
		return nil, err
	}
	out := make([]search.Result, 0, len(hits))
	for _, h := range hits {
		var d Document
		var f struct {
			Formatted struct {
				Body string `json:"body"`
			} `json:"_formatted"`
		}
		if err := h.DecodeInto(&d); err != nil {
			return nil, fmt.Errorf("meilisearch search: decode hit: %w", err)
		}
		if raw, ok := h["_formatted"]; ok {
			_ = json.Unmarshal(raw, &f.Formatted)
		}
		out = append(out, search.Result{
			URL:      d.URL,
			Title:    d.Title,
			Snippet:  search.Truncate(f.Formatted.Body, search.MaxSnippetChars),
			Provider: ProviderName,
			DocID:    d.ID,
		})
	}
	return out, nil
}

// IndexDocuments adds or replaces documents; an empty ID is derived from the URL.
func (p *Corpus) IndexDocuments(ctx context.Context, docs []Document) error {
	docs = append([]Document(nil), docs...)
	for i := range docs {
		if docs[i].ID == "" {
			docs[i].ID = DocID(docs[i].URL)
		}
		if !ValidDocID(docs[i].ID) {
			return fmt.Errorf("meilisearch index documents: %w: document id %q must be alphanumeric, '-' or '_' (leave it empty to derive one from the URL)", ErrBadInput, docs[i].ID)
		}
	}
	return p.ix.add(ctx, len(docs), func(i, j int) any { return docs[i:j] })
}

// RemoveURLs deletes the documents stored under these URLs (ids derived as IndexDocuments
// derives them); URLs it does not hold are ignored.
func (p *Corpus) RemoveURLs(ctx context.Context, urls []string) error {
	if len(urls) == 0 {
		return nil
	}
	ids := make([]string, len(urls))
	for i, u := range urls {
		ids[i] = DocID(u)
	}
	return p.ix.delete(ctx, ids)
}

// Document reads one stored document, so enrichment needs no fetch.
func (p *Corpus) Document(ctx context.Context, id string) (Document, error) {
	if err := p.ix.ensure(ctx); err != nil {
		return Document{}, err
	}
	var d Document
	if err := p.ix.c.sm.Index(p.ix.uid).GetDocument(ctx, id, nil, &d); err != nil {
		return Document{}, p.ix.c.classify("get document "+id, err)
	}
	return d, nil
}

// Memory is the memory's full-text backend (memory.FullText) on Meilisearch.
type Memory struct{ ix *index }

var _ memory.FullText = (*Memory)(nil)
var _ search.Provider = (*Corpus)(nil)

// Memory returns the memory backend over index uid (MemoryIndex when empty).
func (c *Client) Memory(uid string) *Memory {
	if uid == "" {
		uid = MemoryIndex
	}
	return &Memory{ix: &index{c: c, uid: uid, settings: IndexSettings{
		PrimaryKey: "id",
		Searchable: []string{"fact"},
		Filterable: []string{"task"},
	}}}
}

// memErr marks unavailability in the memory package's terms too.
func memErr(err error) error {
	if IsUnavailable(err) {
		return fmt.Errorf("%w: %w", memory.ErrFullTextUnavailable, err)
	}
	return err
}

// Name says which backend answered.
func (m *Memory) Name() string { return ProviderName }

// Health checks the server.
func (m *Memory) Health(ctx context.Context) error { return memErr(m.ix.c.Health(ctx)) }

// Index adds or replaces observations.
func (m *Memory) Index(ctx context.Context, docs []memory.TextDoc) error {
	return memErr(m.ix.add(ctx, len(docs), func(i, j int) any { return docs[i:j] }))
}

// Search returns ids with Meilisearch's ranking score (0..1).
func (m *Memory) Search(ctx context.Context, query string, limit int) ([]memory.TextHit, error) {
	hits, err := m.ix.search(ctx, &meilisearch.SearchRequest{
		Limit:                int64(limit),
		AttributesToRetrieve: []string{"id"},
		ShowRankingScore:     true,
	}, query)
	if err != nil {
		return nil, memErr(err)
	}
	out := make([]memory.TextHit, 0, len(hits))
	for _, h := range hits {
		var r struct {
			ID    string  `json:"id"`
			Score float64 `json:"_rankingScore"`
		}
		if err := h.DecodeInto(&r); err != nil {
			return nil, fmt.Errorf("meilisearch memory search: decode hit: %w", err)
		}
		out = append(out, memory.TextHit{ID: r.ID, Score: r.Score})
	}
	return out, nil
}

// Delete removes observations by id.
func (m *Memory) Delete(ctx context.Context, ids []string) error {
	return memErr(m.ix.delete(ctx, ids))
}

// DeleteTask removes every observation of a task through a filter on the filterable "task".
func (m *Memory) DeleteTask(ctx context.Context, task string) error {
	if err := m.ix.ensure(ctx); err != nil {
		return memErr(err)
	}
	filter := `task = "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(task) + `"`
	info, err := m.ix.c.sm.Index(m.ix.uid).DeleteDocumentsByFilter(ctx, filter, nil)
	if err != nil {
		return memErr(m.ix.c.classify("delete task documents", err))
	}
	return memErr(m.ix.c.wait(ctx, "delete task documents", info))
}

// Close has nothing to release; the HTTP client is shared.
func (m *Memory) Close() error { return nil }
