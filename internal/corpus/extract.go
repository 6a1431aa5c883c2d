package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"regexp"
	"strings"
	"unicode"
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

// section is a heading and the text under it up to the next heading. Level 0 is the text
// before the first heading. The text may hold id markers (see idMarker) until it is split
// into passages.
type section struct {
	level   int
	heading string
	anchor  string
	text    string
}

// extracted is one input as the index stores it: the page's title and readable body, and
// the sections the body is split into passages by.
type extracted struct {
	title, body string
	sections    []section
	links       []link
}

// link is a cross-reference of a page's main content: where it points (as written; resolved
// against the page's URL when stored), its text, and the words just before that text in the
// block it sits in, by which the passage that makes the reference is told.
type link struct {
	href, label, lead string
}

// extract turns raw bytes of the given format into a title, a clean body and its sections;
// name titles documents that carry none of their own.
func extract(raw []byte, format, name string) (extracted, error) {
	if bytes.IndexByte(raw, 0) >= 0 || !utf8.Valid(raw) {
		return extracted{}, errBinary
	}
	var e extracted
	switch format {
	case FormatHTML:
		var err error
		if e, err = extractHTML(raw, mainContent); err != nil {
			return extracted{}, err
		}
	case FormatMarkdown:
		e.title, e.body = extractMarkdown(string(raw))
		e.sections = markdownSections(e.body)
	default:
		e.body = strings.TrimSpace(string(raw))
		e.sections = []section{{text: e.body}}
	}
	if strings.TrimSpace(e.body) == "" {
		return extracted{}, errEmpty
	}
	if e.title == "" {
		e.title = name
	}
	return e, nil
}

