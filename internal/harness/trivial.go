package harness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sated-dev/sated/internal/eval"
)

// unrelatedText is a fixed sample of sentences from unrelated domains: a gold pattern that
// matches more than TrivialMatches of them would recall its fact from almost any report.
var unrelatedText = []string{
	"The recipe calls for two cups of flour, a pinch of salt and butter softened at room temperature.",
	"Heavy rain is expected across the northern coast tonight, with gusts reaching sixty kilometres per hour.",
	"The striker scored twice in the second half, and the home side kept a clean sheet for the fourth match running.",
	"Photosynthesis converts light energy into chemical energy stored in glucose molecules.",
	"The treaty was signed in 1648 and ended decades of war between the European powers.",
	"Patients should take one tablet daily with water, preferably after breakfast.",
	"The museum's new wing displays Impressionist paintings donated by a private collector.",
	"Mortgage rates rose by a quarter point after the central bank's announcement on Wednesday.",
	"A violin has four strings tuned in perfect fifths: G, D, A and E.",
	"The hiking trail climbs eight hundred metres through pine forest before reaching the ridge.",
	"Our quarterly revenue grew nine percent, driven mostly by subscriptions in Asia.",
	"Volcanic ash can disrupt air travel for days when winds carry it across busy routes.",
	"The novel follows three sisters who inherit a crumbling farmhouse on the moors.",
	"Knead the dough for ten minutes, then let it rise in a warm place until doubled.",
	"Elephants communicate over long distances using low-frequency rumbles.",
	"The city council voted to extend the tram line to the airport by next spring.",
	"Wear a helmet and reflective clothing when cycling after dark.",
	"The chess champion resigned after a blunder in a drawn rook endgame.",
	"Bees pollinate roughly a third of the crops people eat.",
	"Her grandmother taught her to knit scarves from leftover wool.",
}

// TrivialMatches is how many of the unrelated sentences a gold pattern may match.
const TrivialMatches = 3

// TrivialPattern says why p would match almost any text, or "" when it would not: a pattern
// that matches the empty string matches everything, and one that matches most unrelated
// sentences recalls its fact whatever the report says.
func TrivialPattern(p string) string {
	if strings.TrimSpace(p) == "" {
		return "it is empty"
	}
	re, err := regexp.Compile("(?i)" + p)
	if err != nil {
		return "" // ValidateFacts reports patterns that do not compile
	}
	if re.MatchString("") {
		return "it matches the empty string, so any text"
	}
	n := 0
	for _, s := range unrelatedText {
		if re.MatchString(s) {
			n++
		}
	}
	if n > TrivialMatches {
		return fmt.Sprintf("it matches %d of %d unrelated sentences (cooking, weather, sport, history...)", n, len(unrelatedText))
	}
	return ""
}

// TrivialFacts lists, one line each, the gold patterns of a test that would match almost any
// text; id names the test.
func TrivialFacts(id string, gold []eval.Fact) []string {
	var bad []string
	for _, f := range gold {
		for _, p := range f.Patterns {
			if why := TrivialPattern(p); why != "" {
				bad = append(bad, fmt.Sprintf("test %s, fact %q: pattern %q is trivial: %s", id, f.Fact, p, why))
			}
		}
	}
	return bad
}
