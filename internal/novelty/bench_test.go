package novelty

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/testenv"
	"github.com/sated-dev/sated/internal/text"
)

var tags = regexp.MustCompile(`(?s)<[^>]*>`)

// docText is a GOROOT/doc file as plain text: tags dropped, whitespace collapsed.
func docText(b *testing.B, name string) string {
	raw, err := os.ReadFile(filepath.Join(testenv.GoDocDir(b), name))
	if err != nil {
		b.Fatal(err)
	}
	return strings.Join(strings.Fields(tags.ReplaceAllString(string(raw), " ")), " ")
}

// passage is n bytes of text from frac of the way in, cut at word boundaries.
func passage(text string, frac float64, n int) string {
	start := int(float64(len(text)) * frac)
	if i := strings.IndexByte(text[start:], ' '); i >= 0 {
		start += i + 1
	}
	end := min(start+n, len(text))
	if i := strings.LastIndexByte(text[start:end], ' '); i > 0 {
		end = start + i
	}
	return text[start:end]
}

// roundBatch is a realistic second round: 10 results (title and a ~400-char snippet, as the
// corpus returns them) from the memory model, the spec, the assembler guide and the GODEBUG
// notes, scored against a 1500-char knowledge state of bullets from the memory model.
func roundBatch(b *testing.B) (batch, known string) {
	mem, spec := docText(b, "go_mem.html"), docText(b, "go_spec.html")
	asm, dbg := docText(b, "asm.html"), docText(b, "godebug.md")
	var kb strings.Builder
	for i := 0; kb.Len() < 1500; i++ {
		kb.WriteString("- " + passage(mem, 0.05+0.04*float64(i), 180) + "\n")
	}
	known = kb.String()[:1500]
	var bb strings.Builder
	for i, src := range []struct {
		title, text string
		at          float64
	}{
		{"The Go Memory Model", mem, 0.30}, {"The Go Memory Model", mem, 0.55}, {"The Go Memory Model", mem, 0.80},
		{"The Go Programming Language Specification", spec, 0.20}, {"The Go Programming Language Specification", spec, 0.45},
		{"The Go Programming Language Specification", spec, 0.70}, {"A Quick Guide to Go's Assembler", asm, 0.25},
		{"A Quick Guide to Go's Assembler", asm, 0.60}, {"Go, Backwards Compatibility, and GODEBUG", dbg, 0.15},
		{"Go, Backwards Compatibility, and GODEBUG", dbg, 0.50},
	} {
		bb.WriteString(src.title + ". " + passage(src.text, src.at+0.01*float64(i), 400) + "\n")
	}
	return bb.String(), known
}

