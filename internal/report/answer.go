package report

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/text"
)

// DefaultFindingsBudget bounds the findings an extractive answer writes, in characters.
const DefaultFindingsBudget = 8000

// Answer tuning: relevance weights, the MMR trade-off and the floors below which a sentence is
// not a finding. Chosen on the dev sets (internal/eval/testdata), not on the hold-out.
const (
	weightPassage  = 0.70 // the passage it sits in ranks high for the aspect (BM25 among the sources)
	weightSentence = 0.20 // the sentence itself names the aspect's terms
	weightQuestion = 0.10 // ... or the question's
	weightRank     = 0.8  // within the passage's weight: its rank in the searches, against BM25 among the sources
	weightHeading  = 0.5  // within the passage's weight: its title and heading path name the aspect
	// weightCentroid is, within the passage's weight before the heading's, its likeness to the
	// evidence's centroid (centroidCosines): a passage about what the well-ranked evidence is
	// about is on the question's topic whatever words it uses. Measured in internal/devloop,
	// with releaseNotesWeight, saturation report recall pooled over the five sets' 100
	// questions: budget 4,000 0.108 -> 0.129, 8,000 0.203 -> 0.207, 16,000 0.239 -> 0.233.
	// Raised 0.2 -> 0.25 when a logistic model of which evidence sentences quote a gold fact,
	// fit on the SQLite, Python and PostgreSQL sets' candidates (every signal the answer
	// weighs), gave the centroid the largest weight of all: on the four dev sets saturation's
	// recall is the same from 0.2 to 0.35 (0.4 loses), and 0.25 is the step that keeps fixed-5's
	// (0.3302 -> 0.3286); the held-out sets, measured after, gain (Apache 0.181 -> 0.188, pgdocs
	// 0.183 -> 0.195, git unchanged; the same at 0.3 and 0.35), and the seven sets pooled at
	// 4,000 / 8,000 / 16,000 characters, expected over the epsilon draw, 0.1986 / 0.2738 /
	// 0.3096 -> 0.1999 / 0.2769 / 0.3110.
	weightCentroid = 0.25
	// weightPage is how much the passage's weight, before the heading's, is scaled by its
	// page's support (pageSupport: how many well-ranked passages the searches returned from
	// the same page), as 1-weightPage+weightPage*support. Measured in internal/devloop,
	// saturation report recall pooled over the five sets' 100 questions: budget 4,000 0.129 ->
	// 0.143, 8,000 0.207 -> 0.212, 16,000 0.235 -> 0.239; Go unchanged. Added instead of
	// multiplied it gained more on the five sets (0.218 at 8,000) but flattened the order within
	// one big page and cost the Go set 0.975 -> 0.892; preferring other pages instead, by 0.7
	// per passage already quoted from the page, lost 0.05.
	weightPage = 0.4
	// weightNamedTitle is how much of the passage's weight, after the heading's and the
	// topic's, hangs on how well the question names a part of its title (its page title or a
	// heading on its path): the weight is scaled by 1-weightNamedTitle+weightNamedTitle*named/best
	// (namedTitles). Found by reading the pgblind set's reports, where the section that answers
	// ("The Password File", "Tablespaces") sat 10th-30th in the evidence under long questions
	// that describe a situation. Measured in internal/devloop, saturation report recall, eight
	// sets pooled: 0.2975 -> 0.3039 (pgblind 0.124 -> 0.191, Apache 0.204 -> 0.210; Python
	// 0.432 -> 0.420, git 0.183 -> 0.162, SQLite 0.407 both); the blind pgblind2 set, written
	// after it: 0.165 -> 0.214 beside the search box's 0.162. Added instead of multiplied (0.2
	// of the weight) it read 0.2989 and cost the Go set its locks fact: an equal boost to every
	// section of a page the question names flattens the passage weights against the sentence
	// weights; multiplied 0.3: 0.2953, 0.25: 0.2962. Only the page title and the deepest
	// heading counted: 0.3010 (Python's page titles open with the module's name, "time —
	// Time access and conversions").
	weightNamedTitle = 0.2
	// namedTitleMinShare is the least share of a title's idf mass the question must name for
	// the title to count as named (0.4: 0.2981, 0.6: 0.3004; none: 0.2974).
	namedTitleMinShare = 0.5
	// namedTitleDamp is added to a title's idf mass in namedTitles, so that a one-word heading
	// the question names ("Options") counts less than a two-word one ("The Password File").
	namedTitleDamp = 3
	// releaseNotesWeight scales the passage weight of a release-notes page (IsReleaseNotes)
	// when the question does not ask about versions: of the sources the five sets' reports
	// cited, 32 of 709 were release notes, none holding a gold fact; 10 of 703 at 0.5.
	releaseNotesWeight = 0.5
	// topicFloor is what an aspect's passage keeps of its score when it names none of the
	// question's other words: an aspect is asked of the question's subject. Measured in
	// internal/devloop with gistEvidence (eight sets pooled, saturation report recall): 0.5 with
	// 0.1 read 0.3037; 0.7 with 0.05 reads 0.3114, 9 questions up and 3 down, no set down, the
	// blind pgblind2 set 0.213 -> 0.217; 0.65-0.75 with 0.03-0.05 read 0.3101-0.3114; 0.7
	// alone 0.3091; 0.3 0.2984; 0.9 0.3041; 1 (no floor) 0.3037
	topicFloor = 0.7
	// firstQuota, quotaDecay and minQuota bound the characters quoted from the i-th passage
	// chosen: max(minQuota, firstQuota/(1+quotaDecay*i)), so that more passages fit the
	// budget and the best-ranked ones say most: the facts a question needs are about one
	// sentence in fifteen of the passages that hold them (dev sets), so quoting whole passages
	// fills the budget with few (dev sets: 2500/0.3/400 beat a flat 1000, 1500, 2000, 2500
	// and none, and decays of 0.5 and 1)
	firstQuota = 2500
	quotaDecay = 0.3
	minQuota   = 400
	// gistEvidence is how much the evidence's centroid counts against the question's own
	// terms in a sentence's gist (0.1 until topicFloor rose to 0.7: 0.05 alone read 0.3061
	// against 0.3037, 0 with the floor at 0.7 0.3107 but pgblind2 0.204)
	gistEvidence    = 0.05
	minCompoundPart = 4 // a term this long counts as named by a title word containing it
	// repeatAbove is the similarity above which a sentence of a passage quoted whole is a
	// repeat of one already picked: only a near-repeat goes, since two statements on one topic share most words and still say different things
	// ("closing a closed channel panics", "closing the nil channel also panics")
	repeatAbove = 0.9
	// repeatInOrder is the share of its terms a repeat of prose writes in the same order
	// (text.InOrder) as the sentence it repeats: "a receive from an unbuffered channel is
	// synchronized before the completion of the corresponding send" is not a repeat of "a send
	// on a channel is synchronized before the completion of the corresponding receive". A line
	// of code or data is a repeat in any order: "[('dave', 'B', 10), ('jane', 'B', 12)]" sorted
	// is the same records. Measured in internal/devloop: Go 0.975 -> 1.000 at 8,000 characters
	// (0.883 -> 0.908 at 4,000); the six other sets identical
	repeatInOrder   = 0.8
	minFindingScore = 0.18
	minQuoteChars   = 25
	// maxBlockTail bounds the lines of a code block quoted on after a quote that stops inside
	// it, maxListTail the items of a list quoted on after a quote that introduces it
	maxBlockTail = 4
	maxListTail  = 8
	// minQuoteScore is the floor for a sentence of a passage already chosen for its aspect.
	// A floor of a fifth of the passage's best sentence's score besides read 0.3047 -> 0.3073
	// in internal/devloop (eight sets pooled; Python 0.420 -> 0.439), but only by what it kept
	// out that codeQuality discounts: a line of code, the example that answers ("SELECT
	// date('now','start of month','+1 month','-1 day');" under "Compute the last day of the
	// current month."). Held to the share before that discount it read 0.3047, as without it.
	minQuoteScore = 0.05
	// maxGapChars bounds a sentence quoted because the sentences either side of it are
	// (selectPassages), in characters. Measured in internal/devloop, saturation report recall,
	// eight sets pooled: 0.3036 -> 0.3045 (one question gains a fact, none loses), the same at
	// 150 and 400; 11 of the 100 final reports on the five larger sets change.
	maxGapChars = 300
	// BM25 over the sources, the usual parameters; a title counts titleBoost times.
	bm25K1, bm25B = 1.2, 0.75
	titleBoost    = 2
	// untitledWeight scales the weight of a word no title or heading of the searched corpus
	// uses ("someone", "nightly"), when the corpus tells (AnswerInput.Topical). Measured in
	// internal/devloop: saturation report recall SQLite 0.207 -> 0.218, Python 0.339 -> 0.350,
	// PostgreSQL 0.110 -> 0.126, Go 0.933 and held-out git 0.071 unchanged, at 0.5; 0.4-0.55
	// agree, 0.25 and 0.7 gain less.
	untitledWeight = 0.5
	// weightAdjacent is how much a passage's relevance to an aspect grows with the share of the
	// aspect's adjacent word pairs it writes side by side too (weighAdjacency). Measured in
	// internal/devloop, saturation report recall, the five older sets pooled: 0.218 -> 0.228 at
	// 8,000 characters, 0.263 -> 0.271 at 16,000, 0.159 either way at 4,000; expected over every
	// epsilon draw, the six sets pooled 0.217 -> 0.228 (SQLite 0.296 -> 0.325, Python 0.364 ->
	// 0.375, pgdocs 0.190 -> 0.207, the others within 0.003), Go 0.939 -> 0.898 (a fact at a
	// passage's quota). Pairs across a dropped stopword ("order memory" in "order of memory")
	// gained about as much on the six sets but cost Go two facts; 2 gained less than 1.
	weightAdjacent = 1.0
	// minAspectTerms is the fewest distinct terms an aspect stands alone with (mergeThinAspects).
	minAspectTerms = 2
	// minLabelHeading is the least share of the question's term weight a source's title must
	// name for its aspect's labels to begin (sourceLabels): a heading that names the
	// question's subject often states what its passage answers in few words ("3.4. Controlling
	// Depth-First Versus Breadth-First Search Of a Tree Using ORDER BY"), and the sentences
	// quoted under it do not repeat it. Measured in internal/devloop, saturation report recall
	// pooled over the five sets' 100 questions: 0.2124 -> 0.2219 (SQLite 0.255 -> 0.286, Python
	// 0.355 -> 0.367, PostgreSQL, git, Apache and Go unchanged; held-out pgdocs 0.167 either
	// way); labelling every source (0.2212) or from 0.05 (0.2212) cost git and Apache a fact
	// each, 0.3 gained less (0.2170).
	minLabelHeading = 0.15
	// commonTitlePart is the share of the sources' pages (at least three) whose titles must hold
	// a title part for it to say nothing of any one of them: the site's or manual's name ("Python
	// 3.11.2 documentation"), not the title of the one page most sources are sections of.
	commonTitlePart = 0.5
	// labelCost is the characters a label adds to the findings besides its text: the emphasis,
	// the citation, the line and the blank line before it.
	labelCost = 12
	// laterRoundWeight scales, when the answer picks passages, the scores of a passage that only
	// a round after the first found (research.Source.Round >= 2): those rounds search an aspect's
	// words or feedback terms, and the passages they add outrank the whole question's by
	// matching a thin aspect word for word ("what does that file have to look like": an
	// extension's control file "looks like this"). Measured in internal/devloop, eight sets
	// pooled: saturation report recall 0.3026 -> 0.3055 (2 questions up, none down), fixed-2
	// 0.3044 -> 0.3076, fixed-5 0.2812 -> 0.2874, saturation's searches 2.40 -> 2.20 (its gate
	// reads the same findings); 0.4 and 0.8 read the same for saturation (fixed-5 0.2930 /
	// 0.2857). The blind pgblind2 set, measured after: saturation 0.2125 -> 0.2130, fixed-2
	// 0.201 -> 0.213, fixed-5 0.214 -> 0.195. Dropping those passages instead lost on pgblind2
	// (0.1875).
	laterRoundWeight = 0.6
)

