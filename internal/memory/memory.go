// Package memory keeps facts across runs in two backends: a chromem-go vector store and a
// full-text index (embedded SQLite FTS5, optionally Meilisearch), recalled by a hybrid score.
// chromem-go holds its index in one process, so exactly one process may open a directory.
package memory

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	chromem "github.com/philippgille/chromem-go"

	"github.com/sated-dev/sated/internal/search"
)

// Recall defaults from the product design.
const (
	DefaultK        = 4
	Oversample      = 3    // vector candidates per wanted result
	TextWeight      = 0.4  // weight of the normalised full-text score in the hybrid score
	NearDuplicate   = 0.95 // vector similarity at which a new observation counts as already held
	MaxFactBytes    = 2000
	collectionName  = "observations"
	manifestVersion = 1
	minTextHits     = 50 // full-text hits fetched at least, so the score normalisation is stable
)

// Observation is one remembered fact.
type Observation struct {
	ID      string    `json:"id"`
	Fact    string    `json:"fact"`
	Sources []string  `json:"sources"`
	Task    string    `json:"task"`
	At      time.Time `json:"at"`
}

// Hit is a recalled observation with its scores.
type Hit struct {
	Observation
	Score  float64 `json:"score"`  // vector + TextWeight*text
	Vector float64 `json:"vector"` // cosine similarity to the query
	Text   float64 `json:"text"`   // full-text score normalised to [0,1]
}

// Options configure Open.
type Options struct {
	Dir string // required; chromem-go data, the embedded FTS5 file, manifest and quarantine log
	// Embedder makes the vectors; nil means LexicalEmbedder (offline, not semantic).
	Embedder Embedder
	// EmbedderID names the embedding space; defaults to the embedder's ID() method.
	EmbedderID string
	// FullText is an extra full-text backend searched first (Meilisearch). The embedded FTS5
	// index is always written too, and answers when FullText is unreachable.
	FullText FullText
	K        int // results per recall; 0 means DefaultK
	// Create makes Dir when it does not exist. Without it a missing directory is an error:
	// a mistyped SATED_DATA_DIR or a deleted store must not look like an empty memory.
	Create bool
}

// Store is the memory. Its methods are safe for concurrent use within the one process.
type Store struct {
	mu       sync.Mutex
	dir      string
	db       *chromem.DB
	col      *chromem.Collection
	embed    Embedder
	embedID  string
	local    *SQLiteFTS
	remote   FullText
	k        int
	lock     *os.File
	quarIDs  map[string]bool // observations in the quarantine log, each logged once
	manifest manifest
	note     string // what opening repaired, for the log and Stats
}

// manifest records what a directory holds, so a damaged directory is detected instead of
// being silently treated as empty.
type manifest struct {
	Version  int       `json:"version"`
	Embedder string    `json:"embedder"`
	Count    int       `json:"count"`
	Created  time.Time `json:"created"`
}

func (s *Store) vectorDir() string      { return filepath.Join(s.dir, "vectors") }
func (s *Store) manifestPath() string   { return filepath.Join(s.dir, "manifest.json") }
func (s *Store) quarantinePath() string { return filepath.Join(s.dir, "quarantine.jsonl") }
func (s *Store) fullTextPath() string   { return filepath.Join(s.dir, "fulltext.db") }

// repairHint is the fix for a damaged full-text side or manifest, as a person types it.
func repairHint(dir string) string {
	return fmt.Sprintf("Rebuild it from the vector store with `starter memory repair --dir %s` (stop the memory worker first).", dir)
}

