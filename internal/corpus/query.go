package corpus

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/sated-dev/sated/internal/search"
)

// maxQueryTerms bounds the OR-query a long question turns into.
const maxQueryTerms = 32

// stopwords carry no topic; dropping them keeps bm25 from rewarding filler.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down during
		each few for from further had has have having he her here hers herself him himself his how i
		if in into is it its itself just me more most my myself no nor not now of off on once only or
		other our ours ourselves out over own same she should so some such than that the their theirs
		them themselves then there these they this those through to too under until up very was we
		were what when where which while who whom why will with would you your yours yourself
		yourselves s t`) {
		m[w] = true
	}
	return m
}()

// matchQuery turns free text into an FTS5 query that cannot be a syntax error: its words,
// lower-cased, stopwords dropped, each quoted, joined by OR; bm25 rewards docs matching more.
func matchQuery(q string) (string, error) {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	seen := map[string]bool{}
	var terms []string
	for _, w := range words {
		if stopwords[w] || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	if len(terms) == 0 {
		return "", fmt.Errorf("corpus: query %q has no searchable words: %w", q, search.ErrBadInput)
	}
	return strings.Join(terms, " OR "), nil
}