// AnswerInput is what an extractive answer is written from.
type AnswerInput struct {
	Question string
	// Aspects are the clauses the question asks about, in the plan's order; none means the
	// question is a single aspect.
	Aspects []string
	// Sources are numbered; each is quoted from its Text, or its Snippet when not read in full.
	// A source's Round, when given, is the search round that first found it: one only a later
	// round found weighs less (laterRoundWeight).
	Sources []research.Source
	// Budget bounds the findings in characters; 0 means DefaultFindingsBudget.
	Budget int
	// Terms are extra words that tell relevant passages (pseudo-relevance feedback from the
	// search rounds); they rank passages, weighing less than the question's own words.
	Terms []string
	// Prior, when given, holds per source how highly the searches ranked it (higher is better,
	// any scale; e.g. reciprocal-rank fusion over the rounds, FusedRanks): the search engine's
	// ranking over the whole corpus is a prior the answer trusts.
	Prior []float64
	// Topical, when given, tells which of the stems the searched corpus's titles and headings
	// use: the words the corpus is about. The others weigh untitledWeight of their idf.
	Topical func(stems []string) map[string]bool
	// OwnNumbers cites each source by its own N (an investigation's finding numbers) instead of
	// renumbering by first citation; Order and Quotes are unchanged.
	OwnNumbers bool
}

// AspectCoverage says how much of one aspect the findings answer.
type AspectCoverage struct {
	Aspect   string  `json:"aspect"`
	Coverage float64 `json:"coverage"` // share of the aspect's term weight the findings contain, 0-1
	Findings int     `json:"findings"`
	// Unread are the aspect's words, as it writes them, that no source read holds: the
	// evidence says nothing in those words, so the quotes answer the aspect's other words
	Unread []string `json:"unread,omitempty"`
}

// AnswerOutput is the findings, cited with the sources renumbered by first citation.
type AnswerOutput struct {
	Body string
	// Order lists the original source numbers in their new order: Order[i] becomes i+1.
	// Sources never cited follow the cited ones in their original order.
	Order []int
	// Quotes are the lines of each source's findings, by its new number, as the findings cite
	// them: its quotes, and before the first quote from a section the corpus merged into the
	// passage, that section's heading as a Markdown heading line ("### Locks"), so that a model
	// writing from them reads every quote under the heading it sits under.
	Quotes   map[int][]string
	Coverage []AspectCoverage
}

type candidate struct {
	src int // index into the sources
	idx int // position within its source
	// sec numbers the section of its source the sentence sits in (0: the passage's own, above
	// any inner heading) and heading is that section's inner heading
	sec     int
	heading string
	text    string
	terms   []string
	ids     termIDs // terms by the lexicon's numbers: shared with the parsed-sentence cache, read only
	// loc is terms by the answer's local numbers and dloc each of them once, first seen first
	loc, dloc []int32
	rel       []float64 // score per aspect
	picked    bool
	aspect    int
	// blockLine marks text quoted only after what introduces it (captionOnly): a line of a
	// code block or a table, folded
	blockLine bool
	// lines are the sentence as its passage lays it out, for a code block (parsed.lines), and
	// layout a line that joins one after program text (parsed.layout)
	lines  []string
	layout string
	// after are the block's lines after the candidate's own that no candidate holds (shown
	// with it), and line its line in its section's layout (-1 when not laid out): a candidate
	// on the line after another's and its after lines follows it
	after   []string
	line    int
	para    int      // its block of the section (parsed.para): a list item's sentences share one
	items   []string // short list items shown under it, a caption (parsed.items)
	code    []string // short program text shown under it, an example's caption (parsed.code)
	carried int      // the sentences its items and code take (parsed.carried)
	quality float64
	pairs   [][2]int32 // adjacentPairs of text, by the lexicon's numbers
	// gist is how much of what the evidence as a whole is about the sentence says, per
	// character: the weight of its terms in the evidence centroid, over the root of its length
	gist float64
}

// Answer ranks every evidence passage by relevance to the question and its aspects, takes the
// best passages round-robin over the aspects until the budget is spent, and groups the quotes
// under the aspect each answers, best source first. Quotes are exact; every one is cited.
func Answer(in AnswerInput) AnswerOutput {
	defer beginAnswer()()
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultFindingsBudget
	}
	e := readEvidence(in)
	defer e.v.release()
	cands, aspects, q, as, idf, missing, v, ix := e.cands, e.aspects, e.q, e.as, e.idf, e.missing, e.v, e.ix
	scoreCandidates(cands, in.Sources, ix, q, as, idf, missing, v, in.Terms, in.Prior, e.scale)
	weighAdjacency(cands, in.Sources, aspects, idf, v, e.scale)
	gistScores(cands, ix, v, q, in.Prior)
	labels := sourceLabels(in.Sources, ix.title, q, idf, missing, v)
	weighLaterRounds(cands, in.Sources)
	picked := selectPassages(cands, labels, len(aspects), budget)
	body, order, quotes := renderAnswer(aspects, in.Sources, cands, picked, labels, in.OwnNumbers)
	// the picking charges each quote an estimate of what it writes (its bullet and citation,
	// a label's line, 60 characters an aspect's heading); code blocks' fences and indentation,
	// escapes and long headings can take the findings past the budget: the last picks go
	// until they fit
	for len(body) > budget && len(picked) > 0 {
		picked = dropLastPick(cands, picked)
		body, order, quotes = renderAnswer(aspects, in.Sources, cands, picked, labels, in.OwnNumbers)
	}
	cov := coverage(aspects, as, cands, picked, idf, missing, v)
	held := heldTerms(e.texts, ix, idf, v)
	for j := range cov {
		cov[j].Unread = unreadWords(aspects[j], held)
	}
	return AnswerOutput{Body: body, Order: order, Quotes: quotes, Coverage: cov}
}

// heldTerms tells whether some source read holds a term: in a quotable sentence or a title, or
// else anywhere in its text (a heading, a question, a sentence too long to quote: texts, the
// sources as the answer parsed them).
func heldTerms(texts []parsedText, ix sourceIndex, idf idfTable, v *callVocab) func(term string) bool {
	inTitle := map[int32]bool{}
	for _, t := range ix.title {
		for _, l := range t {
			inTitle[l] = true
		}
	}
	return func(term string) bool {
		l := v.localOf([]string{term})[0]
		if _, ok := idf.of(l); ok || l >= 0 && inTitle[l] {
			return true
		}
		g := lookupTerms([]string{term})[0]
		if g < 0 {
			return false // no text read has it
		}
		return slices.ContainsFunc(texts, func(p parsedText) bool { return p.uses(g) })
	}
}

// answerEvidence is what an answer reads of its input before it weighs anything: the quotable
// sentences, the aspects as answered (thin ones merged), the question's and each aspect's
// terms, the term weights and the sources' index, numbered in one call vocabulary.
type answerEvidence struct {
	v       *callVocab   // released by the caller
	texts   []parsedText // each source parsed, in order
	cands   []candidate
	aspects []string
	q       asked
	as      []asked
	idf     idfTable
	missing float64
	scale   termScale
	ix      sourceIndex
}

// readEvidence parses and numbers the sources, the question and its aspects (inside
// beginAnswer).
func readEvidence(in AnswerInput) answerEvidence {
	aspects := in.Aspects
	if len(aspects) == 0 {
		aspects = []string{in.Question}
	}
	// a qualified name the question writes ("sync.Once") the evidence often writes bare ("the
	// Once type", "once.Do(f)")
	aliases := text.NameAliases(in.Question)
	v := newCallVocab()
	texts := parseSources(in.Sources)
	cands := answerCandidates(in.Question, in.Sources, texts, aliases, v)
	titles := make([][]int32, len(in.Sources)) // each title's terms by the lexicon's numbers
	for i, s := range in.Sources {
		if len(aliases) == 0 {
			titles[i] = titleOf(s.Title).ids
		} else {
			titles[i] = intern(aliases.Terms(s.Title))
		}
	}
	titleIDs := localize(v, cands, titles)
	idf := sentenceIDF(cands, v)
	scale := topicScale(in.Topical, idf, v)
	for l := range idf.w {
		idf.w[l] *= scale.local[l]
	}
	missing := missingWeight(idf)
	// the evidence may spell as one word what the question spells as two ("auto-incrementing",
	// "AUTOINCREMENT"): the joined word joins the question's terms
	spelling := newEvidenceSpelling(cands, v, append([]string{in.Question}, aspects...))
	qterms := joinCompounds(in.Question, spelling)
	aspects = mergeThinAspects(aspects, spelling)
	aterms := make([][]string, len(aspects))
	for j, a := range aspects {
		aterms[j] = joinCompounds(a, spelling)
		if len(aterms[j]) == 0 {
			aterms[j] = qterms
		}
	}
	q := newAsked(v, qterms)
	as := make([]asked, len(aterms))
	for j, at := range aterms {
		as[j] = newAsked(v, at)
	}
	ix := newSourceIndex(cands, in.Sources, titleIDs, v)
	return answerEvidence{v: v, texts: texts, cands: cands, aspects: aspects, q: q, as: as, idf: idf, missing: missing, scale: scale, ix: ix}
}

// asked is terms the question asks about, as written and by the answer's local numbers (-1
// for a term no source holds).
type asked struct {
	terms []string
	ids   []int32
}

func newAsked(v *callVocab, terms []string) asked { return asked{terms: terms, ids: v.localOf(terms)} }

// localize numbers every candidate's and title's terms in v: each candidate's local numbers
// (loc, dloc), and per source its title's (titles: by the lexicon's numbers).
func localize(v *callVocab, cands []candidate, titles [][]int32) [][]int32 {
	n := 0
	for _, c := range cands {
		n += len(c.ids.all)
	}
	backing := v.ints(2 * n)[:0]
	for k := range cands {
		c := &cands[k]
		start := len(backing)
		for _, g := range c.ids.all {
			backing = append(backing, v.add(g))
		}
		c.loc = backing[start:len(backing):len(backing)]
		start = len(backing)
		for _, g := range c.ids.distinct {
			backing = append(backing, v.of(g))
		}
		c.dloc = backing[start:len(backing):len(backing)]
	}
	out := make([][]int32, len(titles))
	for i, t := range titles {
		out[i] = make([]int32, len(t))
		for k, g := range t {
			out[i][k] = v.add(g)
		}
	}
	return out
}

// navigationWords are the words a line reNavigation matches can open with: its first run of
// ASCII letters, digits and underscores, lower-cased, is one of them.
var navigationWords = map[string]bool{"prev": true, "previous": true, "next": true, "up": true, "home": true,
	"index": true, "contents": true, "top": true, "back": true, "table": true, "search": true, "modules": true,
	"this": true, "show": true, "navigation": true, "quick": true}

// isNavigation is reNavigation.MatchString, skipping the expression for a line whose first
// word no navigation opens with.
func isNavigation(s string) bool {
	i := 0
	for i < len(s) && !isASCIIWord(s[i]) {
		i++
	}
	j := i
	for j < len(s) && isASCIIWord(s[j]) {
		j++
	}
	return navigationWords[strings.ToLower(s[i:j])] && reNavigation.MatchString(s)
}

// isTOCEntry is reTOCEntry.MatchString, skipping the expression for a line that does not open
// with a digit.
func isTOCEntry(s string) bool {
	return s != "" && s[0] >= '0' && s[0] <= '9' && reTOCEntry.MatchString(s)
}

func isASCIIWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

var (
	// reNavigation matches site chrome that survives extraction: "Prev Up Home Next", breadcrumbs.
	reNavigation = regexp.MustCompile(`(?i)^(\W*(prev(ious)?|next|up|home|index|contents|top|back|table of contents|search|modules|next topic|previous topic|this page|show source|navigation|quick search)\b\W*){2,}`)
	// reTOCEntry matches numbered table-of-contents lines: "71.2. Index Maintenance".
	reTOCEntry = regexp.MustCompile(`^(\d+\.)+\d*\s+\S+(\s+\S+){0,6}$`)
)

// parseSources is each source's text (its snippet when it was not read in full), parsed.
func parseSources(sources []research.Source) []parsedText {
	out := make([]parsedText, len(sources))
	for i, s := range sources {
		body := s.Text
		if strings.TrimSpace(body) == "" {
			body = s.Snippet
		}
		out[i] = parseSource(body, s.Indexed())
	}
	return out
}

