package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// VersionRecord is one harness version's content hash, recorded outside the harness directory
// (in the saturation monitor's durable state) by the path that wrote the version.
type VersionRecord struct {
	Version int       `json:"version"`
	Hash    string    `json:"hash"`
	At      time.Time `json:"at"`
	Change  string    `json:"change,omitempty"`
}

// Validate refuses a record that could not have come from ContentHash.
func (r VersionRecord) Validate() error {
	if r.Version < 1 {
		return fmt.Errorf("version %d must be at least 1", r.Version)
	}
	if b, err := hex.DecodeString(r.Hash); err != nil || len(b) != sha256.Size {
		return fmt.Errorf("hash %q of v%d is not a sha256 hex digest", r.Hash, r.Version)
	}
	return nil
}

// Ledger is the recorded hashes of every version sated wrote or a person adopted.
type Ledger []VersionRecord

// Hash is the recorded hash of version v.
func (l Ledger) Hash(v int) (string, bool) {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].Version == v {
			return l[i].Hash, true
		}
	}
	return "", false
}

// With records r, replacing an earlier record of the same version (a retried write).
func (l Ledger) With(r VersionRecord) Ledger {
	out := make(Ledger, 0, len(l)+1)
	for _, x := range l {
		if x.Version != r.Version {
			out = append(out, x)
		}
	}
	return append(out, r)
}

// Record is the ledger entry for h.
func Record(h Harness, at time.Time) VersionRecord {
	return VersionRecord{Version: h.Version, Hash: ContentHash(h), At: at.UTC(), Change: h.Change}
}

// ContentHash is the sha256 of h's canonical JSON, so whitespace edits do not count as changes
// and every changed value does.
func ContentHash(h Harness) string {
	data, err := json.Marshal(h)
	if err != nil { // a Harness always marshals; keep the hash distinct from any real one
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Short is the hash prefix people read in messages.
func Short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	if hash == "" {
		return "none"
	}
	return hash
}

// File states of a verification.
const (
	FileOK         = "ok"
	FileModified   = "modified"   // its version is recorded with another hash, or it cannot be read
	FileUnknown    = "unknown"    // its version was never recorded: planted, or written by hand
	FileMissing    = "missing"    // a recorded version has no archive file
	FileUnreadable = "unreadable" // not a harness document; its recorded version, if any, is unknown
)

// FileCheck is one harness file's verification.
type FileCheck struct {
	File     string `json:"file"` // relative to the store's directory
	Version  int    `json:"version"`
	State    string `json:"state"`
	Expected string `json:"expected,omitempty"`
	Found    string `json:"found,omitempty"`
	Problem  string `json:"problem,omitempty"`
}

// Tamper is a failed hash check as the monitor keeps it: cycles and expansions stay stopped
// until a verify or a restore clears it.
type Tamper struct {
	At       time.Time `json:"at"`
	File     string    `json:"file"`
	Version  int       `json:"version,omitempty"`
	Expected string    `json:"expected,omitempty"`
	Found    string    `json:"found,omitempty"`
	Message  string    `json:"message"`
}

// TamperError says a harness file differs from what sated recorded when it wrote the version.
type TamperError struct {
	Dir   string
	Check FileCheck
	// Restore is the newest archived version that still verifies; 0 when none does.
	Restore int
	// NoRecords: the monitor has recorded no version at all (a harness from before hashing).
	NoRecords bool
}

func (e *TamperError) Error() string {
	c := e.Check
	path := filepath.Join(e.Dir, c.File)
	var what string
	switch c.State {
	case FileModified:
		what = fmt.Sprintf("%s was changed outside sated: v%d was recorded with hash %s, the file now has %s", path, c.Version, Short(c.Expected), Short(c.Found))
	case FileUnknown:
		what = fmt.Sprintf("%s holds v%d (hash %s), a version sated never recorded", path, c.Version, Short(c.Found))
	case FileMissing:
		what = path + " is missing"
	default:
		what = fmt.Sprintf("%s cannot be read as a harness (%s)", path, c.Problem)
	}
	msg := what + "; harness cycles and expansions are stopped until it is resolved. Run 'starter harness verify' to check every version"
	switch {
	case e.NoRecords:
		msg += "; this harness predates recorded hashes: check it with 'starter harness show', then record it with 'starter harness verify --adopt'"
	case e.Restore > 0:
		msg += fmt.Sprintf(", then 'starter harness restore %d' to put the newest verified version back", e.Restore)
	default:
		msg += "; no archived version verifies, so restore the files from a backup"
	}
	return msg
}

// Tamper is the state the monitor keeps for e.
func (e *TamperError) Tamper(at time.Time) Tamper {
	c := e.Check
	return Tamper{At: at.UTC(), File: c.File, Version: c.Version, Expected: c.Expected, Found: c.Found, Message: e.Error()}
}

// decodeHarness reads a harness document without validating it: a tampered file is checked by
// its hash, valid or not.
func decodeHarness(data []byte) (Harness, error) {
	var h Harness
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return Harness{}, fmt.Errorf("not a harness document: %v", err)
	}
	return h, nil
}