var (
	frontMatter  = regexp.MustCompile(`(?s)\A---\r?\n(.*?)\r?\n---\r?\n`)
	fmTitle      = regexp.MustCompile(`(?m)^title:\s*["']?(.*?)["']?\s*$`)
	markdownH1   = regexp.MustCompile(`(?m)^#[ \t]+(.+?)[ \t#]*$`)
	blankLines   = regexp.MustCompile(`\n{3,}`)
	trailingWhit = regexp.MustCompile(`[ \t]+\n`)
	atxHeading   = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	explicitID   = regexp.MustCompile(`[ \t]*\{#([^}\s]+)\}$`)
	codeFence    = regexp.MustCompile("^ {0,3}(```|~~~)")
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

// markdownSections splits Markdown (or the Markdown-ish body the HTML extractor renders) at
// its ATX headings, leaving fenced code alone; an explicit {#id} names the anchor, else the
// heading's slug does.
func markdownSections(s string) []section {
	var secs []section
	cur := section{}
	var b strings.Builder
	fence := ""
	flush := func() {
		cur.text = strings.TrimSpace(b.String())
		secs = append(secs, cur)
		b.Reset()
	}
	for _, line := range strings.Split(s, "\n") {
		if m := codeFence.FindStringSubmatch(line); m != nil {
			switch fence {
			case "":
				fence = m[1]
			case m[1]:
				fence = ""
			}
		} else if m := atxHeading.FindStringSubmatch(line); m != nil && fence == "" {
			flush()
			text, anchor := m[2], ""
			if id := explicitID.FindStringSubmatchIndex(text); id != nil {
				text, anchor = text[:id[0]], text[id[2]:id[3]]
			}
			cur = section{level: len(m[1]), heading: collapse(text), anchor: anchor}
			if cur.anchor == "" {
				cur.anchor = slug(cur.heading)
			}
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	flush()
	return secs
}

// slug is the GitHub-style anchor of a heading: lower-case letters and digits, spaces as
// hyphens, other punctuation dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// skipped elements hold no visible reading text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Nav: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Head: true, atom.Iframe: true,
	atom.Button: true, atom.Select: true, atom.Input: true, atom.Textarea: true,
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

// extractMode says how much of an HTML page counts as its content.
type extractMode int

const (
	// allText keeps every visible element but scripts, styles and <nav> (the extractor
	// before chrome removal, kept for the measurement below).
	allText extractMode = iota
	// mainContent also drops page chrome: landmark roles, chrome-named classes and ids,
	// link-dense lists and navigation-only lines.
	mainContent
)

// Chrome removal, measured (TestExtractionQuality, SATED_EXTRACT_EVAL=1) on the first 50
// pages of Debian's python3.11-doc (library/) and sqlite3-doc, and GOROOT/doc's 3 HTML pages
// (which have no chrome). "nav" is the share of the site's navigation, TOC, sidebar and
// footer lines (5065 and 1043 of them) left as lines of the text; "body" the share of the
// main text's sentences left:
//
//	                     python nav / body   sqlite nav / body   go body
//	tag list (allText)       0.73 / 1.00         1.00 / 1.00        1.00
//	rules (mainContent)      0.04 / 1.00         0.00 / 1.00        1.00
//	readability v2.1.3       0.02 / 0.99         0.04 / 1.00        1.00
//	readability + rules      0.02 / 0.98         0.00 / 1.00        1.00
//
// Readability is no better on these and drops some body text, so the index uses its rules.
// Since table rows and terms with their definitions are read as one paragraph each, the rules
// keep 0.00 of python's navigation (its "Navigation" table's rows are now checked whole),
// readability + rules 0.00, the body shares unchanged.
var chromeName = regexp.MustCompile(`(?i)(^|[\s_-])(nav|navbar|navigation|navheader|navfooter|toc|toctree|breadcrumbs?|footer|header|related|menu|mainmenu|submenu|searchmenu|sidebar|sphinxsidebar|sphinxsidebarwrapper|headerlink|skip-?link|pagination|pager|nosearch|tagline|logo|site-header|site-footer|cookie|banner)($|[\s_-])`)

// chromeRoles are ARIA landmarks that are never the main text.
var chromeRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true, "menu": true, "menubar": true,
}

// navWords are the words a navigation-only line is made of ("Prev Up Home Next").
var navWords = map[string]bool{
	"prev": true, "previous": true, "next": true, "up": true, "home": true, "index": true,
	"contents": true, "top": true, "toc": true, "modules": true, "table": true, "of": true,
	"back": true, "to": true, "page": true, "topic": true, "chapter": true, "section": true,
	"»": true, "«": true, "|": true, "←": true, "→": true, "↑": true, "·": true, "•": true,
}

// navOnly says whether a line is only navigation words (and has at least one that is not
// filler like "of").
func navOnly(s string) bool {
	words := strings.Fields(strings.ToLower(s))
	if len(words) == 0 || len(words) > 8 {
		return false
	}
	nav := false
	for _, w := range words {
		w = strings.Trim(w, ".:,;()[]-")
		if w == "" {
			continue
		}
		if !navWords[w] {
			return false
		}
		switch w {
		case "prev", "previous", "next", "up", "home", "index", "contents", "toc", "top":
			nav = true
		}
	}
	return nav
}

// isChrome says whether an element is page chrome rather than content.
func isChrome(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Footer, atom.Aside:
		return true
	case atom.Header:
		return !inside(n, atom.Article, atom.Main)
	case atom.Html, atom.Body, atom.Main, atom.Article, atom.Pre, atom.Code:
		return false
	}
	var names strings.Builder
	for _, a := range n.Attr {
		switch a.Key {
		case "role":
			if chromeRoles[strings.ToLower(a.Val)] {
				return true
			}
		case "class", "id":
			names.WriteString(a.Val)
			names.WriteByte(' ')
		}
	}
	return names.Len() > 0 && chromeName.MatchString(names.String())
}

func inside(n *html.Node, as ...atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		for _, a := range as {
			if p.DataAtom == a {
				return true
			}
		}
	}
	return false
}

// linkDense says whether a list, table or div is mostly link text (a table of contents,
// a link farm): at least 4 links holding 80% of its text, or a list or table of at least 20
// holding half (a back-of-book index: "abs, Mathematical Functions" entries, the term outside
// the link; a div is not held to that, as a chapter's div holds its table of contents beside
// its introduction), and no code.
func linkDense(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Div:
	default:
		return false
	}
	l := countLinks(n)
	return !l.code && l.chars > 0 && (l.links >= 4 && float64(l.linkChars) >= 0.8*float64(l.chars) ||
		n.DataAtom != atom.Div && l.links >= 20 && float64(l.linkChars) >= 0.5*float64(l.chars))
}

