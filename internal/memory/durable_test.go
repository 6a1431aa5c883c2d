package memory

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// populated is a closed store holding facts.
func populated(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(ctx, Options{Dir: dir})
	require.NoError(t, err)
	_, err = s.Remember(ctx, facts)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	return dir
}

// copyStore copies a store's files as a killed process leaves them on disk, without the
// SQLite write-ahead log and shared-memory files (lost, or never checkpointed).
func copyStore(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	require.NoError(t, filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		if strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") || fi.Name() == "LOCK" {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		dst, err := os.Create(filepath.Join(to, rel))
		if err != nil {
			return err
		}
		defer dst.Close()
		_, err = io.Copy(dst, src)
		return err
	}))
	return to
}

// fullTextIDs reads the embedded full-text index directly.
func fullTextIDs(t *testing.T, dir string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "fulltext.db"))
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT id FROM obs ORDER BY id`)
	require.NoError(t, err)
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	return ids
}

func execFullText(t *testing.T, dir, stmt string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "fulltext.db"))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(stmt, args...)
	require.NoError(t, err)
}

// A missing directory is a mistyped path or a lost store, never a new empty memory.
func TestMissingDirectoryIsAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	_, err := Open(ctx, Options{Dir: dir})
	require.Error(t, err)
	require.ErrorContains(t, err, dir)
	require.ErrorContains(t, err, "does not exist")
	require.ErrorContains(t, err, "starter memory init")
	_, statErr := os.Stat(dir)
	require.True(t, os.IsNotExist(statErr), "nothing is created: %v", statErr)
}

// A worker killed before SQLite checkpoints leaves the full-text rows in fulltext.db-wal; once
// that file is gone they must not be: every batch is checkpointed into fulltext.db.
func TestFullTextSurvivesALostWAL(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	_, err := s.Remember(ctx, facts)
	require.NoError(t, err)
	// the process is killed here: what is on disk, minus the WAL, is all that is left
	kept := copyStore(t, dir)
	require.Len(t, fullTextIDs(t, kept), len(facts), "full-text rows are in fulltext.db, not only in its WAL")

	_, err = s.Forget(ctx, ObservationID(facts[0].Fact))
	require.NoError(t, err)
	kept = copyStore(t, dir)
	require.Len(t, fullTextIDs(t, kept), len(facts)-1, "a forget is checkpointed too")

	s2 := open(t, kept)
	res, err := s2.search(ctx, "garbage collection target percentage", 1, modeText)
	require.NoError(t, err)
	require.Len(t, res.Hits, 1, "full-text recall still works")
}

// Damage to the full-text side, or to the manifest, is an error naming the file and the fix.
func TestDamagedFullTextAndManifest(t *testing.T) {
	ft := func(dir string) string { return filepath.Join(dir, "fulltext.db") }
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		file   func(dir string) string
		want   string
	}{
		{"full-text file zeroed", func(t *testing.T, dir string) {
			require.NoError(t, os.Truncate(ft(dir), 0))
		}, ft, "is empty (0 bytes)"},
		{"full-text file deleted", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(ft(dir)))
		}, ft, "is missing"},
		{"full-text file not SQLite", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(ft(dir), []byte(strings.Repeat("not a database ", 400)), 0o600))
		}, ft, "not a usable SQLite file"},
		{"full-text file damaged mid-file", func(t *testing.T, dir string) {
			f, err := os.OpenFile(ft(dir), os.O_RDWR, 0)
			require.NoError(t, err)
			fi, _ := f.Stat()
			require.Greater(t, fi.Size(), int64(3*4096), "several pages to damage")
			_, err = f.WriteAt([]byte(strings.Repeat("\xff", int(fi.Size())-2*4096)), 2*4096)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, ft, "is damaged"},
		{"full-text rows lost", func(t *testing.T, dir string) {
			execFullText(t, dir, `DELETE FROM obs WHERE id = ?`, ObservationID(facts[2].Fact))
		}, ft, "the vector store holds 5 observations but the full-text index holds only 4 of them"},
		{"manifest does not parse", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{"), 0o600))
		}, func(dir string) string { return filepath.Join(dir, "manifest.json") }, "does not parse"},
		{"manifest lost", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "manifest.json")))
		}, func(dir string) string { return filepath.Join(dir, "manifest.json") }, "is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := populated(t)
			c.damage(t, dir)
			_, err := Open(ctx, Options{Dir: dir})
			require.Error(t, err)
			require.ErrorContains(t, err, c.file(dir), "the error names the file")
			require.ErrorContains(t, err, c.want, "the error says what is wrong")
			require.ErrorContains(t, err, "starter memory repair", "the error says how to fix it")
		})
	}
}

// Full-text rows without a vector are what a write or forget interrupted between the two
// sides leaves; they are never recalled, and opening drops them so both sides agree.
func TestOpenDropsFullTextRowsWithoutVector(t *testing.T) {
	dir := populated(t)
	execFullText(t, dir, `INSERT INTO obs(id, task, fact) VALUES ('orphan', 't', 'written before a crash')`)
	s := open(t, dir)
	require.Contains(t, s.Stats().Note, "dropped 1 full-text entries without a vector")
	require.NoError(t, s.Close())
	require.Len(t, fullTextIDs(t, dir), len(facts))
}

// Init is the operator's explicit creation: afterwards the worker opens the directory, and
// running it again leaves an existing store alone.
func TestInitCreatesAnEmptyStoreOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	existed, _, err := Init(dir)
	require.NoError(t, err)
	require.False(t, existed)
	s := open(t, dir)
	_, err = s.Remember(ctx, facts)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	existed, n, err := Init(dir)
	require.NoError(t, err)
	require.True(t, existed)
	require.Equal(t, len(facts), n)
	require.Equal(t, len(facts), open(t, dir).Stats().Count, "init did not touch the store")

	// Options.Create is the same opt-in for a program that owns its directory
	fresh := filepath.Join(t.TempDir(), "m")
	s2 := open(t, fresh, func(o *Options) { o.Create = true })
	require.Equal(t, 0, s2.Stats().Count)
}

// Stats reports what each side holds, so a difference is visible without opening files.
func TestStatsCountsBothSides(t *testing.T) {
	s := open(t, t.TempDir())
	_, err := s.Remember(ctx, facts)
	require.NoError(t, err)
	st := s.Stats()
	require.Equal(t, len(facts), st.VectorCount)
	require.Equal(t, len(facts), st.FullTextCount)
	require.Empty(t, st.Note)
	// a row the full-text side lost while the store is open shows in the counts and the note
	_, err = s.local.db.Exec(`DELETE FROM obs WHERE id = ?`, ObservationID(facts[1].Fact))
	require.NoError(t, err)
	st = s.Stats()
	require.Equal(t, len(facts)-1, st.FullTextCount)
	require.Contains(t, st.Note, "starter memory repair")
}

// Repair rebuilds the full-text side (and a manifest that does not parse) from the vector
// store; afterwards the store opens and full-text recall finds every observation again.
func TestRepairRebuildsFullTextFromVectors(t *testing.T) {
	for name, damage := range map[string]func(t *testing.T, dir string){
		"zeroed":    func(t *testing.T, dir string) { require.NoError(t, os.Truncate(filepath.Join(dir, "fulltext.db"), 0)) },
		"deleted":   func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "fulltext.db"))) },
		"rows lost": func(t *testing.T, dir string) { execFullText(t, dir, `DELETE FROM obs`) },
		"not SQLite": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "fulltext.db"), []byte("junk"), 0o600))
		},
		"no manifest": func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "manifest.json"))) },
		"bad manifest": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{"), 0o600))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := populated(t)
			damage(t, dir)
			_, err := Open(ctx, Options{Dir: dir})
			require.Error(t, err, "the damage is detected before the repair")
			var calls [][2]int
			res, err := Repair(ctx, dir, func(done, total int) { calls = append(calls, [2]int{done, total}) })
			require.NoError(t, err)
			require.Equal(t, len(facts), res.Observations)
			require.Equal(t, [][2]int{{len(facts), len(facts)}}, calls)
			require.Equal(t, strings.HasSuffix(name, "manifest"), res.Manifest)

			s := open(t, dir)
			st := s.Stats()
			require.Equal(t, len(facts), st.VectorCount)
			require.Equal(t, len(facts), st.FullTextCount)
			hits, err := s.search(ctx, "garbage collection target percentage", 1, modeText)
			require.NoError(t, err)
			require.Len(t, hits.Hits, 1)
			require.Equal(t, "go-gc", hits.Hits[0].Task)
			leftovers, _ := filepath.Glob(filepath.Join(dir, "*.rebuild*"))
			require.Empty(t, leftovers)
		})
	}
}

// An interrupted repair leaves the old full-text file as it was.
func TestInterruptedRepairKeepsTheOldFile(t *testing.T) {
	dir := populated(t)
	execFullText(t, dir, `DELETE FROM obs WHERE id = ?`, ObservationID(facts[0].Fact))
	before, err := os.ReadFile(filepath.Join(dir, "fulltext.db"))
	require.NoError(t, err)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Repair(cctx, dir, nil)
	require.ErrorIs(t, err, context.Canceled)
	after, err := os.ReadFile(filepath.Join(dir, "fulltext.db"))
	require.NoError(t, err)
	require.Equal(t, before, after)
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*.rebuild*"))
	require.Empty(t, leftovers)
}

// Repair refuses a store the worker has open, and a missing store.
func TestRepairRefusesOpenOrMissingStore(t *testing.T) {
	dir := t.TempDir()
	open(t, dir)
	_, err := Repair(ctx, dir, nil)
	require.ErrorContains(t, err, "stop the memory worker")
	_, err = Repair(ctx, filepath.Join(dir, "nope"), nil)
	require.ErrorContains(t, err, "does not exist")
}
