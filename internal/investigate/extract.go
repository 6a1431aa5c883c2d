package investigate

import (
	_ "embed"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sated-dev/sated/internal/text"
)

// Breadcrumb kinds, in ranking order. A topic is a capitalised phrase that names a section or
// a subject ("Implementation Restrictions", "File Locking"): worth following, since the pages
// around it are about the question's neighbourhood, but no actor.
const (
	KindIdentifier   = "identifier"
	KindOrganisation = "organisation"
	KindPerson       = "person"
	KindTopic        = "topic"
	KindAcronym      = "acronym"
)

var kindRank = map[string]int{KindIdentifier: 0, KindOrganisation: 1, KindPerson: 2, KindTopic: 3, KindAcronym: 4}

// Breadcrumb is a lead found in the results: an identifier, organisation, person, topic or
// acronym.
type Breadcrumb struct {
	Text  string `json:"text"`
	Kind  string `json:"kind"`
	Count int    `json:"count"` // documents mentioning it
}

var (
	identifierRes = []*regexp.Regexp{
		regexp.MustCompile(`\bCVE-\d{4}-\d{4,7}\b`),
		regexp.MustCompile(`\bGO-\d{4}-\d{4}\b`),
		regexp.MustCompile(`\bRFC ?\d{3,5}\b`),
		regexp.MustCompile(`\bISO(?:/IEC)? ?\d{3,5}(?:-\d+)?\b`),
		regexp.MustCompile(`\bPEP ?\d{1,4}\b`),
		regexp.MustCompile(`\b[Gg]o ?1\.\d{1,2}(?:\.\d{1,2})?\b`),
		regexp.MustCompile(`\bv\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.]+)?\b`),
		regexp.MustCompile(`(?:\b[\w.-]+/[\w.-]+)?#\d{2,6}\b`),
		regexp.MustCompile(`\b[Ii]ssue ?#?\d{2,6}\b`),
		// contract, case and document numbers: letter-led codes of two or more dash-joined parts
		// holding digits ("GS-35F-0119Y", "FA8750-19-C-0092", "NIST SP 800-53")
		regexp.MustCompile(`\b(?:NIST )?SP ?\d{3}-\d{1,3}[A-Z]?\b`),
		regexp.MustCompile(`\b[A-Z][A-Z0-9]{0,7}(?:-[A-Z0-9]*\d[A-Z0-9]*){2,4}\b|\b[A-Z]{1,4}\d[A-Z0-9]{2,}(?:-[A-Z0-9]+){1,4}\b`),
	}
	orgSuffix = `(?:Inc\.?|Incorporated|Foundation|Corporation|Corp\.?|Group|University|Institute|Ltd\.?|LLC|GmbH|Labs?|Consortium|Association|Society|Agency|Commission|Council|Committee|Project|Authority|Ministry|Department)`
	orgRe     = regexp.MustCompile(`\b(?:(?:University|Institute|Ministry|Department) of (?:[A-Z][\w&-]+ ?){1,3}|(?:[A-Z][\w&.-]*[a-z0-9][\w&.-]* ){1,4}` + orgSuffix + `)`)
	personRe  = regexp.MustCompile(`\b(?:(?:Mr|Mrs|Ms|Dr|Prof|Sir|Dame)\.? )?[A-Z][a-z]+(?:-[A-Z][a-z]+)? (?:(?:van|von|de|der|den|da|di|du|le|la) )?(?:[A-Z]\. )?[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b`)
	honorRe   = regexp.MustCompile(`^(?:Mr|Mrs|Ms|Dr|Prof|Sir|Dame)\.? `)
	acronymRe = regexp.MustCompile(`\b[A-Z][A-Z0-9]{1,6}s?\b`)
)

// notNames are capitalised words that start sentences or name things, not people.
var notNames = toSet(`The This That These Those There Then When Where Which While What Why How Who If In On At For From
	With Without Into Onto Of To By As An And But Or Not No Yes All Any Each Every Some Many Most More Less
	It Its We Our You Your They Their He She His Her A Go Golang Google Linux Windows Mac Unix Java Python
	January February March April May June July August September October November December Monday Tuesday
	Wednesday Thursday Friday Saturday Sunday New See Also Note Example Examples Table Section Chapter Figure
	Release Notes Version Package Packages Type Types Function Functions Method Methods Value Values Memory
	Model Garbage Collector Program Programs Language Specification Effective Frequently Asked Questions
	Getting Started Tutorial Guide Overview Introduction Summary Using Use Since After Before During Because
	However Here Such Other First Second Third Last Next Previous Unlike Like Instead Both Either Neither
	Channel Channels Struct Interface Interfaces Module Modules Command Commands Tools Tool Code Data
	Corp Inc Ltd LLC GmbH Group Foundation Corporation University Institute Series Round`)

