package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNoHarness means the store holds no harness yet.
var ErrNoHarness = errors.New("no harness yet (run 'starter harness init')")

// StaleError says current.json is unusable and the harness stays at the last good version.
type StaleError struct {
	Problem error
	Version int // the last good version, served instead
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("current.json is unusable (%v); staying at the last good version v%d", e.Problem, e.Version)
}

// Store keeps the harness in a directory: current.json and archive/v<N>.json for every version.
type Store struct {
	dir string
	mu  sync.Mutex
}

// NewStore opens (lazily) the store in dir.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) currentPath() string { return filepath.Join(s.dir, "current.json") }

func (s *Store) archivePath(v int) string {
	return filepath.Join(s.dir, "archive", fmt.Sprintf("v%d.json", v))
}

// Parse decodes and validates a harness document.
func Parse(data []byte) (Harness, error) {
	var h Harness
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return Harness{}, fmt.Errorf("not a harness document: %v", err)
	}
	return h, h.Validate()
}

func readHarness(path string) (Harness, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Harness{}, err
	}
	h, err := Parse(data)
	if err != nil {
		return Harness{}, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return h, nil
}

// Current returns the harness in force. When current.json is missing or invalid but an
// archived version is good, it returns the newest good one with a *StaleError.
func (s *Store) Current() (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current()
}

func (s *Store) current() (Harness, error) {
	h, err := readHarness(s.currentPath())
	if err == nil {
		return h, nil
	}
	versions, verr := s.versions()
	if verr != nil {
		return Harness{}, verr
	}
	if errors.Is(err, os.ErrNotExist) && len(versions) == 0 {
		return Harness{}, ErrNoHarness
	}
	for i := len(versions) - 1; i >= 0; i-- {
		if good, gerr := readHarness(s.archivePath(versions[i])); gerr == nil {
			return good, &StaleError{Problem: err, Version: good.Version}
		}
	}
	return Harness{}, fmt.Errorf("no usable harness: %v", err)
}

// Version returns archived version v.
func (s *Store) Version(v int) (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := readHarness(s.archivePath(v))
	if errors.Is(err, os.ErrNotExist) {
		return Harness{}, fmt.Errorf("no archived harness v%d", v)
	}
	return h, err
}

// Versions lists the archived versions, ascending.
func (s *Store) Versions() ([]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versions()
}

func (s *Store) versions() ([]int, error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, "archive"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vs []int
	for _, e := range entries {
		name := e.Name()
		if v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "v"), ".json")); err == nil && strings.HasPrefix(name, "v") && strings.HasSuffix(name, ".json") {
			vs = append(vs, v)
		}
	}
	sort.Ints(vs)
	return vs, nil
}

// Init stores h as version 1 when the store is empty; an existing harness is left alone.
func (s *Store) Init(h Harness, now time.Time) (Harness, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init(h, now, nil)
}

func (s *Store) init(h Harness, now time.Time, record func(Harness) error) (Harness, bool, error) {
	if cur, err := s.current(); !errors.Is(err, ErrNoHarness) {
		return cur, false, err
	}
	h = h.Clone()
	h.Version, h.Parent, h.Created = 1, 0, now.UTC()
	if err := h.Validate(); err != nil {
		return Harness{}, false, err
	}
	if record != nil {
		if err := record(h); err != nil {
			return Harness{}, false, err
		}
	}
	return h, true, s.write(h)
}

// Archive makes sure the version in force is archived, and returns it.
func (s *Store) Archive() (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.current()
	if err != nil {
		return Harness{}, err
	}
	return h, s.archive(h)
}

func (s *Store) archive(h Harness) error {
	if _, err := os.Stat(s.archivePath(h.Version)); errors.Is(err, os.ErrNotExist) {
		return writeJSON(s.archivePath(h.Version), h)
	}
	return nil
}

// Commit stores h as the next version derived from base, labelled change. It refuses an invalid
// harness and a base that is no longer in force; committing the same change on the same base
// twice returns the first commit, so a retried activity is harmless.
func (s *Store) Commit(h Harness, base int, change string, now time.Time) (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.current()
	if err != nil {
		return Harness{}, err
	}
	return s.commit(cur, h, base, change, now, nil)
}

// commit derives the next version from cur; record, when set, sees it before it is written.
func (s *Store) commit(cur, h Harness, base int, change string, now time.Time, record func(Harness) error) (Harness, error) {
	if cur.Parent == base && cur.Change == change && change != "" && cur.Version > base {
		if record != nil {
			return cur, record(cur) // the retry of a commit whose record may not have landed
		}
		return cur, nil
	}
	if cur.Version != base {
		return Harness{}, fmt.Errorf("harness is at v%d, not the base v%d of this change", cur.Version, base)
	}
	versions, err := s.versions()
	if err != nil {
		return Harness{}, err
	}
	next := cur.Version + 1
	if n := len(versions); n > 0 && versions[n-1] >= next {
		next = versions[n-1] + 1 // a rolled-back version keeps its number
	}
	h = h.Clone()
	h.Version, h.Parent, h.Change, h.Created = next, base, change, now.UTC()
	if err := h.Validate(); err != nil {
		return Harness{}, err
	}
	if record != nil {
		if err := record(h); err != nil {
			return Harness{}, err
		}
	}
	return h, s.write(h)
}

// Restore puts archived version v back in force (the rollback of a failed expansion).
func (s *Store) Restore(v int) (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := readHarness(s.archivePath(v))
	if err != nil {
		return Harness{}, fmt.Errorf("cannot restore v%d: %w", v, err)
	}
	return h, writeJSON(s.currentPath(), h)
}

// write archives h, then makes it current.
func (s *Store) write(h Harness) error {
	if err := writeJSON(s.archivePath(h.Version), h); err != nil {
		return err
	}
	return writeJSON(s.currentPath(), h)
}

// writeJSON writes atomically: a temporary file in the same directory, synced, then renamed.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
