// Quote hygiene shared by the answer: what counts as a heading, a footnote marker or site
// chrome, and when two sentences are the same.

package report

import (
	"regexp"
	"strings"

	"github.com/sated-dev/sated/internal/text"
)

// maxQuoteChars drops run-on "sentences" (unsplit lists, tables) that read badly as quotes.
const maxQuoteChars = 600

var (
	// reHeading matches Markdown headings: titles, not findings.
	reHeading = regexp.MustCompile(`(?m)^ {0,3}#{1,6}(\s.*)?$`)
	// reFootnote matches a source's own footnote markers, meaningless in this report: after
	// punctuation or a space ("the search.[12]", "as in [4]"), never glued to a word, where
	// brackets are code ("gate[0]") and removing them would change the quote's meaning.
	reFootnote = regexp.MustCompile(`(^|[\s.,;:!?"”’)])\[(\d+(\s*[,;\-–]\s*\d+)*|citation needed|note \d+|[a-z])\]`)
)

// boilerplate phrases mark site chrome that survived extraction; a phrase the question itself
// uses is not boilerplate.
var boilerplate = []string{
	"cookie", "all rights reserved", "subscribe", "sign up", "sign in", "log in", "newsletter",
	"privacy policy", "terms of service", "terms of use", "click here", "enable javascript",
	"skip to", "share this", "follow us", "copyright", "©", "advertisement", "read more",
	"your browser", "accept all", "last modified on", "last updated on",
}

// stripFootnotes removes a source's footnote markers, keeping what stood before them.
func stripFootnotes(s string) string { return reFootnote.ReplaceAllString(s, "$1") }

// sentenceKey identifies a sentence regardless of case and punctuation, to quote it once.
func sentenceKey(s string) string { return strings.Join(text.Words(s), " ") }

func isBoilerplate(s, question string) bool {
	ls := strings.ToLower(s)
	for _, p := range boilerplate {
		if strings.Contains(ls, p) && !strings.Contains(question, p) {
			return true
		}
	}
	return false
}