// languageSwitcher says whether a block lists the page in other languages ("Available
// Languages: en | fr | ja"): it has two links or more, all but one of them name their language
// (hreflang; the page's own language need not), and little text sits outside them.
func languageSwitcher(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Ul, atom.Ol, atom.Span:
	default:
		return false
	}
	l := countLinks(n)
	return l.links >= 2 && l.tagged >= 1 && l.tagged >= l.links-1 && l.chars-l.linkChars <= maxSwitcherText
}

// maxSwitcherText is how much text outside its links a language switcher may hold: a label
// and separators.
const maxSwitcherText = 40

// linkCount is what an element holds: links, those naming their language (hreflang), the
// characters of text inside links and in all, and whether it holds code (pre or code).
type linkCount struct {
	links, tagged, linkChars, chars int
	code                            bool
}

func countLinks(n *html.Node) linkCount {
	var l linkCount
	var walk func(c *html.Node, inLink bool)
	walk = func(c *html.Node, inLink bool) {
		switch {
		case c.Type == html.TextNode:
			k := len(strings.TrimSpace(c.Data))
			l.chars += k
			if inLink {
				l.linkChars += k
			}
		case c.Type == html.ElementNode && (c.DataAtom == atom.Pre || c.DataAtom == atom.Code):
			l.code = true
		case c.Type == html.ElementNode && c.DataAtom == atom.A && attr(c, "href") != "":
			l.links++
			inLink = true
			if attr(c, "hreflang") != "" {
				l.tagged++
			}
		}
		for d := c.FirstChild; d != nil; d = d.NextSibling {
			walk(d, inLink)
		}
	}
	walk(n, false)
	return l
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// extractHTML returns the page title, its text as Markdown-ish plain text and its sections.
func extractHTML(raw []byte, mode extractMode) (extracted, error) {
	root, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return extracted{}, err
	}
	title := htmlTitle(root)
	w := htmlText{mode: mode}
	w.walk(root, false)
	e := w.result(title)
	e.links = w.links
	return e, nil
}