// answerCandidates splits every source into quotable sentences, dropping chrome, questions,
// run-ons and repeats; a sentence's terms count the question's qualified names it writes bare.
func answerCandidates(question string, sources []research.Source, texts []parsedText, aliases text.Aliases, v *callVocab) []candidate {
	asked := boilerplateBits(question) // boilerplate the question itself names is no boilerplate
	parsedOf := make([][]parsed, len(sources))
	n := 0
	for i, t := range texts {
		parsedOf[i] = t.sents
		n += len(parsedOf[i])
	}
	seen := quotedKeys{byHash: make(map[uint64]string, n)}
	out := v.candidateArray(n)
	for i, ps := range parsedOf {
		for _, p := range ps {
			if seen.has(p.keyHash, p.key) || p.boiler&^asked != 0 {
				continue
			}
			seen.add(p.keyHash, p.key)
			t, ids, q := p.terms, p.ids, p.quality
			if len(aliases) > 0 {
				t = aliases.Terms(p.text)
				ids, q = newTermIDs(t), sentenceQuality(p.text, t)
			}
			if len(t) < 2 {
				continue
			}
			if p.block {
				q = 0 // quoted only after the caption that introduces it (selectPassages' leadsIn)
			}
			out = append(out, candidate{src: i, idx: p.idx, sec: p.sec, heading: p.heading, text: p.text, terms: t, ids: ids,
				quality: q, blockLine: p.block, pairs: p.pairs, lines: p.lines, layout: p.layout, after: p.after, line: p.line, para: p.para, items: p.items,
				code: p.code, carried: p.carried})
		}
	}
	return out
}

// captionOnly reports text that says nothing on its own, so that it is quoted only after the
// caption that introduces it, never as a finding of its own:
//   - text laid out, not written, in an extracted passage (body): the sentence splitter folded
//     its white space, joining a code block's or a table's lines ("var a string var once
//     sync.Once", "BLOB no datatype specified BLOB 3") or closing a line's alignment runs, and
//     it ends no sentence;
//   - a line of a code block of several (inBlock). Measured in internal/devloop: recall
//     identical at 4,000, 8,000 and 16,000 characters on the seven sets, but for one Python
//     epsilon draw's outcome at 8,000 (saturation expected 0.375 -> 0.374; the one draw eval
//     makes unchanged); the findings lose lines such as "for e := list; e != nil; e = e.next {",
//     ">>> dt = datetime(2020, 10, 31, 12, ...)" and SQLite's benchmark INSERTs, and keep
//     one-statement examples ("FallbackResource /index.php").
func captionOnly(extracted bool, body, sent string) bool {
	laidOut := extracted && !endsSentence(sent) && !strings.Contains(body, sent)
	return laidOut || looksLikeCode(sent) && inBlock(body, sent)
}

// inBlock reports whether line is a whole line of body with another non-blank line directly
// before or after it: one line of a code block of several ("var c = make(chan int, 10)" of the
// program after "This program:"), not a statement that is its paragraph whole.
func inBlock(body, line string) bool {
	i := strings.Index(body, line)
	if i < 0 {
		return false
	}
	before, after := body[:i], body[i+len(line):]
	start := strings.LastIndexByte(before, '\n') + 1
	end := strings.IndexByte(after, '\n')
	if strings.TrimSpace(before[start:]) != "" || end >= 0 && strings.TrimSpace(after[:end]) != "" || end < 0 && strings.TrimSpace(after) != "" {
		return false // not a line of its own
	}
	if start > 0 {
		prev := before[:start-1]
		if strings.TrimSpace(prev[strings.LastIndexByte(prev, '\n')+1:]) != "" {
			return true
		}
	}
	if end >= 0 {
		next := after[end+1:]
		if j := strings.IndexByte(next, '\n'); j >= 0 {
			next = next[:j]
		}
		return strings.TrimSpace(next) != ""
	}
	return false
}

// layout is a text's lines, each folded as text.Sentences folds white space, to find the line a
// sentence is as the text lays it out; built once per text, since every line of code or of a
// table asks.
type layout struct {
	lines  []string
	folded map[string][]int // a folded line to the indices of the lines it folds from
}

func newLayout(body string) *layout {
	l := &layout{lines: strings.Split(body, "\n"), folded: map[string][]int{}}
	for i, line := range l.lines {
		f := oneLine(line)
		l.folded[f] = append(l.folded[f], i)
	}
	return l
}

// lineOf is the line that sent (a sentence as text.Sentences writes it, its white space folded)
// is, as the text lays it out, when it is a whole line and, if several, a line of a block of
// several: the next or the line before is not blank. Its indentation and alignment are kept. It
// is inBlock's test on the folded line, for showing the line; captionOnly keeps inBlock, which
// matches the text as written and at its first place, as the answer was measured with.
func (l *layout) lineOf(sent string, several bool) (string, int) {
	blank := func(i int) bool { return i < 0 || i >= len(l.lines) || strings.TrimSpace(l.lines[i]) == "" }
	for _, i := range l.folded[sent] {
		if !several || !blank(i-1) || !blank(i+1) {
			return strings.TrimRight(l.lines[i], " \t"), i
		}
	}
	return "", -1
}

// rePrompt matches a line at an interpreter's or a shell's prompt: ">>> ", "... ", "$ ".
var rePrompt = regexp.MustCompile(`^\s*(>>>|\.\.\.|\$)( |$)`)

// maxAfterLines bounds the lines a code block shows after a quoted line that no sentence of
// the passage quotes.
const maxAfterLines = 8

// minWrappedLine is the shortest line after a block that may be a wrapped line of prose.
const minWrappedLine = 16

// linesAfter are the lines of the block after line i that no quotable sentence holds (quotable:
// the section's sentences, folded; prose: those of them that are not laid out): a continuation
// too short to quote ("...   ('third', 3)])"), an interpreter's short output ("False"), up to a
// blank line, the next quotable sentence or a line of prose. Only after an interpreter's or a
// shell's prompt, or its output.
func (l *layout) linesAfter(i int, quotable map[string]bool, prose []string) []string {
	var out []string
	if !rePrompt.MatchString(l.lines[i]) && (i == 0 || !rePrompt.MatchString(l.lines[i-1])) {
		return nil
	}
	for j := i + 1; j < len(l.lines) && len(out) < maxAfterLines; j++ {
		f := oneLine(l.lines[j])
		// a line of prose wrapped across lines is part of a sentence; a short output ("6",
		// "Decimal('1')") may also appear in one, and is not prose
		wrapped := len(f) >= minWrappedLine && strings.Contains(f, " ") &&
			slices.ContainsFunc(prose, func(p string) bool { return strings.Contains(p, f) })
		if f == "" || quotable[f] || wrapped {
			break
		}
		out = append(out, strings.TrimRight(l.lines[j], " \t"))
	}
	return out
}

// section is a run of a passage's text and the heading it sits under: "" for the passage's
// own, the inner heading for a section the corpus merged into the passage.
type section struct {
	heading, text string
}

// extractedSections is an indexed passage's text as the answer quotes it: cut at its inner
// headings (splitSections; each opens a section the corpus merged into the passage, "### Locks"
// inside "Channel communication"), each section's code comments read as prose
// (unwrapComments) and its sentences that a code sample interrupted marked (markContinuations).
func extractedSections(body string) []section {
	secs := splitSections(body)
	for i := range secs {
		secs[i].text = markContinuations(unwrapComments(secs[i].text))
	}
	return secs
}

// splitSections cuts an indexed passage's text at its inner headings; any other heading-like
// line (a one-hash comment of a code sample) is dropped, as the text's only other markup.
func splitSections(body string) []section {
	out := []section{{}}
	last := 0
	var headings [][]int
	if strings.Contains(body, "##") { // what every inner heading holds: most passages have none
		headings = text.InnerHeading.FindAllStringIndex(body, -1)
	}
	for _, m := range headings {
		out[len(out)-1].text = body[last:m[0]]
		h := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(body[m[0]:m[1]]), "#"))
		out = append(out, section{heading: h})
		last = m[1]
	}
	out[len(out)-1].text = body[last:]
	for i := range out {
		out[i].text = dropHeadingLines(out[i].text)
	}
	return out
}

// evidenceSpelling tells how the evidence spells two adjacent words: per stem, the sources
// whose quotable sentences hold it as a word, and per pair of stems, the sources that hold them
// next to each other (stopwords aside). It counts only what joinCompounds may ask of the texts
// asked (the question and its aspects, alone or merged): the one-word spellings of any two of
// their words and the pairs of their stems.
type evidenceSpelling struct {
	word map[string]int
	pair map[[2]string]int
}

func newEvidenceSpelling(cands []candidate, v *callVocab, asked []string) evidenceSpelling {
	var words []string
	for _, a := range asked {
		words = append(words, text.Content(a)...)
	}
	words = text.Distinct(words)
	var stems, joined []string
	for _, w := range words {
		stems = append(stems, text.StemCached(w))
		for _, x := range words {
			joined = append(joined, text.StemCached(w+x))
		}
	}
	// by local number: 1 a stem of the asked words, 2 one word two of them join into
	askedAs := make([]uint8, v.size())
	for _, l := range v.localOf(stems) {
		if l >= 0 {
			askedAs[l] |= 1
		}
	}
	for _, l := range v.localOf(joined) {
		if l >= 0 {
			askedAs[l] |= 2
		}
	}
	e := evidenceSpelling{word: map[string]int{}, pair: map[[2]string]int{}}
	seen := map[int32]int{}
	pairs := map[[2]int32]int{}
	for _, c := range cands {
		for k, t := range c.loc {
			if askedAs[t]&2 != 0 {
				if n, ok := seen[t]; !ok || n != c.src {
					seen[t] = c.src
					e.word[v.word(t)]++
				}
			}
			if k > 0 && askedAs[t]&1 != 0 && askedAs[c.loc[k-1]]&1 != 0 {
				p := [2]int32{c.loc[k-1], t}
				if n, ok := pairs[p]; !ok || n != c.src {
					pairs[p] = c.src
					e.pair[[2]string{v.word(p[0]), v.word(p[1])}]++
				}
			}
		}
	}
	return e
}

// joinCompounds returns the terms of s with, after each two adjacent words, their one-word
// spelling when the evidence writes them as one word in at least two sources and more often
// than as two ("auto-incrementing": "AUTOINCREMENT"), not when it mostly writes two words ("text
// file", though a TextFile class exists).
func joinCompounds(s string, e evidenceSpelling) []string {
	var out []string
	var prev string
	for _, w := range text.Content(s) {
		st := text.StemCached(w)
		if prev != "" {
			joined := text.StemCached(prev + w)
			if n := e.word[joined]; n >= 2 && n > e.pair[[2]string{text.StemCached(prev), st}] {
				out = append(out, joined)
			}
		}
		out = append(out, st)
		prev = w
	}
	return out
}

// looksMarkdown reports whether a source text carries Markdown markup worth flattening; corpus
// passages are plain text and are quoted as they are.
func looksMarkdown(s string) bool {
	return strings.Contains(s, "](") || strings.Contains(s, "\n#") || strings.HasPrefix(s, "#") || strings.Contains(s, "**")
}

// sentenceQuality discounts fragments: very short sentences and those made mostly of
// capitalised words (titles, menus) rarely state a fact.
func sentenceQuality(s string, terms []string) float64 {
	q := 1.0
	if len(terms) < 4 {
		q *= 0.75
	}
	words := strings.Fields(s)
	caps := 0
	for _, w := range words {
		if r := []rune(w); len(r) > 0 && r[0] >= 'A' && r[0] <= 'Z' {
			caps++
		}
	}
	if len(words) >= 4 && float64(caps) > 0.6*float64(len(words)) {
		q *= 0.5
	}
	if !strings.ContainsAny(s[len(s)-1:], ".!:;)") {
		q *= 0.9 // unfinished line: a label or a heading
	}
	if looksLikeCode(s) {
		q *= codeQuality
	} else if !hasSmallWord(words) {
		q *= 0.5 // no small word of prose: a list of names, a table row, a label
	}
	return q
}

// isProse reports whether s is written prose: not a fragment of program text, and holding a
// small word prose is made of, of two letters at least (a record's grade 'A' is no article).
func isProse(s string) bool {
	if looksLikeCode(s) {
		return false
	}
	for _, w := range strings.Fields(s) {
		if w = strings.ToLower(strings.Trim(w, ".,;:()[]\"'")); len(w) > 1 && text.IsStopword(w) {
			return true
		}
	}
	return false
}