// leadingWords start sentences in front of an organisation's name.
var leadingWords = toSet(`The This That These Those A An In At For From With By Of To And But Or When While After Before Since`)

// notAcronyms are capitalised tokens that are not worth following.
var notAcronyms = toSet(`I A OK TODO FAQ NOTE US UK EU AM PM ID IDs URL URLs HTML HTTP HTTPS API APIs JSON XML CSS
	PDF NB II III IV VI VII VIII IX XI XII`)

func toSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

type mention struct{ text, kind string }

// isStopword is text.IsStopword, for functions whose text parameter hides the package.
var isStopword = text.IsStopword

// lexicon is the words a batch of texts writes in lower case ("mode", "locking", "select",
// "to"). Documentation capitalises its headings and shouts its keywords: "File Locking" and
// "Shared-Cache Mode" are headings whose words the text writes in lower case too, "ON" and
// "FROM" are SQL that the prose writes as "on" and "from". A surname or an acronym is seldom
// written that way ("Richard Hipp", "NASA").
type lexicon map[string]bool

// commonWordsText is technical English's common lower-case words, one a line: those at least
// ten pages of the Python 3.11 documentation write in lower case (TestCommonWords derives it
// again). A batch of snippets is too short to write "restrictions" or "manual" itself.
//
//go:embed common_words.txt
var commonWordsText string

var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(commonWordsText) {
		m[w] = true
	}
	return m
}()

// lowerWords is the lexicon of texts: every run of letters that starts in lower case.
func lowerWords(texts []string) lexicon {
	lx := lexicon{}
	for _, t := range texts {
		for _, w := range letterRuns(t) {
			if r := []rune(w)[0]; unicode.IsLower(r) {
				lx[w] = true
			}
		}
	}
	return lx
}

// letterRuns splits s into its runs of letters ("Shared-Cache Mode": Shared, Cache, Mode).
func letterRuns(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}

// common reports whether the last word of name is one the texts, or technical English
// (commonWords), write in lower case: the head noun of a heading ("Backwards Compatibility",
// "Implementation Restrictions", "File Locking") or a keyword ("FROM"); a surname seldom is
// ("Richard Hipp", "Mark Hammond"). A nil lexicon knows no words.
func (lx lexicon) common(name string) bool {
	ws := letterRuns(name)
	if lx == nil || len(ws) == 0 {
		return false
	}
	last := strings.ToLower(ws[len(ws)-1])
	return lx[last] || commonWords[last]
}

// mentions finds every breadcrumb-like mention in one text, identifiers first so their parts
// are not counted again as acronyms (the reading of runs before docLeads: no lexicon).
func mentions(text string) []mention { return mentionsIn(text, nil) }

// mentionsIn is mentions that reads a capitalised pair whose last word lx writes in lower case
// (lexicon.common) as a topic, not a person, and drops the acronyms whose word lx writes in
// lower case or that are stopwords: keywords, not names.
func mentionsIn(text string, lx lexicon) []mention {
	var out []mention
	taken := make([]bool, len(text))
	claim := func(loc []int) bool {
		for i := loc[0]; i < loc[1]; i++ {
			if taken[i] {
				return false
			}
		}
		for i := loc[0]; i < loc[1]; i++ {
			taken[i] = true
		}
		return true
	}
	for _, re := range identifierRes {
		for _, loc := range re.FindAllStringIndex(text, -1) {
			if claim(loc) {
				out = append(out, mention{strings.TrimSpace(text[loc[0]:loc[1]]), KindIdentifier})
			}
		}
	}
	for _, loc := range orgRe.FindAllStringIndex(text, -1) {
		org := strings.TrimSpace(text[loc[0]:loc[1]])
		if first := strings.Fields(org)[0]; leadingWords[first] {
			// drop a sentence-initial word ("The Go Project" -> "Go Project")
			rest := strings.TrimSpace(strings.TrimPrefix(org, first))
			if len(strings.Fields(rest)) < 2 {
				continue
			}
			loc = []int{loc[1] - len(rest), loc[1]}
			org = rest
		}
		if claim(loc) {
			out = append(out, mention{org, KindOrganisation})
		}
	}
	for _, loc := range personRe.FindAllStringIndex(text, -1) {
		name := text[loc[0]:loc[1]]
		bare := honorRe.ReplaceAllString(name, "")
		words := strings.Fields(bare)
		if honorRe.MatchString(name) || (!notNames[words[0]] && !notNames[words[len(words)-1]]) {
			kind := KindPerson
			if !honorRe.MatchString(name) && lx.common(bare) {
				kind = KindTopic
			}
			if claim(loc) {
				out = append(out, mention{name, kind})
			}
		}
	}
	for _, loc := range acronymRe.FindAllStringIndex(text, -1) {
		a := text[loc[0]:loc[1]]
		if notAcronyms[a] || notAcronyms[strings.TrimSuffix(a, "s")] || !hasLetters(a, 2) {
			continue
		}
		if lx != nil && (isStopword(strings.ToLower(a)) || lx.common(a) || lx.common(strings.TrimSuffix(a, "s"))) {
			continue
		}
		if claim(loc) {
			out = append(out, mention{strings.TrimSuffix(a, "s"), KindAcronym})
		}
	}
	return out
}