// htmlTitle is the <title>, else a JSON metadata comment's title, else the first <h1>.
func htmlTitle(root *html.Node) string {
	var title, h1, meta string
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
	return title
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

// idMarker brackets an element id inside section text, so that passages split from the
// middle of a section can link to the nearest id before them. The markers are control
// characters no extracted text holds, and are removed before anything is stored.
const (
	markOpen  = "\x1e"
	markClose = "\x1f"
)

var idMarker = regexp.MustCompile(markOpen + `([^` + markClose + `]*)` + markClose)

// stripMarkers removes id markers from text.
func stripMarkers(s string) string {
	if !strings.Contains(s, markOpen) {
		return s
	}
	return idMarker.ReplaceAllString(s, "")
}

// htmlText accumulates visible text section by section, collapsing whitespace outside <pre>.
type htmlText struct {
	mode    extractMode
	secs    []section
	cur     section
	b       strings.Builder
	pending []string // ids met since the last text, for the next heading or text
	level   int      // the level of the last <h1>-<h6>: an <h _id> heading sits one below it
	cells   int      // how many table cells (<td>, <th>) the walk is inside
	// a term (<dt>) and its definition's first paragraph are one ("Record.GetFieldCount()
	// Return the number of fields of the record"): afterTerm is set when a <dt> closes, inDef
	// when the <dd> after it opens, and the blocks that open in it before its first text (the
	// <dd>'s <p>) run on from the term; text ends both
	afterTerm, inDef bool
	// afterMarker is set when a list item's "- " is written: the block that opens before its
	// first text (<li><p>) runs on from the marker, so the item reads "- the number of added
	// lines;", not a lone "-" and a paragraph after it
	afterMarker bool
	// admonitions and examples are how many admonition boxes (a note, tip or warning) and
	// example boxes the walk is inside: their headings are labels, not sections (boxLabel)
	admonitions, examples int
	// links are the main content's cross-references
	links []link
}

func (w *htmlText) result(title string) extracted {
	w.endSection()
	var body strings.Builder
	var secs []section
	for _, s := range w.secs {
		s.text = cleanText(s.text)
		if s.heading == "" && s.text == "" {
			continue
		}
		secs = append(secs, s)
		if s.heading != "" {
			body.WriteString(strings.Repeat("#", s.level) + " " + s.heading + "\n\n")
		}
		if t := stripMarkers(s.text); t != "" {
			body.WriteString(t + "\n\n")
		}
	}
	return extracted{title: title, body: strings.TrimSpace(body.String()), sections: secs}
}

// cleanText drops trailing blanks and runs of empty lines.
func cleanText(s string) string {
	s = trailingWhit.ReplaceAllString(s, "\n")
	return strings.TrimSpace(blankLines.ReplaceAllString(s, "\n\n"))
}

func (w *htmlText) endSection() {
	w.cur.text = w.b.String()
	w.secs = append(w.secs, w.cur)
	w.b.Reset()
}

// text writes visible text, first placing the ids met since the last text.
func (w *htmlText) text(s string) {
	w.afterTerm, w.inDef, w.afterMarker = false, false, false
	if len(w.pending) > 0 {
		for _, id := range w.pending {
			w.b.WriteString(markOpen + id + markClose)
		}
		w.pending = w.pending[:0]
	}
	w.b.WriteString(s)
}

func (w *htmlText) heading(n *html.Node, level int) {
	text, anchor := headingText(n)
	if text == "" {
		return
	}
	if anchor == "" && len(w.pending) > 0 {
		anchor = w.pending[0] // an enclosing <section id> or a preceding <a name>
	}
	w.pending = w.pending[:0]
	// a heading without an id of its own or before it has no anchor: a slug of its text
	// (Markdown's way) is no fragment of an HTML page, so a link to it would open the page's
	// top (1,027 of SQLite's manual's 3,265 passages, 366 of Apache's had such anchors)
	w.endSection()
	w.cur = section{level: level, heading: text, anchor: anchor}
}

// headingDecoration names the permalink marks documentation generators put inside headings
// (Sphinx's "headerlink" pilcrow, anchor.js and Docusaurus hash links).
var headingDecoration = regexp.MustCompile(`(?i)(^|[\s_-])(headerlink|anchorjs-link|hash-link|permalink|anchor-link)($|[\s_-])`)

// headingText is a heading's text without permalink decorations, and its own id or that of
// an anchor inside it.
func headingText(n *html.Node) (text, anchor string) {
	anchor = attr(n, "id")
	var b strings.Builder
	var walk func(c *html.Node)
	walk = func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			return
		}
		if c.Type == html.ElementNode {
			// only a permalink decoration is dropped: the page chrome's class names say
			// nothing inside a heading, where Sphinx's "toc-backref" link is the heading's
			// own text (the Python FAQ's 264 questions read as headings without it)
			if skipped[c.DataAtom] || headingDecoration.MatchString(attr(c, "class")) {
				return
			}
			if c.DataAtom == atom.A && anchor == "" {
				anchor = attr(c, "id")
				if anchor == "" {
					anchor = attr(c, "name")
				}
			}
		}
		for d := c.FirstChild; d != nil; d = d.NextSibling {
			walk(d)
		}
	}
	walk(n)
	return strings.TrimSpace(strings.TrimRight(collapse(b.String()), "¶#")), anchor
}

