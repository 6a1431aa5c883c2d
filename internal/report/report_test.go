package report

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

func sampleData() Data {
	return Data{
		Question:   "How do saturation gates | stop search?",
		Extractive: false,
		Plan: &research.Plan{SearchQueries: []string{"saturation gate search"}, KnownFacts: []string{"novelty drops"},
			KnowledgeGaps: []string{"threshold choice"}, Subtasks: []string{"compare gates"}, Planner: "heuristic",
			FallbackReason: "no model"},
		Rounds: []research.Round{
			{Round: 1, Query: "saturation gate", QuerySource: "plan", Decision: "continue", NewResults: 10, Results: 10},
			{Round: 2, Query: "novelty <threshold> & \"gates\"", QuerySource: "gap", Novelty: 6.5, Scored: true, Decision: "continue", NewResults: 6, Results: 10},
			{Round: 3, Query: "gate | pipes", QuerySource: "gap", Novelty: 2.1, Scored: true, Decision: "stop", NewResults: 1, Results: 10},
		},
		Threshold:        3,
		StopReason:       "novelty below threshold",
		Sources:          []research.Source{{N: 1, Result: search.Result{URL: "https://a.example", Title: "Gate [paper]"}, Enriched: true}, {N: 2, Result: search.Result{URL: "https://b.example/p"}}},
		Body:             "Gates stop when novelty drops [1]. Some claim otherwise [9]. Both agree [1, 2].",
		RemovedCitations: 2,
		Fallbacks:        []string{"planner: heuristic"},
		Notes:            []string{"ran offline"},
		PriorKnowledge:   []research.PriorFact{{Fact: "Novelty decays per round", Sources: []string{"https://old.example"}}},
		GeneratedAt:      time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		WorkflowID:       "research-gates-abc",
		Strategy:         "saturation",
		SearchCalls:      3,
		SVGFile:          "report.svg",
	}
}

func TestMarkdownHasEverySection(t *testing.T) {
	md := Markdown(sampleData())
	for _, want := range []string{
		"# How do saturation gates | stop search?\n",
		"_Generated 2026-01-02T03:04:05Z · workflow `research-gates-abc` · strategy saturation_",
		"## Plan", "Planner: heuristic (fallback: no model)", "**Search queries**", "- saturation gate search",
		"**Known facts**", "**Knowledge gaps**", "**Subtasks**", "- compare gates",
		"## Findings", "Gates stop when novelty drops [1]. Some claim otherwise. Both agree [1, 2].",
		"## Saturation curve", "![saturation curve](report.svg)",
		"| 1 | saturation gate | plan | not scored | continue | 10 / 10 |",
		"| 2 | novelty \\<threshold> & \"gates\" | gap | 6.5 ≥ 3.0 | continue | 6 / 10 |",
		"| 3 | gate \\| pipes | gap | 2.1 < 3.0 | stop | 1 / 10 |",
		"- Stop reason: novelty below threshold", "- Search calls: 3",
		"- Citations removed: 3", "  - planner: heuristic",
		"## Notes", "- ran offline",
		"## Prior knowledge", "not from this run's sources", "- Novelty decays per round (originally from: https://old.example)",
		"## Sources", "- [1] Gate \\[paper\\] — https://a.example (enriched: full page read)", "- [2] b.example — https://b.example/p\n",
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "[9]")
	assert.NotContains(t, md, ExtractiveNotice)
	// Sections come in reading order: the answer first, with what it cites, then how it was
	// researched.
	last := -1
	for _, h := range []string{"## Findings", "## Prior knowledge", "## Sources", "## Plan", "## Saturation curve", "## Run details", "## Notes"} {
		i := strings.Index(md, h)
		assert.Greater(t, i, last, h)
		last = i
	}
}

// The sources the findings cite are listed apart from those read but not quoted, each list in
// number order; with every source cited (or none) the list is not split.
func TestMarkdownSeparatesCitedSources(t *testing.T) {
	d := sampleData()
	d.Sources = append(d.Sources, research.Source{N: 3, Result: search.Result{URL: "https://c.example", Title: "Unquoted"}})
	d.Body = "Gates stop [3]. Both agree [1]."
	md := Markdown(d)
	sources := md[strings.Index(md, "## Sources"):strings.Index(md, "## Plan")]
	assert.Equal(t, "## Sources\n\n- [1] Gate \\[paper\\] — https://a.example (enriched: full page read)\n- [3] Unquoted — https://c.example\n"+
		"\nRead, not quoted in the findings:\n\n- [2] b.example — https://b.example/p\n\n", sources)
	d.Body = "Nothing cited, and a [9] that is no source."
	md = Markdown(d)
	assert.NotContains(t, md, "Read, not quoted")
	assert.Contains(t, md, "- [1] Gate \\[paper\\] — https://a.example (enriched: full page read)\n- [2] b.example — https://b.example/p\n- [3] Unquoted")
}

