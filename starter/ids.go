package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/sated-dev/sated/internal/plan"
	"github.com/sated-dev/sated/workflows"
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
// taken off first ("sémantique" → "semantique", "für" → "fur") and Cyrillic and Greek letters
// transliterated ("память" → "pamyat"); other scripts are left to the hash.
func asciiWord(w string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range norm.NFD.String(strings.ToLower(w)) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-'):
			b.WriteRune(r)
		case r == 'υ' && prev == 'ο': // Greek ου is "ou"
			b.WriteString("u")
		case translit[r] != "":
			b.WriteString(translit[r])
		}
		if !unicode.Is(unicode.Mn, r) {
			prev = r
		}
	}
	return strings.Trim(b.String(), "-.")
}

// translit spells lower-case Cyrillic and Greek letters in ASCII (after NFD: й is и plus a mark).
var translit = func() map[rune]string {
	m := map[rune]string{}
	for _, pair := range []struct{ from, to string }{
		{"абвгдежзийклмнопрстуфхцчшщъыьэюяєіїґ", "a b v g d e zh z i i k l m n o p r s t u f kh ts ch sh shch - y - e yu ya ye i yi g"},
		{"αβγδεζηθικλμνξοπρσςτυφχψω", "a b g d e z i th i k l m n x o p r s s t y f ch ps o"},
	} {
		to := strings.Fields(pair.to)
		for i, r := range []rune(pair.from) {
			if to[i] != "-" {
				m[r] = to[i]
			}
		}
	}
	return m
}()

// uiSummary is a run's one-line summary in the Temporal UI's workflow list: what it asked, the
// question cut at 200 characters.
func uiSummary(prefix, question string) string {
	return workflows.UISummary(prefix, question, len([]rune(prefix))+200)
}