// hasSmallWord reports whether any of words is one of the small words prose is made of.
func hasSmallWord(words []string) bool {
	for _, w := range words {
		if text.IsStopword(strings.ToLower(strings.Trim(w, ".,;:()\"'"))) {
			return true
		}
	}
	return false
}

// codeQuality discounts a line of code quoted as a finding: without its program around it,
// "a = "hello, world" done = true" tells a reader nothing.
const codeQuality = 0.2

// codeLineStarts open a line that is program text or its output whatever words it holds: an
// interpreter prompt or continuation (">>> format(math.pi, '.2f') # give 2 digits after the
// point"), a query plan's node ("-> Index Scan using tenk1_unique2 on tenk1"), a C comment or
// include (a line that closes a C comment is one too). A shell prompt ("$ git stash pop") is not
// among them: a command is often the answer.
var codeLineStarts = []string{">>>", "... ", "->", "/*", "//", "#include"}

// isCodeLine reports a line that codeLineStarts open or "*/" closes.
func isCodeLine(s string) bool {
	return strings.HasSuffix(s, "*/") || slices.ContainsFunc(codeLineStarts, func(p string) bool { return strings.HasPrefix(s, p) })
}

// looksLikeCode reports a fragment of program text: a line isCodeLine reports, or code
// punctuation and hardly any of the small words prose is made of. It is not text.IsCode, which
// asks whether a line is code at all ("x := 1 declares x" is, by its operator): a finding may be
// prose that names code, and only a line of program text without prose around it tells a
// reader nothing.
func looksLikeCode(s string) bool {
	if isCodeLine(s) {
		return true
	}
	if !strings.ContainsAny(s, "={};") && !strings.Contains(s, "()") && !strings.Contains(s, ":=") {
		return false
	}
	return smallWords(s) < 2
}

// smallWords counts the small words (stopwords) of s: prose is made of them, a line of code or
// of configuration holds one at most.
func smallWords(s string) int {
	small := 0
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if text.IsStopword(strings.Trim(w, ".,;:()\"'")) {
			small++
		}
	}
	return small
}

// sentenceIDF weighs terms by how few evidence sentences use them: a word in every sentence
// (the corpus's own name) says nothing about which sentence answers.
func sentenceIDF(cands []candidate, v *callVocab) idfTable {
	size := v.size()
	df := v.ints(size)
	for _, c := range cands {
		for _, t := range c.loc {
			df[t]++
		}
	}
	n := float64(len(cands))
	idf := idfTable{w: v.floats(size)}
	for t, d := range df {
		if d > 0 {
			idf.w[t] = math.Log(1 + n/float64(d))
		}
	}
	return idf
}

// idfTable is a weight per term of the answer (by local number): above 0 for the terms evidence
// sentences hold, 0 for the others.
type idfTable struct {
	w []float64
}

// of is term l's weight, 0 and false for a term no sentence holds (or l -1).
func (t idfTable) of(l int32) (float64, bool) {
	if l < 0 || t.w[l] == 0 {
		return 0, false
	}
	return t.w[l], true
}

// weightOf is the idf mass of terms; a term no sentence holds weighs half an average term: it
// cannot tell sentences apart, but a sentence naming the rest still answers only part.
func weightOf(terms []int32, idf idfTable, missing float64) float64 {
	w := 0.0
	for _, t := range terms {
		if v, ok := idf.of(t); ok {
			w += v
		} else {
			w += missing
		}
	}
	return w
}

// missingWeight is the weight of a term no evidence sentence holds.
func missingWeight(idf idfTable) float64 {
	sum, n := 0.0, 0
	for _, w := range idf.w {
		if w > 0 {
			sum += w
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return 0.5 * sum / float64(n)
}

// matchShare is the share of total (want's idf mass, weightOf) that the terms of want marked
// stamp in mark (by local number) hold.
func matchShare(want []int32, total float64, mark []int32, stamp int32, idf idfTable) float64 {
	if total == 0 {
		return 0
	}
	got := 0.0
	for _, t := range want {
		if t >= 0 && mark[t] == stamp {
			w, _ := idf.of(t)
			got += w
		}
	}
	return got / total
}

// scoreCandidates rates each sentence per aspect: how well its passage ranks for the aspect
// among all sources (BM25), and how much of the aspect and the question it names itself. A
// sentence of a strong passage counts even when it repeats none of the question's words: facts
// ("The default is 1000 pages.") seldom do.
func scoreCandidates(cands []candidate, sources []research.Source, ix sourceIndex, q asked, as []asked, idf idfTable, missing float64, v *callVocab, extra []string, prior []float64, scale termScale) {
	passage := passageScores(ix, v, q, as, newAsked(v, text.Terms(strings.Join(extra, " "))), scale)
	top := maxOrZero(prior)
	for i := range passage {
		if i < len(prior) && top > 0 {
			for j := range passage[i] {
				passage[i][j] = (1-weightRank)*passage[i][j] + weightRank*prior[i]/top
			}
		}
	}
	// a passage near the evidence's centre of gravity (what most of the well-ranked passages
	// are about) is on the question's topic, whatever words it uses
	cen := centroidCosines(ix, v, q, prior)
	for i := range passage {
		for j := range passage[i] {
			passage[i][j] = (1-weightCentroid)*passage[i][j] + weightCentroid*cen[i]
		}
	}
	// a page the searches returned several well-ranked passages of is what the question is
	// about: its passages share the page's support
	if support := pageSupport(sources, prior); support != nil {
		for i := range passage {
			for j := range passage[i] {
				passage[i][j] *= 1 - weightPage + weightPage*support[i]
			}
		}
	}
	// a passage under a heading that names the aspect usually answers it, whatever its body
	heading := headingScores(sources, ix.title, as, idf, missing, v)
	for i := range passage {
		for j := range passage[i] {
			passage[i][j] = (1-weightHeading)*passage[i][j] + weightHeading*heading[i][j]
		}
	}
	if len(as) > 1 {
		// an aspect is asked of the question's subject: a passage that answers the aspect's
		// words about something else ("what does it cost" -> an edit-distance cost table)
		// weighs as much less as it misses the question's other words
		whole := passageScores(ix, v, q, []asked{q}, asked{}, scale)
		for i := range passage {
			for j := range passage[i] {
				passage[i][j] *= topicFloor + (1-topicFloor)*whole[i][0]
			}
		}
	}
	// a section the question names (its page title or its own heading: "The Password File"
	// for a question about where scripts keep a password and what the file looks like) is
	// what the question is about, however many other words the question spends on its
	// situation
	if named, top := namedTitles(sources, q, idf, missing, v); top > 0 {
		for i := range passage {
			for j := range passage[i] {
				passage[i][j] *= 1 - weightNamedTitle + weightNamedTitle*named[i]/top
			}
		}
	}
	// release notes name every feature a version touched, in a line each: they match many
	// questions and answer few, unless the question is about versions
	if !asksAboutVersions(q.terms) {
		for i, s := range sources {
			if titleOf(s.Title).release {
				for j := range passage[i] {
					passage[i][j] *= releaseNotesWeight
				}
			}
		}
	}
	// a candidate's terms are marked with its number + 1, so that its set answers membership
	// at once
	mark := v.ints(v.size())
	qTotal := weightOf(q.ids, idf, missing)
	aTotal := make([]float64, len(as))
	for j, at := range as {
		aTotal[j] = weightOf(at.ids, idf, missing)
	}
	rels := make([]float64, len(cands)*len(as))
	for k := range cands {
		c := &cands[k]
		for _, t := range c.loc {
			mark[t] = int32(k + 1)
		}
		qw := matchShare(q.ids, qTotal, mark, int32(k+1), idf)
		c.rel = rels[k*len(as) : (k+1)*len(as) : (k+1)*len(as)]
		for j, at := range as {
			s := matchShare(at.ids, aTotal[j], mark, int32(k+1), idf)
			// earlier sentences of a passage state its point; later ones detail it
			position := 1 / (1 + 0.03*float64(c.idx))
			c.rel[j] = c.quality * (weightSentence*s + weightQuestion*qw + weightPassage*passage[c.src][j]*position)
		}
	}
}

// sourceIndex is what the passage weights read of the sources, counted once per answer: per
// source, its terms' counts over its quotable sentences and its title's terms; and the BM25
// statistics over both (the title counting titleBoost times).
type sourceIndex struct {
	body   [][]termCount // by local number, first seen first
	title  [][]int32     // by local number, with repeats
	tf     [][]termCount // body and title, the title boosted: the body's terms first, in its order
	length []float64
	df     []int32 // by local number
	avg    float64
}

func newSourceIndex(cands []candidate, sources []research.Source, titles [][]int32, v *callVocab) sourceIndex {
	size := v.size()
	n := len(sources)
	ix := sourceIndex{body: make([][]termCount, n), title: titles, tf: make([][]termCount, n), length: make([]float64, n), df: v.ints(size)}
	// counts are gathered in dense arrays, then kept per source in the order first seen
	count := v.floats(size)
	var seen []int32
	total := 0
	for _, c := range cands {
		total += len(c.loc)
	}
	// every source's body, then every source's tf, each in one array (a source's body holds
	// at most its sentences' terms, its tf at most its body's and its title's)
	backing := v.countArray(0, total)
	flush := func() []termCount {
		start := len(backing)
		for _, t := range seen {
			backing = append(backing, termCount{t, float32(count[t])})
			count[t] = 0
		}
		seen = seen[:0]
		return backing[start:len(backing):len(backing)]
	}
	for k := 0; k < len(cands); {
		src := cands[k].src
		for ; k < len(cands) && cands[k].src == src; k++ {
			for _, t := range cands[k].loc {
				if count[t] == 0 {
					seen = append(seen, t)
				}
				count[t]++
			}
			ix.length[src] += float64(len(cands[k].loc))
		}
		ix.body[src] = flush()
	}
	total = len(backing)
	for _, t := range titles {
		total += len(t)
	}
	backing = v.countArray(1, total)
	for i := range sources {
		for _, tc := range ix.body[i] {
			seen = append(seen, tc.t)
			count[tc.t] = float64(tc.f)
		}
		for _, t := range titles[i] {
			if count[t] == 0 {
				seen = append(seen, t)
			}
			count[t] += titleBoost
			ix.length[i] += titleBoost
		}
		ix.tf[i] = flush()
		for _, tc := range ix.tf[i] {
			ix.df[tc.t]++
		}
		ix.avg += ix.length[i]
	}
	ix.avg = max(ix.avg/float64(max(n, 1)), 1)
	return ix
}

// termCount is a term (by local number) and how often a source holds it (a whole number,
// the title's boosted: exact in a float32).
type termCount struct {
	t int32
	f float32
}

// termWeight is a term (by local number) and its weight in a vector.
type termWeight struct {
	t int32
	w float64
}

// passageScores is, per source and aspect, the source's BM25 score for the aspect's terms (the
// question's other terms and the feedback terms weigh less) over the quotable text and title of
// all sources, divided by the best source's. scale weighs each term (topicScale).
func passageScores(ix sourceIndex, v *callVocab, q asked, as []asked, extra asked, scale termScale) [][]float64 {
	n, length, df, avg := len(ix.tf), ix.length, ix.df, ix.avg
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, len(as))
	}
	pos := v.ints(len(df)) // by local number: the term's place among the weighted + 1
	for j, at := range as {
		// the weighted terms, each once, the aspect's over the question's over the feedback's
		var terms []int32
		weight := map[int32]float64{}
		for _, list := range []struct {
			a asked
			w float64
		}{{extra, 0.3}, {q, 0.5}, {at, 1}} {
			for k, t := range list.a.ids {
				if t < 0 {
					continue // no source holds it
				}
				if _, ok := weight[t]; !ok {
					terms = append(terms, t)
				}
				weight[t] = list.w * scale.of(list.a.terms[k])
			}
		}
		if len(terms) == 0 {
			continue
		}
		for k, t := range terms {
			pos[t] = int32(k + 1)
		}
		best := 0.0
		f := make([]float64, len(terms))
		for i := range ix.tf {
			clear(f)
			for _, tc := range ix.tf[i] {
				if k := pos[tc.t]; k > 0 {
					f[k-1] = float64(tc.f)
				}
			}
			score := 0.0
			for k, t := range terms {
				if f[k] == 0 {
					continue
				}
				idf := math.Log(1 + (float64(n)-float64(df[t])+0.5)/(float64(df[t])+0.5))
				score += weight[t] * idf * f[k] * (bm25K1 + 1) / (f[k] + bm25K1*(1-bm25B+bm25B*length[i]/avg))
			}
			out[i][j] = score
			best = max(best, score)
		}
		for _, t := range terms {
			pos[t] = 0
		}
		if best > 0 {
			for i := range out {
				out[i][j] /= best
			}
		}
	}
	return out
}