func hasLetters(s string, n int) bool {
	c := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			c++
		}
	}
	return c >= n
}

// count tallies mentions across texts by documents mentioning them, folding case and spacing,
// read with lx (nil: the reading before docLeads).
func count(texts []string, keep func(kind string) bool, lx lexicon) []Breadcrumb {
	type acc struct {
		b    Breadcrumb
		seen int
	}
	byKey := map[string]*acc{}
	var order []string
	for i, t := range texts {
		for _, m := range mentionsIn(t, lx) {
			if !keep(m.kind) {
				continue
			}
			k := m.kind + "|" + NormalizeName(m.text)
			a, ok := byKey[k]
			if !ok {
				a = &acc{b: Breadcrumb{Text: m.text, Kind: m.kind}, seen: -1}
				byKey[k] = a
				order = append(order, k)
			}
			if a.seen != i {
				a.seen = i
				a.b.Count++
			}
		}
	}
	out := make([]Breadcrumb, 0, len(order))
	for _, k := range order {
		out = append(out, byKey[k].b)
	}
	return out
}

// Breadcrumbs extracts and ranks the leads in texts: identifiers, then organisations, then
// people, then topics, then acronyms; within a kind by how many texts mention them. At most n
// (0: all). A capitalised pair whose head word is common is a topic (a heading), an upper-case
// common word a keyword, dropped (lexicon).
func Breadcrumbs(texts []string, n int) []Breadcrumb { return breadcrumbs(texts, n, lowerWords(texts)) }

// BreadcrumbsV1 is Breadcrumbs as runs before docLeads read them: every capitalised pair a
// person, every upper-case word an acronym.
func BreadcrumbsV1(texts []string, n int) []Breadcrumb { return breadcrumbs(texts, n, nil) }

func breadcrumbs(texts []string, n int, lx lexicon) []Breadcrumb {
	bs := count(texts, func(string) bool { return true }, lx)
	sort.SliceStable(bs, func(i, j int) bool {
		if kindRank[bs[i].Kind] != kindRank[bs[j].Kind] {
			return kindRank[bs[i].Kind] < kindRank[bs[j].Kind]
		}
		return bs[i].Count > bs[j].Count
	})
	if n > 0 && len(bs) > n {
		bs = bs[:n]
	}
	return bs
}

// Entities counts the actors in texts (organisations, people, acronyms) by how many texts
// mention them, most mentioned first, at most n (0: all). Only runs from before
// pageVerifyChange use it, with their reading (no lexicon).
func Entities(texts []string, n int) []Breadcrumb {
	es := count(texts, func(k string) bool { return k != KindIdentifier }, nil)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Count != es[j].Count {
			return es[i].Count > es[j].Count
		}
		return kindRank[es[i].Kind] < kindRank[es[j].Kind]
	})
	if n > 0 && len(es) > n {
		es = es[:n]
	}
	return es
}

// KeyEntities ranks the actors in texts by frequency and relevance, leaving out what the
// question already names: each text mentioning an entity counts 1, and 1 more when it also
// names one of the question's terms (an actor mentioned beside the subject matters more than
// one mentioned in passing). At most n (0: all). Actors are read as Breadcrumbs reads leads:
// a heading is researched as a topic, not as a person, and an acronym counts where it is
// written in capitals ("IN" is not named by every "in").
func KeyEntities(question string, terms []string, texts []string, n int) []Breadcrumb {
	return keyEntities(question, terms, texts, n, lowerWords(texts))
}

// KeyEntitiesV1 is KeyEntities as runs before docLeads read them (no lexicon; an acronym
// counts wherever its letters are a word in any case).
func KeyEntitiesV1(question string, terms []string, texts []string, n int) []Breadcrumb {
	return keyEntities(question, terms, texts, n, nil)
}