// A deterministic plan's subtasks only say "search: " each of its queries: the plan lists them
// once. Other subtasks stay.
func TestPlanListsSearchSubtasksOnce(t *testing.T) {
	d := sampleData()
	d.Plan.SearchQueries = []string{"gate search", "novelty"}
	d.Plan.Subtasks = []string{"search: gate search", "search: novelty", "search: something else", "compare gates"}
	md := Markdown(d)
	assert.Contains(t, md, "**Subtasks**\n\n- search: something else\n- compare gates\n")
	assert.NotContains(t, md, "- search: gate search")
	d.Plan.Subtasks = d.Plan.Subtasks[:2]
	assert.NotContains(t, Markdown(d), "**Subtasks**")
}

func TestMarkdownExtractiveAndEmpty(t *testing.T) {
	d := Data{Question: "What is chromem?", Extractive: true, Threshold: 3,
		Sources: []research.Source{{N: 1, Result: search.Result{URL: "https://c.example", Title: "Chromem"}, Text: "Chromem is an embeddable vector database for Go programs."}}}
	md := Markdown(d)
	assert.Contains(t, md, "> "+ExtractiveNotice)
	assert.Contains(t, md, "- Chromem is an embeddable vector database for Go programs. [1]", "extractive body built from sources")
	assert.Contains(t, md, "_No plan was recorded._")
	assert.Contains(t, md, "_No search rounds were recorded._")
	assert.Contains(t, md, "- Citations removed: 0")
	assert.Contains(t, md, "- Fallbacks: none")
	assert.Contains(t, md, "- Stop reason: none")
	assert.NotContains(t, md, "## Prior knowledge")
	assert.NotContains(t, md, "![saturation curve]")

	md = Markdown(Data{})
	assert.Contains(t, md, "# Research report")
	assert.Contains(t, md, "_No findings were written._")
	assert.Contains(t, md, "_No sources._")
}

// svgDoc parses an SVG with encoding/xml and collects what the tests assert on.
type svgDoc struct {
	markers    []map[string]string // attributes of each marker group
	shapes     []map[string]string // attributes of each marker's shape, plus "shape"
	thresholds []map[string]string
	texts      []string
}

func parseSVG(t *testing.T, svg string) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(strings.NewReader(svg))
	depth, root, inMarker := 0, "", false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "SVG must be well-formed XML")
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				root = el.Name.Local
				assert.Equal(t, "http://www.w3.org/2000/svg", el.Name.Space)
			}
			depth++
			attrs := map[string]string{}
			for _, a := range el.Attr {
				attrs[a.Name.Local] = a.Value
			}
			if inMarker && el.Name.Local != "title" {
				attrs["shape"] = el.Name.Local
				doc.shapes = append(doc.shapes, attrs)
				inMarker = false
			}
			switch attrs["class"] {
			case "marker":
				inMarker = true
				doc.markers = append(doc.markers, attrs)
			case "threshold":
				doc.thresholds = append(doc.thresholds, attrs)
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if s := strings.TrimSpace(string(el)); s != "" {
				doc.texts = append(doc.texts, s)
			}
		}
	}
	require.Equal(t, "svg", root)
	require.Zero(t, depth)
	return doc
}

