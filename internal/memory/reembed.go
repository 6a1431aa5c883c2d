package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	chromem "github.com/philippgille/chromem-go"
)

// ReembedResult says what Reembed did.
type ReembedResult struct {
	Dir          string  `json:"dir"`
	From         string  `json:"from"`         // the embedder the store was built with
	To           string  `json:"to"`           // the embedder it is built with now
	Observations int     `json:"observations"` // re-embedded
	OldVectors   string  `json:"old_vectors"`  // where the previous vectors were kept
	Unchanged    bool    `json:"unchanged"`    // the store already used this embedder
	Seconds      float64 `json:"seconds"`
}

// reembedBatch is how many observations go to the embedder per call.
const reembedBatch = 32

// Reembed rebuilds the vector side of the store in dir with another embedder (a real embedding
// model after the offline lexical one, say), so memory built with one embedder can be used with
// the next instead of being moved away. It runs offline with the directory locked. The new
// vectors are written beside the old ones (vectors.reembed) and swapped in only when every
// observation has one; the old vectors are kept as vectors.<old embedder> until the operator
// deletes them. The full-text side is untouched: it holds text, not vectors. progress, when not
// nil, is called as observations are embedded.
func Reembed(ctx context.Context, dir string, emb Embedder, embedID string, progress func(done, total int)) (ReembedResult, error) {
	res := ReembedResult{Dir: filepath.Clean(dir), To: embedID}
	dir = res.Dir
	if emb == nil || embedID == "" {
		return res, fmt.Errorf("memory re-embed: no embedder given")
	}
	if err := checkDir(dir, false); err != nil {
		return res, err
	}
	lock, err := lockDir(filepath.Join(dir, "LOCK"))
	if err != nil {
		return res, fmt.Errorf("memory store %s: %w (stop the memory worker before re-embedding)", dir, err)
	}
	defer lock.Close()
	m, found, err := readManifest(dir)
	if err != nil {
		return res, err
	}
	if !found {
		return res, fmt.Errorf("memory store %s has no manifest: nothing to re-embed", dir)
	}
	res.From = m.Embedder
	if m.Embedder == embedID {
		res.Unchanged = true
		return res, nil
	}
	s := &Store{dir: dir, embed: emb, embedID: embedID, manifest: m}
	docs, _, err := s.vectorDocuments()
	if err != nil {
		return res, err
	}
	tmp := filepath.Join(dir, "vectors.reembed")
	if err := os.RemoveAll(tmp); err != nil { // what an interrupted re-embed left
		return res, fmt.Errorf("memory re-embed: %w", err)
	}
	db, err := chromem.NewPersistentDB(tmp, false)
	if err != nil {
		return res, fmt.Errorf("memory re-embed: new vector store %s: %w", tmp, err)
	}
	col, err := db.CreateCollection(collectionName, map[string]string{"embedder": embedID}, s.embedFunc())
	if err != nil {
		return res, fmt.Errorf("memory re-embed: new vector store %s: %w", tmp, err)
	}
	for i := 0; i < len(docs); i += reembedBatch {
		batch := docs[i:min(i+reembedBatch, len(docs))]
		texts := make([]string, len(batch))
		for j, d := range batch {
			texts[j] = d.Content
		}
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			return res, fmt.Errorf("memory re-embed with %s: observations %d-%d: %w (the old vectors are untouched; run it again)", embedID, i+1, i+len(batch), err)
		}
		if len(vecs) != len(batch) {
			return res, fmt.Errorf("memory re-embed with %s: the embedder returned %d vectors for %d observations", embedID, len(vecs), len(batch))
		}
		for j, d := range batch {
			if err := col.AddDocument(ctx, chromem.Document{ID: d.ID, Content: d.Content, Metadata: d.Metadata, Embedding: normalize(vecs[j])}); err != nil {
				return res, fmt.Errorf("memory re-embed: write %s: %w", d.ID, err)
			}
		}
		if progress != nil {
			progress(min(i+reembedBatch, len(docs)), len(docs))
		}
	}
	if col.Count() != len(docs) {
		return res, fmt.Errorf("memory re-embed: the new vector store holds %d of %d observations (the old vectors are untouched)", col.Count(), len(docs))
	}
	res.OldVectors = filepath.Join(dir, "vectors."+safeName.ReplaceAllString(m.Embedder, "_"))
	if err := os.RemoveAll(res.OldVectors); err != nil {
		return res, fmt.Errorf("memory re-embed: %w", err)
	}
	if err := os.Rename(s.vectorDir(), res.OldVectors); err != nil {
		return res, fmt.Errorf("memory re-embed: keep the old vectors: %w", err)
	}
	if err := os.Rename(tmp, s.vectorDir()); err != nil {
		// put the old vectors back: the store stays as it was
		os.Rename(res.OldVectors, s.vectorDir())
		return res, fmt.Errorf("memory re-embed: swap in the new vectors: %w", err)
	}
	s.manifest.Embedder, s.manifest.Count = embedID, len(docs)
	if err := s.writeManifest(); err != nil {
		return res, err
	}
	res.Observations = len(docs)
	return res, nil
}

// safeName keeps an embedder id usable as a directory name.
var safeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
