package corpus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/sated-dev/sated/internal/search"
)

// Cross-references: documentation says where the rest of an answer is ("move some of the
// database files to other file systems by making use of tablespaces. See Section 23.6"), and
// the page it points to often uses none of the question's words. The index keeps each page's
// links (storedLink); References follows the ones a result's passage makes.

// storedLink is a link as the index keeps it: the linked page's URL without fragment, the
// fragment (the section linked to, when the link names one), and the link's text and the words
// before it, by which the passage that makes the reference is told.
type storedLink struct {
	target, fragment, label, lead string
}

// resolveLinks resolves a page's links against its URL. Links to the page itself, to other
// schemes than file and http(s), and repeats go.
func resolveLinks(pageURL string, links []link) []storedLink {
	if len(links) == 0 {
		return nil
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil
	}
	page := *base
	page.Fragment, page.RawFragment = "", ""
	self := page.String()
	seen := map[storedLink]bool{}
	var out []storedLink
	for _, l := range links {
		ref, err := url.Parse(l.href)
		if err != nil {
			continue
		}
		u := base.ResolveReference(ref)
		if u.Scheme != "file" && u.Scheme != "http" && u.Scheme != "https" {
			continue
		}
		s := storedLink{fragment: u.Fragment, label: l.label, lead: l.lead}
		u.Fragment, u.RawFragment = "", ""
		if s.target = u.String(); s.target == self || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

func insertLinks(ctx context.Context, tx *sql.Tx, src int64, links []storedLink) error {
	if len(links) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO links(src, target, fragment, label, lead) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, l := range links {
		if _, err := st.ExecContext(ctx, src, l.target, l.fragment, l.label, l.lead); err != nil {
			return err
		}
	}
	return nil
}

// References implements search.Referencer: for each passage id in order, up to per passages
// it links to, not among ids and once each. A link belongs to a passage when the passage holds
// its text with the words before it; it leads to the linked page's passage whose anchor is the
// link's fragment, or to the page's first passage. Links to pages the corpus does not hold lead
// nowhere. Ids that are not passages of this corpus are skipped.
func (x *Index) References(ctx context.Context, query string, ids []string, per int) ([]search.Result, error) {
	if per < 1 {
		return nil, nil
	}
	terms, err := queryTerms(query)
	if err != nil {
		terms = nil // a query with no words still has references; the snippets start at the top
	}
	have := make(map[string]bool, len(ids))
	for _, id := range ids {
		have[id] = true
	}
	var out []search.Result
	links := map[string][]pageLink{} // each page's links, read once: results are often passages of one page
	for _, id := range ids {
		p, err := x.Passage(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("corpus %s: references of %s: %w", x.path, id, err)
		}
		targets, err := x.referenced(ctx, p, links)
		if err != nil {
			return out, fmt.Errorf("corpus %s: references of %s: %w", x.path, id, err)
		}
		n := 0
		for _, t := range targets {
			if n == per {
				break
			}
			if have[t] {
				continue
			}
			q, err := x.Passage(ctx, t)
			if err != nil {
				continue // removed since: not a reference any more
			}
			have[t] = true
			n++
			out = append(out, search.Result{
				URL: q.URL, Title: resultTitle(q.Title, q.Heading), Provider: "corpus", DocID: q.ID,
				Snippet: snippet(q.Text, terms, search.MaxSnippetChars),
			})
		}
	}
	return out, nil
}

// pageLink is one link of a page as References reads it: its text, the words before it, and
// the passage it leads to.
type pageLink struct {
	label, lead, target string
}

// pageLinks lists a page's links in link order, each with the passage id it leads to.
func (x *Index) pageLinks(ctx context.Context, pageID string) ([]pageLink, error) {
	rows, err := x.db.QueryContext(ctx, `
		SELECT l.label, l.lead, t.id,
			coalesce((SELECT min(q.ordinal) FROM passage_ids q WHERE q.page = t.rowid AND q.id = l.fragment AND l.fragment != ''), 0)
		FROM docs s JOIN links l ON l.src = s.rowid JOIN docs t ON t.url = l.target
		WHERE s.id = ? ORDER BY l.rowid`, pageID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pageLink
	for rows.Next() {
		var l pageLink
		var page string
		var ordinal int
		if err := rows.Scan(&l.label, &l.lead, &page, &ordinal); err != nil {
			return nil, err
		}
		l.target = PassageID(page, ordinal)
		out = append(out, l)
	}
	return out, rows.Err()
}

// referenced lists the passage ids p's links lead to, in the page's link order: the page's
// links (read once per page, links) that p's text holds with the words before them.
func (x *Index) referenced(ctx context.Context, p Passage, links map[string][]pageLink) ([]string, error) {
	ls, ok := links[p.PageID]
	if !ok {
		var err error
		if ls, err = x.pageLinks(ctx, p.PageID); err != nil {
			return nil, err
		}
		links[p.PageID] = ls
	}
	body := collapse(p.Text)
	var out []string
	for _, l := range ls {
		// the link's text follows its lead with or without a space ("tracker (https://...")
		if !strings.Contains(body, strings.TrimSpace(l.lead+" "+l.label)) && !strings.Contains(body, l.lead+l.label) {
			continue
		}
		out = append(out, l.target)
	}
	return out, nil
}