func TestSaturationSVG(t *testing.T) {
	d := sampleData()
	d.Rounds = append(d.Rounds, research.Round{Round: 4, Query: "x", Novelty: 14, Scored: true, Decision: "broaden <wide>"})
	svg := SaturationSVG(d.Rounds, d.Threshold)
	doc := parseSVG(t, svg)

	require.Len(t, doc.markers, len(d.Rounds), "one marker per round")
	require.Len(t, doc.shapes, len(d.Rounds), "one shape per marker")
	for i, m := range doc.markers {
		assert.Equal(t, strconv.Itoa(d.Rounds[i].Round), m["data-round"])
	}
	assert.Equal(t, "broaden <wide>", doc.markers[3]["data-decision"], "decision text escaped and round-tripped")
	require.Len(t, doc.thresholds, 1)
	assert.NotEmpty(t, doc.thresholds[0]["stroke-dasharray"], "threshold line is dashed")
	// Threshold 3 of 10 sits 30% up the plot.
	y, err := strconv.ParseFloat(doc.thresholds[0]["y1"], 64)
	require.NoError(t, err)
	assert.InDelta(t, plotB-0.3*(plotB-plotT), y, 0.1)

	joined := strings.Join(doc.texts, "\n")
	for _, want := range []string{"Saturation curve: novelty per search round", "Search round", "Novelty (0-10)",
		"threshold 3.0", "continue", "stop", "broaden <wide>", unscoredLabel,
		`Round 2: novelty 6.5, continue; query: novelty <threshold> & "gates"`} {
		assert.Contains(t, joined, want)
	}
	// The unscored first round is hollow at the top; scored ones are filled at their novelty;
	// novelty above 10 is clamped.
	cy := func(i int) float64 { v, _ := strconv.ParseFloat(doc.shapes[i]["cy"], 64); return v }
	assert.Equal(t, "white", doc.shapes[0]["fill"])
	assert.InDelta(t, float64(plotT), cy(0), 0.1)
	assert.Equal(t, "#1f77b4", doc.shapes[1]["fill"])
	assert.InDelta(t, plotB-0.65*(plotB-plotT), cy(1), 0.1)
	assert.Equal(t, "rect", doc.shapes[2]["shape"], "stop is a square")
	assert.Equal(t, "polygon", doc.shapes[3]["shape"], "other decisions take the palette")
	assert.Contains(t, doc.shapes[3]["points"], ","+strconv.Itoa(plotT-6)+".0", "clamped to the top")
	assert.Regexp(t, `<polyline class="curve" points="[^"]+ [^"]+ [^"]+"`, svg, "curve joins the three scored rounds")
}

func TestSaturationSVGEdgeCases(t *testing.T) {
	doc := parseSVG(t, SaturationSVG(nil, 3))
	assert.Empty(t, doc.markers)
	assert.Contains(t, doc.texts, "No rounds recorded")
	assert.Len(t, doc.thresholds, 1)

	// Many rounds, unnumbered rounds and control characters still make valid XML.
	var rounds []research.Round
	for i := range 40 {
		rounds = append(rounds, research.Round{Query: "q\x00\x1b" + strconv.Itoa(i), Novelty: float64(i % 11), Scored: i > 0})
	}
	doc = parseSVG(t, SaturationSVG(rounds, 2.5))
	require.Len(t, doc.markers, 40)
	assert.Equal(t, "40", doc.markers[39]["data-round"])
	assert.Equal(t, "(none)", doc.markers[0]["data-decision"])
}

func TestSave(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports", "nested")
	d := sampleData()
	d.SVGFile = "ignored.svg"
	paths, err := Save(dir, "gates-2026", d, map[string]any{"question": d.Question, "rounds": len(d.Rounds)})
	require.NoError(t, err)
	assert.Equal(t, Paths{
		Markdown: filepath.Join(dir, "gates-2026.md"),
		JSON:     filepath.Join(dir, "gates-2026.json"),
		SVG:      filepath.Join(dir, "gates-2026.svg"),
	}, paths)

	md, err := os.ReadFile(paths.Markdown)
	require.NoError(t, err)
	assert.Contains(t, string(md), "![saturation curve](gates-2026.svg)")
	assert.NotContains(t, string(md), "ignored.svg")

	js, err := os.ReadFile(paths.JSON)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(js), "{\n  \""), "indented JSON")
	var back map[string]any
	require.NoError(t, json.Unmarshal(js, &back))
	assert.Equal(t, d.Question, back["question"])

	svg, err := os.ReadFile(paths.SVG)
	require.NoError(t, err)
	assert.Len(t, parseSVG(t, string(svg)).markers, len(d.Rounds))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temp files left behind")
	info, err := os.Stat(paths.Markdown)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())

	// Saving again replaces the files.
	d.Question = "Second version?"
	_, err = Save(dir, "gates-2026", d, d)
	require.NoError(t, err)
	md, _ = os.ReadFile(paths.Markdown)
	assert.Contains(t, string(md), "# Second version?")
}

func TestSaveRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b", "../escape"} {
		_, err := Save(t.TempDir(), name, Data{}, nil)
		assert.Error(t, err, name)
	}
	_, err := Save(t.TempDir(), "x", Data{}, func() {})
	assert.Error(t, err, "unmarshalable JSON value")
}