// Open opens the memory in opt.Dir; an empty directory, or one `starter memory init` made, is a
// new store. A missing directory (unless opt.Create), a damaged file, or a full-text side that
// lacks observations the vector side holds is an error naming the file and the fix, never a
// fresh start.
func Open(ctx context.Context, opt Options) (*Store, error) {
	if opt.Dir == "" {
		return nil, errors.New("memory: no directory given")
	}
	s := &Store{dir: filepath.Clean(opt.Dir), embed: opt.Embedder, embedID: opt.EmbedderID, remote: opt.FullText, k: opt.K}
	if s.embed == nil {
		s.embed = LexicalEmbedder{}
	}
	if s.embedID == "" {
		if n, ok := s.embed.(interface{ ID() string }); ok {
			s.embedID = n.ID()
		} else {
			return nil, errors.New("memory: EmbedderID is required for this embedder")
		}
	}
	if s.k <= 0 {
		s.k = DefaultK
	}
	if err := checkDir(s.dir, opt.Create); err != nil {
		return nil, err
	}
	lock, err := lockDir(filepath.Join(s.dir, "LOCK"))
	if err != nil {
		return nil, fmt.Errorf("memory directory %s: %w", s.dir, err)
	}
	s.lock = lock
	if err := s.load(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// checkDir fails on a missing directory unless create is set, then makes it.
func checkDir(dir string, create bool) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !create:
		return fmt.Errorf("memory store %s does not exist. If this is a new installation, create it once with `starter memory init --dir %s`; "+
			"if it held observations, SATED_DATA_DIR points elsewhere than before (set it back) or the directory was removed (restore it from a backup)", dir, dir)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create memory store %s: %w", dir, err)
		}
	case err != nil:
		return fmt.Errorf("memory store %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("memory store %s is a file, not a directory; move it away and create the store with `starter memory init --dir %s`", dir, dir)
	}
	return nil
}

// readManifest reads dir's manifest; found is false when there is none and the directory
// holds nothing else, a new store. Files without a manifest are an error naming the fix.
func readManifest(dir string) (m manifest, found bool, err error) {
	path := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, false, strayFiles(dir)
	case err != nil:
		return m, false, fmt.Errorf("memory manifest %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Version == 0 {
		if err == nil {
			err = errors.New("no version")
		}
		return m, false, fmt.Errorf("memory manifest %s does not parse (%v); it records the embedder and the observation count. %s", path, err, repairHint(dir))
	}
	return m, true, nil
}

// strayFiles fails when a directory without a manifest holds anything but its lock.
func strayFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("memory store %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != "LOCK" {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil
	}
	manifestPath := filepath.Join(dir, "manifest.json")
	if vecs, _ := os.ReadDir(filepath.Join(dir, "vectors")); len(vecs) > 0 {
		return fmt.Errorf("memory manifest %s is missing but the directory holds %s; refusing to guess what it holds. %s Or move the directory away to start empty", manifestPath, strings.Join(names, ", "), repairHint(dir))
	}
	return fmt.Errorf("memory manifest %s is missing and there is no vector store, but the directory holds %s; the vector store is the record of what memory holds and cannot be rebuilt: restore the directory from a backup, or move it away and create a new store with `starter memory init --dir %s`", manifestPath, strings.Join(names, ", "), dir)
}

func (s *Store) load(ctx context.Context) error {
	m, found, err := readManifest(s.dir)
	if err != nil {
		return err
	}
	fresh := !found
	if !found {
		m = manifest{Version: manifestVersion, Embedder: s.embedID, Created: time.Now().UTC()}
	}
	if m.Embedder == "" && m.Count == 0 {
		m.Embedder = s.embedID // made by `starter memory init`: the first open binds the embedder
	}
	s.manifest = m
	if found {
		if s.manifest.Embedder != s.embedID {
			return fmt.Errorf("memory directory %s was built with embedder %q but %q is configured; vectors from different embedders cannot be compared. "+
				"Re-embed the stored observations with the configured one: stop the memory worker and run `starter memory reembed --dir %s` "+
				"(the old vectors are kept until it completes), or set the embedding model back", s.dir, s.manifest.Embedder, s.embedID, s.dir)
		}
		fi, err := os.Stat(s.vectorDir())
		switch {
		case errors.Is(err, fs.ErrNotExist) && s.manifest.Count == 0:
			fresh = true
		case err != nil || !fi.IsDir():
			return fmt.Errorf("memory directory %s: vector store %s is missing but the manifest records %d observations; restore it or move the whole directory away", s.dir, s.vectorDir(), s.manifest.Count)
		}
	}
	s.db, err = chromem.NewPersistentDB(s.vectorDir(), false)
	if err != nil {
		return fmt.Errorf("memory directory %s: cannot load vector store %s (corrupt? restore it or move the directory away): %w", s.dir, s.vectorDir(), err)
	}
	// The embedding function must be passed again on every open; nil would silently mean OpenAI.
	ef := s.embedFunc()
	if fresh {
		s.col, err = s.db.CreateCollection(collectionName, map[string]string{"embedder": s.embedID}, ef)
		if err != nil {
			return fmt.Errorf("memory directory %s: create vector collection: %w", s.dir, err)
		}
	} else if s.col = s.db.GetCollection(collectionName, ef); s.col == nil && s.manifest.Count == 0 {
		if s.col, err = s.db.CreateCollection(collectionName, map[string]string{"embedder": s.embedID}, ef); err != nil {
			return fmt.Errorf("memory directory %s: create vector collection: %w", s.dir, err)
		}
	} else if s.col == nil {
		return fmt.Errorf("memory directory %s: vector store %s has no %q collection but the manifest records %d observations", s.dir, s.vectorDir(), collectionName, s.manifest.Count)
	}
	if n := s.col.Count(); n < s.manifest.Count {
		return fmt.Errorf("memory directory %s: vector store %s holds %d observations but the manifest records %d; files were lost (restore them or move the directory away)", s.dir, s.vectorDir(), n, s.manifest.Count)
	}
	if err := s.openFullText(ctx); err != nil {
		return err
	}
	if s.quarIDs, err = loadQuarantined(s.quarantinePath()); err != nil {
		return fmt.Errorf("memory directory %s: read quarantine log: %w", s.dir, err)
	}
	return s.saveManifest()
}

