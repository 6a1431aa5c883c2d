package workflows

import (
	"strings"
	"testing"
)

func TestUISummary(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, c := range []struct {
		prefix, what string
		limit        int
		want         string
	}{
		{"research: ", "How  does\n GOGC work?", 50, "research: How does GOGC work?"},
		{"p: ", "abcdefghij", 8, "p: abcd…"},
		{"", long, 10, "word word…"},
	} {
		if got := UISummary(c.prefix, c.what, c.limit); got != c.want {
			t.Errorf("UISummary(%q, %q, %d) = %q, want %q", c.prefix, c.what, c.limit, got, c.want)
		}
	}
}
