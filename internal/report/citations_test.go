package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSanitizeCitations(t *testing.T) {
	upTo5 := func(n int) bool { return n >= 1 && n <= 5 }
	tests := []struct {
		name    string
		in      string
		want    string
		removed int
	}{
		{"valid single kept", "Fact [3].", "Fact [3].", 0},
		{"invalid single dropped before period", "Fact [9].", "Fact.", 1},
		{"invalid single mid sentence", "Fact [9] and more.", "Fact and more.", 1},
		{"invalid at line start", "[9] Fact.", "Fact.", 1},
		{"invalid after list marker", "- [9] Fact.", "- Fact.", 1},
		{"no space before marker", "Fact.[9] Next.", "Fact. Next.", 1},
		{"zero is not a source", "Zero [0].", "Zero.", 1},
		{"list all valid untouched", "See [1, 3].", "See [1, 3].", 0},
		{"list partly valid rewritten", "See [1, 7].", "See [1].", 1},
		{"list with semicolons", "See [2; 8; 4].", "See [2, 4].", 1},
		{"list all invalid dropped", "See [7, 8].", "See.", 2},
		{"adjacent groups", "Fact [1][9].", "Fact [1].", 1},
		{"adjacent groups invalid first", "Fact [9][1].", "Fact [1].", 1},
		{"range valid untouched", "Range [2-4].", "Range [2-4].", 0},
		{"range partly valid", "Range [4-7].", "Range [4, 5].", 2},
		{"range en dash", "Range [3–9].", "Range [3-5].", 4},
		{"range descending", "Range [6-4].", "Range [4, 5].", 1},
		{"range compresses runs", "R [1-3, 9].", "R [1-3].", 1},
		{"huge range is not a citation", "R [1-9999].", "R [1-9999].", 0},
		{"spaces inside", "Fact [ 2 ].", "Fact [ 2 ].", 0},
		{"multiple per line", "A [1]. B [6]. C [2, 6].", "A [1]. B. C [2].", 2},
		{"markdown link untouched", "See [3](https://x.io/a(b)) and [text](http://y).", "See [3](https://x.io/a(b)) and [text](http://y).", 0},
		{"link with numeric text untouched", "[12](https://x.io)", "[12](https://x.io)", 0},
		{"image untouched", "![9](chart.png)", "![9](chart.png)", 0},
		{"checkboxes untouched", "- [ ] todo\n- [x] done [9]", "- [ ] todo\n- [x] done", 1},
		{"inline code untouched", "Use `arr[9]` and ``x[7]`` here [9].", "Use `arr[9]` and ``x[7]`` here.", 1},
		{"unclosed backtick is literal", "a ` b [9]", "a ` b", 1},
		{"fenced code untouched", "Text [9]\n```go\nx := a[9]\n[8]\n```\nAfter [7].", "Text\n```go\nx := a[9]\n[8]\n```\nAfter.", 2},
		{"tilde fence and longer closer", "~~~~\n[9]\n~~~\n[9]\n~~~~\n[9]", "~~~~\n[9]\n~~~\n[9]\n~~~~\n", 1},
		{"escaped brackets untouched", `Literal \[9\] stays.`, `Literal \[9\] stays.`, 0},
		{"reference definition untouched", "Text [a][9].\n[9]: https://x.io", "Text [a][9].\n[9]: https://x.io", 0},
		{"footnote syntax untouched", "Note[^9].", "Note[^9].", 0},
		{"non numeric untouched", "An [aside] and [v1.2] and [2024a].", "An [aside] and [v1.2] and [2024a].", 0},
		{"nested citation in brackets", "(see [9])", "(see)", 1},
		{"crlf lines", "A [9].\r\nB [1].\r\n", "A.\r\nB [1].\r\n", 1},
		{"empty", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, removed := SanitizeCitations(tt.in, upTo5)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.removed, removed)
		})
	}
}

func TestSanitizeCitationsIsIdempotent(t *testing.T) {
	in := "A [1, 9]. B [2-8][3]. `c[4]` [7]"
	valid := func(n int) bool { return n%2 == 1 && n < 6 }
	once, r1 := SanitizeCitations(in, valid)
	twice, r2 := SanitizeCitations(once, valid)
	assert.Equal(t, once, twice)
	assert.Equal(t, 0, r2)
	assert.Equal(t, "A [1]. B [3, 5][3]. `c[4]`", once)
	assert.Equal(t, 1+5+1, r1)
}

func TestFormatCitation(t *testing.T) {
	assert.Equal(t, "1-4, 6", formatCitation([]int{1, 2, 3, 4, 6}))
	assert.Equal(t, "1, 2", formatCitation([]int{1, 2, 2}))
	assert.Equal(t, "5, 1", formatCitation([]int{5, 1}))
}
