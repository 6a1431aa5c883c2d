package investigate

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/publicsuffix"
	"golang.org/x/text/unicode/norm"

	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/search"
)

// Verification tags.
const (
	VerifiedOfficial = "verified_official"
	VerifiedMulti    = "verified_multi"
	UnverifiedSingle = "unverified_single"
	Contradicted     = "contradicted"
)

// DefaultOfficialDomains are preferred sources; "*.gov" matches any host under gov.
var DefaultOfficialDomains = []string{"go.dev", "golang.org", "*.gov", "*.gov.uk", "*.edu", "*.ac.uk",
	"europa.eu", "ietf.org", "rfc-editor.org", "iso.org", "w3.org", "who.int", "un.org"}

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

const monthName = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?`

var (
	isoDateRe   = regexp.MustCompile(`\b((?:19|20)\d{2})-(\d{1,2})(?:-(\d{1,2}))?\b`)
	mdyRe       = regexp.MustCompile(`(?i)\b(` + monthName + `) (\d{1,2})(?:st|nd|rd|th)?,? ((?:19|20)\d{2})\b`)
	dmyRe       = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(` + monthName + `),? ((?:19|20)\d{2})\b`)
	myRe        = regexp.MustCompile(`(?i)\b(` + monthName + `),? ((?:19|20)\d{2})\b`)
	dateRes     = []*regexp.Regexp{isoDateRe, mdyRe, dmyRe, myRe}
	amountRe    = regexp.MustCompile(`(?i)(?:(US\$|\$|€|£|¥|USD|EUR|GBP) ?)?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?) ?(thousand|million|billion|trillion|[kmb]n?\b)?(?: ?(dollars|euros|pounds|USD|EUR|GBP))?`)
	multipliers = map[string]float64{"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "b": 1e9, "bn": 1e9, "trillion": 1e12}
	currencies  = map[string]string{"$": "USD", "us$": "USD", "usd": "USD", "dollars": "USD", "€": "EUR", "eur": "EUR", "euros": "EUR",
		"£": "GBP", "gbp": "GBP", "pounds": "GBP", "¥": "JPY"}
)

func monthNumber(s string) int {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	if len(s) > 3 && s != "sept" {
		s = s[:3]
	}
	return months[s]
}

func ymd(y, m, d int) string {
	if m < 1 || m > 12 || d < 0 || d > 31 {
		return ""
	}
	if d == 0 {
		return fmt.Sprintf("%04d-%02d", y, m)
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// Dates finds the dates in text, normalised to YYYY-MM or YYYY-MM-DD: "Oct 2023", "October
// 2023" and "2023-10" are all "2023-10"; "October 5, 2023" and "5 Oct 2023" are "2023-10-05".
func Dates(text string) []string {
	taken := make([]bool, len(text))
	var out []string
	for _, re := range dateRes {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			if taken[m[0]] || taken[m[1]-1] {
				continue
			}
			g := func(i int) string {
				if m[2*i] < 0 {
					return ""
				}
				return text[m[2*i]:m[2*i+1]]
			}
			atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
			var d string
			switch re {
			case isoDateRe:
				d = ymd(atoi(g(1)), atoi(g(2)), atoi(g(3)))
			case mdyRe:
				d = ymd(atoi(g(3)), monthNumber(g(1)), atoi(g(2)))
			case dmyRe:
				d = ymd(atoi(g(3)), monthNumber(g(2)), atoi(g(1)))
			case myRe:
				d = ymd(atoi(g(2)), monthNumber(g(1)), 0)
			}
			if d == "" {
				continue
			}
			for i := m[0]; i < m[1]; i++ {
				taken[i] = true
			}
			out = appendOnce(out, d)
		}
	}
	return out
}

// DatesAgree reports whether two normalised dates can be the same day: equal, or one is the
// month of the other.
func DatesAgree(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"-") || strings.HasPrefix(b, a+"-")
}