func (w *htmlText) walk(n *html.Node, pre bool) {
	switch n.Type {
	case html.TextNode:
		if pre {
			w.text(n.Data)
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
		w.text(s)
		if isSpace(n.Data[len(n.Data)-1]) {
			w.b.WriteByte(' ')
		}
		return
	case html.ElementNode:
		if skipped[n.DataAtom] {
			return
		}
		if w.mode == mainContent && !pre && (isChrome(n) || linkDense(n) || languageSwitcher(n)) {
			return
		}
		if n.DataAtom == atom.Br {
			w.b.WriteByte('\n')
			return
		}
		if n.DataAtom == atom.A && !pre {
			w.link(n)
		}
		if id := attr(n, "id"); id != "" {
			w.pending = append(w.pending, id)
		} else if n.DataAtom == atom.A && attr(n, "name") != "" {
			w.pending = append(w.pending, attr(n, "name"))
		}
		switch boxOf(n) {
		case admonitionBox:
			w.admonitions++
			defer func() { w.admonitions-- }()
		case exampleBox:
			w.examples++
			defer func() { w.examples-- }()
		}
		// an admonition's heading ("Note", "Tip", "Warning") labels its box: read as a section
		// heading it took the place of the section's own for the rest of the section (DocBook's
		// <div class="note"><h3 class="title">Note</h3>, PostgreSQL's manual: the wait-event
		// tables under "28.2.3. pg_stat_activity" were passages headed "Note"). It is a
		// paragraph of its own instead; so is an example box's short one (boxLabel)
		level, isHeading := headingLevel[n.DataAtom]
		label := isHeading && w.boxLabel(n)
		if isHeading && !pre && !label {
			w.level = level
			w.heading(n, level)
			return
		}
		if !pre && (isHiddenHeading(n) || w.anchoredBoldHeading(n)) {
			w.heading(n, min(6, max(w.level, 1)+1))
			return
		}
		block := blocks[n.DataAtom] || label && !pre
		// a table row is one paragraph: the paragraphs inside its cells ("<td><p>DEBUG</p>",
		// "<td><p>Detailed information...</p>") run on, so no cell reads as the next row's
		inCell := w.cells > 0 && n.DataAtom != atom.Pre && n.DataAtom != atom.Table && n.DataAtom != atom.Tr && !pre
		if inCell && block {
			block = false
			if !w.atLineStart() {
				w.b.WriteByte(' ')
			}
		}
		switch {
		case block && w.afterTerm && n.DataAtom == atom.Dd:
			w.afterTerm, w.inDef = false, true
		case block && (w.inDef || w.afterMarker) && n.DataAtom != atom.Pre && n.DataAtom != atom.Dt && n.DataAtom != atom.Li:
		case block:
			w.afterTerm, w.inDef, w.afterMarker = false, false, false
			w.b.WriteString("\n\n")
		}
		cell := n.DataAtom == atom.Td || n.DataAtom == atom.Th
		if cell {
			w.cells++
		}
		start, sections := w.b.Len(), len(w.secs)
		if n.DataAtom == atom.Li {
			w.b.WriteString("- ")
			w.afterMarker = true
		}
		inPre := pre || n.DataAtom == atom.Pre
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, inPre)
		}
		if cell {
			w.cells--
		}
		if w.mode == mainContent && !inPre && (block || n.DataAtom == atom.Tr) && len(w.secs) == sections && navOnly(stripMarkers(w.b.String()[start:])) {
			keep := w.b.String()[:start]
			w.b.Reset()
			w.b.WriteString(keep)
		}
		switch {
		case n.DataAtom == atom.Dt && !inCell && !pre:
			if !w.atLineStart() {
				w.b.WriteByte(' ')
			}
			w.afterTerm = true
		case block:
			w.afterTerm, w.inDef, w.afterMarker = false, false, false
			w.b.WriteString("\n\n")
		case (cell || inCell && blocks[n.DataAtom]) && !w.atLineStart():
			w.b.WriteByte(' ')
		}
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, pre)
	}
}

// admonitionClass names the boxes of asides to the text: DocBook's note, tip, warning, caution
// and important, Sphinx's and others' admonition and callout; exampleClass Apache's example
// boxes, whose heading is a label only when short ("Example", "Examples"), since other sites
// name whole example sections so.
var (
	admonitionClass = regexp.MustCompile(`(?i)(^|\s)(note|tip|warning|caution|important|admonition|callout)($|\s)`)
	exampleClass    = regexp.MustCompile(`(?i)(^|\s)example($|\s)`)
)

// box is what kind of aside an element boxes: none, an admonition or an example.
type box int

const (
	noBox box = iota
	admonitionBox
	exampleBox
)

func boxOf(n *html.Node) box {
	if n.DataAtom != atom.Div && n.DataAtom != atom.Section && n.DataAtom != atom.Blockquote {
		return noBox
	}
	switch class := attr(n, "class"); {
	case admonitionClass.MatchString(class):
		return admonitionBox
	case exampleClass.MatchString(class):
		return exampleBox
	}
	return noBox
}

