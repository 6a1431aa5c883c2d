package memory

import (
	"strings"
	"unicode"

	"github.com/sated-dev/sated/internal/text"
)

// RelevanceFloor is the share of a task's content words a remembered fact must hold to enter a
// new run's plan and report: recall ranks by similarity among what memory holds, so its best
// hits for a new topic can still be about something else.
const RelevanceFloor = 0.3

// Relevance is the share of the task's distinct content words (stemmed) the fact holds, 0-1;
// a task with no content words makes every fact irrelevant. A fact remembered from a search
// result reads "Title: text", and only its text counts: a page's title names its chapter, so
// "20.11. Client Connection Defaults — 20.11.1. Statement Behavior: ...freeze row versions..."
// held a third of "too many clients, raise the connection limit" by its title alone.
func Relevance(task, fact string) float64 {
	want := text.Distinct(text.Terms(task))
	if len(want) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range text.Terms(factText(fact)) {
		have[t] = true
	}
	n := 0
	for _, t := range want {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// maxLabel bounds the label a remembered fact may open with ("Title: text").
const maxLabel = 200

// factText is a fact without the source label it opens with: the text after the first ": "
// within maxLabel characters, unless a sentence ends before it (a word, then ". "; a section
// number's "20.11. " is no end); else the whole fact.
func factText(fact string) string {
	i := strings.Index(fact, ": ")
	if i < 0 || i > maxLabel || strings.TrimSpace(fact[i+2:]) == "" {
		return fact
	}
	for j := strings.Index(fact[:i], ". "); j >= 0; {
		if j > 0 && unicode.IsLetter(rune(fact[j-1])) {
			return fact // "The database refuses clients. Note: ..."
		}
		k := strings.Index(fact[j+2:i], ". ")
		if k < 0 {
			break
		}
		j += 2 + k
	}
	return fact[i+2:]
}
