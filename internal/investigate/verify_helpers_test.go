package investigate

// Entry points only the tests use: they table-test Dates, Amounts and independent one
// expression or one pair at a time.

// NormalizeDate normalises one date expression; ok is false when s holds no date.
func NormalizeDate(s string) (string, bool) {
	ds := Dates(s)
	if len(ds) == 0 {
		return "", false
	}
	return ds[0], true
}

// NormalizeAmount normalises one amount expression; ok is false when s holds no amount.
func NormalizeAmount(s string) (string, bool) {
	as := Amounts(s)
	if len(as) == 0 {
		return "", false
	}
	return as[0], true
}

// Page is a retrieved page as the independence check sees it.
type Page struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// Independent reports whether two pages are independent witnesses: different sites (pages
// without a site, like local files, are never independent of each other), not the same page,
// and neither citing the other.
func Independent(a, b Page) (bool, string) {
	return independent(newWitness(a.URL, a.Text, nil), newWitness(b.URL, b.Text, nil))
}

// Amounts is Figures as text: "USD 1500000", "bytes 65536", "~percent 40".
func Amounts(text string) []string {
	var out []string
	for _, f := range Figures(text) {
		out = append(out, f.String())
	}
	return out
}
