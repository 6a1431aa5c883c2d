package corpus

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReindexRemovesPagesWhoseFilesAreGone: indexing a directory again removes the pages of its
// deleted files (they are no longer found, and cached searches of the old corpus are not
// reused), and nothing else: not the pages of another directory, not those of a sibling whose
// name starts the same, not a page whose file still exists but is hidden from the walk.
func TestReindexRemovesPagesWhoseFilesAreGone(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	docs, sibling := filepath.Join(root, "docs"), filepath.Join(root, "docs2")
	writeFiles(t, docs, sampleFiles)
	writeFiles(t, sibling, map[string]string{"pulsars.txt": "Pulsars spin fast.\n"})
	x := openTemp(t)
	_, err := x.IndexPaths(ctx, []string{docs, sibling, filepath.Join(docs, ".hidden", "secret.md")}, IndexOptions{})
	require.NoError(t, err)
	before, err := x.Version(ctx)
	require.NoError(t, err)

	require.NoError(t, os.Remove(filepath.Join(docs, "plain.txt")))
	require.NoError(t, os.RemoveAll(filepath.Join(docs, "sub")))
	st, err := x.IndexPaths(ctx, []string{docs}, IndexOptions{})
	require.NoError(t, err)
	require.Equal(t, IndexStats{Unchanged: 3, Skipped: 2, Removed: []string{
		fileURL(filepath.Join(docs, "plain.txt")), fileURL(filepath.Join(docs, "sub", "deep", "deep.txt")),
	}}, st)
	after, err := x.Version(ctx)
	require.NoError(t, err)
	require.NotEqual(t, before, after, "a removal is a new generation: cached searches are not reused")
	for q, want := range map[string]int{"goroutines": 0, "scheduler": 0, "pulsars": 1, "hiddensecret": 1, "escape analysis": 1} {
		res, err := x.Search(ctx, q, 5)
		require.NoError(t, err)
		require.Len(t, res, want, q)
	}
	n, err := x.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, 5, n) // page.html, notes.md, front.md, the hidden note, pulsars

	// an unchanged directory removes nothing and keeps the generation
	st, err = x.IndexPaths(ctx, []string{docs}, IndexOptions{})
	require.NoError(t, err)
	require.Empty(t, st.Removed)
	again, err := x.Version(ctx)
	require.NoError(t, err)
	require.Equal(t, after, again)
}

// TestReindexKeepsAPlaceEmptyOnDisk: a directory that holds none of its pages' files any more
// (an unmounted disk reads so) keeps its pages, with a warning naming it, while another
// directory of the same run is pruned as usual; once a file is back, the others prune again.
func TestReindexKeepsAPlaceEmptyOnDisk(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mnt, docs := filepath.Join(root, "mnt"), filepath.Join(root, "docs")
	writeFiles(t, mnt, map[string]string{"a.txt": "Alpha notes.\n", "sub/b.txt": "Beta notes.\n"})
	writeFiles(t, docs, map[string]string{"c.txt": "Gamma notes.\n", "d.txt": "Delta notes.\n"})
	x := openTemp(t)
	_, err := x.IndexPaths(ctx, []string{mnt, docs}, IndexOptions{})
	require.NoError(t, err)

	require.NoError(t, os.RemoveAll(mnt))
	require.NoError(t, os.MkdirAll(mnt, 0o755)) // the mount point, empty
	require.NoError(t, os.Remove(filepath.Join(docs, "d.txt")))
	var warned []string
	st, err := x.IndexPaths(ctx, []string{mnt, docs}, IndexOptions{Warn: func(p string, err error) {
		if errors.Is(err, ErrPlaceEmpty) {
			warned = append(warned, p+": "+err.Error())
		}
	}})
	require.NoError(t, err)
	require.Equal(t, []string{fileURL(filepath.Join(docs, "d.txt"))}, st.Removed)
	require.Len(t, warned, 1)
	real, err := filepath.EvalSymlinks(mnt)
	require.NoError(t, err)
	require.Equal(t, real+": none of its indexed files is on disk: its 2 pages are kept, not pruned", warned[0])
	n, err := x.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, n) // a.txt and b.txt kept, c.txt

	writeFiles(t, mnt, map[string]string{"a.txt": "Alpha notes.\n"})
	st, err = x.IndexPaths(ctx, []string{mnt}, IndexOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{fileURL(filepath.Join(mnt, "sub", "b.txt"))}, st.Removed)
}

