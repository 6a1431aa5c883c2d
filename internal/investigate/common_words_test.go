package investigate

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// commonWordsSource is where common_words.txt comes from: the Python 3.11 documentation's HTML
// (Debian's python3.11-doc), a corpus of technical English that none of the question sets'
// answers are judged on by investigation mode.
const commonWordsSource = "/usr/share/doc/python3.11/html"

// commonWordsMinPages is how many of its pages must write a word in lower case for it to be
// common: at 10, "implementation", "restrictions", "manual", "backwards", "locking", "insert"
// are common, and no surname of the labelled claims or the tests is.
const commonWordsMinPages = 10

var (
	reScriptStyle = regexp.MustCompile(`(?is)<(script|style)[^>]*>.*?</(script|style)>`)
	reTag         = regexp.MustCompile(`(?s)<[^>]+>`)
)

// readCommonWords derives the list from the HTML under dir: every run of ASCII letters of two
// or more that starts in lower case, kept when at least min pages write it, sorted.
func readCommonWords(t *testing.T, dir string, min int) []string {
	pages := map[string]int{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := reTag.ReplaceAllString(reScriptStyle.ReplaceAllString(string(b), " "), " ")
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(html.UnescapeString(s), func(r rune) bool { return r < 'A' || r > 'z' || r > 'Z' && r < 'a' }) {
			if len(w) >= 2 && w[0] >= 'a' && !seen[w] {
				seen[w] = true
				pages[w]++
			}
		}
		return nil
	})
	require.NoError(t, err)
	var out []string
	for w, n := range pages {
		if n >= min {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// TestCommonWords checks the embedded list, and with SATED_REGEN_COMMON_WORDS=1 writes it again
// from commonWordsSource (the same list: the derivation is deterministic).
func TestCommonWords(t *testing.T) {
	if os.Getenv("SATED_REGEN_COMMON_WORDS") == "1" {
		words := readCommonWords(t, commonWordsSource, commonWordsMinPages)
		require.NoError(t, os.WriteFile("common_words.txt", []byte(strings.Join(words, "\n")+"\n"), 0o644))
		t.Logf("%d words from %s", len(words), commonWordsSource)
	}
	lines := strings.Split(strings.TrimSuffix(commonWordsText, "\n"), "\n")
	require.True(t, slices.IsSorted(lines), "sorted")
	require.Equal(t, len(lines), len(commonWords), "one word a line, once each")
	require.Greater(t, len(lines), 3000)
	for _, w := range lines {
		require.Regexp(t, `^[a-z][a-zA-Z]+$`, w)
	}
	for _, w := range []string{"implementation", "restrictions", "manual", "backwards", "compatibility", "locking", "insert", "select", "null"} {
		require.True(t, commonWords[w], w)
	}
	for _, w := range []string{"hipp", "pike", "smith", "lundh", "boehm", "hammond", "richard"} {
		require.False(t, commonWords[w], w)
	}
}
