package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sated-dev/sated/internal/eval"
	"github.com/sated-dev/sated/internal/text"
)

// Bounds of deterministic generation: how many one-passage benchmarks an expansion proposes
// (each costs a research run at baseline), plus one that needs facts from two pages.
const (
	GenerateSingles = 3
	goldWindow      = 5 // words of a salient sentence that become its gold pattern
	minSentence     = 8
	maxSentence     = 45
	maxFactChars    = 200
)

// SourcePassage is a corpus passage an expansion may turn into a benchmark, with what found it.
type SourcePassage struct {
	ID   string `json:"id"`
	Page string `json:"page"`
	Path string `json:"path"` // "Title > Section"
	Text string `json:"text"`
	// Found is the expansion research finding whose search led here; empty when the passage
	// came from walking the corpus.
	Found string `json:"found,omitempty"`
}

// GenerateBenchmarks makes new, harder benchmarks from passages no enabled test of h covers:
// for each, a question from its heading path and one salient sentence, whose exact words
// (joined by \W+, as the dev sets are written) are the gold pattern; then one benchmark that
// needs the facts of two of them from different pages. Deterministic: the same harness and
// passages give the same benchmarks. They are proposals, entering disabled; the application
// runs each at baseline before enabling it.
func GenerateBenchmarks(h Harness, ps []SourcePassage) []Benchmark {
	cover := coverage(h)
	ids := map[string]bool{}
	for _, b := range h.Benchmarks {
		ids[b.ID] = true
	}
	for _, e := range h.EdgeCases {
		ids[e.ID] = true
	}
	var out []Benchmark
	var picked []SourcePassage
	var facts []eval.Fact
	for _, p := range ps {
		if len(out) == GenerateSingles {
			break
		}
		id := "gen-" + shortID(p.ID)
		if ids[id] || covered(cover, p.Text) || usesPage(picked, p.Page) {
			continue
		}
		fact, topic, ok := salientFact(p.Text)
		if !ok || len(TrivialFacts(id, []eval.Fact{fact})) > 0 {
			continue
		}
		ids[id] = true
		picked, facts = append(picked, p), append(facts, fact)
		out = append(out, Benchmark{ID: id, Question: question(p.Path, topic), Gold: []eval.Fact{fact}, Threshold: 1, Origin: origin(p)})
	}
	if len(picked) >= 2 {
		a, b := picked[0], picked[1]
		id := "gen-multi-" + shortID(a.ID+"+"+b.ID)
		_, ta, _ := salientFact(a.Text)
		_, tb, _ := salientFact(b.Text)
		if !ids[id] {
			out = append(out, Benchmark{ID: id, Threshold: 1, Gold: []eval.Fact{facts[0], facts[1]},
				Question: clip(fmt.Sprintf("Combining %q and %q: what do they state about %s, and about %s?", a.Path, b.Path, ta, tb), 480),
				Origin:   origin(a) + " + " + origin(b)})
		}
	}
	return out
}

func usesPage(ps []SourcePassage, page string) bool {
	for _, p := range ps {
		if p.Page == page {
			return true
		}
	}
	return false
}

func origin(p SourcePassage) string {
	o := fmt.Sprintf("corpus passage %s (%s)", p.ID, p.Path)
	if p.Found != "" {
		o += "; expansion research found: " + clip(p.Found, 160)
	}
	return o
}

func question(path, topic string) string {
	return clip(fmt.Sprintf("According to the documentation section %q, what does it state about %s?", path, topic), 480)
}

// coverage compiles the gold patterns of h's enabled tests: a passage one of them matches is
// already tested.
func coverage(h Harness) []*regexp.Regexp {
	var golds [][]eval.Fact
	for _, b := range h.Benchmarks {
		if b.Enabled {
			golds = append(golds, b.Gold)
		}
	}
	for _, e := range h.EdgeCases {
		if e.Enabled {
			golds = append(golds, e.Gold)
		}
	}
	var res []*regexp.Regexp
	for _, g := range golds {
		for _, f := range g {
			for _, p := range f.Patterns {
				if re, err := regexp.Compile("(?i)" + p); err == nil {
					res = append(res, re)
				}
			}
		}
	}
	return res
}

func covered(cover []*regexp.Regexp, s string) bool {
	for _, re := range cover {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// salientFact picks the passage's first prose sentence of reasonable length and, in it, the
// window of goldWindow words richest in content words; those exact words are the gold pattern
// and the content words before them (the sentence's subject, usually) the question's topic.
func salientFact(s string) (eval.Fact, string, bool) {
	for _, sent := range text.Sentences(s) {
		sent = strings.TrimSpace(sent)
		if sent == "" || text.IsCode(sent) || strings.ContainsAny(sent[:1], "#|>*-`") {
			continue
		}
		toks := text.Tokens(sent)
		if len(toks) < minSentence || len(toks) > maxSentence {
			continue
		}
		best, bestScore := -1, 0
		for i := 0; i+goldWindow <= len(toks); i++ {
			score := 0
			for _, t := range toks[i : i+goldWindow] {
				if text.IsContent(strings.ToLower(t)) {
					score++
				}
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 || bestScore < 3 {
			continue
		}
		win := toks[best : best+goldWindow]
		quoted := make([]string, len(win))
		for i, t := range win {
			quoted[i] = regexp.QuoteMeta(t)
		}
		pattern := strings.Join(quoted, `\W+`)
		if re, err := regexp.Compile("(?i)" + pattern); err != nil || !re.MatchString(sent) {
			continue
		}
		topic := topicWords(toks[:best])
		if len(topic) == 0 {
			topic = topicWords(toks[best+goldWindow:])
		}
		if len(topic) == 0 {
			topic = []string{strings.ToLower(win[0])}
		}
		return eval.Fact{Fact: clip(sent, maxFactChars), Patterns: []string{pattern}}, strings.Join(topic, " "), true
	}
	return eval.Fact{}, "", false
}

// topicWords are the first few distinct content words of toks, lower-cased.
func topicWords(toks []string) []string {
	var out []string
	for _, t := range toks {
		w := strings.ToLower(t)
		if text.IsContent(w) && !slices.Contains(out, w) {
			out = append(out, w)
			if len(out) == 4 {
				break
			}
		}
	}
	return out
}

func shortID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