// boxLabel reports a heading that labels the box the walk is in instead of opening a section:
// any heading of an admonition ("Note", "Warning: Cross-site scripting (XSS) safety"), an
// example box's of at most two words.
func (w *htmlText) boxLabel(n *html.Node) bool {
	switch {
	case w.admonitions > 0:
		return true
	case w.examples > 0:
		text, _ := headingText(n)
		return len(strings.Fields(text)) <= 2
	}
	return false
}

// anchoredBoldHeading reports a paragraph that is one bold phrase right after an anchor, a
// heading in all but its tag: SQLite's FAQ writes each of its 28 questions so (<a name="q19">
// </a><p><b>(19) INSERT is really slow</b></p>), and its compile-time options page each option.
// Read as text, the FAQ's answers ran on in passages headed "Frequently Asked Questions", the
// answer to one question quoted under another's. A bold lead-in of a paragraph with more text
// beside it, or one without an empty anchor just before it, stays text.
func (w *htmlText) anchoredBoldHeading(n *html.Node) bool {
	if n.DataAtom != atom.P || w.cells > 0 || w.admonitions > 0 || !afterEmptyAnchor(n) {
		return false
	}
	var bold *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.ElementNode && (c.DataAtom == atom.B || c.DataAtom == atom.Strong) && bold == nil:
			bold = c
		default:
			return false
		}
	}
	if bold == nil {
		return false
	}
	t := collapse(textOf(bold))
	return t != "" && len(t) <= maxBoldHeading
}

// afterEmptyAnchor says whether the element before n (past blank text) is an empty <a> with a
// name or id: a target placed for the element after it. An enclosing element's id does not
// count: DocBook's table captions (<div class="table" id=...><p class="title"><strong>) are no
// headings.
func afterEmptyAnchor(n *html.Node) bool {
	p := n.PrevSibling
	for p != nil && p.Type == html.TextNode && strings.TrimSpace(p.Data) == "" {
		p = p.PrevSibling
	}
	return p != nil && p.Type == html.ElementNode && p.DataAtom == atom.A && (attr(p, "name") != "" || attr(p, "id") != "") &&
		strings.TrimSpace(textOf(p)) == ""
}

// maxBoldHeading is the longest bold paragraph read as a heading (SQLite's longest FAQ question
// is 177 characters); a longer one is a bold paragraph of text.
const maxBoldHeading = 300

// isHiddenHeading reports SQLite's heading for a search index and a table of contents, hidden
// from view: <h _id=pragma_synchronous style="display:none"> PRAGMA synchronous</h> opens each
// of the 74 entries of "List Of PRAGMAs". Read as text, they ran on in long passages under that
// one heading, where a sentence about one pragma sat under the passage about another.
func isHiddenHeading(n *html.Node) bool {
	return n.DataAtom == 0 && n.Data == "h" && attr(n, "_id") != ""
}

func (w *htmlText) atLineStart() bool {
	s := w.b.String()
	return s == "" || s[len(s)-1] == '\n' || s[len(s)-1] == ' '
}

// leadWords is how many words before a link's text tell the passage that holds it.
const leadWords = 3

// link records a hyperlink to another document or section: its text, and the leadWords words
// written before it in its line (the walk is at the link's start). Taken from the text as
// written, not by looking the link's text up in its block, a link is told by its own words when
// the block names the same text earlier. Links within the page ("#top"), scripts and mail
// addresses are not cross-references.
func (w *htmlText) link(n *html.Node) {
	href := strings.TrimSpace(attr(n, "href"))
	if href == "" || strings.HasPrefix(href, "#") {
		return
	}
	if lower := strings.ToLower(href); strings.HasPrefix(lower, "javascript:") || strings.HasPrefix(lower, "mailto:") {
		return
	}
	label := collapse(textOf(n))
	if label == "" {
		return
	}
	before := w.b.String()
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	words := strings.Fields(stripMarkers(before))
	lead := strings.Join(words[max(0, len(words)-leadWords):], " ")
	w.links = append(w.links, link{href: href, label: label, lead: lead})
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