func BenchmarkMarkdownExtractive(b *testing.B) {
	d := sampleData()
	d.Extractive, d.Body = true, ""
	page := strings.Repeat("Saturation gates stop searching when novelty drops below the threshold. Other text follows here too. ", 200)
	for i := range 20 {
		d.Sources = append(d.Sources, research.Source{N: i + 3, Result: search.Result{URL: "https://x.example/" + strconv.Itoa(i)}, Text: page})
	}
	for b.Loop() {
		Markdown(d)
	}
}

func BenchmarkSanitizeCitations(b *testing.B) {
	body := strings.Repeat("A claim [1]. Another [2, 9]. Code `a[3]` and [link](http://x) [4-6].\n", 500)
	valid := func(n int) bool { return n <= 5 }
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		SanitizeCitations(body, valid)
	}
}

// Two passages of one long section share its title and anchor: the sources list says which
// passage each is, so they do not read as one source listed twice.
func TestSourcesNameThePassageOfASharedSection(t *testing.T) {
	src := func(n int, id string) research.Source {
		return research.Source{N: n, Result: search.Result{Title: "Memory Model — Synchronization", URL: "file:///doc/mem.html#sync", Provider: "corpus", DocID: id}}
	}
	other := research.Source{N: 3, Result: search.Result{Title: "Memory Model — Once", URL: "file:///doc/mem.html#once", Provider: "corpus", DocID: "p:7"}}
	md := Markdown(Data{Question: "q", Sources: []research.Source{src(1, "p:2"), src(2, "p:3"), other}})
	for _, want := range []string{
		"- [1] Memory Model — Synchronization (passage 3) — file:///doc/mem.html#sync",
		"- [2] Memory Model — Synchronization (passage 4) — file:///doc/mem.html#sync",
		"- [3] Memory Model — Once — file:///doc/mem.html#once",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("sources lack %q:\n%s", want, md)
		}
	}
}

// The coverage table says what it measures, so a reader does not take it for the progress
// line's figure (the best single evidence passage's share), and names the words of an aspect no
// source read uses; for a question of one aspect only those words are said, when there are any.
func TestMarkdownCoverageSaysWhatItMeasures(t *testing.T) {
	d := sampleData()
	d.Coverage = []AspectCoverage{{Aspect: "What | is a gate", Coverage: 0.56, Findings: 3},
		{Aspect: "what happens if one of them hangs", Coverage: 0.4, Findings: 2, Unread: []string{"hangs", "a|b"}}}
	md := Markdown(d)
	assert.Contains(t, md, "## Coverage\n\nThe share of each aspect's words the findings name, all their quotes together")
	assert.Contains(t, md, "| What \\| is a gate | 56% | 3 | – |\n| what happens if one of them hangs | 40% | 2 | hangs, a\\|b |\n")
	assert.Less(t, strings.Index(md, "## Findings"), strings.Index(md, "## Coverage"))
	d.Coverage = d.Coverage[:1]
	assert.NotContains(t, Markdown(d), "## Coverage")
	d.Coverage = []AspectCoverage{{Aspect: "Why does my script hang", Coverage: 0.5, Findings: 4, Unread: []string{"script", "hang"}}}
	assert.Contains(t, Markdown(d), "## Coverage\n\nNo source read uses “script” or “hang”: the findings answer the question's other words.\n")
}

// The saturation table says what its scores measure: the method each scored round used.
func TestMarkdownNamesTheNoveltyMethod(t *testing.T) {
	d := sampleData()
	for i := range d.Rounds {
		if d.Rounds[i].Scored {
			d.Rounds[i].Method = "answer"
		}
	}
	assert.Contains(t, Markdown(d), "Novelty threshold: 3.0 (a round scoring below it counts as saturated; scored by `answer`, the share of the findings the round's new passages would write, 30x capped at 10 (3: a tenth)).")
	d.Rounds[len(d.Rounds)-1].Method = "heuristic" // a fallback round
	assert.Contains(t, Markdown(d), "scored by `answer`, the share of the findings the round's new passages would write, 30x capped at 10 (3: a tenth); `heuristic`, the share of the round's words the knowledge state lacks).")
	for i := range d.Rounds {
		d.Rounds[i].Method = ""
	}
	assert.Contains(t, Markdown(d), "Novelty threshold: 3.0 (a round scoring below it counts as saturated).")
}
