package extract

import (
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/text"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHTMLToMarkdown(t *testing.T) {
	tests := []struct {
		name     string
		html     string
		url      string
		title    string
		contains []string
		excludes []string
	}{
		{
			name: "drops chrome and keeps article",
			html: `<html><head><title> Saturation  in Search </title><style>.x{color:red}</style>
				<script>var tracking = "SECRET_SCRIPT";</script></head><body>
				<header>SITE_HEADER</header><nav><a href="/">NAV_LINK</a></nav>
				<main><h1>Heading One</h1><p>Search stops when <strong>novelty</strong> falls.</p>
				<aside>ASIDE_AD</aside><form><input name=q>FORM_TEXT</form>
				<noscript>NOSCRIPT_TEXT</noscript><iframe src="x">IFRAME</iframe>
				<div hidden>HIDDEN_DIV</div></main><footer>FOOTER_TEXT</footer></body></html>`,
			title:    "Saturation in Search",
			contains: []string{"# Heading One", "Search stops when **novelty** falls."},
			excludes: []string{"SECRET_SCRIPT", "color:red", "SITE_HEADER", "NAV_LINK", "ASIDE_AD", "FORM_TEXT", "NOSCRIPT_TEXT", "IFRAME", "HIDDEN_DIV", "FOOTER_TEXT"},
		},
		{
			name:     "title falls back to first h1, even inside a dropped header",
			html:     `<body><header><h1>Only <em>H1</em></h1></header><p>Body text here.</p><h1>Second</h1></body>`,
			title:    "Only H1",
			contains: []string{"Body text here."},
			excludes: []string{"Only"},
		},
		{
			name:     "relative links made absolute",
			html:     `<p>See <a href="/docs/a.html">the docs</a> and <img src="img/p.png" alt="pic"></p>`,
			url:      "https://example.com/blog/post",
			contains: []string{"[the docs](https://example.com/docs/a.html)", "![pic](https://example.com/blog/img/p.png)"},
		},
		{
			name:     "tables and lists survive",
			html:     `<ul><li>one</li><li>two</li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>`,
			contains: []string{"- one", "- two", "| k | v |", "| a | 1 |"},
		},
		{
			name: "empty document",
			html: ``,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := HTMLToMarkdown([]byte(tt.html), tt.url)
			require.NoError(t, err)
			assert.Equal(t, tt.title, p.Title)
			for _, c := range tt.contains {
				assert.Contains(t, p.Markdown, c)
			}
			for _, e := range tt.excludes {
				assert.NotContains(t, p.Markdown, e)
			}
		})
	}
}

func TestPlainText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"heading and emphasis", "# The *Title* #\n\nSome **bold** and _it_ text.", "The Title\n\nSome bold and it text."},
		{"links and images keep text", "See [the docs](https://x.io/a_(b)) and ![a chart](c.png).", "See the docs and a chart."},
		{"reference links and definitions", "Read [this][1].\n\n[1]: https://x.io", "Read this."},
		{"escaped characters stay literal", `5 \* 3 is \[not\] a \_link\_`, "5 * 3 is [not] a _link_"},
		{"escaped footnote link", `Fact.[\[3\]](#cite-3)`, "Fact.[3]"},
		{"lists and quotes", "- one\n* two\n3. three\n> quoted\n- [x] done", "one\ntwo\nthree\nquoted\ndone"},
		{"table", "| k | v |\n| --- | :-: |\n| a | 1 |", "k v\na 1"},
		{"code fences keep content", "Text.\n```go\nx := 1\n```\nAfter `inline_code`.", "Text.\nx := 1\nAfter inline_code."},
		{"snake_case kept", "use snake_case_names here", "use snake_case_names here"},
		{"html tags and autolinks", "a <br/> b <https://x.io> <span class=\"k\">c</span>", "a b https://x.io c"},
		{"rules and blank runs collapse", "a\n\n---\n\n\n\nb", "a\n\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, PlainText(tt.in))
		})
	}
}

func TestPlainTextThenSentencesOnConvertedPage(t *testing.T) {
	p, err := HTMLToMarkdown([]byte(`<article><h2>Results</h2><p>The gate stops after two flat rounds.
		It uses a threshold of 3.5 points.</p><ul><li>First bullet is a full sentence here.</li></ul>
		<pre><code>for i := 0; i < n; i++ {
	x++
}</code></pre></article>`), "")
	require.NoError(t, err)
	got := text.Sentences(PlainText(p.Markdown))
	for _, want := range []string{
		"The gate stops after two flat rounds.",
		"It uses a threshold of 3.5 points.",
		"First bullet is a full sentence here.",
	} {
		assert.Contains(t, got, want)
	}
}

func BenchmarkHTMLToMarkdown(b *testing.B) {
	page := []byte("<html><head><title>T</title></head><body><nav>n</nav>" +
		strings.Repeat("<p>Some <b>bold</b> text with a <a href='/x'>link</a>. Another sentence here.</p>", 2000) +
		"</body></html>")
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := HTMLToMarkdown(page, "https://example.com/"); err != nil {
			b.Fatal(err)
		}
	}
}

// Stripping Markdown must never change what a quote says: a star or underscore that is code,
// and brackets that index, stay.
func TestPlainTextKeepsCode(t *testing.T) {
	for in, want := range map[string]string{
		"a compiler must not reload i = *p here":       "a compiler must not reload i = *p here",
		"call __init__ and x * y * z":                  "call __init__ and x * y * z",
		"the *important* part and `code` stays":        "the important part and code stays",
		"see [the docs](https://example.org) for more": "see the docs for more",
		"then funcs[i]() runs":                         "then funcs[i]() runs",
	} {
		if got := PlainText(in); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", in, got, want)
		}
	}
}