// check compares the file at rel with the ledger; want is the version the file must hold (0:
// whichever it says, as for current.json).
func (s *Store) check(rel string, want int, l Ledger) (Harness, FileCheck) {
	c := FileCheck{File: rel, Version: want}
	data, err := os.ReadFile(filepath.Join(s.dir, rel))
	if errors.Is(err, os.ErrNotExist) {
		c.State, c.Problem = FileMissing, "no such file"
		c.Expected, _ = l.Hash(want)
		return Harness{}, c
	}
	if err != nil {
		c.State, c.Problem = FileUnreadable, err.Error()
		return Harness{}, c
	}
	h, err := decodeHarness(data)
	if err != nil {
		sum := sha256.Sum256(data)
		c.State, c.Problem, c.Found = FileModified, err.Error(), hex.EncodeToString(sum[:])
		c.Expected, _ = l.Hash(want)
		if c.Expected == "" {
			c.State = FileUnreadable
		}
		return Harness{}, c
	}
	if want == 0 {
		c.Version = h.Version
	}
	c.Found = ContentHash(h)
	expected, recorded := l.Hash(c.Version)
	c.Expected = expected
	switch {
	case want != 0 && h.Version != want:
		c.State, c.Problem = FileModified, fmt.Sprintf("the file says v%d", h.Version)
	case !recorded:
		c.State = FileUnknown
	case expected != c.Found:
		c.State = FileModified
	default:
		c.State = FileOK
	}
	return h, c
}

func archiveRel(v int) string { return filepath.Join("archive", fmt.Sprintf("v%d.json", v)) }

// Verify checks current.json, every archive file and every recorded version against l.
func (s *Store) Verify(l Ledger) ([]FileCheck, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, cur := s.check("current.json", 0, l)
	checks := []FileCheck{cur}
	versions, err := s.versions()
	if err != nil {
		return nil, err
	}
	onDisk := map[int]bool{}
	for _, v := range versions {
		onDisk[v] = true
		_, c := s.check(archiveRel(v), v, l)
		checks = append(checks, c)
	}
	for _, r := range l {
		if !onDisk[r.Version] {
			checks = append(checks, FileCheck{File: archiveRel(r.Version), Version: r.Version, State: FileMissing, Expected: r.Hash, Problem: "no such file"})
		}
	}
	return checks, nil
}

// newestVerified is the newest archived version whose file matches l; 0 when none does.
func (s *Store) newestVerified(l Ledger) int {
	versions, _ := s.versions()
	for i := len(versions) - 1; i >= 0; i-- {
		if _, c := s.check(archiveRel(versions[i]), versions[i], l); c.State == FileOK {
			return versions[i]
		}
	}
	return 0
}

func (s *Store) tamper(c FileCheck, l Ledger) *TamperError {
	return &TamperError{Dir: s.dir, Check: c, Restore: s.newestVerified(l), NoRecords: len(l) == 0}
}

// currentVerified is the harness in force when current.json matches its recorded hash. There
// is no fallback to an archive: which archive is good is a person's call (harness restore).
func (s *Store) currentVerified(l Ledger) (Harness, error) {
	h, c := s.check("current.json", 0, l)
	if c.State == FileMissing && len(l) == 0 {
		if vs, _ := s.versions(); len(vs) == 0 {
			return Harness{}, ErrNoHarness
		}
	}
	if c.State != FileOK {
		return Harness{}, s.tamper(c, l)
	}
	if err := h.Validate(); err != nil { // recorded versions were valid when written
		return Harness{}, fmt.Errorf("current.json: %w", err)
	}
	return h, nil
}

// CurrentVerified returns the harness in force after checking current.json against l; a
// mismatch is a *TamperError.
func (s *Store) CurrentVerified(l Ledger) (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentVerified(l)
}

// ArchiveVerified is Archive after checking current.json against l.
func (s *Store) ArchiveVerified(l Ledger) (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.currentVerified(l)
	if err != nil {
		return Harness{}, err
	}
	if _, c := s.check(archiveRel(h.Version), h.Version, l); c.State != FileOK {
		// a missing or altered archive of the version in force is rewritten from the verified file
		return h, writeJSON(s.archivePath(h.Version), h)
	}
	return h, nil
}

// RestoreVerified puts archived version v back in force only when its file matches l.
func (s *Store) RestoreVerified(v int, l Ledger) (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, c := s.check(archiveRel(v), v, l)
	if c.State != FileOK {
		return Harness{}, fmt.Errorf("cannot restore v%d: %s is %s (recorded %s, found %s); 'starter harness verify' lists the versions that verify",
			v, filepath.Join(s.dir, c.File), c.State, Short(c.Expected), Short(c.Found))
	}
	return h, writeJSON(s.currentPath(), h)
}

// CommitRecorded is Commit over a current.json checked against l, calling record with the new
// version before any file is written: a version on disk is always a recorded one.
func (s *Store) CommitRecorded(h Harness, base int, change string, now time.Time, l Ledger, record func(Harness) error) (Harness, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.currentVerified(l)
	if err != nil {
		return Harness{}, err
	}
	return s.commit(cur, h, base, change, now, record)
}

// InitRecorded is Init calling record with version 1 before writing it.
func (s *Store) InitRecorded(h Harness, now time.Time, record func(Harness) error) (Harness, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init(h, now, record)
}
