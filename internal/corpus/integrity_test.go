package corpus

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// indexed is a closed corpus file holding enough pages to damage one in the middle.
func indexed(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "corpus.db")
	x, err := Open(p)
	require.NoError(t, err)
	for i := range 40 {
		body := strings.Repeat("The garbage collector runs concurrently with the mutator. ", 30)
		require.NoError(t, x.Add(context.Background(), Document{URL: "https://example.org/" + string(rune('a'+i%26)) + strings.Repeat("x", i), Title: "Page", Body: body}))
	}
	require.NoError(t, x.Close())
	return p
}

// A damaged, empty or foreign corpus file is refused on open, naming the file and the fix,
// instead of answering searches from whatever pages still read.
func TestOpenRefusesDamagedCorpus(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, p string)
		want   string
	}{
		{"zero bytes", func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, 0)) }, "is empty (0 bytes)"},
		{"not SQLite", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("this is not a sqlite database ", 200)), 0o644))
		}, "not a SQLite database"},
		{"damaged mid-file", func(t *testing.T, p string) {
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			require.NoError(t, err)
			fi, _ := f.Stat()
			require.Greater(t, fi.Size(), int64(20*4096))
			_, err = f.WriteAt([]byte(strings.Repeat("\xff", 8*4096)), fi.Size()/2/4096*4096)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, "failed its integrity check"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := indexed(t)
			c.damage(t, p)
			_, err := Open(p)
			require.Error(t, err)
			require.ErrorContains(t, err, p, "names the file")
			require.ErrorContains(t, err, c.want, "says what is wrong")
			require.ErrorContains(t, err, "starter corpus index", "says how to fix it")
		})
	}
}

// A corpus file that does not exist yet is a new corpus (the worker opens it before the first
// index run); a healthy one opens as before.
func TestOpenCreatesMissingAndKeepsHealthyCorpus(t *testing.T) {
	p := indexed(t)
	x, err := Open(p)
	require.NoError(t, err)
	n, err := x.Count(context.Background())
	require.NoError(t, err)
	require.Equal(t, 40, n)
	require.NoError(t, x.Close())
	x, err = Open(filepath.Join(t.TempDir(), "new", "corpus.db"))
	require.NoError(t, err)
	require.NoError(t, x.Close())
}
