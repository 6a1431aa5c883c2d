package memory

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	chromem "github.com/philippgille/chromem-go"
)

// Init creates an empty memory store in dir, the operator's one explicit step before the first
// worker starts (Open never creates a missing directory). The embedder is bound by the first
// Open. An existing store is left alone: existed is true and count is what its manifest records.
func Init(dir string) (existed bool, count int, err error) {
	dir = filepath.Clean(dir)
	if err := checkDir(dir, true); err != nil {
		return false, 0, err
	}
	lock, err := lockDir(filepath.Join(dir, "LOCK"))
	if err != nil {
		return false, 0, fmt.Errorf("memory store %s: %w", dir, err)
	}
	defer lock.Close()
	m, found, err := readManifest(dir)
	if err != nil || found {
		return found, m.Count, err
	}
	s := &Store{dir: dir, manifest: manifest{Version: manifestVersion, Created: time.Now().UTC()}}
	return false, 0, s.writeManifest()
}

// RepairResult says what Repair rebuilt.
type RepairResult struct {
	Dir          string `json:"dir"`
	Observations int    `json:"observations"`     // in the vector store, now all in the full-text index
	Before       int    `json:"full_text_before"` // rows the old full-text index held; -1 when unreadable
	Manifest     bool   `json:"manifest_rebuilt"` // the manifest was missing or did not parse
}

// Repair rebuilds the embedded full-text index, and the manifest when it is missing or does not
// parse, from the vector store, which holds every observation's text and task. It runs offline
// with the directory locked. The new index is written beside the old one and renamed over it
// only when complete, so an interrupted repair leaves the old file in place. progress, when not
// nil, is called as rows are written.
func Repair(ctx context.Context, dir string, progress func(done, total int)) (RepairResult, error) {
	res := RepairResult{Dir: filepath.Clean(dir), Before: -1}
	dir = res.Dir
	if err := checkDir(dir, false); err != nil {
		return res, err
	}
	lock, err := lockDir(filepath.Join(dir, "LOCK"))
	if err != nil {
		return res, fmt.Errorf("memory store %s: %w (stop the memory worker before repairing)", dir, err)
	}
	defer lock.Close()
	s := &Store{dir: dir}
	m, found, err := readManifest(dir)
	res.Manifest = !found
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return res, err // unreadable, not unparseable: nothing to rebuild from
		}
		m = manifest{}
	}
	vecs, embedder, err := s.vectorDocuments()
	if err != nil {
		return res, err
	}
	if m.Embedder == "" {
		m.Embedder = embedder
	}
	if m.Version == 0 {
		m = manifest{Version: manifestVersion, Embedder: m.Embedder, Created: time.Now().UTC()}
	}
	res.Observations = len(vecs)
	res.Before = oldCount(ctx, s.fullTextPath())
	if err := s.rebuildFullText(ctx, vecs, progress); err != nil {
		return res, err
	}
	m.Count = len(vecs)
	s.manifest = m
	return res, s.writeManifest()
}

// vectorDocuments reads every observation of the vector store, and the embedder it was built
// with, through chromem-go's export (it has no other way to list documents).
func (s *Store) vectorDocuments() ([]*chromem.Document, string, error) {
	if fi, err := os.Stat(s.vectorDir()); err != nil || !fi.IsDir() {
		return nil, "", fmt.Errorf("memory store %s: the vector store %s is missing; it is the record of what memory holds and cannot be rebuilt: restore it from a backup, or move the directory away and create a new store with `starter memory init --dir %s`", s.dir, s.vectorDir(), s.dir)
	}
	db, err := chromem.NewPersistentDB(s.vectorDir(), false)
	if err != nil {
		return nil, "", fmt.Errorf("memory store %s: cannot load vector store %s (restore it from a backup): %w", s.dir, s.vectorDir(), err)
	}
	if db.GetCollection(collectionName, refuseEmbedding) == nil {
		return nil, "", nil // made by init and never written: nothing to rebuild from
	}
	r, w := io.Pipe()
	go func() { w.CloseWithError(db.ExportToWriter(w, false, "", collectionName)) }()
	// the export's shape: chromem-go's persistence structs, matched by field name
	var exported struct {
		Collections map[string]*struct {
			Name      string
			Metadata  map[string]string
			Documents map[string]*chromem.Document
		}
	}
	err = gob.NewDecoder(r).Decode(&exported)
	r.CloseWithError(err)
	if err != nil {
		return nil, "", fmt.Errorf("memory store %s: read vector store %s: %w", s.dir, s.vectorDir(), err)
	}
	c := exported.Collections[collectionName]
	if c == nil {
		return nil, "", fmt.Errorf("memory store %s: vector store %s exported no %q collection", s.dir, s.vectorDir(), collectionName)
	}
	docs := make([]*chromem.Document, 0, len(c.Documents))
	for _, d := range c.Documents {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	return docs, c.Metadata["embedder"], nil
}

// refuseEmbedding stands in for the embedder offline: repair reads stored vectors, never makes one.
func refuseEmbedding(context.Context, string) ([]float32, error) {
	return nil, errors.New("no embedder offline")
}

// oldCount counts the rows of the full-text index being replaced, -1 when it cannot.
func oldCount(ctx context.Context, path string) int {
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		return -1
	}
	f, err := OpenSQLiteFTS(path)
	if err != nil {
		return -1
	}
	defer f.db.Close() // no checkpoint: the file may be damaged
	n, err := f.Count(ctx)
	if err != nil {
		return -1
	}
	return n
}

// rebuildFullText writes docs into a new index file and renames it over fulltext.db; on an
// error the new file goes and the old one stays.
func (s *Store) rebuildFullText(ctx context.Context, docs []*chromem.Document, progress func(done, total int)) (err error) {
	path := s.fullTextPath()
	tmp := path + ".rebuild"
	removeTmp := func() error {
		for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("memory store %s: %w", s.dir, err)
			}
		}
		return nil
	}
	if err := removeTmp(); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			removeTmp()
		}
	}()
	f, err := OpenSQLiteFTS(tmp)
	if err != nil {
		return fmt.Errorf("memory store %s: %w", s.dir, err)
	}
	const batch = 500
	for i := 0; i < len(docs); i += batch {
		part := make([]TextDoc, 0, batch)
		for _, d := range docs[i:min(i+batch, len(docs))] {
			part = append(part, TextDoc{ID: d.ID, Text: d.Content, Task: d.Metadata["task"]})
		}
		if err := f.Index(ctx, part); err != nil {
			f.Close()
			return fmt.Errorf("memory store %s: write %s: %w (the old full-text index is untouched)", s.dir, tmp, err)
		}
		if progress != nil {
			progress(min(i+batch, len(docs)), len(docs))
		}
	}
	if err := f.Close(); err != nil { // checkpointed: the new file is complete without its WAL
		return fmt.Errorf("memory store %s: close %s: %w (the old full-text index is untouched)", s.dir, tmp, err)
	}
	// The old WAL must go before the rename: SQLite would replay it into the new file.
	for _, p := range []string{path + "-wal", path + "-shm", tmp + "-wal", tmp + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("memory store %s: %w", s.dir, err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("memory store %s: replace %s: %w", s.dir, path, err)
	}
	return nil
}
