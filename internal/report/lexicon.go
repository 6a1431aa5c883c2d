package report

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/sated-dev/sated/internal/text"
)

// lexicon numbers every term (stem) the answer has read, once for the process, so that a
// parsed sentence carries its terms as numbers and an answer counts, weighs and compares them
// in arrays instead of maps keyed by strings. A pure function's memo, like parsedCache: the
// findings are the same whatever the numbers.
var lexicon = struct {
	sync.Mutex
	ids   map[string]int32
	words []string
	ident []bool // isIdentifier of each word
}{ids: map[string]int32{}}

// maxLexicon bounds the lexicon (a documentation corpus has a few hundred thousand stems; web
// pages add more over time; a million stems weigh about 80 MB); when it is full, the next
// answer starts it over together with the parsed sentences and titles that hold its numbers. A
// variable for the tests.
var maxLexicon = 1 << 20

// lexiconRestarts counts the restarts, for the tests.
var lexiconRestarts int

// lexiconEpoch is held for reading by every answer while it uses the lexicon's numbers, and for
// writing to start the lexicon over: never while an answer holds numbers from before.
var lexiconEpoch sync.RWMutex

// intern is the lexicon's numbers of terms, numbering the new ones.
func intern(terms []string) []int32 {
	out := make([]int32, len(terms))
	lexicon.Lock()
	for i, t := range terms {
		id, ok := lexicon.ids[t]
		if !ok {
			id = int32(len(lexicon.words))
			lexicon.ids[t] = id
			lexicon.words = append(lexicon.words, t)
			lexicon.ident = append(lexicon.ident, isIdentifier(t))
		}
		out[i] = id
	}
	lexicon.Unlock()
	return out
}

// lookupTerms is the lexicon's numbers of terms, -1 for a term it has never numbered (which
// no parsed sentence then holds).
func lookupTerms(terms []string) []int32 {
	out := make([]int32, len(terms))
	lexicon.Lock()
	for i, t := range terms {
		if id, ok := lexicon.ids[t]; ok {
			out[i] = id
		} else {
			out[i] = -1
		}
	}
	lexicon.Unlock()
	return out
}

// words is the answer's terms by local number, and whether each is an identifier.
func (v *callVocab) words() ([]string, []bool) {
	ws, ident := make([]string, len(v.global)), make([]bool, len(v.global))
	lexicon.Lock()
	for l, g := range v.global {
		ws[l], ident[l] = lexicon.words[g], lexicon.ident[g]
	}
	lexicon.Unlock()
	return ws, ident
}

// word is the term of local number l.
func (v *callVocab) word(l int32) string {
	lexicon.Lock()
	defer lexicon.Unlock()
	return lexicon.words[v.global[l]]
}

// localOf is terms by the answer's local numbers, -1 for a term it has not read.
func (v *callVocab) localOf(terms []string) []int32 {
	out := lookupTerms(terms)
	for i, g := range out {
		out[i] = v.of(g)
	}
	return out
}

// beginAnswer holds the lexicon's numbers for one answer (the returned func lets go), first
// starting the lexicon and the parsed sentences over when the lexicon is full.
func beginAnswer() (end func()) {
	lexicon.Lock()
	full := len(lexicon.words) >= maxLexicon
	lexicon.Unlock()
	if full {
		lexiconEpoch.Lock()
		lexicon.Lock()
		if len(lexicon.words) >= maxLexicon {
			lexicon.ids, lexicon.words, lexicon.ident = map[string]int32{}, nil, nil
			parsedCache.Lock()
			parsedCache.texts = map[parsedKey]parsedText{}
			parsedCache.Unlock()
			titleCache.Lock()
			titleCache.m = map[string]*titleInfo{}
			titleCache.Unlock()
			lexiconRestarts++
		}
		lexicon.Unlock()
		lexiconEpoch.Unlock()
	}
	lexiconEpoch.RLock()
	return lexiconEpoch.RUnlock
}

// callVocab numbers, densely from 0, the terms one answer reads (local numbers), so that its
// counts and weights are arrays of the answer's own vocabulary's size.
type callVocab struct {
	local  []int32 // by lexicon number: the local number + 1, 0 when the answer has not read it
	global []int32 // by local number: the lexicon number
	// arrays lent to the answer (floats, ints), kept for the next answer: in use, the first
	// nf and ni
	f64    [][]float64
	i32    [][]int32
	nf, ni int
	cands  []candidate    // the candidates' array
	counts [2][]termCount // the sources' bodies' and tfs' arrays
	vecs   []termWeight   // the centroid vectors' array
}

// candidateArray lends an empty array of capacity n for the answer's candidates.
func (v *callVocab) candidateArray(n int) []candidate {
	if cap(v.cands) < n {
		v.cands = make([]candidate, 0, n)
	}
	return v.cands[:0]
}

// countArray lends empty array k (0 or 1) of term counts, of capacity n.
func (v *callVocab) countArray(k, n int) []termCount {
	if cap(v.counts[k]) < n {
		v.counts[k] = make([]termCount, 0, n)
	}
	return v.counts[k][:0]
}

