package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/sated-dev/sated/internal/plan"
)

// maxSlug bounds the readable part of a workflow id.
const maxSlug = 48

// meaningfulID is prefix-<slug>-<hash of req>: the slug is the question's first content words
// in ASCII (accents dropped, other scripts left out: Temporal carries the id in a header that
// takes printable ASCII only), "question" when none is left; the hash tells requests apart.
func meaningfulID(prefix, question string, req any) string {
	var words []string
	for _, w := range plan.Terms(question) {
		if a := asciiWord(w); a != "" {
			words = append(words, a)
		}
		if len(words) == 5 {
			break
		}
	}
	slug := strings.Join(words, "-")
	if len(slug) > maxSlug {
		slug = slug[:maxSlug]
	}
	if slug = strings.Trim(slug, "-."); slug == "" {
		slug = "question"
	}
	raw, _ := json.Marshal(req)
	sum := sha256.Sum256(raw)
	return prefix + "-" + slug + "-" + hex.EncodeToString(sum[:])[:10]
}

// asciiWord lower-cases w and keeps its ASCII letters, digits, dots and dashes, with accents
// taken off first ("sémantique" → "semantique", "für" → "fur").
func asciiWord(w string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(w)) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-'):
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), "-.")
}
