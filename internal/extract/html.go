// Package extract turns fetched pages into clean Markdown and plain text, and splits text into
// sentences and words for the novelty and report code.
package extract

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page is the readable part of an HTML document.
type Page struct {
	Title    string
	Markdown string
}

// dropped are page chrome and active content that carry no prose worth reading.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Nav: true,
	atom.Footer: true, atom.Header: true, atom.Aside: true, atom.Form: true,
	atom.Iframe: true, atom.Template: true, atom.Svg: true, atom.Button: true,
}

// conv is shared: the converter guards its own state, and building it per page is waste.
var conv = sync.OnceValue(func() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
	))
})

// HTMLToMarkdown converts a page to Markdown without its chrome; pageURL (optional) makes
// relative links absolute.
func HTMLToMarkdown(page []byte, pageURL string) (Page, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return Page{}, fmt.Errorf("extract: parse html: %w", err)
	}
	title := collapse(textOf(find(doc, atom.Title)))
	if title == "" {
		title = collapse(textOf(find(doc, atom.H1)))
	}
	prune(doc)
	var opts []converter.ConvertOptionFunc
	if pageURL != "" {
		opts = append(opts, converter.WithDomain(pageURL))
	}
	md, err := conv().ConvertNode(doc, opts...)
	if err != nil {
		return Page{}, fmt.Errorf("extract: convert html: %w", err)
	}
	return Page{Title: title, Markdown: strings.TrimSpace(string(md))}, nil
}

// prune removes dropped elements and anything marked hidden.
func prune(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && (dropped[c.DataAtom] || hidden(c)) {
			n.RemoveChild(c)
		} else {
			prune(c)
		}
		c = next
	}
}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch {
		case a.Key == "hidden", a.Key == "aria-hidden" && a.Val == "true":
			return true
		case a.Key == "role" && (a.Val == "navigation" || a.Val == "banner" || a.Val == "contentinfo"):
			return true
		}
	}
	return false
}

func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