// openFullText opens the embedded full-text index and checks it against the vector side:
// the file must be sound and hold every observation the vector store holds. Entries without a
// vector, which a write or forget interrupted between the two sides leaves, are dropped.
func (s *Store) openFullText(ctx context.Context) error {
	path, n := s.fullTextPath(), s.col.Count()
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && n > 0:
		return fmt.Errorf("memory full-text index %s is missing but the vector store holds %d observations, so full-text recall would silently find none. %s", path, n, repairHint(s.dir))
	case err == nil && fi.Size() == 0 && n > 0:
		return fmt.Errorf("memory full-text index %s is empty (0 bytes) but the vector store holds %d observations, so full-text recall would silently find none. %s", path, n, repairHint(s.dir))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("memory full-text index %s: %w", path, err)
	}
	if s.local, err = OpenSQLiteFTS(path); err != nil {
		return fmt.Errorf("memory full-text index %s is not a usable SQLite file (%v). %s", path, errors.Unwrap(err), repairHint(s.dir))
	}
	if bad, err := s.local.QuickCheck(ctx); err != nil || bad != "" {
		if err != nil {
			bad = err.Error()
		}
		return fmt.Errorf("memory full-text index %s is damaged (integrity check: %s). %s", path, bad, repairHint(s.dir))
	}
	ids, err := s.local.IDs(ctx)
	if err != nil {
		return fmt.Errorf("memory full-text index %s is damaged (%v). %s", path, err, repairHint(s.dir))
	}
	var orphans []string
	held := 0
	for _, id := range ids {
		if _, err := s.col.GetByID(ctx, id); err == nil {
			held++
		} else {
			orphans = append(orphans, id)
		}
	}
	if held < n {
		return fmt.Errorf("memory full-text index %s is out of step: the vector store holds %d observations but the full-text index holds only %d of them, so full-text recall would silently miss %d. %s",
			path, n, held, n-held, repairHint(s.dir))
	}
	if len(orphans) > 0 {
		if err := s.local.Delete(ctx, orphans); err != nil {
			return fmt.Errorf("memory full-text index %s: drop %d entries without a vector: %w", path, len(orphans), err)
		}
		if err := s.local.Checkpoint(ctx); err != nil {
			return err
		}
		s.note = fmt.Sprintf("dropped %d full-text entries without a vector (left by an interrupted write or forget)", len(orphans))
	}
	return nil
}

func (s *Store) embedFunc() chromem.EmbeddingFunc {
	return func(ctx context.Context, text string) ([]float32, error) {
		v, err := s.embed.Embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("embedder returned %d vectors for 1 text", len(v))
		}
		return normalize(v[0]), nil
	}
}

func (s *Store) saveManifest() error {
	s.manifest.Count = s.col.Count()
	return s.writeManifest()
}

func (s *Store) writeManifest() error {
	b, _ := json.MarshalIndent(s.manifest, "", "  ")
	tmp := s.manifestPath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("memory directory %s: write manifest: %w", s.dir, err)
	}
	return os.Rename(tmp, s.manifestPath())
}