// nsPerOp times f over at least d (and 20 calls), independent of -benchtime, so the ratio
// between two functions stays meaningful under -benchtime 1x.
func nsPerOp(f func(), d time.Duration) float64 {
	n, start := 0, time.Now()
	for n < 20 || time.Since(start) < d {
		f()
		n++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

var sink float64

// BenchmarkHeuristicNovelty scores one round's batch against the knowledge state; the
// baseline is only tokenizing the batch (Words), so x-words is what the scoring adds.
func BenchmarkHeuristicNovelty(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark; skipped under -short")
	}
	batch, known := roundBatch(b)
	score := Heuristic(batch, known)
	if score <= 0 || score >= 10 {
		b.Fatalf("a partly known batch scored %.2f; want strictly between 0 and 10", score)
	}
	b.ReportAllocs()
	for b.Loop() {
		sink = Heuristic(batch, known)
	}
	h := nsPerOp(func() { sink = Heuristic(batch, known) }, 200*time.Millisecond)
	w := nsPerOp(func() { sink = float64(len(text.Words(batch))) }, 200*time.Millisecond)
	b.ReportMetric(h, "heuristic-ns")
	b.ReportMetric(w, "words-ns")
	b.ReportMetric(h/w, "x-words")
	b.ReportMetric(float64(len(batch)), "batch-chars")
	b.ReportMetric(score, "score")
}

// BenchmarkLearningNovelty50 scores a round of 50 fresh results (title and a ~600-char passage
// each) against 100 known ones from earlier rounds, as the learning gate does every round.
// BenchmarkHeuristicNovelty50 is the word heuristic on the same round, for the ratio.
func BenchmarkLearningNovelty50(b *testing.B) {
	in := learningRound(b)
	b.ResetTimer()
	for b.Loop() {
		Learning(in)
	}
}

func BenchmarkHeuristicNovelty50(b *testing.B) {
	in := learningRound(b)
	fresh := strings.Join(in.Fresh, "\n")
	known := strings.Join(in.Known, "\n")
	b.ResetTimer()
	for b.Loop() {
		Heuristic(fresh, known)
	}
}

// BenchmarkAnswerNovelty50 is the answer gate on the same round: the extractive findings
// written from the 100 known and 50 fresh passages, and the share the fresh ones write
// (report.Answer, report.FreshShare; the activity adds reading the passages from the corpus).
// Every passage was parsed by an earlier call (the answer caches each text's sentences).
func BenchmarkAnswerNovelty50(b *testing.B) { benchAnswerNovelty(b, false, nil) }

// BenchmarkAnswerNovelty50Cold is a real round of the answer gate: the 50 fresh passages are
// texts never seen before (split and stemmed now), the 100 known ones were parsed by earlier
// rounds.
func BenchmarkAnswerNovelty50Cold(b *testing.B) { benchAnswerNovelty(b, true, nil) }

// BenchmarkAnswerNovelty50Topical is the answer gate as the worker runs it on a corpus: the
// answer also asks which of the evidence's terms the corpus's titles and headings use
// (AnswerInput.Topical). The corpus's answer is stood in for by a map of the title words of
// the four pages, built into a fresh map per call as the activity's does.
func BenchmarkAnswerNovelty50Topical(b *testing.B) {
	titled := map[string]int{}
	for _, name := range []string{"go_mem.html", "go_spec.html", "asm.html", "godebug.md"} {
		raw, err := os.ReadFile(filepath.Join(testenv.GoDocDir(b), name))
		if err != nil {
			b.Fatal(err)
		}
		for _, h := range headings.FindAllStringSubmatch(string(raw), -1) {
			for _, t := range text.Terms(tags.ReplaceAllString(h[1]+" "+h[2], " ")) {
				titled[t]++
			}
		}
	}
	if len(titled) < 100 {
		b.Fatalf("%d title words in the four pages; want a vocabulary", len(titled))
	}
	benchAnswerNovelty(b, false, func(stems []string) map[string]bool {
		hf := make(map[string]int, len(stems))
		for _, s := range stems {
			hf[s] = titled[s]
		}
		out := make(map[string]bool, len(hf))
		for s, n := range hf {
			if n > 0 {
				out[s] = true
			}
		}
		return out
	})
}

// headings matches an HTML heading's text or a Markdown heading line.
var headings = regexp.MustCompile(`(?m)<h[1-4][^>]*>(.*?)</h[1-4]>|^#+ (.*)$`)

func benchAnswerNovelty(b *testing.B, cold bool, topical func([]string) map[string]bool) {
	in := learningRound(b)
	var sources []research.Source
	for _, t := range append(slices.Clone(in.Known), in.Fresh...) {
		sources = append(sources, research.Source{N: len(sources) + 1, Result: search.Result{Title: "Title", Snippet: t}, Text: t})
	}
	known := len(in.Known)
	answer := func() float64 {
		a := report.Answer(report.AnswerInput{Question: in.Question, Aspects: in.Aspects, Sources: sources, Topical: topical})
		return 10 * report.FreshShare(a, func(n int) bool { return n > known })
	}
	score, i := answer(), 0
	b.ResetTimer()
	for b.Loop() {
		if i++; cold {
			for k, f := range in.Fresh {
				sources[known+k].Text = f + " " + strconv.Itoa(i)
			}
		}
		score = answer()
	}
	b.ReportMetric(score, "score")
}

func learningRound(b *testing.B) LearningInput {
	texts := []string{docText(b, "go_mem.html"), docText(b, "go_spec.html"), docText(b, "asm.html"), docText(b, "godebug.md")}
	var fresh, known []string
	for i := 0; i < 150; i++ {
		t := texts[i%len(texts)]
		p := "Title " + passage(t, float64(i)/160, 600)
		if i < 50 {
			fresh = append(fresh, p)
		} else {
			known = append(known, p)
		}
	}
	return LearningInput{Question: "How do goroutines synchronize through channels and locks in the Go memory model?",
		Aspects: []string{"How do goroutines synchronize through channels", "locks in the Go memory model"},
		Fresh:   fresh, Known: known, KnownRounds: 3}
}

// BenchmarkLearningNovelty50Cold is a real round: the 50 fresh results are texts never seen
// before (split and stemmed now), the 100 known ones were cached by earlier rounds.
func BenchmarkLearningNovelty50Cold(b *testing.B) {
	in := learningRound(b)
	Learning(in)
	fresh := in.Fresh
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		in.Fresh = make([]string, len(fresh))
		for k, f := range fresh {
			in.Fresh[k] = f + " " + strconv.Itoa(i)
		}
		Learning(in)
	}
}