// mergeThinAspects joins an aspect of fewer than minAspectTerms distinct terms ("what are my
// options", "how does each work", "is that safe") to the one before it (the first to the one
// after): alone it matches any passage that says "options", and its findings section would
// answer nothing.
func mergeThinAspects(aspects []string, spelling evidenceSpelling) []string {
	if len(aspects) < 2 {
		return aspects
	}
	var out []string
	pending := "" // thin aspects before the first full one
	for _, a := range aspects {
		if len(text.Distinct(joinCompounds(a, spelling))) >= minAspectTerms {
			if pending != "" {
				a = pending + "; " + a
				pending = ""
			}
			out = append(out, a)
			continue
		}
		if len(out) == 0 {
			pending = strings.TrimPrefix(pending+"; "+a, "; ")
			continue
		}
		out[len(out)-1] += "; " + a
	}
	if len(out) == 0 { // every aspect is thin: nothing to join them to
		return aspects
	}
	return out
}

// topicScale is each evidence term's weight factor: 1 for the words the corpus's titles and
// headings use, untitledWeight for the rest; 1 for every term when topical is nil or knows
// none of them (a corpus without headings, or web results).
func topicScale(topical func([]string) map[string]bool, idf idfTable, v *callVocab) termScale {
	local := v.floats(len(idf.w))
	for l := range local {
		local[l] = 1
	}
	one := termScale{local: local, of: func(string) float64 { return 1 }}
	if topical == nil {
		return one
	}
	words, ident := v.words()
	var terms []string
	for l, w := range idf.w {
		if w > 0 {
			terms = append(terms, words[l])
		}
	}
	if len(terms) == 0 {
		return one
	}
	titled := topical(terms)
	if len(titled) == 0 {
		return one
	}
	for l, w := range idf.w {
		if w > 0 && !titled[words[l]] && !ident[l] {
			local[l] = untitledWeight
		}
	}
	return termScale{local: local, of: func(t string) float64 {
		if titled[t] || isIdentifier(t) {
			return 1
		}
		return untitledWeight
	}}
}

// termScale is each term's weight factor (topicScale): of a term as written, and of the terms
// evidence sentences hold by local number.
type termScale struct {
	local []float64
	of    func(string) float64
}

// isIdentifier tells a term of letters and more ("sync.mutex", "utf-8", "x86"): a name the docs
// define, however few headings spell it whole. A bare number ("0.1") is no name.
func isIdentifier(t string) bool {
	return strings.IndexFunc(t, unicode.IsLetter) >= 0 && strings.IndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0
}

// quoteCost is the characters one quote adds to the findings: the bullet, the citation, the line.
func quoteCost(c candidate) int {
	n := len(c.text) + 8
	for _, l := range c.after {
		n += len(l) + 1
	}
	for _, l := range c.items {
		n += len(l) + 3
	}
	if c.code != nil {
		n += 12 // the code block's fences
		for _, l := range c.code {
			n += len(l) + 3
		}
	}
	return n
}

// follows reports whether candidate b comes right after a in their passage: the next
// sentence after those a shows under it (its short items and code), or the next line after
// a's block lines (a.after) no candidate holds.
func follows(a, b candidate) bool {
	return a.src == b.src && a.sec == b.sec && (b.idx == a.idx+1+a.carried || a.line >= 0 && b.line == a.line+1+len(a.after))
}

// rrfK is the reciprocal-rank fusion constant: small, since only the first hits of a search
// are worth much in a documentation corpus.
const rrfK = 5

// RoundWeights is how much each of n search rounds' ranking counts in FusedRanks: the first
// round searches the whole question and counts 3; the r-th counts 3/r, since later
// rounds search parts of the question and then feedback terms, each less sure of the subject
// (dev sets: 3, 1.5, 1, 0.75, 0.6 beat 3, 1, 1, 1, 1 by 0.03-0.04 report recall at fixed-5).
func RoundWeights(n int) []float64 {
	out := make([]float64, n)
	for r := range out {
		out[r] = 3 / float64(r+1)
	}
	return out
}

// FusedRanks is reciprocal-rank fusion over search rounds: ranks[r] lists round r's result ids
// best first, weights[r] (1 when absent) how much that round counts; the score of an id is the
// sum over rounds of weight/(rrfK+position). A passage several searches found ranks high.
func FusedRanks(ranks [][]string, weights []float64) map[string]float64 {
	out := map[string]float64{}
	for r, ids := range ranks {
		w := 1.0
		if r < len(weights) {
			w = weights[r]
		}
		for i, id := range ids {
			out[id] += w / float64(rrfK+i+1)
		}
	}
	return out
}

// selectPassages takes passages round-robin over the aspects, each time the best one left for
// that aspect, and quotes every sentence of it worth quoting (not a repeat of a picked one; a
// caption or a run-on list item only with the sentence after it, leadsIn), until the budget is
// spent. A passage's label (labels.of, when labels.from says its aspect's labels have begun) is
// charged to the budget when it is taken, and an inner section's heading when its first
// sentence is: within an aspect, passages are taken in the order the findings show them.
func selectPassages(cands []candidate, labels labelling, naspects, budget int) []int {
	nsources := len(labels.of)
	labelled := make([]bool, naspects) // an aspect whose findings show labels from here on
	bySrc := make([][]int, nsources)
	for k, c := range cands {
		bySrc[c.src] = append(bySrc[c.src], k)
	}
	// a passage's score for an aspect is its best sentence's
	score := make([][]float64, nsources)
	for i := range score {
		score[i] = make([]float64, naspects)
		for _, k := range bySrc[i] {
			for j := range naspects {
				score[i][j] = max(score[i][j], cands[k].rel[j])
			}
		}
	}
	taken := make([]bool, nsources)
	// repeats are judged by distinct words (the candidates' sets): "closing a closed channel"
	// is not nearer "closing the nil channel" for saying "close" twice. Prose repeats must also
	// keep the words' order (repeatInOrder)
	// the labels' parts shown so far, in the order passages are taken: the findings render them
	// in another order (by aspect, best source first), so this is the charge's estimate
	shown := map[string]bool{}
	npicked := -1                   // how many passages were chosen before this one
	innerShown := map[[2]int]bool{} // the inner sections (source, section) quoted so far
	// the candidate that follows each in its passage's section, or -1
	next := make([]int, len(cands))
	for k := range cands {
		next[k] = -1
		if k+1 < len(cands) && follows(cands[k], cands[k+1]) {
			next[k] = k + 1
		}
	}
	var picked []int
	spent := 0
	if naspects > 1 {
		spent = 60 * naspects
	}
	for progress := true; progress && spent < budget; {
		progress = false
		for j := range naspects {
			best := -1
			for i := range score {
				if !taken[i] && score[i][j] >= minFindingScore && (best < 0 || score[i][j] > score[best][j]) {
					best = i
				}
			}
			if best < 0 {
				continue
			}
			taken[best], progress = true, true
			npicked++
			wasLabelled, before, spentBefore := labelled[j], len(picked), spent
			labelled[j] = labelled[j] || labels.from[best]
			if l := labelOf(labelled[j], labels.of[best], shown); l != "" {
				spent += len(l) + labelCost
			}
			// a passage is quoted by its gist: its sentences that say most of what the
			// evidence is about, up to the passage quota, so that more passages fit
			mine := slices.Clone(bySrc[best])
			slices.SortStableFunc(mine, func(x, y int) int { return cmp.Compare(cands[y].gist, cands[x].gist) })
			// but its best sentence for the aspect first: the passage is chosen for it
			isBest := func(k int) bool { return cands[k].rel[j] >= score[best][j] }
			if b := slices.IndexFunc(mine, isBest); b > 0 {
				k := mine[b]
				mine = append([]int{k}, slices.Delete(mine, b, b+1)...)
			}
			quota := 0
			for _, k := range mine {
				c := &cands[k]
				if c.picked {
					continue // taken with the caption before it
				}
				// a sentence under an inner heading is quoted under that heading, a line the
				// findings charge when its section's first quote is taken
				inner := 0
				if c.sec > 0 && !innerShown[[2]int{c.src, c.sec}] {
					inner = len(c.heading) + labelCost
				}
				if c.rel[j] < minQuoteScore || spent+quoteCost(*c)+inner > budget || (quota > 0 && quota+quoteCost(*c) > passageQuota(npicked, budget)) {
					continue
				}
				// a caption ("Cluster the table employees on its index:") or a list item that runs
				// on ("..., and") says nothing without what follows: it is quoted with the
				// sentence after it, or not at all
				follow := -1
				if leadsIn(c.text) && (next[k] >= 0 || c.items == nil && c.code == nil) { // its short items or code alone complete it
					if follow = next[k]; follow < 0 || spent+quoteCost(*c)+inner+quoteCost(cands[follow]) > budget {
						continue
					}
					if f := cands[follow]; f.picked && f.aspect != j {
						continue // quoted under another aspect: the caption would stand alone here
					} else if f.picked {
						follow = -1 // quoted here already: the two read as one quote
					}
				}
				if slices.ContainsFunc(picked, func(p int) bool {
					return mayRepeat(len(c.ids.set), len(cands[p].ids.set)) && setCosine(c.ids.set, cands[p].ids.set) > repeatAbove &&
						(text.InOrder(c.terms, cands[p].terms) >= repeatInOrder || !isProse(c.text) || !isProse(cands[p].text))
				}) {
					continue
				}
				c.picked, c.aspect = true, j
				picked = append(picked, k)
				spent += quoteCost(*c) + inner
				if c.sec > 0 {
					innerShown[[2]int{c.src, c.sec}] = true
					// quotes after an inner heading read as under it: the aspect's next
					// passages are labelled (renderAnswer)
					labelled[j] = true
				}
				// take quotes candidate n after c, charged to the budget and c's passage quota
				take := func(n int) {
					f := &cands[n]
					f.picked, f.aspect = true, j
					picked = append(picked, n)
					spent += quoteCost(*f)
					quota += quoteCost(*f)
				}
				if follow >= 0 {
					take(follow)
				}
				quota += quoteCost(*c)
				// a quote that stops inside a code block (">>> s = sorted(...)  # secondary
				// key" with the primary-key line below it) is quoted on to the block's end
				last := k
				if follow >= 0 {
					last = follow
				}
				// and one that introduces a list and quotes its first item ("...as TEXT, REAL, or
				// INTEGER values: - TEXT as ISO8601 strings") is quoted on through its items
				list := reIntroducesList.MatchString(c.text) ||
					follow >= 0 && strings.HasSuffix(c.text, ":") && reListMarker.MatchString(cands[follow].text)
				for tail := 0; tail < maxBlockTail || list && tail < maxListTail; tail++ {
					n := next[last]
					inBlock := !endsSentence(cands[last].text) && tail < maxBlockTail && n >= 0 && cands[n].blockLine
					// an example's caption, a sentence of its own ("Compute the current unix
					// timestamp."), is quoted on through the block of statements after it
					inBlock = inBlock || tail == 0 && n >= 0 && cands[n].blockLine && len(cands[n].lines) > 1 && isExampleCaption(cands, last)
					item := list && n >= 0 && reListMarker.MatchString(cands[n].text)
					if n < 0 || !inBlock && !item {
						break
					}
					if cands[n].picked {
						last = n // an item quoted already, for itself: the list goes on after it
						continue
					}
					if spent+quoteCost(cands[n]) > budget {
						break
					}
					take(n)
					last = n
				}
			}
			// a passage is chosen for its best sentence: one that does not quote it (the sentence
			// repeats a quote taken, or does not fit) would quote only what rode on it, the
			// passage's other sentences about anything (a list of requirements copied from every
			// page, chosen for the one that repeats the page quoted first), so it quotes nothing
			// and the next passage is chosen. Measured in internal/devloop, saturation report
			// recall, eight sets pooled: 0.3030 -> 0.3047 (Python 0.409 -> 0.420); the blind
			// pgblind2 set 0.213 either way. Without the best sentence first (its sentences in
			// gist order), a passage whose best sentence came after one that left it no room
			// quoted nothing: pooled 0.3082, pgblind2 0.209, and a small budget's findings lost
			// the passage that answers.
			if len(picked) > before && !slices.ContainsFunc(picked[before:], isBest) {
				for _, k := range picked[before:] {
					cands[k].picked = false
				}
				picked, spent, labelled[j] = picked[:before], spentBefore, wasLabelled
				npicked--
			}
		}
	}
	// a sentence left out between two quoted ones of its section, as long as it fits, is
	// quoted too: the three read as one quote instead of two with a hole between them (a line
	// of a flattened block is still quoted only after its caption)
	for k := 1; k+1 < len(cands); k++ {
		c, prev, after := &cands[k], &cands[k-1], &cands[k+1]
		if c.picked || c.blockLine || next[k-1] != k || next[k] != k+1 || !prev.picked || !after.picked || prev.aspect != after.aspect ||
			quoteCost(*c) > maxGapChars || spent+quoteCost(*c) > budget {
			continue
		}
		c.picked, c.aspect = true, prev.aspect
		picked = append(picked, k)
		spent += quoteCost(*c)
	}
	return picked
}

