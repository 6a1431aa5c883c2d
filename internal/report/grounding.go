package report

import (
	"fmt"
	"strings"

	"github.com/sated-dev/sated/internal/text"
)

// Grounding thresholds for a model-written synthesis (measured against what a reader can check:
// a report written from one or two sources, or mostly uncited, is the model talking).
const (
	// MinGroundingSources is how many sources the prompt must hold, at most all there are.
	MinGroundingSources = 3
	// MinCitedShare is the least share of the findings' sentences that carry a valid [n].
	MinCitedShare = 0.5
	// minClaimWords is the shortest sentence counted as a claim (shorter: a label or heading).
	minClaimWords = 4
)

// Grounding is how well a model-written answer stands on the sources.
type Grounding struct {
	SourcesInPrompt, Sources int
	Sentences, Cited         int
}

// CitedShare is the share of claim sentences with a valid citation (0 with none).
func (g Grounding) CitedShare() float64 {
	if g.Sentences == 0 {
		return 0
	}
	return float64(g.Cited) / float64(g.Sentences)
}

// Refusal is why the answer must not be used, or "" when it is grounded: fewer than
// min(MinGroundingSources, sources) sources in the prompt, or under MinCitedShare of its
// sentences citing a source that exists.
func (g Grounding) Refusal() string {
	if need := min(MinGroundingSources, g.Sources); g.SourcesInPrompt < need {
		return fmt.Sprintf("the prompt held %d of %d sources to fit the model's context (at least %d needed)", g.SourcesInPrompt, g.Sources, need)
	}
	if g.Sentences == 0 {
		return "the model's answer has no sentences"
	}
	if g.CitedShare() < MinCitedShare {
		return fmt.Sprintf("only %d of %d sentences of the model's answer cite a source (at least %.0f%% needed)", g.Cited, g.Sentences, 100*MinCitedShare)
	}
	return ""
}

// Ground measures body: its claim sentences (headings, code and sentences shorter than
// minClaimWords are not claims; neither is a sentence marked "(prior knowledge)") and how many
// cite a source for which valid is true.
func Ground(body string, sourcesInPrompt, sources int, valid func(n int) bool) Grounding {
	g := Grounding{SourcesInPrompt: sourcesInPrompt, Sources: sources}
	for _, s := range text.Sentences(body) {
		t := strings.TrimSpace(s)
		bare, _ := SanitizeCitations(t, func(int) bool { return false }) // brackets are not code
		if t == "" || strings.HasPrefix(t, "#") || text.IsCode(bare) || strings.Contains(strings.ToLower(t), "(prior knowledge)") {
			continue
		}
		if len(text.Words(bare)) < minClaimWords {
			continue
		}
		g.Sentences++
		cited := false
		SanitizeCitations(t, func(n int) bool {
			ok := valid(n)
			cited = cited || ok
			return ok
		})
		if cited {
			g.Cited++
		}
	}
	return g
}