// weightArray lends an empty array of term weights of capacity n.
func (v *callVocab) weightArray(n int) []termWeight {
	if cap(v.vecs) < n {
		v.vecs = make([]termWeight, 0, n)
	}
	return v.vecs[:0]
}

// floats lends a zeroed array of n floats until release.
func (v *callVocab) floats(n int) []float64 { return lend(&v.f64, &v.nf, n) }

// ints lends a zeroed array of n ints until release.
func (v *callVocab) ints(n int) []int32 { return lend(&v.i32, &v.ni, n) }

// lend hands out the next of arrays (the first *used are in use), zeroed and of length n,
// growing it or adding one when needed.
func lend[T any](arrays *[][]T, used *int, n int) []T {
	if *used == len(*arrays) {
		*arrays = append(*arrays, nil)
	}
	b := (*arrays)[*used]
	if cap(b) < n {
		b = make([]T, n)
	} else {
		b = b[:n]
		clear(b)
	}
	(*arrays)[*used] = b
	*used++
	return b
}

var vocabPool = sync.Pool{New: func() any { return new(callVocab) }}

func newCallVocab() *callVocab { return vocabPool.Get().(*callVocab) }

// add is g's local number, numbering it if new.
func (v *callVocab) add(g int32) int32 {
	if int(g) >= len(v.local) {
		n := max(int(g)+1, 2*len(v.local), 1024)
		v.local = slices.Grow(v.local, n-len(v.local))[:n]
	}
	if l := v.local[g]; l > 0 {
		return l - 1
	}
	v.global = append(v.global, g)
	v.local[g] = int32(len(v.global))
	return int32(len(v.global) - 1)
}

// of is g's local number, -1 when the answer has not read it (or g is -1).
func (v *callVocab) of(g int32) int32 {
	if g < 0 || int(g) >= len(v.local) {
		return -1
	}
	return v.local[g] - 1
}

// size is how many terms the answer has read.
func (v *callVocab) size() int { return len(v.global) }

// release returns v, emptied, to the pool.
func (v *callVocab) release() {
	for _, g := range v.global {
		v.local[g] = 0
	}
	v.global = v.global[:0]
	v.nf, v.ni = 0, 0
	clear(v.cands[:cap(v.cands)]) // let the texts they point to go
	vocabPool.Put(v)
}

// sortedSet is ids without repeats, sorted: a sentence's distinct terms, compared by merging.
func sortedSet(ids []int32) []int32 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return slices.Clip(slices.Compact(s))
}

// distinctIDs is ids without repeats, in first-seen order.
func distinctIDs(ids []int32) []int32 {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// setCosine is the cosine similarity of two sets of terms (each counted once; sorted): what
// text.Cosine gives their bags, computed the same way.
func setCosine(a, b []int32) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / math.Sqrt(float64(len(a))*float64(len(b)))
}

// mayRepeat reports whether two sets of na and nb terms can have a cosine above repeatAbove:
// their cosine is at most the root of the smaller over the larger, so sets of very different
// sizes are no repeats (the bound is taken with a margin, so rounding decides nothing).
func mayRepeat(na, nb int) bool {
	lo, hi := min(na, nb), max(na, nb)
	return float64(lo) >= (repeatAbove*repeatAbove-0.01)*float64(hi)
}

// titleInfo is what the answer reads of a source's title, whatever the question.
type titleInfo struct {
	ids       []int32    // its terms (text.Terms) by the lexicon's numbers
	words     []string   // its lower-case runs of letters (headingScores' compound words)
	parts     []string   // its parts (reTitlePart), trimmed, none empty
	partTerms [][]string // per part, its distinct terms with a letter (namedTitles)
	pairs     [][2]int32 // adjacentPairs, by the lexicon's numbers
	release   bool       // IsReleaseNotes
}

// titleCache remembers each title's titleInfo; it starts over when full, and with the lexicon.
var titleCache = struct {
	sync.Mutex
	m map[string]*titleInfo
}{m: map[string]*titleInfo{}}

const maxTitles = 1 << 16

func titleOf(title string) *titleInfo {
	titleCache.Lock()
	ti, ok := titleCache.m[title]
	titleCache.Unlock()
	if ok {
		return ti
	}
	ti = &titleInfo{ids: intern(text.Terms(title)), words: strings.FieldsFunc(strings.ToLower(title), func(r rune) bool { return !unicode.IsLetter(r) }),
		pairs: internPairs(adjacentPairs(title)), release: IsReleaseNotes(title)}
	for _, p := range reTitlePart.Split(strings.TrimSpace(title), -1) {
		if p = strings.TrimSpace(p); p != "" {
			ti.parts = append(ti.parts, p)
		}
	}
	for _, p := range ti.parts {
		ti.partTerms = append(ti.partTerms, letteredTerms(p))
	}
	titleCache.Lock()
	defer titleCache.Unlock()
	if len(titleCache.m) >= maxTitles {
		titleCache.m = map[string]*titleInfo{}
	}
	titleCache.m[title] = ti
	return ti
}

// letteredTerms is the distinct terms (text.Terms) of s that hold a letter: not a section
// number.
func letteredTerms(s string) []string {
	return text.Distinct(slices.DeleteFunc(text.Terms(s), func(t string) bool { return strings.IndexFunc(t, unicode.IsLetter) < 0 }))
}