// dropLastPick removes the last quote picked, and with it the caption it was picked to
// complete (a caption is never quoted without the sentence after it).
func dropLastPick(cands []candidate, picked []int) []int {
	n := len(picked)
	cands[picked[n-1]].picked = false
	n--
	if n > 0 && picked[n-1] == picked[n]-1 && leadsIn(cands[picked[n-1]].text) {
		cands[picked[n-1]].picked = false
		n--
	}
	return picked[:n]
}

// passageQuota is how many characters the i-th passage chosen (from 0) may quote from a
// findings budget: the quotas scale with the budget, as chosen at the default.
func passageQuota(i, budget int) int {
	scale := float64(budget) / DefaultFindingsBudget
	return int(scale * max(minQuota, firstQuota/(1+quotaDecay*float64(i))))
}

// gistScores rates each sentence by the weight of its terms in the evidence's centroid: every
// source's terms weighted by idf and by how highly the searches ranked the source, plus the
// question's terms, per root of the sentence's length.
func gistScores(cands []candidate, ix sourceIndex, v *callVocab, q asked, prior []float64) {
	df := v.floats(len(ix.df))
	for _, ts := range ix.body {
		for _, tc := range ts {
			df[tc.t]++
		}
	}
	top := maxOrZero(prior)
	n := float64(len(ix.body))
	idf := v.floats(len(df))
	for t, d := range df {
		if d > 0 {
			idf[t] = math.Log(1 + n/d)
		}
	}
	centroid := v.floats(len(ix.df))
	for i, ts := range ix.body {
		w := 1.0
		if i < len(prior) && top > 0 {
			w = prior[i] / top
		}
		for _, tc := range ts {
			centroid[tc.t] += w * idf[tc.t] * gistEvidence
		}
	}
	for _, t := range q.ids {
		if t >= 0 {
			centroid[t] += math.Log(1 + n/max(df[t], 1))
		}
	}
	for k := range cands {
		c := &cands[k]
		sum := 0.0
		for _, t := range c.dloc { // each term once, in the terms' order
			sum += centroid[t]
		}
		c.gist = c.quality * sum / math.Sqrt(float64(len(c.text))+20)
	}
}

// renderAnswer writes the picked quotes under their aspects, sources ordered by their best
// quote, each source's label (the parts of it not shown yet) before its quotes, quotes of one
// source in document order, and numbers sources by first citation.
func renderAnswer(aspects []string, sources []research.Source, cands []candidate, picked []int, labels labelling, ownNumbers bool) (string, []int, map[int][]string) {
	shown := map[string]bool{}
	newN := map[int]int{}
	var order []int
	quotes := map[int][]string{}
	var b strings.Builder
	for j, a := range aspects {
		var mine []int
		for _, p := range picked {
			if cands[p].aspect == j {
				mine = append(mine, p)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if len(aspects) > 1 {
			fmt.Fprintf(&b, "### %s\n\n", escapeQuote(strings.TrimRight(oneLine(a), "?. ")))
		}
		// labelled: the aspect's labels have begun; an inner section's heading begins them too,
		// or the next source's quotes would read as under that heading
		labelled := false
		// sources by their best quote for this aspect, then that source's quotes in order
		bySrc := map[int][]int{}
		var srcOrder []int
		for _, p := range mine { // mine is in pick order: best first
			s := cands[p].src
			if _, ok := bySrc[s]; !ok {
				srcOrder = append(srcOrder, s)
			}
			bySrc[s] = append(bySrc[s], p)
		}
		for _, s := range srcOrder {
			n, ok := newN[s]
			if !ok {
				n = len(order) + 1
				newN[s] = n
				order = append(order, sources[s].N)
			}
			cite := n // as the findings cite the source
			if ownNumbers {
				cite = sources[s].N
			}
			// from the first source whose title names the question on, every source of the
			// aspect is labelled, so no source's quotes read as under another's title
			labelled = labelled || labels.from[s]
			ps := bySrc[s]
			slices.SortFunc(ps, func(x, y int) int { return cands[x].idx - cands[y].idx })
			view := shownCode(cands, ps)
			// a quote from a section the corpus merged into the passage goes under that
			// section's heading, so that no sentence reads as under a heading it does not sit
			// under; when every quote does, the inner heading takes the place of the passage's
			// own (its title's last part)
			parts := labels.of[s]
			sec := cands[ps[0]].sec
			if sec > 0 && len(parts) > 1 {
				parts = parts[:len(parts)-1]
			}
			l := labelOf(labelled, parts, shown)
			if sec > 0 {
				l = strings.TrimPrefix(l+" — "+cands[ps[0]].heading, " — ")
				labelled = true
			}
			if l != "" {
				writeLabel(&b, l, cite)
			}
			if sec > 0 {
				quotes[n] = append(quotes[n], "### "+cands[ps[0]].heading)
			}
			// consecutive sentences of a passage read as one quote, within one section
			for i := 0; i < len(ps); {
				if c := cands[ps[i]]; c.sec != sec {
					sec = c.sec
					labelled = true
					writeLabel(&b, c.heading, cite)
					quotes[n] = append(quotes[n], "### "+c.heading)
				}
				quote := cands[ps[i]].text
				j := i + 1
				// a list's items are bullets of their own ("- In SQLite, a column with type
				// INTEGER PRIMARY KEY is an alias..." ran on inside the item before it), but those a
				// caption introduces, which go under it (listed); and a caption in the paragraph
				// after an item is no part of it ("When the debug mode is enabled:", with the list
				// it introduces), while an item's next paragraph of prose stays with it
				nested, item := false, reListMarker.MatchString(cands[ps[i]].text)
				for ; j < len(ps) && follows(cands[ps[j-1]], cands[ps[j]]); j++ {
					c, prev := cands[ps[j]], cands[ps[j-1]]
					if item && !nested && c.para != prev.para && isCaption(c.text) {
						break
					}
					if reListMarker.MatchString(c.text) {
						if !nested && !strings.HasSuffix(prev.text, ":") {
							break
						}
						nested = true
					} else if nested && c.para != prev.para {
						nested = false
					}
					quote += " " + c.text
				}
				quote = escapeQuote(reListMarker.ReplaceAllString(quote, ""))
				// a sample after a hole (a line too short to quote) belongs under the bullet before it
				writeQuote(&b, view, ps[i:j], quote, cite, i > 0 && cands[ps[i-1]].sec == sec)
				quotes[n] = append(quotes[n], quote)
				i = j
			}
		}
		b.WriteByte('\n')
	}
	for i, s := range sources {
		if _, ok := newN[i]; !ok {
			order = append(order, s.N)
		}
	}
	return strings.TrimSpace(b.String()) + "\n", order, quotes
}

// shownCode is cands as the quotes ps of one source write them: a quote's short program text
// (candidate.code) that a program quoted from the source shows already is not shown again
// under it (an item of a callout list under the example's block, both quoted: "$ git reset
// --hard HEAD~3" under "Rewind the master branch..." below the block that holds it). cands
// itself when nothing is left out.
func shownCode(cands []candidate, ps []int) []candidate {
	var lines map[string]bool // made for the first program quoted: most sources quote none
	for _, p := range ps {
		for _, l := range cands[p].lines {
			if lines == nil {
				lines = map[string]bool{}
			}
			l, _ = splitCallout(l)
			lines[l] = true
		}
	}
	if lines == nil {
		return cands
	}
	out, cloned := cands, false
	for _, p := range ps {
		if c := cands[p]; c.code != nil && !slices.ContainsFunc(c.code, func(l string) bool { return !lines[strings.TrimSpace(l)] }) {
			if !cloned {
				out, cloned = slices.Clone(cands), true
			}
			out[p].code = nil
		}
	}
	return out
}

// writeQuote writes one quote (group: consecutive sentences of a section; quote: them on one
// line, escaped) as a bullet cited cite. Program text and configuration samples (a candidate's
// lines), with the laid-out lines after them (an interpreter's output), are shown as the passage
// lays them out, in a code block under the bullet, so that a reader can copy them:
//   - prose before them goes on the bullet's line, prose after them in a paragraph of the bullet;
//   - a quote that opens with them goes under the bullet before it when under is set (that
//     bullet quotes the same section, and a line too short to quote left the hole between), else
//     under a bullet holding its citation alone;
//   - a sentence's short program text (candidate.code: "SELECT date();" after "Compute the
//     current date.") follows it in a code block, and the quote goes on after it in a paragraph;
//   - one line of code quoted alone ("$ git stash pop") stays on the bullet's line, unless
//     lines too short to quote follow it (candidate.after: its output, "False");
//   - when text after the first of them ends no sentence, is not laid out and is no caption of
//     prose (isCaption), it is likely program text the splitter read as prose ("answer =
//     args.square**2 if args.verbose:" between two lines of code), and the quote is written on
//     one line: a block with holes would mislead.
func writeQuote(b *strings.Builder, cands []candidate, group []int, quote string, cite int, under bool) {
	first := slices.IndexFunc(group, func(k int) bool { return cands[k].lines != nil || cands[k].code != nil })
	if first < 0 || len(group) == 1 && len(cands[group[0]].lines) == 1 && cands[group[0]].after == nil || slices.ContainsFunc(group[first+1:], func(k int) bool {
		c := cands[k]
		return c.lines == nil && c.layout == "" && !endsSentence(c.text) && !isCaption(c.text)
	}) {
		fmt.Fprintf(b, "- %s [%d]\n", listed(cands, group, quote), cite)
		return
	}
	if cands[group[0]].lines != nil && !under {
		fmt.Fprintf(b, "- [%d]\n", cite)
	}
	prose := func(from, to int) string {
		var ts []string
		for _, k := range group[from:to] {
			ts = append(ts, cands[k].text)
		}
		return listed(cands, group[from:to], escapeQuote(reListMarker.ReplaceAllString(strings.Join(ts, " "), "")))
	}
	var pending []string
	for i := 0; i < len(group); {
		j := i + 1
		code := cands[group[i]].lines != nil
		if code {
			// the block goes on through program text and the laid-out lines after it
			for j < len(group) && (cands[group[j]].lines != nil || cands[group[j]].layout != "") {
				j++
			}
		} else {
			// prose runs on up to program text, or to the end of a sentence showing its own
			for j < len(group) && cands[group[j]].lines == nil && cands[group[j-1]].code == nil {
				j++
			}
		}
		switch {
		case i == 0 && !code:
			fmt.Fprintf(b, "- %s [%d]\n", prose(i, j), cite)
		case code:
			lines := pending // the short program text of the sentence before, as one block with these
			if pending != nil {
				lines, pending = append(lines, ""), nil
			}
			for x, k := range group[i:j] {
				if c := cands[k]; c.lines != nil {
					if x > 0 && len(c.lines) > 1 && len(cands[group[i+x-1]].lines) > 1 {
						lines = append(lines, "") // two samples or programs: the page's blank line between
					}
					lines = append(lines, c.lines...)
				} else {
					lines = append(lines, c.layout)
				}
				lines = append(lines, cands[k].after...)
			}
			writeCodeBlock(b, lines, "  ")
		default:
			fmt.Fprintf(b, "  %s\n", prose(i, j))
		}
		if c := cands[group[j-1]]; !code && c.code != nil {
			// an example's short program text, under its caption; with the program text after
			// it, if any, in one block
			if j < len(group) && cands[group[j]].lines != nil {
				pending = slices.Clone(c.code)
			} else {
				writeCodeBlock(b, c.code, "  ")
			}
		}
		i = j
	}
}

// isCaption reports a sentence of prose that introduces what follows it with a colon ("If you
// make a commit that you later wish you hadn't, there are two fundamentally different ways to
// fix the problem:"): a capital, five words or more, the small words of prose. A statement of
// program text ends in a colon too ("for x in range(10):", "while True:"), but opens with a
// keyword in lower case or is code by its punctuation.
func isCaption(s string) bool {
	if !strings.HasSuffix(s, ":") || len(strings.Fields(s)) < 5 || !isProse(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// listed is prose as the findings show it (group: consecutive sentences of a section; joined:
// them on one line, escaped): a list a caption introduces ("...two fundamentally different
// ways to fix the problem:", the sentence right before its first item), and a caption's short
// items (candidate.items), are shown as the passage lists them, each item on a line of its own,
// an item's next sentences on its line and a paragraph after the list after a blank line;
// other prose is joined as it is. The text is the same: only the line breaks differ.
func listed(cands []candidate, group []int, joined string) string {
	isItem := func(k int) bool { return reListMarker.MatchString(cands[k].text) }
	carries := func(k int) bool { return cands[k].items != nil }
	if !slices.ContainsFunc(group, carries) && (len(group) < 2 || isItem(group[0]) || !slices.ContainsFunc(group[1:], isItem)) {
		return joined
	}
	var raw strings.Builder
	for _, k := range group {
		raw.WriteString(cands[k].text + " " + strings.Join(cands[k].items, " ") + " ")
	}
	stars, ticks := strings.Count(raw.String(), "*") >= 2, strings.Count(raw.String(), "`") >= 2
	var b strings.Builder
	nested := false
	for x, k := range group {
		t := cands[k].text
		switch {
		case x == 0:
			b.WriteString(escapeText(reListMarker.ReplaceAllString(t, ""), stars, ticks, true))
		case isItem(k) && (nested || strings.HasSuffix(cands[group[x-1]].text, ":")):
			// an item right after its caption, or after the item before it
			b.WriteString("\n  - " + escapeText(reListMarker.ReplaceAllString(t, ""), stars, ticks, true))
			nested = true
		case nested && cands[k].para == cands[group[x-1]].para:
			b.WriteString(" " + escapeText(t, stars, ticks, false))
		case nested:
			b.WriteString("\n\n  " + escapeText(t, stars, ticks, true))
			nested = false
		default:
			b.WriteString(" " + escapeText(t, stars, ticks, false))
		}
		for _, item := range cands[k].items {
			b.WriteString("\n  - " + escapeText(reListMarker.ReplaceAllString(item, ""), stars, ticks, true))
			nested = true
		}
	}
	return b.String()
}

// writeCodeBlock writes lines as a fenced code block, each line indented by indent after their
// common indentation is taken off; the fence is ~~~ when a line holds ```.
func writeCodeBlock(b *strings.Builder, lines []string, indent string) {
	common := -1 // the least indentation of a line that is not blank
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); common < 0 || n < common {
			common = n
		}
	}
	fence := "```"
	if slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "```") }) {
		fence = "~~~"
	}
	fmt.Fprintf(b, "%s%s\n", indent, fence)
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteByte('\n')
			continue
		}
		fmt.Fprintf(b, "%s%s\n", indent, l[common:])
	}
	fmt.Fprintf(b, "%s%s\n", indent, fence)
}