func keyEntities(question string, terms []string, texts []string, n int, lx lexicon) []Breadcrumb {
	q := " " + NormalizeName(question) + " "
	lower := make([]string, len(texts))
	for i, t := range texts {
		lower[i] = " " + NormalizeName(t) + " "
	}
	type scored struct {
		b     Breadcrumb
		score int
	}
	var es []scored
	for _, e := range count(texts, func(k string) bool { return k != KindIdentifier }, lx) {
		name := NormalizeName(e.Text)
		if strings.Contains(q, " "+name+" ") {
			continue
		}
		score := 0
		for i, t := range lower {
			if !strings.Contains(t, " "+name+" ") || lx != nil && e.Kind == KindAcronym && !writesWord(texts[i], e.Text) {
				continue
			}
			score++
			for _, term := range terms {
				if w := NormalizeName(term); w != "" && w != name && strings.Contains(t, " "+w+" ") {
					score++
					break
				}
			}
		}
		es = append(es, scored{e, score})
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].score != es[j].score {
			return es[i].score > es[j].score
		}
		return kindRank[es[i].b.Kind] < kindRank[es[j].b.Kind]
	})
	var out []Breadcrumb
	for _, e := range es {
		if n > 0 && len(out) == n {
			break
		}
		out = append(out, e.b)
	}
	return out
}

// BestSourceFor is the source to follow a breadcrumb in: the one whose findings mention it
// most (it knows the neighbourhood), among the usable sources in order; "" when none mentions
// it.
func BestSourceFor(b Breadcrumb, findings []Finding, usable []string) string {
	p := strings.ToLower(b.Text)
	n := map[string]int{}
	for _, f := range findings {
		if !strings.Contains(strings.ToLower(f.Title+" "+f.Snippet), p) {
			continue
		}
		for _, s := range f.SourcesOf() {
			n[s]++
		}
	}
	best := ""
	for _, s := range usable {
		if n[s] > 0 && (best == "" || n[s] > n[best]) {
			best = s
		}
	}
	return best
}

// Sentences splits text into sentences (text.Sentences).
func Sentences(s string) []string { return text.Sentences(s) }

// Mentioning returns up to n sentences of texts that mention the phrase (case-insensitively),
// once each, in order.
func Mentioning(texts []string, phrase string, n int) []string {
	p := strings.ToLower(phrase)
	return mentioning(texts, n, func(s string) bool { return strings.Contains(strings.ToLower(s), p) })
}

// MentioningActor is Mentioning for an actor: an acronym is mentioned where it is written as a
// word in capitals ("IN" is not mentioned by "in" or "INSERT"), anything else as Mentioning.
func MentioningActor(texts []string, e Breadcrumb, n int) []string {
	if e.Kind == KindAcronym {
		return mentioning(texts, n, func(s string) bool { return writesWord(s, e.Text) })
	}
	return Mentioning(texts, e.Text, n)
}

func mentioning(texts []string, n int, mentions func(sentence string) bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range texts {
		for _, s := range text.Sentences(t) {
			k := strings.ToLower(s)
			if mentions(s) && !seen[k] {
				seen[k] = true
				out = append(out, s)
				if len(out) == n {
					return out
				}
			}
		}
	}
	return out
}

// MergeModelLeads adds leads a model named to the pattern leads: each must literally occur in
// the texts (a model's invention is dropped), is counted by the documents mentioning it, and the
// result is ranked like Breadcrumbs (identifiers, organisations, people, acronyms; then count).
func MergeModelLeads(pattern []Breadcrumb, model []Breadcrumb, texts []string) []Breadcrumb {
	out := append([]Breadcrumb{}, pattern...)
	have := map[string]bool{}
	for _, b := range pattern {
		have[NormalizeName(b.Text)] = true
	}
	lower := make([]string, len(texts))
	for i, t := range texts {
		lower[i] = strings.ToLower(t)
	}
	for _, m := range model {
		text := strings.TrimSpace(m.Text)
		key := NormalizeName(text)
		if _, known := kindRank[m.Kind]; !known || len(text) < 2 || have[key] {
			continue
		}
		n := 0
		for _, t := range lower {
			if strings.Contains(t, strings.ToLower(text)) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		have[key] = true
		out = append(out, Breadcrumb{Text: text, Kind: m.Kind, Count: n})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if kindRank[out[i].Kind] != kindRank[out[j].Kind] {
			return kindRank[out[i].Kind] < kindRank[out[j].Kind]
		}
		return out[i].Count > out[j].Count
	})
	return out
}

// writesWord reports whether s writes w as a word of its own, in w's case ("IN" is not in
// "in" nor in "INSERT"; "SQL" is in "SQL's").
func writesWord(s, w string) bool {
	for at := 0; ; {
		i := strings.Index(s[at:], w)
		if i < 0 {
			return false
		}
		i += at
		before, after := i == 0, i+len(w) == len(s)
		if !before {
			r, _ := utf8.DecodeLastRuneInString(s[:i])
			before = !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}
		if !after {
			r, _ := utf8.DecodeRuneInString(s[i+len(w):])
			after = !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}
		if before && after {
			return true
		}
		at = i + len(w)
	}
}
