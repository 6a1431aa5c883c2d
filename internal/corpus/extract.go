package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// errBinary marks input that is not text.
var errBinary = errors.New("binary or not valid UTF-8")

// errEmpty marks input with no text once extracted.
var errEmpty = errors.New("no text")

// formatOf picks a format from a file name or URL path.
func formatOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm", ".xhtml":
		return FormatHTML
	case ".md", ".markdown":
		return FormatMarkdown
	}
	return FormatText
}

// extract turns raw bytes of the given format into a title and clean body; name titles
// documents that carry none of their own.
func extract(raw []byte, format, name string) (title, body string, err error) {
	if bytes.IndexByte(raw, 0) >= 0 || !utf8.Valid(raw) {
		return "", "", errBinary
	}
	switch format {
	case FormatHTML:
		title, body, err = extractHTML(raw)
	case FormatMarkdown:
		title, body = extractMarkdown(string(raw))
	default:
		body = strings.TrimSpace(string(raw))
	}
	if err != nil {
		return "", "", err
	}
	if strings.TrimSpace(body) == "" {
		return "", "", errEmpty
	}
	if title == "" {
		title = name
	}
	return title, body, nil
}

var (
	frontMatter  = regexp.MustCompile(`(?s)\A---\r?\n(.*?)\r?\n---\r?\n`)
	fmTitle      = regexp.MustCompile(`(?m)^title:\s*["']?(.*?)["']?\s*$`)
	markdownH1   = regexp.MustCompile(`(?m)^#[ \t]+(.+?)[ \t#]*$`)
	blankLines   = regexp.MustCompile(`\n{3,}`)
	trailingWhit = regexp.MustCompile(`[ \t]+\n`)
)

// extractMarkdown keeps the Markdown as the body; the title comes from front matter or the
// first level-one heading.
func extractMarkdown(s string) (title, body string) {
	if m := frontMatter.FindStringSubmatchIndex(s); m != nil {
		if t := fmTitle.FindStringSubmatch(s[m[2]:m[3]]); t != nil {
			title = t[1]
		}
		s = s[m[1]:]
	}
	if title == "" {
		if m := markdownH1.FindStringSubmatch(s); m != nil {
			title = m[1]
		}
	}
	return strings.TrimSpace(title), strings.TrimSpace(s)
}

// skipped elements hold no visible reading text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Nav: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Head: true, atom.Iframe: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Ul: true, atom.Ol: true,
	atom.Li: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Table: true, atom.Tr: true,
	atom.Blockquote: true, atom.Pre: true, atom.Figure: true, atom.Figcaption: true,
	atom.Hr: true, atom.Form: true, atom.Fieldset: true, atom.Address: true, atom.Details: true,
	atom.Summary: true,
}

// extractHTML returns the page title and its visible text as Markdown-ish plain text.
func extractHTML(raw []byte) (title, body string, err error) {
	root, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return "", "", err
	}
	var h1, meta string
	for n := range root.Descendants() {
		if n.Type == html.CommentNode && meta == "" {
			meta = metaTitle(n.Data)
		}
		if n.Type != html.ElementNode || n.Namespace != "" {
			continue
		}
		if n.DataAtom == atom.Title && title == "" {
			title = collapse(textOf(n))
		}
		if n.DataAtom == atom.H1 && h1 == "" {
			h1 = collapse(textOf(n))
		}
	}
	for _, t := range []string{meta, h1} {
		if title == "" {
			title = t
		}
	}
	var w htmlText
	w.walk(root, false)
	out := trailingWhit.ReplaceAllString(w.b.String(), "\n")
	return title, strings.TrimSpace(blankLines.ReplaceAllString(out, "\n\n")), nil
}

// metaTitle reads the title from a JSON metadata comment, as Go's own docs open with
// (<!--{"Title": "The Go Memory Model"}-->).
func metaTitle(comment string) string {
	var m struct{ Title string }
	if c := strings.TrimSpace(comment); strings.HasPrefix(c, "{") && json.Unmarshal([]byte(c), &m) == nil {
		return collapse(m.Title)
	}
	return ""
}

// htmlText accumulates visible text, collapsing whitespace outside <pre>.
type htmlText struct{ b strings.Builder }

func (w *htmlText) walk(n *html.Node, pre bool) {
	switch n.Type {
	case html.TextNode:
		if pre {
			w.b.WriteString(n.Data)
			return
		}
		s := collapse(n.Data)
		if s == "" {
			if n.Data != "" && !w.atLineStart() {
				w.b.WriteByte(' ')
			}
			return
		}
		if isSpace(n.Data[0]) && !w.atLineStart() {
			w.b.WriteByte(' ')
		}
		w.b.WriteString(s)
		if isSpace(n.Data[len(n.Data)-1]) {
			w.b.WriteByte(' ')
		}
		return
	case html.ElementNode:
		if skipped[n.DataAtom] {
			return
		}
		if n.DataAtom == atom.Br {
			w.b.WriteByte('\n')
			return
		}
		level, heading := headingLevel[n.DataAtom]
		block := heading || blocks[n.DataAtom]
		if block {
			w.b.WriteString("\n\n")
		}
		if heading {
			w.b.WriteString(strings.Repeat("#", level) + " ")
		}
		if n.DataAtom == atom.Li {
			w.b.WriteString("- ")
		}
		pre = pre || n.DataAtom == atom.Pre
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, pre)
		}
		if block {
			w.b.WriteString("\n\n")
		} else if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			w.b.WriteByte(' ')
		}
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, pre)
	}
}

func (w *htmlText) atLineStart() bool {
	s := w.b.String()
	return s == "" || s[len(s)-1] == '\n' || s[len(s)-1] == ' '
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' }