// Close releases the directory.
func (s *Store) Close() error {
	var errs []error
	if s.local != nil {
		errs = append(errs, s.local.Close())
	}
	if s.remote != nil {
		errs = append(errs, s.remote.Close())
	}
	if s.lock != nil {
		errs = append(errs, s.lock.Close())
	}
	return errors.Join(errs...)
}

// ObservationID is the content address of a fact: equal after normalisation, equal ID.
func ObservationID(fact string) string {
	sum := sha256.Sum256([]byte(normText(fact)))
	return hex.EncodeToString(sum[:12])
}

// WriteResult counts what happened to each offered observation.
type WriteResult struct {
	Stored      int      `json:"stored"`
	Skipped     int      `json:"skipped"`     // already held (exact or near-duplicate) or empty
	Quarantined int      `json:"quarantined"` // flagged by the injection scan, logged, not stored
	IDs         []string `json:"ids,omitempty"`
	Note        string   `json:"note,omitempty"` // full-text fallback, said plainly
}

// quarantined is one line of the quarantine log.
type quarantined struct {
	ID       string    `json:"id"` // ObservationID of the fact; older lines have none
	At       time.Time `json:"at"`
	Task     string    `json:"task"`
	Fact     string    `json:"fact"`
	Sources  []string  `json:"sources,omitempty"`
	Findings []string  `json:"findings"`
}

// Remember scans, deduplicates and stores observations. Flagged ones go to the quarantine
// log; ones already held (same normalised text, or vector similarity ≥ NearDuplicate) are skipped.
func (s *Store) Remember(ctx context.Context, obs []Observation) (WriteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var res WriteResult
	keep, err := s.admit(obs, &res)
	if err != nil || len(keep) == 0 {
		return res, err
	}
	vecs, err := s.embedFacts(ctx, keep)
	if err != nil {
		return res, err
	}
	var stored []TextDoc
	for i, o := range keep {
		v := normalize(vecs[i])
		dup, err := s.held(ctx, o.ID, v)
		if err != nil {
			return res, err
		}
		if dup {
			res.Skipped++
			continue
		}
		doc, err := s.writeObservation(ctx, o, v)
		if err != nil {
			return res, err
		}
		stored = append(stored, doc)
		res.IDs = append(res.IDs, o.ID)
		res.Stored++
	}
	if err := s.saveManifest(); err != nil {
		return res, err
	}
	if len(stored) > 0 {
		if err := s.local.Checkpoint(ctx); err != nil {
			return res, fmt.Errorf("memory directory %s: %w", s.dir, err)
		}
	}
	if s.remote != nil && len(stored) > 0 {
		if err := s.remote.Index(ctx, stored); err != nil {
			// The embedded stores hold everything; the remote index misses these until re-indexed.
			res.Note = fmt.Sprintf("%s write failed, stored in the embedded full-text index only: %v", s.remote.Name(), err)
		}
	}
	return res, nil
}

// admit drops empty observations, quarantines flagged ones and returns the rest trimmed,
// capped, identified and timestamped, counting what it drops in res.
func (s *Store) admit(obs []Observation, res *WriteResult) ([]Observation, error) {
	var keep []Observation
	for _, o := range obs {
		o.Fact = strings.TrimSpace(o.Fact)
		if o.Fact == "" {
			res.Skipped++
			continue
		}
		if findings := ScanInjection(o.Fact + "\n" + strings.Join(o.Sources, "\n")); len(findings) > 0 {
			if err := s.quarantine(o, findings); err != nil {
				return nil, err
			}
			res.Quarantined++
			continue
		}
		if len(o.Fact) > MaxFactBytes {
			o.Fact = truncate(o.Fact, MaxFactBytes)
		}
		o.ID = ObservationID(o.Fact)
		if o.At.IsZero() {
			o.At = time.Now().UTC()
		}
		keep = append(keep, o)
	}
	return keep, nil
}

// embedFacts embeds the observations' facts in one call, one vector each.
func (s *Store) embedFacts(ctx context.Context, obs []Observation) ([][]float32, error) {
	texts := make([]string, len(obs))
	for i, o := range obs {
		texts[i] = o.Fact
	}
	vecs, err := s.embed.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed observations: %w", err)
	}
	if len(vecs) != len(obs) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d observations", len(vecs), len(obs))
	}
	return vecs, nil
}