// leadsIn reports a sentence that introduces what follows it: a caption ("...on its index:"), a
// list item that runs on into the next ("the memory location or variable being accessed, and"),
// or a line that ends in a word no sentence ends in (leadWords).
func leadsIn(s string) bool {
	if strings.HasSuffix(s, ":") || strings.HasSuffix(s, ",") {
		return true
	}
	i := strings.LastIndexByte(s, ' ')
	return i >= 0 && leadWords[strings.ToLower(s[i+1:])]
}

// leadWords cannot end a sentence: a line that ends in one runs on into what follows, often a
// command or a code sample ("you can always return to the pre-merge state with", "From your
// client repository, do"). They are text's dangling words (which join hard-wrapped lines of
// prose) and the verbs that introduce a command, less "in", which ends "log in".
var leadWords = map[string]bool{"and": true, "or": true, "with": true, "do": true, "run": true, "to": true,
	"the": true, "a": true, "an": true, "of": true, "by": true, "using": true, "use": true, "from": true,
	"for": true, "as": true, "via": true, "like": true, "type": true, "enter": true, "is": true, "are": true}

// weighAdjacency scales each sentence's relevance to an aspect by 1 + weightAdjacent times the
// share of the aspect's adjacent word pairs ("disk space", "time zone") that its passage, title
// included, also writes side by side, each pair weighed by its rarer word's idf; a pair of two
// everyday words (scale < 1: no title of the corpus uses them) counts for nothing. A passage
// that names the aspect's words as the asker put them together is about what they asked; one
// that holds them apart may only mention each ("the disk" ... "space for the journal").
func weighAdjacency(cands []candidate, sources []research.Source, aspects []string, idf idfTable, v *callVocab, scale termScale) {
	// the pairs asked, by the lexicon's numbers (a pair of a word the lexicon lacks is in no
	// source), and per source and pair whether the source holds it
	type askedPair struct {
		words [2]string
		ids   [2]int32
	}
	askedBy := make([][]askedPair, len(aspects))
	index := map[[2]int32]int{}
	for j, a := range aspects {
		for _, p := range adjacentPairs(a) {
			ids := lookupTerms(p[:])
			ap := askedPair{p, [2]int32{ids[0], ids[1]}}
			askedBy[j] = append(askedBy[j], ap)
			if ids[0] >= 0 && ids[1] >= 0 {
				if _, ok := index[ap.ids]; !ok {
					index[ap.ids] = len(index)
				}
			}
		}
	}
	held := make([][]bool, len(sources))
	for i := range held {
		held[i] = make([]bool, len(index))
	}
	if len(index) > 0 {
		for i, s := range sources {
			for _, p := range titleOf(s.Title).pairs {
				if x, ok := index[p]; ok {
					held[i][x] = true
				}
			}
		}
		for _, c := range cands {
			for _, p := range c.pairs {
				if x, ok := index[p]; ok {
					held[c.src][x] = true
				}
			}
		}
	}
	// per source and aspect: every sentence of a passage shares its passage's share
	share := make([][]float64, len(sources))
	for i := range share {
		share[i] = make([]float64, len(aspects))
	}
	for j := range aspects {
		for i := range sources {
			all, have := 0.0, 0.0
			for _, p := range askedBy[j] {
				if scale.of(p.words[0]) < 1 && scale.of(p.words[1]) < 1 {
					continue // two everyday words ("someone accidentally") say nothing of the subject
				}
				w0, _ := idf.of(v.of(p.ids[0]))
				w1, _ := idf.of(v.of(p.ids[1]))
				w := min(w0, w1)
				all += w
				if x, ok := index[p.ids]; ok && held[i][x] {
					have += w
				}
			}
			if all > 0 {
				share[i][j] = have / all
			}
		}
	}
	for k := range cands {
		c := &cands[k]
		for j := range c.rel {
			c.rel[j] *= 1 + weightAdjacent*share[c.src][j]
		}
	}
}

// adjacentPairs is the stemmed pairs of content words next to each other in s, with no other
// word between them.
func adjacentPairs(s string) [][2]string {
	_, pairs := termsAndPairs(text.Words(s))
	return pairs
}

// termsAndPairs is, of lower-cased words, the terms (text.Terms: content words, stemmed) and
// the adjacent pairs among them (adjacentPairs), in one pass.
func termsAndPairs(words []string) (terms []string, pairs [][2]string) {
	prev := ""
	for _, w := range words {
		if !text.IsContent(w) {
			prev = ""
			continue
		}
		st := text.StemCached(w)
		terms = append(terms, st)
		if prev != "" {
			pairs = append(pairs, [2]string{prev, st})
		}
		prev = st
	}
	return terms, pairs
}

// writeLabel writes a label line: a line of its own, not a finding's bullet; the blank line
// before it keeps Markdown from reading it as the previous bullet's continuation.
func writeLabel(b *strings.Builder, label string, n int) {
	if !strings.HasSuffix(b.String(), "\n\n") && b.Len() > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "**%s** [%d]\n", escapeQuote(label), n)
}

// reListMarker is a list item's bullet at the start of a quote: markup of the source's list,
// which would read as a bullet inside our own ("- - w does not happen before ...").
var reListMarker = regexp.MustCompile(`^[-*+•]\s+`)

// reIntroducesList matches a quote that holds a list's first item after the caption that
// introduces it: "...or INTEGER values: - TEXT as ISO8601 strings ("YYYY-MM-DD HH:MM")."
var reIntroducesList = regexp.MustCompile(`:\s+[-*+•]\s+\S`)

// escapeQuote escapes only what Markdown would turn into markup or a false citation, so a quote
// reads exactly as the source wrote it, in the rendered report and in its plain text alike
// ("make(map[string]int, 100)" stays as written):
//   - a bracket pair that would read as a citation "[2]", a link "[a](b)" or a reference
//     "[a][b]" / "[a]:", and a bracket of such a pair;
//   - "*" and "`" when the quote holds two or more (one alone opens nothing);
//   - "<" before a letter, "/", "!" or "?" (an HTML tag or autolink);
//   - a backslash before punctuation (it would escape it);
//   - a leading ">", "#" or "1." (a block quote, heading or list inside the finding's bullet).
func escapeQuote(s string) string {
	return escapeText(s, strings.Count(s, "*") >= 2, strings.Count(s, "`") >= 2, true)
}