// Amounts finds money amounts in text, normalised to "CUR value": "$1.5 million" and
// "$1,500,000" are both "USD 1500000". Bare numbers without a currency are not amounts.
func Amounts(text string) []string {
	var out []string
	for _, m := range amountRe.FindAllStringSubmatch(text, -1) {
		cur := currencies[strings.ToLower(m[1])]
		if cur == "" {
			cur = currencies[strings.ToLower(m[4])]
		}
		if cur == "" {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
		if err != nil {
			continue
		}
		if mul, ok := multipliers[strings.ToLower(m[3])]; ok {
			v *= mul
		}
		out = appendOnce(out, cur+" "+strconv.FormatFloat(v, 'f', -1, 64))
	}
	return out
}

// NormalizeName folds case, spacing, punctuation and diacritics: "José  García" == "jose garcia".
func NormalizeName(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// Site is the registrable domain of a URL ("go.dev", "example.co.uk"); local files and
// unparsable URLs have none.
func Site(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	h := strings.ToLower(strings.TrimPrefix(u.Hostname(), "www."))
	if d, err := publicsuffix.EffectiveTLDPlusOne(h); err == nil {
		return d
	}
	return h
}

// IsOfficial reports whether the URL's host is one of the official domains ("go.dev" matches
// go.dev and its subdomains; "*.gov" any host under gov).
func IsOfficial(raw string, domains []string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(d, "*"), "."))
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// cites reports whether lowered text holds the normalized URL, with or without its scheme.
func cites(lowered, normalized string) bool {
	if normalized == "" {
		return false
	}
	n := strings.ToLower(normalized)
	bare := strings.TrimPrefix(strings.TrimPrefix(n, "https://"), "http://")
	return strings.Contains(lowered, n) || strings.Contains(bare, "/") && strings.Contains(lowered, bare)
}

// witness is a page with what the pairwise checks need computed once.
type witness struct {
	key, site, lowered string
	official           bool
}

func newWitness(u, text string, official []string) witness {
	return witness{key: search.NormalizeURL(u), site: Site(u), lowered: strings.ToLower(text), official: IsOfficial(u, official)}
}

func independent(a, b witness) (bool, string) {
	switch {
	case a.key == b.key:
		return false, "same page"
	case a.site == "" || b.site == "" || a.site == b.site:
		return false, "same site"
	case cites(a.lowered, b.key) || cites(b.lowered, a.key):
		return false, "one cites the other"
	}
	return true, ""
}

// Claim is a key sentence with the facts that can be checked.
type Claim struct {
	Text    string   `json:"text"`
	URL     string   `json:"url"`
	Dates   []string `json:"dates,omitempty"`
	Amounts []string `json:"amounts,omitempty"`
	Names   []string `json:"names,omitempty"` // normalised people and organisations
}

// Claims extracts up to n key sentences from a page: those carrying dates, amounts, names or
// figures, best first.
func Claims(pageURL, text string, n int) []Claim {
	type scored struct {
		c     Claim
		score int
		pos   int
	}
	var cands []scored
	for i, s := range Sentences(text) {
		if len(s) < 30 || len(s) > 400 {
			continue
		}
		c := Claim{Text: s, URL: pageURL, Dates: Dates(s), Amounts: Amounts(s)}
		for _, m := range mentions(s) {
			if m.kind == KindPerson || m.kind == KindOrganisation {
				c.Names = appendOnce(c.Names, NormalizeName(honorRe.ReplaceAllString(m.text, "")))
			}
		}
		score := 2*len(c.Dates) + 2*len(c.Amounts) + len(c.Names)
		if strings.IndexFunc(s, unicode.IsDigit) >= 0 {
			score++
		}
		if score >= 2 {
			cands = append(cands, scored{c, score, i})
		}
	}
	for i := 1; i < len(cands); i++ { // stable insertion sort by score
		for j := i; j > 0 && cands[j].score > cands[j-1].score; j-- {
			cands[j], cands[j-1] = cands[j-1], cands[j]
		}
	}
	var out []Claim
	for _, c := range cands {
		if len(out) == n {
			break
		}
		out = append(out, c.c)
	}
	return out
}

// subjectWords are a claim's content words without figures, for "about the same thing".
func subjectWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range novelty.ContentWords(s) {
		if !isNumber(w) && months[w] == 0 && monthNumber(w) == 0 {
			out[w] = true
		}
	}
	return out
}

