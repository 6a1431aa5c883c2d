package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/meili"
	"github.com/sated-dev/sated/internal/meili/meilitest"
)

// A user's own documents indexed beside the Go docs: corpus stats names both places, corpus
// remove drops one (its pages leave the search and the Meilisearch mirror), a place holding
// nothing is one usage line naming what the corpus does hold, with nothing removed, indexing a
// directory again removes the pages of its deleted files, and a directory with none of its
// files left keeps its pages.
func TestCorpusPlacesRemoveAndPrune(t *testing.T) {
	fake := meilitest.New(t, "k")
	t.Setenv("MEILI_URL", fake.URL)
	t.Setenv("MEILI_API_KEY", "k")
	t.Setenv("SATED_DATA_DIR", t.TempDir())
	root := t.TempDir()
	godoc, mine := filepath.Join(root, "go", "doc"), filepath.Join(root, "mine")
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(godoc, "gc.md"), "# Garbage collector\n\nThe garbage collector runs concurrently.\n")
	write(filepath.Join(godoc, "mem", "model.md"), "# Memory model\n\nChannels create happens-before edges.\n")
	write(filepath.Join(mine, "wal.md"), "# Write-ahead log\n\nCheckpoints move pages from the WAL file.\n")
	write(filepath.Join(mine, "locks.md"), "# Locking\n\nA reserved lock lets one writer prepare.\n")
	if code, out := runCLI(t, "corpus", "index", "--quiet", godoc, mine); code != 0 || !strings.Contains(out, "4 added") {
		t.Fatalf("index: code %d:\n%s", code, out)
	}
	mirror := meili.New(fake.URL, "k").Corpus(meili.CorpusIndex)
	inMirror := func(p string) bool {
		_, err := mirror.Document(context.Background(), meili.DocID((&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()))
		return err == nil
	}
	if !inMirror(filepath.Join(godoc, "gc.md")) {
		t.Fatal("the Meilisearch mirror lacks an indexed page")
	}

	code, out := runCLI(t, "corpus", "stats")
	if code != 0 || !strings.Contains(out, "4 documents") || !strings.Contains(out, "     2  "+godoc+"\n") || !strings.Contains(out, "     2  "+mine+"\n") || !strings.Contains(out, "corpus remove") {
		t.Fatalf("stats: code %d:\n%s", code, out)
	}

	// nothing stored there: one usage line, nothing removed
	code, out = runCLI(t, "corpus", "remove", filepath.Join(root, "elsewhere"))
	if code != 2 || !strings.Contains(out, "holds no pages under "+filepath.Join(root, "elsewhere")) || !strings.Contains(out, godoc+" (2)") || strings.Count(strings.TrimSpace(out), "\n") > 0 {
		t.Fatalf("remove of an empty place: code %d:\n%s", code, out)
	}
	code, out = runCLI(t, "corpus", "remove", godoc, filepath.Join(root, "elsewhere"))
	if code != 2 {
		t.Fatalf("remove with one empty place: code %d:\n%s", code, out)
	}
	if code, out = runCLI(t, "corpus", "remove"); code != 2 || !strings.Contains(out, "want at least one") {
		t.Fatalf("remove without a place: code %d:\n%s", code, out)
	}
	if code, out = runCLI(t, "corpus", "search", "garbage collector"); code != 0 || !strings.Contains(out, "Garbage collector") {
		t.Fatalf("a refused remove removed something: code %d:\n%s", code, out)
	}

	code, out = runCLI(t, "corpus", "remove", godoc)
	if code != 0 || !strings.Contains(out, "removed 2 pages from") || !strings.Contains(out, "2 documents in the corpus") || !strings.Contains(out, "removed 2 documents from Meilisearch") {
		t.Fatalf("remove: code %d:\n%s", code, out)
	}
	if inMirror(filepath.Join(godoc, "gc.md")) {
		t.Fatal("the removed page is still in the Meilisearch mirror")
	}
	if code, out = runCLI(t, "corpus", "search", "garbage collector"); code != 0 || strings.Contains(out, "Garbage collector") {
		t.Fatalf("the removed page is still searched: code %d:\n%s", code, out)
	}
	if code, out = runCLI(t, "corpus", "stats"); code != 0 || strings.Contains(out, godoc) || !strings.Contains(out, "     2  "+mine+"\n") || strings.Contains(out, "corpus remove") {
		t.Fatalf("stats after remove: code %d:\n%s", code, out)
	}

	// a deleted file's page goes when its directory is indexed again
	if err := os.Remove(filepath.Join(mine, "locks.md")); err != nil {
		t.Fatal(err)
	}
	code, out = runCLI(t, "corpus", "index", mine)
	if code != 0 || !strings.Contains(out, "1 unchanged, 0 skipped, 1 removed (their files are gone); 1 documents in the corpus") || !strings.Contains(out, "removed 1 documents from Meilisearch") {
		t.Fatalf("index again: code %d:\n%s", code, out)
	}
	if inMirror(filepath.Join(mine, "locks.md")) || !inMirror(filepath.Join(mine, "wal.md")) {
		t.Fatal("the mirror does not follow the prune")
	}
	if code, out = runCLI(t, "corpus", "search", "reserved lock"); code != 0 || strings.Contains(out, "Locking") {
		t.Fatalf("the deleted file is still searched: code %d:\n%s", code, out)
	}

	// a place with none of its files left (an unmounted disk) keeps its pages, and says how to
	// delete them
	if err := os.Remove(filepath.Join(mine, "wal.md")); err != nil {
		t.Fatal(err)
	}
	code, out = runCLI(t, "corpus", "index", mine)
	if code != 0 || !strings.Contains(out, "warning: "+mine+": none of its indexed files is on disk: its 1 page is kept, not pruned; to delete them: starter corpus remove "+mine) ||
		!strings.Contains(out, "0 skipped; 1 documents in the corpus") {
		t.Fatalf("index of an emptied place: code %d:\n%s", code, out)
	}
	if code, out = runCLI(t, "corpus", "search", "checkpoints"); code != 0 || !strings.Contains(out, "Write-ahead log") {
		t.Fatalf("the emptied place's page was pruned: code %d:\n%s", code, out)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/share/doc/sqlite3": "/usr/share/doc/sqlite3",
		"/mnt/My Docs":           "'/mnt/My Docs'",
		"/mnt/it's":              `'/mnt/it'\''s'`,
		"/mnt/$HOME":             "'/mnt/$HOME'",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
