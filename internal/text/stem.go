package text

import (
	"strings"
	"sync"
)

// Stem returns the Porter stem of a lower-case word, step for step as SQLite FTS5's porter
// tokenizer computes it (ext/fts5/fts5_tokenize.c), so a stem made here equals the term FTS5
// indexes. Like FTS5 it leaves tokens shorter than 3 or longer than 64 bytes alone. The parts of
// a compound word ("sync.mutexes", "read-only") are stemmed one by one, as FTS5 would see them.
func Stem(w string) string {
	if strings.IndexFunc(w, isJoiner) < 0 {
		return porter(w)
	}
	var b strings.Builder
	start := 0
	for i, r := range w {
		if isJoiner(r) {
			b.WriteString(porter(w[start:i]))
			b.WriteRune(r)
			start = i + len(string(r))
		}
	}
	b.WriteString(porter(w[start:]))
	return b.String()
}

const porterMaxToken = 64

func porter(w string) string {
	if len(w) < 3 || len(w) > porterMaxToken {
		return w
	}
	b := []byte(w)
	b = step1a(b)
	b, ok := step1b(b)
	if ok {
		if nb, ok := step1b2(b); ok {
			b = nb
		} else if n := len(b); n >= 2 {
			c := b[n-1]
			if !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == b[n-2] {
				b = b[:n-1]
			} else if mEq1(b) && ostar(b) {
				b = append(b, 'e')
			}
		}
	}
	if n := len(b); n > 0 && b[n-1] == 'y' && hasVowel(b[:n-1]) {
		b[n-1] = 'i'
	}
	b = applyRules(b, step2Rules, mGt0)
	b = applyRules(b, step3Rules, mGt0)
	b = applyRules(b, step4Rules, mGt1)
	if n := len(b); n > 0 && b[n-1] == 'e' && (mGt1(b[:n-1]) || (mEq1(b[:n-1]) && !ostar(b[:n-1]))) {
		b = b[:n-1]
	}
	if n := len(b); n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && mGt1(b[:n-1]) {
		b = b[:n-1]
	}
	return string(b)
}

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC skips to the end of the first vowel-consonant sequence of stem and returns the
// offset after it, 0 when there is none; 'y' after a consonant is a vowel.
func gobbleVC(stem []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(stem); i++ {
		if cons = !isVowel(stem[i], cons); !cons {
			break
		}
	}
	for i++; i < len(stem); i++ {
		if cons = !isVowel(stem[i], cons); cons {
			return i + 1
		}
	}
	return 0
}

// mGt0 is the rule condition m > 0: the stem holds a vowel followed by a consonant.
func mGt0(stem []byte) bool { return gobbleVC(stem, false) > 0 }

// mGt1 is m > 1.
func mGt1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n > 0 && gobbleVC(stem[n:], true) > 0
}

// mEq1 is m = 1.
func mEq1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n > 0 && gobbleVC(stem[n:], true) == 0
}

// ostar is *o: the stem ends consonant-vowel-consonant, the last not w, x or y.
func ostar(stem []byte) bool {
	n := len(stem)
	if n == 0 || stem[n-1] == 'w' || stem[n-1] == 'x' || stem[n-1] == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range stem {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// hasVowel is *v*; 'y' counts as a vowel except first.
func hasVowel(stem []byte) bool {
	for i, c := range stem {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

func step1a(b []byte) []byte {
	n := len(b)
	if b[n-1] != 's' {
		return b
	}
	switch {
	case b[n-2] == 'e' && ((n > 4 && b[n-4] == 's' && b[n-3] == 's') || (n > 3 && b[n-3] == 'i')):
		return b[:n-2]
	case b[n-2] == 'e' || b[n-2] != 's':
		return b[:n-1]
	}
	return b
}

// step1b removes -eed, -ed and -ing; ok reports a removal of -ed or -ing, which step1b2 and
// the double-consonant rule then tidy up.
func step1b(b []byte) ([]byte, bool) {
	switch n := len(b); {
	case n > 3 && string(b[n-3:]) == "eed":
		if mGt0(b[:n-3]) {
			return b[:n-1], false
		}
	case n > 2 && string(b[n-2:]) == "ed":
		if hasVowel(b[:n-2]) {
			return b[:n-2], true
		}
	case n > 3 && string(b[n-3:]) == "ing":
		if hasVowel(b[:n-3]) {
			return b[:n-3], true
		}
	}
	return b, false
}

func step1b2(b []byte) ([]byte, bool) {
	n := len(b)
	if n > 2 {
		switch string(b[n-2:]) {
		case "at", "bl", "iz":
			return append(b, 'e'), true
		}
	}
	return b, false
}

type rule struct{ suffix, repl string }

// Rules in FTS5's order; FTS5 tries only the rules for the word's second-last letter and
// stops at the first suffix that matches, whether or not its condition holds.
var (
	step2Rules = rules(`ational:ate tional:tion enci:ence anci:ance izer:ize logi:log bli:ble alli:al
		entli:ent eli:e ousli:ous ization:ize ation:ate ator:ate alism:al iveness:ive fulness:ful
		ousness:ous aliti:al iviti:ive biliti:ble`)
	step3Rules = rules(`ical:ic ness: icate:ic iciti:ic ful: ative: alize:al`)
	step4Rules = rules(`al: ance: ence: er: ic: able: ible: ant: ement: ment: ent: ion: ou: ism: ate:
		iti: ous: ive: ize:`)
)

func rules(spec string) map[byte][]rule {
	m := map[byte][]rule{}
	for _, f := range strings.Fields(spec) {
		suffix, repl, _ := strings.Cut(f, ":")
		k := suffix[len(suffix)-2]
		m[k] = append(m[k], rule{suffix, repl})
	}
	return m
}

func applyRules(b []byte, rs map[byte][]rule, cond func([]byte) bool) []byte {
	n := len(b)
	if n < 2 {
		return b
	}
	for _, r := range rs[b[n-2]] {
		if n <= len(r.suffix) || string(b[n-len(r.suffix):]) != r.suffix {
			continue
		}
		stem := b[:n-len(r.suffix)]
		ok := cond(stem)
		if r.suffix == "ion" { // m > 1 and the stem ends in s or t
			ok = ok && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
		}
		if ok {
			return append(stem, r.repl...)
		}
		return b
	}
	return b
}

// stemMemo remembers stems for StemCached.
var stemMemo = struct {
	sync.Mutex
	of map[string]string
}{of: map[string]string{}}

// maxStemMemo bounds the stems remembered; when full they start over (a corpus's vocabulary
// is far less).
const maxStemMemo = 200000

// StemCached is Stem(w), remembered for the process: ranking, quoting and answering stem the
// same words of a corpus again and again, and a known word then costs a map lookup.
func StemCached(w string) string {
	stemMemo.Lock()
	st, ok := stemMemo.of[w]
	stemMemo.Unlock()
	if ok {
		return st
	}
	st = strings.Clone(Stem(w)) // neither key nor stem pins the text the word came from
	stemMemo.Lock()
	if len(stemMemo.of) >= maxStemMemo {
		stemMemo.of = map[string]string{}
	}
	stemMemo.of[strings.Clone(w)] = st
	stemMemo.Unlock()
	return st
}
