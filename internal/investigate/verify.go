package investigate

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
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
	isoDateRe = regexp.MustCompile(`\b((?:19|20)\d{2})-(\d{1,2})(?:-(\d{1,2}))?\b`)
	mdyRe     = regexp.MustCompile(`(?i)\b(` + monthName + `) (\d{1,2})(?:st|nd|rd|th)?,? ((?:19|20)\d{2})\b`)
	dmyRe     = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(` + monthName + `),? ((?:19|20)\d{2})\b`)
	myRe      = regexp.MustCompile(`(?i)\b(` + monthName + `),? ((?:19|20)\d{2})\b`)
	quarterRe = regexp.MustCompile(`(?i)\b(?:Q([1-4])[ -]?|(first|second|third|fourth|1st|2nd|3rd|4th) quarter (?:of )?)((?:19|20)\d{2})\b`)
	// a bare year counts only after a word that makes it a time ("in 2024", "late 2016",
	// "mid-2009", "(2012)"), so "2048 bytes" and "GopherCon 2023" are not dates
	yearRe      = regexp.MustCompile(`(?i)(?:\b(?:in|since|by|during|until|till|from|before|after|around|circa|early|mid|late|fiscal|FY|year|of)[ -]|\()((?:19|20)\d{2})\b`)
	dateRes     = []*regexp.Regexp{isoDateRe, mdyRe, dmyRe, myRe, quarterRe, yearRe}
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

var quarterWords = map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}

// Dates finds the dates in text at every precision, normalised to YYYY, YYYY-Qn, YYYY-MM or
// YYYY-MM-DD: "Oct 2023", "October 2023" and "2023-10" are all "2023-10"; "October 5, 2023"
// and "5 Oct 2023" are "2023-10-05"; "Q3 2023" is "2023-Q3"; "in 2024" is "2024".
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
			case quarterRe:
				q := atoi(g(1))
				if q == 0 {
					q = quarterWords[strings.ToLower(g(2))]
				}
				d = fmt.Sprintf("%s-Q%d", g(3), q)
			case yearRe:
				if e := m[1]; e+1 < len(text) && (text[e] == '-' || text[e] == '.') && unicode.IsDigit(rune(text[e+1])) {
					continue // a version or an ISO date the other patterns did not take
				}
				d = g(1)
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

// DatesAgree reports whether two normalised dates can be the same day: one's span holds the
// other's (a day agrees with its month, quarter and year; a month with its quarter and year).
func DatesAgree(a, b string) bool {
	a0, a1 := dateSpan(a)
	b0, b1 := dateSpan(b)
	if a0 == 0 || b0 == 0 {
		return a == b
	}
	return a0 <= b0 && b1 <= a1 || b0 <= a0 && a1 <= b1
}

// dateSpan is the first and last day (as YYYYMMDD) a normalised date can mean.
func dateSpan(d string) (int, int) {
	var y, m, day, q int
	switch {
	case len(d) == 4:
		fmt.Sscanf(d, "%d", &y)
		return y*10000 + 101, y*10000 + 1231
	case strings.Contains(d, "-Q"):
		fmt.Sscanf(d, "%d-Q%d", &y, &q)
		return y*10000 + (3*q-2)*100 + 1, y*10000 + 3*q*100 + 31
	case len(d) == 7:
		fmt.Sscanf(d, "%d-%d", &y, &m)
		return y*10000 + m*100 + 1, y*10000 + m*100 + 31
	case len(d) == 10:
		fmt.Sscanf(d, "%d-%d-%d", &y, &m, &day)
		return y*10000 + m*100 + day, y*10000 + m*100 + day
	}
	return 0, 0
}

// Figure is an amount with its unit or currency: the value in the unit's base (USD, EUR,
// bytes, seconds, percent), the significant digits it was written with, and whether it was
// hedged ("about", "nearly").
type Figure struct {
	Unit   string  `json:"unit"`
	Value  float64 `json:"value"`
	Sig    int     `json:"sig"`
	Approx bool    `json:"approx,omitempty"`
}

func (f Figure) String() string {
	s := f.Unit + " " + strconv.FormatFloat(f.Value, 'f', -1, 64)
	if f.Approx {
		s = "~" + s
	}
	return s
}

var (
	unitRe = regexp.MustCompile(`(?i)(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)[ -]?(thousand|million|billion|trillion)?[ -]?(bytes?|KiB|MiB|GiB|TiB|KB|MB|GB|TB|kilobytes?|megabytes?|gigabytes?|terabytes?|%|percent|milliseconds?|ms|seconds?|minutes?|hours?|days?)(?:\b|$|[^\w])`)
	units  = map[string]struct {
		base string
		mul  float64
	}{"byte": {"bytes", 1}, "bytes": {"bytes", 1}, "kib": {"bytes", 1 << 10}, "mib": {"bytes", 1 << 20}, "gib": {"bytes", 1 << 30},
		"tib": {"bytes", 1 << 40}, "kb": {"bytes", 1e3}, "mb": {"bytes", 1e6}, "gb": {"bytes", 1e9}, "tb": {"bytes", 1e12},
		"kilobyte": {"bytes", 1e3}, "megabyte": {"bytes", 1e6}, "gigabyte": {"bytes", 1e9}, "terabyte": {"bytes", 1e12},
		"%": {"percent", 1}, "percent": {"percent", 1}, "ms": {"seconds", 1e-3}, "millisecond": {"seconds", 1e-3},
		"second": {"seconds", 1}, "minute": {"seconds", 60}, "hour": {"seconds", 3600}, "day": {"seconds", 86400}}
	hedgeRe = regexp.MustCompile(`(?i)(?:about|around|roughly|approximately|nearly|almost|some|over|more than|less than|up to|~)\s*$`)
)

// sigDigits counts the significant digits a number was written with: trailing zeros of a
// whole number count only when a multiplier word follows ("200 million" has 3, "200,000" 1).
func sigDigits(num string, multiplied bool) int {
	d := strings.TrimLeft(strings.NewReplacer(",", "", ".", "").Replace(num), "0")
	if !strings.Contains(num, ".") && !multiplied {
		d = strings.TrimRight(d, "0")
	}
	return max(len(d), 1)
}

func hedged(text string, at int) bool { return hedgeRe.MatchString(text[max(0, at-16):at]) }

// Figures finds the money amounts and the quantities with units in text: "$1.5 million" and
// "$1,500,000" are both USD 1500000, "64 KiB" and "65536 bytes" both bytes 65536. Bare numbers
// without a currency or unit are not figures.
func Figures(text string) []Figure {
	var out []Figure
	add := func(f Figure) {
		for _, g := range out {
			if g.Unit == f.Unit && g.Value == f.Value {
				return
			}
		}
		out = append(out, f)
	}
	for _, m := range amountRe.FindAllStringSubmatchIndex(text, -1) {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		cur := currencies[strings.ToLower(g(1))]
		if cur == "" {
			cur = currencies[strings.ToLower(g(4))]
		}
		if cur == "" {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(g(2), ",", ""), 64)
		if err != nil {
			continue
		}
		mul, ok := multipliers[strings.ToLower(g(3))]
		if ok {
			v *= mul
		}
		add(Figure{Unit: cur, Value: v, Sig: sigDigits(g(2), ok), Approx: hedged(text, m[0])})
	}
	for _, m := range unitRe.FindAllStringSubmatchIndex(text, -1) {
		num, mw, unit := text[m[2]:m[3]], "", strings.ToLower(text[m[6]:m[7]])
		if m[4] >= 0 {
			mw = strings.ToLower(text[m[4]:m[5]])
		}
		u, ok := units[unit]
		if !ok {
			u, ok = units[strings.TrimSuffix(unit, "s")]
		}
		if !ok || m[2] > 0 && strings.ContainsAny(text[m[2]-1:m[2]], "$€£¥") {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
		if err != nil {
			continue
		}
		mul, multiplied := multipliers[mw]
		if !multiplied {
			mul = 1
		}
		add(Figure{Unit: u.base, Value: v * mul * u.mul, Sig: sigDigits(num, multiplied), Approx: hedged(text, m[0])})
	}
	return out
}

// FiguresAgree reports whether two figures of one unit can be the same amount, and whether
// only at the coarser precision: equal, the finer within half a unit of the coarser's last
// significant digit, or within 10% when either is hedged.
func FiguresAgree(a, b Figure) (agree, coarser bool) {
	if a.Unit != b.Unit {
		return false, false
	}
	if a.Value == b.Value {
		return true, false
	}
	coarse := a
	if b.Sig < a.Sig {
		coarse = b
	}
	// the finer figure lies strictly within half a unit of the coarser one's last digit
	if coarse.Value != 0 {
		unit := math.Pow(10, math.Floor(math.Log10(math.Abs(coarse.Value)))-float64(coarse.Sig)+1)
		if math.Abs(a.Value-b.Value) < unit/2 {
			return true, true
		}
	}
	if (a.Approx || b.Approx) && math.Abs(a.Value-b.Value) <= 0.1*math.Max(math.Abs(a.Value), math.Abs(b.Value)) {
		return true, true
	}
	return false, false
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
	// Figures are the amounts with units and currencies the comparison uses.
	Figures []Figure `json:"figures,omitempty"`
	// Roles name who holds which role: "ceo: jane smith", "speaker: rob pike".
	Roles []string `json:"roles,omitempty"`
	// Keys are the versions and identifiers the claim is about ("3.7.0", "PEP 617"): two claims
	// naming different ones are about different things.
	Keys []string `json:"keys,omitempty"`
}

var (
	versionRe = regexp.MustCompile(`(?:\b(?i:version|versions|release|v)|\b[A-Z][A-Za-z]+) ?v?(\d+(?:\.\d+)+)\b`)
	// single-holder roles: two different holders at once is a contradiction
	singleRoles = toSet(`ceo cto cfo coo president chair chairman chairwoman chairperson director head mayor governor
		chief_executive chief_financial_officer chief_technology_officer prime_minister bdfl`)
	roleWords = `CEO|CTO|CFO|COO|[Pp]resident|[Cc]hair(?:man|woman|person)?|[Dd]irector|[Hh]ead|[Mm]ayor|[Gg]overnor|` +
		`[Cc]hief [Ee]xecutive|[Cc]hief [Ff]inancial [Oo]fficer|[Cc]hief [Tt]echnology [Oo]fficer|[Pp]rime [Mm]inister|BDFL|` +
		`(?:keynote )?[Ss]peakers?|[Aa]uthors?|[Mm]aintainers?|[Mm]oderators?|[Ff]ounders?|[Cc]o-founders?`
	personPat  = `((?:[A-Z][\w'-]+\.? ){0,3}[A-Z][\w'-]+)`
	roleBefore = regexp.MustCompile(`\b(` + roleWords + `),? ` + personPat)
	roleAfter  = regexp.MustCompile(personPat + `,? (?:is |was |has been |as )?(?:the |its |our )?(?:new )?(` + roleWords + `)\b`)
	roleAs     = regexp.MustCompile(`\bnamed ` + personPat + ` as (?:the |its )?(` + roleWords + `)\b`)
	roleBy     = regexp.MustCompile(`\b(written|rewritten|contributed|[Cc]ontributed|implemented|designed|created|founded|funded|maintained|reviewed|moderated|given|presented|led|chaired|proposed) by ([^.;()]+)`)
	byRole     = map[string]string{"written": "author", "rewritten": "author", "contributed": "contributor", "implemented": "implementer",
		"designed": "designer", "created": "creator", "founded": "founder", "funded": "funder", "maintained": "maintainer",
		"reviewed": "reviewer", "moderated": "moderator", "given": "speaker", "presented": "speaker", "led": "lead", "chaired": "chair",
		"proposed": "proposer"}
)

// roleName folds a role to one word per role: "Chief Executive" and "CEO" are both ceo.
func roleName(r string) string {
	r = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(r, "s"), "S"))
	r = strings.TrimPrefix(r, "keynote ")
	switch r {
	case "chief executive":
		return "ceo"
	case "chief financial officer":
		return "cfo"
	case "chief technology officer":
		return "cto"
	case "chairman", "chairwoman", "chairperson":
		return "chair"
	case "co-founder":
		return "founder"
	}
	return strings.ReplaceAll(r, " ", "_")
}

// Roles finds who holds which role in a sentence, as "role: normalised name".
func Roles(s string) []string {
	var out []string
	add := func(role, who string) {
		for _, m := range mentions(who) {
			if m.kind == KindPerson || m.kind == KindOrganisation {
				out = appendOnce(out, roleName(role)+": "+NormalizeName(honorRe.ReplaceAllString(m.text, "")))
			}
		}
	}
	for _, m := range roleBefore.FindAllStringSubmatch(s, -1) {
		add(m[1], m[2])
	}
	for _, m := range roleAfter.FindAllStringSubmatch(s, -1) {
		add(m[2], m[1])
	}
	for _, m := range roleAs.FindAllStringSubmatch(s, -1) {
		add(m[2], m[1])
	}
	for _, m := range roleBy.FindAllStringSubmatch(s, -1) {
		add(byRole[strings.ToLower(m[1])], m[2])
	}
	return out
}

// Keys are the versions and identifiers a sentence names.
func Keys(s string) []string { return keysOf(s, mentions(s)) }

// keysOf is Keys from the sentence's mentions, read once.
func keysOf(s string, ms []mention) []string {
	var out []string
	for _, m := range ms {
		if m.kind == KindIdentifier {
			out = appendOnce(out, strings.ToLower(strings.ReplaceAll(m.text, " ", "")))
		}
	}
	for _, m := range versionRe.FindAllStringSubmatch(s, -1) {
		out = appendOnce(out, m[1])
	}
	return out
}

// NewClaim is one sentence of a page with the facts it states. A version written bare
// ("2002-02-13 (2.3.1)" in a release history) is one of its keys, as "version 2.3.1" is.
func NewClaim(pageURL, sentence string) Claim {
	c := NewClaimV1(pageURL, sentence)
	for _, m := range bareVersionRe.FindAllStringSubmatch(sentence, -1) {
		c.Keys = appendOnce(c.Keys, m[1])
	}
	return c
}

// NewClaimV1 is NewClaim as runs before docLeads read a sentence: only a version after a word
// ("version 2.3.1", "SQLite 3.17.0") is a key.
func NewClaimV1(pageURL, sentence string) Claim {
	ms := mentions(sentence)
	c := Claim{Text: sentence, URL: pageURL, Dates: Dates(sentence), Figures: Figures(sentence), Roles: Roles(sentence), Keys: keysOf(sentence, ms)}
	for _, f := range c.Figures {
		c.Amounts = append(c.Amounts, f.String())
	}
	for _, m := range ms {
		if m.kind == KindPerson || m.kind == KindOrganisation {
			c.Names = appendOnce(c.Names, NormalizeName(honorRe.ReplaceAllString(m.text, "")))
		}
	}
	return c
}

// Claims extracts up to n key sentences from a page (NewClaim): those carrying dates, amounts,
// names or figures, best first. A sentence about the page it sits on ("This page last modified
// on 2020-02-10") is no claim: every page says it of itself, and two such pages do not
// disagree.
func Claims(pageURL, text string, n int) []Claim { return claims(pageURL, text, n, true) }

// ClaimsV1 is Claims as runs before docLeads read them: page notes are claims, read by
// NewClaimV1.
func ClaimsV1(pageURL, text string, n int) []Claim { return claims(pageURL, text, n, false) }

var (
	pageNoteRe = regexp.MustCompile(`(?i)\b(?:this|the present) (?:web ?page|page|document|article|file|site)\b[^.;]*\b(?:modified|updated|changed|generated|edited|revised)\b|^\W*(?:page )?last (?:modified|updated|changed|edited|revised)\b`)
	// bareVersionRe is a dotted version of three or four parts anywhere ("(2.3.1)", "3.8.7.1")
	bareVersionRe = regexp.MustCompile(`(?:^|[^\d.])(\d+\.\d+\.\d+(?:\.\d+)?)(?:$|[^\d.]|\.(?:$|\D))`)
)

// mayScore is false for a sentence that cannot score 2 as a claim, told without reading it: no
// digit (so no date, amount or figure) and fewer than four capitals (so not two names). Claims
// reads every sentence of the pages it verifies in workflow code, and reading each in full
// took most of a second on twelve pages.
func mayScore(s string) bool {
	capitals := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			return true
		case unicode.IsUpper(r):
			capitals++
		}
	}
	return capitals >= 4
}

func claims(pageURL, text string, n int, docs bool) []Claim {
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
		if !mayScore(s) || docs && pageNoteRe.MatchString(s) {
			continue
		}
		read := NewClaimV1
		if docs {
			read = NewClaim
		}
		c := read(pageURL, s)
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

// subjectWords are a claim's content words without figures and names, for "about the same
// thing": two claims naming different people in one role are still about the same thing.
func subjectWords(c Claim) map[string]bool {
	text := c.Text
	for _, m := range mentions(text) {
		if m.kind == KindPerson {
			text = strings.ReplaceAll(text, m.text, " ")
		}
	}
	out := map[string]bool{}
	for _, w := range novelty.ContentWords(text) {
		if !isNumber(w) && months[w] == 0 && monthNumber(w) == 0 {
			out[w] = true
		}
	}
	return out
}

// SameSubjectShare is the content-word overlap (Jaccard) above which two claims are taken to
// be about the same thing; SharedKeyShare is the lower overlap that suffices when they name
// the same version or identifier.
const (
	SameSubjectShare = 0.4
	SharedKeyShare   = 0.1
)

// sameSubject: claims naming different versions or identifiers are about different things;
// claims sharing one need little else in common; others need SameSubjectShare of their words.
func sameSubject(a, b Claim, sa, sb map[string]bool) bool {
	j := jaccard(sa, sb)
	if len(a.Keys) > 0 && len(b.Keys) > 0 {
		if !anyPair(a.Keys, b.Keys, func(x, y string) bool { return x == y }) {
			return false
		}
		// two dates for one version are about its release whatever else the sentences say
		return j >= SharedKeyShare || len(a.Dates) > 0 && len(b.Dates) > 0
	}
	return j >= SameSubjectShare
}

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

// Compare judges two claims about the same thing. conflict explains how they disagree: dates
// that cannot be the same day, figures of one unit that each side states and the other
// cannot match, or different holders of a single-holder role (a CEO, a chair; two speakers
// or authors are no conflict, nor are names without a role). coarser says when they agree
// only at the coarser precision of one ("2023" and "2023-10-05", "$1.5 billion" and
// "$1,520,000,000").
func Compare(a, b Claim) (conflict, coarser string) {
	if len(a.Dates) > 0 && len(b.Dates) > 0 {
		if !anyPair(a.Dates, b.Dates, DatesAgree) {
			return fmt.Sprintf("dates differ: %s vs %s", strings.Join(a.Dates, ", "), strings.Join(b.Dates, ", ")), ""
		}
		if !anyPair(a.Dates, b.Dates, func(x, y string) bool { return x == y }) {
			coarser = fmt.Sprintf("dates agree at the coarser precision: %s vs %s", strings.Join(a.Dates, ", "), strings.Join(b.Dates, ", "))
		}
	}
	if why, c := compareFigures(a.Figures, b.Figures); why != "" {
		return why, ""
	} else if c != "" && coarser == "" {
		coarser = c
	}
	if why := compareRoles(a.Roles, b.Roles); why != "" {
		return why, ""
	}
	return "", coarser
}

// compareFigures: a conflict when, in one unit, each side states a figure the other cannot
// match (a shared page size does not hide different totals; a figure only one side states is
// no conflict).
func compareFigures(a, b []Figure) (conflict, coarser string) {
	unmatched := func(xs, ys []Figure, unit string) (out []string, coarse bool) {
		for _, x := range xs {
			if x.Unit != unit {
				continue
			}
			hit := false
			for _, y := range ys {
				if ok, c := FiguresAgree(x, y); ok {
					hit = true
					coarse = coarse || c
				}
			}
			if !hit {
				out = append(out, x.String())
			}
		}
		return out, coarse
	}
	for _, f := range a {
		ua, ca := unmatched(a, b, f.Unit)
		ub, cb := unmatched(b, a, f.Unit)
		has := func(fs []Figure) bool {
			for _, g := range fs {
				if g.Unit == f.Unit {
					return true
				}
			}
			return false
		}
		if !has(b) {
			continue
		}
		if len(ua) > 0 && len(ub) > 0 {
			return fmt.Sprintf("amounts differ: %s vs %s", strings.Join(ua, ", "), strings.Join(ub, ", ")), ""
		}
		if (ca || cb) && coarser == "" {
			coarser = "amounts agree at the coarser precision (" + f.Unit + ")"
		}
	}
	return "", coarser
}

// compareRoles: a conflict when both name holders of one single-holder role and none is shared.
func compareRoles(a, b []string) string {
	holders := func(rs []string) map[string][]string {
		m := map[string][]string{}
		for _, r := range rs {
			role, who, _ := strings.Cut(r, ": ")
			m[role] = append(m[role], who)
		}
		return m
	}
	ha, hb := holders(a), holders(b)
	for _, r := range a {
		role, _, _ := strings.Cut(r, ": ")
		if !singleRoles[role] || len(hb[role]) == 0 {
			continue
		}
		if !anyPair(ha[role], hb[role], func(x, y string) bool { return x == y }) {
			return fmt.Sprintf("%s differs: %s vs %s", role, strings.Join(ha[role], ", "), strings.Join(hb[role], ", "))
		}
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
	// Coarser lists agreeing pages that state the fact at another precision: "URL: how".
	Coarser []string `json:"coarser,omitempty"`
	// Confirmation is what the confirmation search of official sources found, when one ran.
	Confirmation string `json:"confirmation,omitempty"`
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
		subj[i] = subjectWords(c)
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
			if i == j || wit[i].key == wit[j].key || !sameSubject(c, o, subj[i], subj[j]) {
				continue
			}
			why, coarser := Compare(c, o)
			if why != "" {
				v.Contradictions = appendCapped(v.Contradictions, o.URL+": "+why)
				continue
			}
			if ok, why := independent(wit[i], wit[j]); !ok {
				v.Dependent = appendCapped(v.Dependent, o.URL+": "+why)
				continue
			}
			v.Corroborations = appendCapped(v.Corroborations, o.URL)
			if coarser != "" {
				v.Coarser = appendCapped(v.Coarser, o.URL+": "+coarser)
			}
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

var tagOrder = map[string]int{VerifiedOfficial: 0, VerifiedMulti: 1, Contradicted: 2, UnverifiedSingle: 3}

// RankClaims lists verified claims first (official, then multi-source), then contradicted
// ones, then the unverified, each group in its original order.
func RankClaims(vs []VerifiedClaim) []VerifiedClaim {
	out := append([]VerifiedClaim{}, vs...)
	sort.SliceStable(out, func(i, j int) bool { return tagOrder[out[i].Tag] < tagOrder[out[j].Tag] })
	return out
}

// ConfirmationQuery is the search that checks a contested claim in the official sources: its
// versions and identifiers, then its most salient subject words, at most maxWords words.
func ConfirmationQuery(c Claim, maxWords int) string {
	words := append([]string{}, c.Keys...)
	var terms []string
	for _, w := range strings.Fields(c.Text) {
		w = strings.Trim(w, ".,;:()[]\"'“”")
		if len(w) > 3 && !isNumber(w) && monthNumber(w) == 0 && subjectWords(Claim{Text: w})[strings.ToLower(w)] {
			terms = appendOnce(terms, w)
		}
	}
	for _, t := range Salient(terms, maxWords) {
		if len(words) >= maxWords {
			break
		}
		words = appendOnce(words, t)
	}
	return strings.Join(words, " ")
}

// Resolve settles a contested claim with what the confirmation search found in the official
// sources: an official page about the same thing that agrees, with none disagreeing, makes it
// verified_official (its contradictions stay listed); one that disagrees is added to its
// contradictions; none about it leaves the tag.
func Resolve(v VerifiedClaim, official []Claim, query, source string) VerifiedClaim {
	sv := subjectWords(v.Claim)
	var agree, disagree []string
	for _, o := range official {
		if search.NormalizeURL(o.URL) == search.NormalizeURL(v.URL) || !sameSubject(v.Claim, o, sv, subjectWords(o)) {
			continue
		}
		if why, _ := Compare(v.Claim, o); why != "" {
			disagree = appendOnce(disagree, o.URL+": "+why)
		} else {
			agree = appendOnce(agree, o.URL)
		}
	}
	head := fmt.Sprintf("searched %s for %q: ", source, query)
	switch {
	case len(agree) > 0 && len(disagree) == 0:
		v.Tag = VerifiedOfficial
		v.Confirmation = head + "an official source agrees (" + strings.Join(agree, ", ") + ")"
	case len(disagree) > 0:
		for _, d := range disagree {
			v.Contradictions = appendCapped(v.Contradictions, d)
		}
		v.Tag = Contradicted
		v.Confirmation = head + fmt.Sprintf("%d official page(s) disagree, %d agree", len(disagree), len(agree))
	default:
		v.Confirmation = head + "no official page states it"
	}
	return v
}

// ClaimSource is one finding as verification reads it: its text (its page when read in full,
// else its title and snippet) and how many claims it may give.
type ClaimSource struct {
	URL    string `json:"url"`
	Text   string `json:"text"`
	Claims int    `json:"claims"`
}

// VerifySources reads the claims of the sources in order, at most max in all, as Claims reads
// them (ClaimsV1 when !docs, for runs before docLeads), and verifies them against each other
// (Verify), each source's text given for the citing check.
func VerifySources(sources []ClaimSource, max int, official []string, docs bool) []VerifiedClaim {
	read := Claims
	if !docs {
		read = ClaimsV1
	}
	var claims []Claim
	texts := map[string]string{}
	for _, s := range sources {
		if len(claims) >= max {
			break
		}
		texts[s.URL] = s.Text
		claims = append(claims, read(s.URL, s.Text, min(s.Claims, max-len(claims)))...)
	}
	return Verify(claims, texts, official)
}