// escapeText is escapeQuote for a piece of a quote: stars and ticks say whether the whole
// quote's asterisks and backticks are escaped, lineStart whether the piece begins a line.
func escapeText(s string, stars, ticks, lineStart bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	if m := reBlockStart.FindStringSubmatchIndex(s); lineStart && m != nil {
		at := 0 // ">"
		if m[4] >= 0 {
			at = m[5] - 1 // the "#" or the list number's "." or ")"
		}
		b.WriteString(s[:at] + `\`)
		s = s[at:]
	}
	escapeClose := map[int]bool{} // indexes of "]" closing an escaped "["
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteString(`\\`)
			continue
		case c == '*' && stars, c == '`' && ticks:
			b.WriteByte('\\')
		case c == '<' && i+1 < len(s) && (isASCIILetter(s[i+1]) || strings.IndexByte("/!?", s[i+1]) >= 0):
			b.WriteByte('\\')
		case c == '[':
			if k := strings.IndexAny(s[i+1:], "[]"); k >= 0 && s[i+1+k] == ']' {
				k += i + 1
				next := byte(0)
				if k+1 < len(s) {
					next = s[k+1]
				}
				if _, cite := parseCitation(s[i+1 : k]); cite || next == '(' || next == '[' || next == ':' {
					b.WriteByte('\\')
					escapeClose[k] = true
				}
			}
		case c == ']' && escapeClose[i]:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// reBlockStart matches a start that Markdown would read as a block inside the bullet; its
// last character is the one to escape.
var reBlockStart = regexp.MustCompile(`^(?:(>)|(#|\d{1,9}[.)])(?:\s|$))`)

func isASCIIPunct(c byte) bool {
	return c < 0x80 && (unicode.IsPunct(rune(c)) || unicode.IsSymbol(rune(c)))
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// coverage is, per aspect, the share of its term weight the picked quotes contain.
func coverage(aspects []string, as []asked, cands []candidate, picked []int, idf idfTable, missing float64, v *callVocab) []AspectCoverage {
	have := v.ints(len(idf.w)) // 1 for the terms the picked quotes hold
	for _, p := range picked {
		for _, t := range cands[p].loc {
			have[t] = 1
		}
	}
	out := make([]AspectCoverage, len(aspects))
	for j, a := range aspects {
		n := 0
		for _, p := range picked {
			if cands[p].aspect == j {
				n++
			}
		}
		share := matchShare(as[j].ids, weightOf(as[j].ids, idf, missing), have, 1, idf)
		out[j] = AspectCoverage{Aspect: a, Findings: n, Coverage: math.Round(100*share) / 100}
	}
	return out
}

// headingScores is, per source and aspect, the share of the aspect's term weight the source's
// title (page title and heading path, "Page — Section > Sub"; titles holds its terms) names. A
// compound title word names the terms it contains ("Autoincrement" names "auto" and
// "increment"), since documentation titles often spell as one word what a question spells as
// two.
func headingScores(sources []research.Source, titles [][]int32, as []asked, idf idfTable, missing float64, v *callVocab) [][]float64 {
	total := make([]float64, len(as))
	for j, at := range as {
		total[j] = weightOf(at.ids, idf, missing)
	}
	// the terms a title names are marked with the (source, aspect) pair's stamp
	named := v.ints(len(idf.w))
	stamp := int32(0)
	out := make([][]float64, len(sources))
	for i, s := range sources {
		words := titleOf(s.Title).words
		out[i] = make([]float64, len(as))
		for j, at := range as {
			stamp++
			for k, t := range at.terms {
				id := at.ids[k]
				if id < 0 {
					continue // no source holds it: naming it weighs nothing
				}
				if slices.Contains(titles[i], id) {
					named[id] = stamp
					continue
				}
				for _, w := range words {
					if len(t) >= minCompoundPart && len(w) > len(t) && strings.Contains(w, t) {
						named[id] = stamp
						break
					}
				}
			}
			out[i][j] = matchShare(at.ids, total[j], named, stamp, idf)
		}
	}
	return out
}

// namedTitles is, per source, the share of the idf mass of the part of its title the question
// names best (the page title, its description, a heading on its path: "Page — Section > Sub"),
// the mass counted with namedTitleDamp added; 0 for a title none of whose parts the question
// names namedTitleMinShare of. Words without a letter (section numbers) are not counted. top is
// the largest share.
func namedTitles(sources []research.Source, q asked, idf idfTable, missing float64, v *callVocab) (named []float64, top float64) {
	stamp := v.ints(v.size())
	for _, id := range q.ids {
		if id >= 0 {
			stamp[id] = 1
		}
	}
	named = make([]float64, len(sources))
	for i, s := range sources {
		for _, terms := range titleOf(s.Title).partTerms {
			ids := v.localOf(terms)
			total := weightOf(ids, idf, missing)
			got := weightOf(slices.DeleteFunc(slices.Clone(ids), func(id int32) bool { return id < 0 || stamp[id] != 1 }), idf, missing)
			if total > 0 && got/total >= namedTitleMinShare {
				named[i] = max(named[i], got/(total+namedTitleDamp))
			}
		}
		top = max(top, named[i])
	}
	return named, top
}

// reReleaseNotes matches the title of a release-notes page: "E.10. Release 15.11", "SQLite
// Release 3.40.1 On 2022-12-28", "What's New In Python 3.11", "Release Notes", "Changelog",
// "Changes in version 2.4", "SQLite Changes From Version 3.4.2 To 3.5.0", a release history
// ("Release History Of SQLite", "History Of SQLite Releases") and a news page ("SQLite Older
// News").
var reReleaseNotes = regexp.MustCompile(`(?i)^(?:[A-Z]\.\d+\.\s+)?release\s+v?\d|\brelease\s+v?\d+\.\d+|\bwhat.s\s+new\b|\brelease\s+notes\b|\bchange\s?log\b|\bchanges\s+(?:in|from)\s+(?:version\s+)?v?\d|\brelease\s+history\b|\bhistory\s+of\s+.*\breleases\b|\bnews\b`)

// IsReleaseNotes tells a release-notes page by its title.
func IsReleaseNotes(title string) bool { return reReleaseNotes.MatchString(title) }

// versionStems are the stems of the words that ask about versions ("move to version 15", "what
// changed in the upgrade"): such a question wants the release notes.
var versionStems = func() map[string]bool {
	out := map[string]bool{}
	for _, w := range []string{"version", "release", "upgrade", "migrate", "migration", "deprecated", "changelog"} {
		out[text.Stem(w)] = true
	}
	return out
}()

// asksAboutVersions tells whether the question's terms (stems) ask about versions or upgrades.
func asksAboutVersions(qterms []string) bool {
	for _, t := range qterms {
		if versionStems[t] {
			return true
		}
	}
	return false
}

// centroidCosines is each source's cosine to the evidence's Rocchio centroid (the sources'
// tf-idf vectors over their quotable text and title, each weighted by its search prior, plus
// the question's terms), divided by the best source's.
func centroidCosines(ix sourceIndex, v *callVocab, q asked, prior []float64) []float64 {
	n := len(ix.body)
	size := len(ix.df)
	// each term's idf over the sources, once (ix.df counts the sources whose body or title
	// holds it: the vectors' terms)
	idf := v.floats(size)
	for t, d := range ix.df {
		if d > 0 {
			idf[t] = math.Log(1 + float64(n)/float64(d))
		}
	}
	// a source's vector counts its body's terms and its title's once each: its tf with the
	// title's boost taken off
	vec := make([][]termWeight, n)
	total := 0
	for _, tf := range ix.tf {
		total += len(tf)
	}
	backing := v.weightArray(total)
	for i, tf := range ix.tf {
		start := len(backing)
		for k, tc := range tf {
			body := 0.0
			if k < len(ix.body[i]) {
				body = float64(ix.body[i][k].f)
			}
			backing = append(backing, termWeight{tc.t, body + (float64(tc.f)-body)/titleBoost})
		}
		vec[i] = backing[start:len(backing):len(backing)]
	}
	top := maxOrZero(prior)
	centroid := v.floats(size)
	for i := range vec {
		norm := 0.0
		for k, tc := range vec[i] {
			v := (1 + logCount(tc.w)) * idf[tc.t]
			vec[i][k].w = v
			norm += v * v
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		w := 1.0
		if i < len(prior) && top > 0 {
			w = prior[i] / top
		}
		for k := range vec[i] {
			vec[i][k].w /= norm
			centroid[vec[i][k].t] += w * vec[i][k].w
		}
	}
	for _, t := range q.ids {
		if t >= 0 {
			centroid[t]++
		}
	}
	out := make([]float64, n)
	best := 0.0
	for i := range vec {
		for _, tc := range vec[i] {
			out[i] += tc.w * centroid[tc.t]
		}
		best = max(best, out[i])
	}
	if best > 0 {
		for i := range out {
			out[i] /= best
		}
	}
	return out
}

// logs holds math.Log of the small whole counts most terms have, so that logCount need not
// compute them again.
var logs = func() (out [64]float64) {
	for i := range out {
		out[i] = math.Log(float64(i))
	}
	return out
}()

// logCount is math.Log(f), f a count.
func logCount(f float64) float64 {
	if i := int(f); float64(i) == f && i > 0 && i < len(logs) {
		return logs[i]
	}
	return math.Log(f)
}

// pageSupport is, per source, the summed search prior (scaled to the best source's) of all
// the sources from its page (its URL without the fragment), divided by the best page's: a page
// with several well-ranked passages scores above one with a single hit. nil without a prior:
// then nothing tells a well-ranked passage.
func pageSupport(sources []research.Source, prior []float64) []float64 {
	top := maxOrZero(prior)
	if top == 0 {
		return nil
	}
	pages := make([]string, len(sources))
	sum := map[string]float64{}
	for i, s := range sources {
		u := pageOf(s)
		pages[i] = u
		if i < len(prior) {
			sum[u] += prior[i] / top
		}
	}
	best := 0.0
	for _, v := range sum {
		best = max(best, v)
	}
	if best <= 0 {
		return nil
	}
	out := make([]float64, len(sources))
	for i, u := range pages {
		out[i] = sum[u] / best
	}
	return out
}

// pageOf is the page a source is a passage of: its URL without the fragment (not
// search.NormalizeURL, which keeps a file:// URL's fragment).
func pageOf(s research.Source) string {
	page, _, _ := strings.Cut(s.URL, "#")
	return page
}

// maxOrZero is the largest of xs, 0 when there are none (or all are below 0).
func maxOrZero(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// reTitlePart separates the parts of a source's title: the page title from the heading path
// ("Page — Section > Sub"), a web page's title from its site's name ("Page | Site").
var reTitlePart = regexp.MustCompile(`\s+[—>|]\s+`)

// labelling is how the findings label sources by their titles.
type labelling struct {
	// of is, per source, the parts of its title that may introduce its quotes
	of [][]string
	// from marks the sources whose titles name the question: from the first of them an aspect's
	// findings show, every source's quotes of that aspect open with its label
	from []bool
}

// sourceLabels is, per source, the parts of its title that may introduce its quotes in the
// findings, never a part most pages' titles share (commonTitlePart) while the title has
// others, and whether the title names at least minLabelHeading of the question's term weight.
func sourceLabels(sources []research.Source, titles [][]int32, q asked, idf idfTable, missing float64, v *callVocab) labelling {
	out := make([][]string, len(sources))
	from := make([]bool, len(sources))
	// a part's pages: a page's title heads all its sections, a site's name all its pages
	pagesOf := map[string]map[string]bool{}
	allPages := map[string]bool{}
	for i, s := range sources {
		page := pageOf(s)
		allPages[page] = true
		for _, p := range titleOf(s.Title).parts {
			if !slices.Contains(out[i], p) {
				out[i] = append(out[i], p)
				if pagesOf[p] == nil {
					pagesOf[p] = map[string]bool{}
				}
				pagesOf[p][page] = true
			}
		}
	}
	common := max(3, int(commonTitlePart*float64(len(allPages))))
	named := headingScores(sources, titles, []asked{q}, idf, missing, v)
	for i, parts := range out {
		from[i] = named[i][0] >= minLabelHeading
		if len(parts) > 1 {
			out[i] = slices.DeleteFunc(parts, func(p string) bool { return len(pagesOf[p]) >= common })
		}
	}
	return labelling{of: out, from: from}
}

// labelOf is the label a source's quotes open with: none before its aspect's labels begin.
func labelOf(labelled bool, parts []string, shown map[string]bool) string {
	if !labelled {
		return ""
	}
	return newLabel(parts, shown)
}

// newLabel joins the parts of a label not yet in shown, and adds them to it: a page's title
// introduces its first quoted passage, and its other passages only by their own headings.
func newLabel(parts []string, shown map[string]bool) string {
	var fresh []string
	for _, p := range parts {
		if !shown[p] {
			shown[p] = true
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 && len(parts) > 0 {
		// another passage under a heading already shown: its heading again, or its quotes
		// would read as under the label before it
		return parts[len(parts)-1]
	}
	return strings.Join(fresh, " — ")
}

// weighLaterRounds scales the scores of the sentences of a source only a round after the first
// found by laterRoundWeight, for picking passages.
func weighLaterRounds(cands []candidate, sources []research.Source) {
	for k := range cands {
		if sources[cands[k].src].Round >= 2 {
			for j := range cands[k].rel {
				cands[k].rel[j] *= laterRoundWeight
			}
		}
	}
}

// unreadWords are the words of aspect, as it writes them, that no source read holds in its text
// or its title (held: by local number, true for a term some source holds). A word the evidence
// writes joined with its neighbour ("auto increment": "AUTOINCREMENT") is read.
func unreadWords(aspect string, held func(term string) bool) []string {
	words := text.Content(aspect)
	read := make([]bool, len(words))
	for i, w := range words {
		read[i] = held(text.StemCached(w))
		if i > 0 && held(text.StemCached(words[i-1]+w)) {
			read[i-1], read[i] = true, true
		}
	}
	var out []string
	for i, w := range words {
		if !read[i] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// isExampleCaption reports a sentence of prose that is a paragraph of its own, as an example's
// caption is ("Compute the current unix timestamp." before "SELECT unixepoch(); SELECT
// strftime('%s');"); the last sentence of a paragraph explaining the program before it ("...
// is guaranteed to print "hello, world". The write to a is sequenced before ...") is not.
// Measured in internal/devloop: every recall the same on the eight sets and pgblind2, 94
// report lines change (SQLite's date examples show their code; a Go spec answer loses a code
// block to the room the others take).
func isExampleCaption(cands []candidate, k int) bool {
	c := cands[k]
	if c.lines != nil || c.layout != "" || !isProse(c.text) {
		return false
	}
	samePara := func(o candidate) bool { return o.src == c.src && o.sec == c.sec && o.para == c.para }
	return (k == 0 || !samePara(cands[k-1])) && (k+1 == len(cands) || !samePara(cands[k+1]))
}