// SameSubjectShare is the content-word overlap (Jaccard) above which two claims are taken to
// be about the same thing.
const SameSubjectShare = 0.4

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	//workflowcheck:ignore counting the intersection does not depend on order
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Conflict explains how two claims about the same thing disagree ("" when they do not): dates
// that cannot be the same day, different amounts, or different names.
func Conflict(a, b Claim) string {
	if len(a.Dates) > 0 && len(b.Dates) > 0 && !anyPair(a.Dates, b.Dates, DatesAgree) {
		return fmt.Sprintf("dates differ: %s vs %s", strings.Join(a.Dates, ", "), strings.Join(b.Dates, ", "))
	}
	eq := func(x, y string) bool { return x == y }
	if len(a.Amounts) > 0 && len(b.Amounts) > 0 && !anyPair(a.Amounts, b.Amounts, eq) {
		return fmt.Sprintf("amounts differ: %s vs %s", strings.Join(a.Amounts, ", "), strings.Join(b.Amounts, ", "))
	}
	if len(a.Names) > 0 && len(b.Names) > 0 && !anyPair(a.Names, b.Names, eq) {
		return fmt.Sprintf("names differ: %s vs %s", strings.Join(a.Names, ", "), strings.Join(b.Names, ", "))
	}
	return ""
}

func anyPair(xs, ys []string, f func(a, b string) bool) bool {
	for _, x := range xs {
		for _, y := range ys {
			if f(x, y) {
				return true
			}
		}
	}
	return false
}

// maxEvidence bounds the URLs listed per claim; the tag already counts them all.
const maxEvidence = 5

func appendCapped(xs []string, x string) []string {
	if len(xs) >= maxEvidence {
		return xs
	}
	return appendOnce(xs, x)
}

// VerifiedClaim is a claim with its tag and the evidence for it.
type VerifiedClaim struct {
	Claim
	Tag            string   `json:"tag"`
	Official       bool     `json:"official"`
	Corroborations []string `json:"corroborations,omitempty"` // URLs of independent pages that agree
	Contradictions []string `json:"contradictions,omitempty"` // "URL: how it disagrees"
	Dependent      []string `json:"dependent,omitempty"`      // "URL: why it does not count"
}

// Verify tags each claim against the claims of the other pages: contradicted when a page about
// the same thing disagrees on a date, amount or name; verified_official when its page or an
// agreeing independent page is official; verified_multi when an independent page agrees;
// unverified_single otherwise. pages gives each URL's text for the citing check.
func Verify(claims []Claim, pages map[string]string, official []string) []VerifiedClaim {
	subj := make([]map[string]bool, len(claims))
	wit := make([]witness, len(claims))
	byURL := map[string]witness{}
	for i, c := range claims {
		subj[i] = subjectWords(c.Text)
		w, ok := byURL[c.URL]
		if !ok {
			w = newWitness(c.URL, pages[c.URL], official)
			byURL[c.URL] = w
		}
		wit[i] = w
	}
	out := make([]VerifiedClaim, len(claims))
	for i, c := range claims {
		v := VerifiedClaim{Claim: c, Official: wit[i].official}
		officialAgrees := v.Official
		for j, o := range claims {
			if i == j || wit[i].key == wit[j].key || jaccard(subj[i], subj[j]) < SameSubjectShare {
				continue
			}
			if why := Conflict(c, o); why != "" {
				v.Contradictions = appendCapped(v.Contradictions, o.URL+": "+why)
				continue
			}
			if ok, why := independent(wit[i], wit[j]); !ok {
				v.Dependent = appendCapped(v.Dependent, o.URL+": "+why)
				continue
			}
			v.Corroborations = appendCapped(v.Corroborations, o.URL)
			officialAgrees = officialAgrees || wit[j].official
		}
		switch {
		case len(v.Contradictions) > 0:
			v.Tag = Contradicted
		case officialAgrees:
			v.Tag = VerifiedOfficial
		case len(v.Corroborations) > 0:
			v.Tag = VerifiedMulti
		default:
			v.Tag = UnverifiedSingle
		}
		out[i] = v
	}
	return out
}