// TestUnderAndRemovePages: a location names the pages of a file, of a directory and below
// (not of a sibling sharing its name's start), of a deleted directory, of a symlink to a
// directory, or of a site's URL prefix; removing them is one new generation.
func TestUnderAndRemovePages(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	docs, sibling := filepath.Join(root, "docs"), filepath.Join(root, "docs2")
	writeFiles(t, docs, map[string]string{"a.txt": "Alpha notes.\n", "sub/b.txt": "Beta notes.\n"})
	writeFiles(t, sibling, map[string]string{"c.txt": "Gamma notes.\n"})
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(docs, link))
	x := openTemp(t)
	_, err := x.IndexPaths(ctx, []string{docs, sibling}, IndexOptions{})
	require.NoError(t, err)
	for _, u := range []string{"https://example.com/guide/x", "https://example.com/guide/y", "https://example.com/guidebook", "https://other.org/"} {
		require.NoError(t, x.Add(ctx, Document{URL: u, Title: u, Body: "Delta notes."}))
	}
	a, b, c := fileURL(filepath.Join(docs, "a.txt")), fileURL(filepath.Join(docs, "sub", "b.txt")), fileURL(filepath.Join(sibling, "c.txt"))
	for loc, want := range map[string][]string{
		docs:                              {a, b},
		docs + "/":                        {a, b},
		link:                              {a, b},
		filepath.Join(docs, "a.txt"):      {a},
		a + "#section":                    {a}, // a passage's URL, as a report cites it
		fileURL(docs):                     {a, b},
		filepath.Join(docs, "sub"):        {b},
		sibling:                           {c},
		filepath.Join(root, "nothing"):    nil,
		"https://example.com/guide":       {"https://example.com/guide/x", "https://example.com/guide/y"},
		"https://example.com/guide/":      {"https://example.com/guide/x", "https://example.com/guide/y"},
		"https://example.com/guide/x":     {"https://example.com/guide/x"},
		"https://example.com/guide/x#top": {"https://example.com/guide/x"},
		"https://example.com":             {"https://example.com/guide/x", "https://example.com/guide/y", "https://example.com/guidebook"},
		"https://example.com/guide/x/y/z": nil,
	} {
		got, err := x.Under(ctx, loc)
		require.NoError(t, err)
		require.Equal(t, want, got, loc)
	}

	// a directory deleted from disk is still named by its path
	require.NoError(t, os.RemoveAll(docs))
	got, err := x.Under(ctx, docs)
	require.NoError(t, err)
	require.Equal(t, []string{a, b}, got)

	before, err := x.Version(ctx)
	require.NoError(t, err)
	n, err := x.RemovePages(ctx, append(got, "https://not.stored/"))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	after, err := x.Version(ctx)
	require.NoError(t, err)
	require.NotEqual(t, before, after)
	res, err := x.Search(ctx, "alpha", 5)
	require.NoError(t, err)
	require.Empty(t, res)
	left, err := x.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, 5, left)

	// removing what is not stored changes nothing
	n, err = x.RemovePages(ctx, []string{a, b})
	require.NoError(t, err)
	require.Zero(t, n)
	same, err := x.Version(ctx)
	require.NoError(t, err)
	require.Equal(t, after, same)
}

// TestLocations: local pages are grouped under the highest directory holding any of them
// directly, fetched pages by site, most pages first.
func TestLocations(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go/doc/a.txt":       "One.\n",
		"go/doc/b.txt":       "Two.\n",
		"go/doc/deep/c.txt":  "Three.\n",
		"go/doc/deep/d/e.md": "# Four\n\nFour.\n",
		"mine/x/f.txt":       "Five.\n",
		"mine/y/g.txt":       "Six.\n",
	})
	x := openTemp(t)
	_, err := x.IndexPaths(ctx, []string{root}, IndexOptions{})
	require.NoError(t, err)
	for _, u := range []string{"https://example.com/a", "https://example.com/b/c", "http://other.org/"} {
		require.NoError(t, x.Add(ctx, Document{URL: u, Title: u, Body: "Web."}))
	}
	got, err := x.Locations(ctx)
	require.NoError(t, err)
	require.Equal(t, []Location{
		{Where: filepath.Join(root, "go", "doc"), Pages: 4},
		{Where: "https://example.com", Pages: 2},
		{Where: filepath.Join(root, "mine", "x"), Pages: 1}, // ties in name order
		{Where: filepath.Join(root, "mine", "y"), Pages: 1},
		{Where: "http://other.org", Pages: 1},
	}, got)

	empty := openTemp(t)
	got, err = empty.Locations(ctx)
	require.NoError(t, err)
	require.Empty(t, got)
}