// writeObservation stores one observation in the full-text index and the vector collection.
func (s *Store) writeObservation(ctx context.Context, o Observation, v []float32) (TextDoc, error) {
	doc := TextDoc{ID: o.ID, Text: o.Fact, Task: o.Task}
	// Full-text first: an entry there without a vector is never recalled, the reverse would be.
	if err := s.local.Index(ctx, []TextDoc{doc}); err != nil {
		return doc, fmt.Errorf("memory directory %s: full-text write: %w", s.dir, err)
	}
	src, _ := json.Marshal(o.Sources)
	err := s.col.AddDocument(ctx, chromem.Document{
		ID:        o.ID,
		Content:   o.Fact,
		Embedding: v,
		Metadata:  map[string]string{"task": o.Task, "sources": string(src), "at": o.At.UTC().Format(time.RFC3339Nano)},
	})
	if err != nil {
		return doc, fmt.Errorf("memory directory %s: vector write: %w", s.dir, err)
	}
	return doc, nil
}

// held reports whether the store already has this observation or a near-duplicate of it.
func (s *Store) held(ctx context.Context, id string, v []float32) (bool, error) {
	if _, err := s.col.GetByID(ctx, id); err == nil {
		return true, nil
	}
	if s.col.Count() == 0 {
		return false, nil
	}
	near, err := s.col.QueryEmbedding(ctx, v, 1, nil, nil)
	if err != nil {
		return false, fmt.Errorf("novelty check: %w", err)
	}
	return len(near) == 1 && float64(near[0].Similarity) >= NearDuplicate, nil
}

// quarantine logs a flagged observation once: offering the same fact again (a later run, a
// repeat within the batch) counts as quarantined but adds no line.
func (s *Store) quarantine(o Observation, findings []string) error {
	id := ObservationID(o.Fact)
	if s.quarIDs[id] {
		return nil
	}
	b, _ := json.Marshal(quarantined{ID: id, At: time.Now().UTC(), Task: o.Task, Fact: o.Fact, Sources: o.Sources, Findings: findings})
	f, err := os.OpenFile(s.quarantinePath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("quarantine log: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("quarantine log: %w", err)
	}
	s.quarIDs[id] = true
	return nil
}

// loadQuarantined reads the IDs of the observations in the quarantine log; lines written
// before the log carried IDs are identified by their fact.
func loadQuarantined(path string) (map[string]bool, error) {
	ids := map[string]bool{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ids, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var q quarantined
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			q.Fact = sc.Text() // a line cut short by a crash still counts, once; it never blocks opening
		}
		if q.ID == "" {
			q.ID = ObservationID(q.Fact)
		}
		ids[q.ID] = true
	}
	return ids, sc.Err()
}

// SearchResult is a recall answer.
type SearchResult struct {
	Hits     []Hit  `json:"hits"`
	FullText string `json:"full_text"` // backend that gave the text scores
	Note     string `json:"note,omitempty"`
	// Blocked counts recalled observations the injection scan flags now (stored before the
	// scan learned to): they are left out, so they never reach a plan or a report.
	Blocked    int      `json:"blocked,omitempty"`
	BlockedIDs []string `json:"blocked_ids,omitempty"`
}

// mode selects the scoring Search uses; the benchmarks compare them.
type mode int

const (
	modeHybrid mode = iota
	modeVector
	modeText
)

// Search recalls up to k observations (0: the store's K): the vector store is oversampled
// Oversample×k, and each candidate is re-ranked by similarity + TextWeight × normalised
// full-text score.
func (s *Store) Search(ctx context.Context, query string, k int) (SearchResult, error) {
	return s.search(ctx, query, k, modeHybrid)
}

