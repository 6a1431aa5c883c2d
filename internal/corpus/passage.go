package corpus

import (
	"slices"
	"strings"
)

// Passage sizes in words: sections smaller than minPassageWords join the next one, larger
// than maxPassageWords split at paragraph (then line, then word) boundaries.
const (
	minPassageWords = 80
	maxPassageWords = 400
)

// headingSep joins the headings of a passage's path.
const headingSep = " > "

// Passage is one searchable section of a page: a few hundred words under a heading path.
type Passage struct {
	// ID is PageID:Ordinal.
	ID     string `json:"id"`
	PageID string `json:"page_id"`
	// URL is the page's URL with the passage's anchor as fragment, when it has one.
	URL string `json:"url"`
	// Title is the page's title.
	Title string `json:"title"`
	// Heading is the path of headings below the page title ("Section > Subsection").
	Heading string `json:"heading,omitempty"`
	Anchor  string `json:"anchor,omitempty"`
	Text    string `json:"text"`
	// Ordinal is the passage's position in its page, from 0.
	Ordinal int `json:"ordinal"`
}

// Path is the passage's heading path from the page title down.
func (p Passage) Path() string {
	if p.Heading == "" {
		return p.Title
	}
	return p.Title + headingSep + p.Heading
}

// passage is a Passage as split, before it is stored; headings also holds the headings of
// sections merged into it, for the full-text index.
type passage struct {
	heading, headings, anchor, text string
	// ids are every anchor inside it: its own, those of the sections merged into it and of
	// the elements its paragraphs hold, so that a link to any of them leads to it
	ids []string
}

// withID adds an anchor to the passage's ids once.
func (p *passage) withID(ids ...string) {
	for _, id := range ids {
		if id != "" && !slices.Contains(p.ids, id) {
			p.ids = append(p.ids, id)
		}
	}
}

// paragraph is a block of section text with its word count and the ids marked inside it.
type paragraph struct {
	text  string
	words int
	ids   []string
}

// splitPassages cuts a page's sections into passages of roughly minPassageWords to
// maxPassageWords words, each with its heading path (below title) and anchor.
func splitPassages(title string, secs []section) []passage {
	var out []passage
	var cur *passage
	curWords, lastID := 0, ""
	var stack []section // open headings by level
	flush := func() {
		if cur != nil && strings.TrimSpace(cur.text) != "" {
			out = append(out, *cur)
		}
		cur, curWords = nil, 0
	}
	for _, s := range secs {
		if s.level > 0 {
			for len(stack) > 0 && stack[len(stack)-1].level >= s.level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, s)
		}
		path := headingPath(title, stack)
		paras := paragraphs(s.text)
		if len(paras) == 0 {
			continue // a heading with nothing under it lives on in its children's paths
		}
		if s.anchor != "" || s.level > 0 {
			lastID = s.anchor // a heading without an anchor: no earlier section's anchor either
		}
		if cur != nil && curWords < minPassageWords && s.level > 0 {
			// too small to stand alone: the section joins it, heading and all
			cur.headings += " " + s.heading
			cur.text += "\n\n" + strings.Repeat("#", s.level) + " " + s.heading
			cur.withID(s.anchor)
		} else {
			flush()
			cur = &passage{heading: path, headings: path, anchor: s.anchor}
			cur.withID(s.anchor)
		}
		for _, p := range paras {
			if cur != nil && curWords >= minPassageWords && curWords+p.words > maxPassageWords {
				flush()
			}
			if cur == nil {
				anchor := lastID
				if len(p.ids) > 0 {
					anchor = p.ids[0]
				}
				cur = &passage{heading: path, headings: path, anchor: anchor}
				cur.withID(anchor)
			}
			cur.withID(p.ids...)
			if cur.text != "" {
				cur.text += "\n\n"
			}
			cur.text += p.text
			curWords += p.words
			if len(p.ids) > 0 {
				lastID = p.ids[len(p.ids)-1]
			}
		}
	}
	if cur != nil && curWords < minPassageWords && len(out) > 0 && words(out[len(out)-1].text)+curWords <= maxPassageWords {
		// a small tail joins the passage before it
		prev := &out[len(out)-1]
		if cur.heading != prev.heading {
			prev.headings += " " + cur.headings
			prev.text += "\n\n## " + lastHeading(cur.heading)
		}
		prev.text += "\n\n" + cur.text
		prev.withID(cur.ids...)
		cur = nil
	}
	flush()
	return out
}

// headingPath joins the open headings, leaving out a top heading that repeats the title.
func headingPath(title string, stack []section) string {
	var hs []string
	for i, s := range stack {
		if i == 0 && sameTitle(s.heading, title) {
			continue
		}
		hs = append(hs, s.heading)
	}
	return strings.Join(hs, headingSep)
}

// sameTitle says whether a top heading repeats the page title, which often carries a site
// suffix ("sqlite3 — DB-API 2.0 interface" in "sqlite3 — DB-API 2.0 interface — Python 3.11
// documentation").
func sameTitle(heading, title string) bool {
	h, t := strings.ToLower(collapse(heading)), strings.ToLower(collapse(title))
	return h != "" && (h == t || strings.HasPrefix(t, h+" ") || strings.HasPrefix(h, t+" "))
}

func lastHeading(path string) string {
	if i := strings.LastIndex(path, headingSep); i >= 0 {
		return path[i+len(headingSep):]
	}
	return path
}

// paragraphs splits section text at blank lines into paragraphs of at most
// maxPassageWords words, cutting longer ones at line and then word boundaries.
func paragraphs(text string) []paragraph {
	var out []paragraph
	for _, raw := range strings.Split(text, "\n\n") {
		if strings.TrimSpace(stripMarkers(raw)) == "" {
			continue
		}
		for _, piece := range cutWords(raw, maxPassageWords) {
			p := paragraph{}
			for _, m := range idMarker.FindAllStringSubmatch(piece, -1) {
				p.ids = append(p.ids, m[1])
			}
			p.text = strings.Trim(stripMarkers(piece), "\n")
			p.words = words(p.text)
			if strings.TrimSpace(p.text) != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// cutWords cuts s into pieces of at most n words, at line boundaries where it can (code
// keeps its lines), else between words.
func cutWords(s string, n int) []string {
	if words(s) <= n {
		return []string{s}
	}
	var out []string
	var b strings.Builder
	count := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		lw := words(line)
		if count > 0 && count+lw > n {
			out = append(out, b.String())
			b.Reset()
			count = 0
		}
		if lw > n {
			fs := strings.Fields(line)
			for len(fs) > n {
				out = append(out, strings.Join(fs[:n], " "))
				fs = fs[n:]
			}
			line = strings.Join(fs, " ") + "\n"
			lw = len(fs)
		}
		b.WriteString(line)
		count += lw
	}
	if strings.TrimSpace(b.String()) != "" {
		out = append(out, b.String())
	}
	return out
}

func words(s string) int { return len(strings.Fields(s)) }
