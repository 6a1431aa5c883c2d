package corpus

import (
	"slices"
	"testing"
	"unicode"

	"github.com/sated-dev/sated/internal/text"
)

// referenceWords is the tokenizer's view of s written the plain way: every maximal run of
// letters and digits, rune by rune.
func referenceWords(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s + " " {
		word := unicode.IsLetter(r) || unicode.IsNumber(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	return out
}

// The word scanner behind ranking and snippets finds exactly the tokenizer's words (ASCII,
// other scripts, digits, invalid UTF-8, a word at the very end), and with first bytes given it
// skips only words that cannot stem to a query's stem.
func TestScanWords(t *testing.T) {
	for _, s := range []string{
		"", "x", "  Garbage-collector pacing, GOGC=100 and 2ms.", "naïve café Ärger Über",
		"Привет Мир ПРОВЕРКА", "bad \xff\xfe bytes\xffin\x80words", "tail", "中文 文本 ok", "x86_64 go1.21",
	} {
		var got [][2]int
		eachWord(s, func(a, b int) { got = append(got, [2]int{a, b}) })
		if want := referenceWords(s); !slices.Equal(got, want) {
			t.Errorf("eachWord(%q) = %v, want %v", s, got, want)
		}
	}
	s := "Pacing: the pacer paces GC. Other words. Проверка"
	first := newFirstBytes([]string{text.Stem("pacing"), text.Stem("gc")})
	var got []string
	scanWords(s, first, func(a, b int) { got = append(got, s[a:b]) })
	want := []string{"Pacing", "pacer", "paces", "GC", "Проверка"} // a multi-byte first letter is never skipped
	if !slices.Equal(got, want) {
		t.Errorf("scanWords with first bytes = %q, want %q", got, want)
	}
}