func (s *Store) search(ctx context.Context, query string, k int, m mode) (SearchResult, error) {
	if strings.TrimSpace(query) == "" {
		return SearchResult{}, fmt.Errorf("empty query: %w", ErrBadInput)
	}
	if k <= 0 {
		k = s.k
	}
	n := s.col.Count()
	if n == 0 {
		return SearchResult{Hits: []Hit{}}, nil
	}
	want := min(Oversample*k, n) // chromem-go fails when asked for more than it holds
	var res SearchResult
	text := map[string]float64{}
	if m != modeVector {
		hits, name, note, err := s.textSearch(ctx, query, max(want, minTextHits))
		if err != nil {
			return SearchResult{}, err
		}
		res.FullText, res.Note = name, note
		text = relativeScores(hits)
		if m == modeText {
			res.Hits = res.screen(s.textHits(ctx, hits[:min(Oversample*k, len(hits))], text), k)
			return res, nil
		}
	}
	hits, err := s.vectorHits(ctx, query, want, text)
	if err != nil {
		return SearchResult{}, err
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	res.Hits = res.screen(hits, k)
	return res, nil
}

// screen scans the ranked hits again and keeps the first k that pass, counting and naming
// the ones it drops in the result and its note.
func (res *SearchResult) screen(hits []Hit, k int) []Hit {
	out := make([]Hit, 0, min(k, len(hits)))
	for _, h := range hits {
		if len(out) == k {
			break
		}
		if len(ScanInjection(h.Fact+"\n"+strings.Join(h.Sources, "\n"))) > 0 {
			res.Blocked++
			res.BlockedIDs = append(res.BlockedIDs, h.ID)
			continue
		}
		out = append(out, h)
	}
	if res.Blocked > 0 {
		note := fmt.Sprintf("%d recalled observation(s) failed the injection scan and were left out (starter memory forget %s)", res.Blocked, strings.Join(res.BlockedIDs, " | "))
		if res.Note != "" {
			note = res.Note + "; " + note
		}
		res.Note = note
	}
	return out
}

// relativeScores scales full-text scores by the best one, so they combine with similarities.
func relativeScores(hits []TextHit) map[string]float64 {
	text := map[string]float64{}
	top := 0.0
	for _, h := range hits {
		top = max(top, h.Score)
	}
	for _, h := range hits {
		if top > 0 {
			text[h.ID] = h.Score / top
		}
	}
	return text
}

// textHits answers a full-text-only search from the observations the hits name.
func (s *Store) textHits(ctx context.Context, hits []TextHit, text map[string]float64) []Hit {
	var out []Hit
	for _, h := range hits {
		o, err := s.get(ctx, h.ID)
		if err != nil {
			continue // in the full-text index only (a write interrupted before the vector)
		}
		out = append(out, Hit{Observation: o, Text: text[h.ID], Score: TextWeight * text[h.ID]})
	}
	return out
}

// vectorHits finds want nearest observations to the query, scored by similarity plus the
// weighted full-text score, unsorted.
func (s *Store) vectorHits(ctx context.Context, query string, want int, text map[string]float64) ([]Hit, error) {
	qv, err := s.embed.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(qv) != 1 {
		return nil, fmt.Errorf("embedder returned %d vectors for 1 query", len(qv))
	}
	cands, err := s.col.QueryEmbedding(ctx, normalize(qv[0]), want, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("memory directory %s: vector query: %w", s.dir, err)
	}
	var out []Hit
	for _, c := range cands {
		h := Hit{Observation: fromDoc(c.ID, c.Content, c.Metadata), Vector: float64(c.Similarity), Text: text[c.ID]}
		h.Score = h.Vector + TextWeight*h.Text
		out = append(out, h)
	}
	return out, nil
}

// textSearch asks the remote full-text backend, falling back to the embedded index when it
// cannot be reached.
func (s *Store) textSearch(ctx context.Context, query string, limit int) ([]TextHit, string, string, error) {
	if s.remote != nil {
		hits, err := s.remote.Search(ctx, query, limit)
		if err == nil {
			return hits, s.remote.Name(), "", nil
		}
		if !errors.Is(err, ErrFullTextUnavailable) {
			return nil, "", "", err
		}
		note := fmt.Sprintf("%s unreachable, used the embedded %s index: %v", s.remote.Name(), s.local.Name(), err)
		hits, err = s.local.Search(ctx, query, limit)
		return hits, s.local.Name(), note, err
	}
	hits, err := s.local.Search(ctx, query, limit)
	return hits, s.local.Name(), "", err
}

// CheckFullText reports whether the remote full-text backend answers (nil when there is none),
// so a caller can retry before accepting the embedded fallback.
func (s *Store) CheckFullText(ctx context.Context) error {
	if s.remote == nil {
		return nil
	}
	return s.remote.Health(ctx)
}

func (s *Store) get(ctx context.Context, id string) (Observation, error) {
	d, err := s.col.GetByID(ctx, id)
	if err != nil {
		return Observation{}, err
	}
	return fromDoc(d.ID, d.Content, d.Metadata), nil
}

func fromDoc(id, content string, md map[string]string) Observation {
	o := Observation{ID: id, Fact: content, Task: md["task"]}
	_ = json.Unmarshal([]byte(md["sources"]), &o.Sources)
	o.At, _ = time.Parse(time.RFC3339Nano, md["at"])
	return o
}

// ErrBadInput marks requests that can never succeed (empty query, unknown ID); it is the
// project-wide search.ErrBadInput so activities need one check.
var ErrBadInput = search.ErrBadInput

// ForgetResult says how many observations were removed.
type ForgetResult struct {
	Removed int    `json:"removed"`
	Note    string `json:"note,omitempty"`
}

// Forget removes one observation by ID.
func (s *Store) Forget(ctx context.Context, id string) (ForgetResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.col.GetByID(ctx, id); err != nil {
		return ForgetResult{}, fmt.Errorf("no observation with id %q: %w", id, ErrBadInput)
	}
	return s.remove(ctx, func(ft FullText) error { return ft.Delete(ctx, []string{id}) },
		func() error { return s.col.Delete(ctx, nil, nil, id) })
}

// ForgetTask removes every observation a task produced.
func (s *Store) ForgetTask(ctx context.Context, task string) (ForgetResult, error) {
	if strings.TrimSpace(task) == "" {
		return ForgetResult{}, fmt.Errorf("empty task: %w", ErrBadInput)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remove(ctx, func(ft FullText) error { return ft.DeleteTask(ctx, task) },
		func() error { return s.col.Delete(ctx, map[string]string{"task": task}, nil) })
}

// remove deletes from the vector store first: recall starts from vector candidates, so a
// full-text entry left behind by a failed remote delete is never recalled.
func (s *Store) remove(ctx context.Context, textDel func(FullText) error, vecDel func() error) (ForgetResult, error) {
	before := s.col.Count()
	if err := vecDel(); err != nil {
		return ForgetResult{}, fmt.Errorf("memory directory %s: vector delete: %w", s.dir, err)
	}
	res := ForgetResult{Removed: before - s.col.Count()}
	if err := s.saveManifest(); err != nil {
		return res, err
	}
	if err := textDel(s.local); err != nil {
		return res, fmt.Errorf("memory directory %s: full-text delete: %w", s.dir, err)
	}
	if err := s.local.Checkpoint(ctx); err != nil {
		return res, fmt.Errorf("memory directory %s: %w", s.dir, err)
	}
	if s.remote != nil {
		if err := textDel(s.remote); err != nil {
			res.Note = fmt.Sprintf("%s delete failed; its stale entries are never recalled: %v", s.remote.Name(), err)
		}
	}
	return res, nil
}

// Stats describes the store.
type Stats struct {
	Count       int      `json:"count"` // observations: the vector side, which recall starts from
	Quarantined int      `json:"quarantined"`
	Dir         string   `json:"dir"`
	Embedder    string   `json:"embedder"`
	Backends    []string `json:"backends"`
	// VectorCount and FullTextCount are what each embedded side holds; they are equal in a
	// sound store (FullTextCount is -1 when the index cannot be read).
	VectorCount   int    `json:"vector_count"`
	FullTextCount int    `json:"full_text_count"`
	Note          string `json:"note,omitempty"` // what opening repaired, or why a count is missing
}

// Stats counts observations on both sides and quarantined items and names the backends.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := []string{"chromem-go", s.local.Name()}
	if s.remote != nil {
		b = append(b, s.remote.Name())
	}
	n := s.col.Count()
	st := Stats{Count: n, Quarantined: len(s.quarIDs), Dir: s.dir, Embedder: s.embedID, Backends: b, VectorCount: n, Note: s.note}
	ft, err := s.local.Count(context.Background())
	if err != nil {
		ft = -1
		st.Note = strings.TrimPrefix(st.Note+"; ", "; ") + fmt.Sprintf("full-text index %s cannot be counted: %v", s.fullTextPath(), err)
	} else if ft != n {
		st.Note = strings.TrimPrefix(st.Note+"; ", "; ") + fmt.Sprintf("the full-text index holds %d observations, the vector store %d: %s", ft, n, repairHint(s.dir))
	}
	st.FullTextCount = ft
	return st
}

func truncate(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
