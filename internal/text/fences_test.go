package text

import (
	"slices"
	"testing"
)

func TestFencedLines(t *testing.T) {
	cases := []struct {
		name, md string
		want     []bool
	}{
		{"none", "a [1]\nb\n", []bool{false, false, false}},
		{"under a bullet", "- caption [1]\n  ```\n  x[1]\n  ```\nafter [2]", []bool{false, true, true, true, false}},
		{"a longer fence closes; a shorter one does not", "````\n```\nx\n````\ny", []bool{true, true, true, true, false}},
		{"tildes", "~~~\n```\n~~~\nz", []bool{true, true, true, false}},
		{"indented four spaces is no fence", "    ```\nx", []bool{false, false}},
		{"text after a closing run keeps it open", "```\n``` go\nx\n```\ny", []bool{true, true, true, true, false}},
		{"unclosed runs to the end", "```\nx\ny", []bool{true, true, true}},
	}
	for _, c := range cases {
		lines, got := FencedLines(c.md)
		if len(lines) != len(got) || !slices.Equal(got, c.want) {
			t.Errorf("%s: FencedLines(%q) = %v, want %v", c.name, c.md, got, c.want)
		}
	}
}
