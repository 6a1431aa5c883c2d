package chunk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func para(word string, n int) string {
	return strings.TrimSpace(strings.Repeat(word+" ", n))
}

func TestClassify(t *testing.T) {
	cases := []struct {
		heading string
		want    Class
	}{
		{"Abstract", ClassAbstract},
		{"Executive Summary", ClassAbstract},
		{"5. Conclusions and future work", ClassConclusion},
		{"1 Introduction", ClassIntroduction},
		{"Results", ClassResults},
		{"Key findings", ClassFindings},
		{"Methods", ClassMethods},
		{"Methodology", ClassMethods},
		{"Discussion", ClassDiscussion},
		{"Related work", ClassOther},
		{"", ClassOther},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Classify(c.heading), c.heading)
	}
}

func TestSections(t *testing.T) {
	page := "# Title\nlead\n## Intro\ntext\n```\n## not a heading\n```\n### Results ##\nr\n#### deep\nd\n"
	secs := Sections(page)
	require.Len(t, secs, 3)
	require.Equal(t, "", secs[0].Heading)
	require.Equal(t, "Intro", secs[1].Heading)
	require.Contains(t, secs[1].Text, "## not a heading", "headings inside code fences stay in the section")
	require.Equal(t, "Results", secs[2].Heading)
	require.Equal(t, ClassResults, secs[2].Class)
	require.Contains(t, secs[2].Text, "#### deep", "level-4 headings do not split")
	require.Equal(t, page, secs[0].Text+secs[1].Text+secs[2].Text, "sections cover the page exactly")
}

func TestExtractSectionsPriority(t *testing.T) {
	// Each section is ~1000 bytes; the budget fits about two and a half.
	page := "# Paper\n" + para("lead", 200) + "\n" +
		"## Methods\n" + para("method", 140) + "\n" +
		"## Introduction\n" + para("intro", 160) + "\n" +
		"## Related Work\n" + para("related", 120) + "\n" +
		"## Conclusion\n" + para("conclude", 110) + "\n" +
		"## Abstract\n" + para("abstr", 160) + "\n"
	cases := []struct {
		name   string
		budget int
		want   []string
	}{
		// The last section listed is the one cut to fill the budget.
		{"abstract, conclusion, cut introduction", 2000, []string{"Abstract", "Conclusion", "Introduction"}},
		{"then methods", 3000, []string{"Abstract", "Conclusion", "Introduction", "Methods"}},
		{"then the lead, first of the others in document order", 4200, []string{"Abstract", "Conclusion", "Introduction", "Methods", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Extract(context.Background(), page, "anything", Options{Budget: c.budget})
			require.NoError(t, err)
			require.Equal(t, ModeSections, res.Mode)
			require.Equal(t, c.want, res.Sections)
			require.LessOrEqual(t, len(res.Text), c.budget)
			require.True(t, strings.HasPrefix(res.Text, "## Abstract"), "highest priority first")
			require.Equal(t, len(page), res.Total)
		})
	}
}

func TestExtractOtherSectionsBySimilarity(t *testing.T) {
	page := "## Alpha\n" + para("alpha", 300) + "\n## Garbage collection\n" + para("collector heap", 150) +
		"\n## Beta\n" + para("beta", 300) + "\n"
	res, err := Extract(context.Background(), page, "how does the garbage collector manage the heap", Options{Budget: 1500})
	require.NoError(t, err)
	require.Equal(t, "Garbage collection", res.Sections[0], "within 'other', the section closest to the task comes first")
}

func TestExtractWholeWhenItFits(t *testing.T) {
	res, err := Extract(context.Background(), "## a\nx\n## b\ny\n## c\nz\n", "t", Options{})
	require.NoError(t, err)
	require.Equal(t, ModeWhole, res.Mode)
	require.Equal(t, "## a\nx\n## b\ny\n## c\nz\n", res.Text)
}

func TestExtractChunksKeepsMostSimilarInDocumentOrder(t *testing.T) {
	// Unstructured page: filler with two relevant passages far apart. Two headings only, so
	// it is not "structured".
	filler := para("lorem ipsum dolor sit amet", 40)
	page := "## One\n" + filler + " The goroutine scheduler multiplexes goroutines onto threads. " + filler +
		"\n## Two\n" + filler + filler + " Channels synchronise goroutines and the scheduler parks them. " + filler
	res, err := Extract(context.Background(), page, "goroutine scheduler threads channels", Options{Budget: 1400})
	require.NoError(t, err)
	require.Equal(t, ModeChunks, res.Mode)
	require.LessOrEqual(t, len(res.Text), 1400)
	a := strings.Index(res.Text, "multiplexes goroutines")
	b := strings.Index(res.Text, "Channels synchronise")
	require.GreaterOrEqual(t, a, 0, "first relevant passage kept")
	require.Greater(t, b, a, "relevant passages kept, in document order")
	require.Equal(t, 2, strings.Count(res.Text, "\n…\n")+1, "two separate runs of chunks")
}

func TestExtractChunksMergesNeighbours(t *testing.T) {
	// All chunks equally similar: everything fits, so the output is the page itself once
	// overlaps are merged.
	page := strings.Repeat("word ", 500) // 2500 bytes, no headings
	res, err := Extract(context.Background(), page, "word", Options{Budget: 5000, ChunkSize: 600, Overlap: 80})
	require.NoError(t, err)
	require.Equal(t, ModeWhole, res.Mode)
	res, err = extractChunks(context.Background(), page, "word", Options{Budget: 5000, ChunkSize: 600, Overlap: 80}.withDefaults(), Result{})
	require.NoError(t, err)
	require.Equal(t, page, res.Text)
}

func TestSplit(t *testing.T) {
	cases := []struct {
		name          string
		s             string
		size, overlap int
	}{
		{"ascii words", strings.Repeat("abcdefg ", 300), 600, 80},
		{"no spaces", strings.Repeat("x", 2000), 600, 80},
		{"multibyte", strings.Repeat("héllo wörld ", 200), 100, 20},
		{"shorter than a chunk", "short text", 600, 80},
		{"no overlap", strings.Repeat("ab ", 400), 300, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spans := Split(c.s, c.size, c.overlap)
			require.NotEmpty(t, spans)
			require.Equal(t, 0, spans[0][0])
			require.Equal(t, len(c.s), spans[len(spans)-1][1])
			for i, sp := range spans {
				require.LessOrEqual(t, sp[1]-sp[0], c.size, "span %d too long", i)
				require.True(t, strings.ToValidUTF8(c.s[sp[0]:sp[1]], "?") == c.s[sp[0]:sp[1]], "span %d cuts a rune", i)
				if i > 0 {
					prev := spans[i-1]
					require.Greater(t, sp[0], prev[0], "progress")
					require.LessOrEqual(t, sp[0], prev[1], "no gaps")
					require.LessOrEqual(t, prev[1]-sp[0], c.overlap+4, "overlap about as asked")
				}
			}
		})
	}
}

func TestCut(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"First sentence. Second sentence goes on", 30, "First sentence."},
		{"para one is here\n\npara two", 22, "para one is here"},
		{"short", 10, "short"},
		{"ééééé", 5, "éé"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, cut(c.s, c.n), c.s)
	}
}

func TestLexicalSimilarity(t *testing.T) {
	sims, err := LexicalSimilarity(context.Background(), "garbage collector pauses",
		[]string{"The garbage collector pauses briefly.", "Channels carry values.", ""})
	require.NoError(t, err)
	require.Greater(t, sims[0], 0.5)
	require.Equal(t, 0.0, sims[1])
	require.Equal(t, 0.0, sims[2])
}

func TestEmbeddingSimilarityAndErrors(t *testing.T) {
	embed := func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, s := range texts {
			if strings.Contains(s, "cat") {
				out[i] = []float32{1, 0}
			} else {
				out[i] = []float32{0, 1}
			}
		}
		return out, nil
	}
	sims, err := EmbeddingSimilarity(embed)(context.Background(), "cat", []string{"a cat", "a dog"})
	require.NoError(t, err)
	require.InDelta(t, 1.0, sims[0], 1e-9)
	require.InDelta(t, 0.0, sims[1], 1e-9)

	boom := errors.New("embedder down")
	page := strings.Repeat("text without headings ", 1000)
	_, err = Extract(context.Background(), page, "t", Options{Similarity: func(context.Context, string, []string) ([]float64, error) { return nil, boom }})
	require.ErrorIs(t, err, boom)
	_, err = Extract(context.Background(), page, "t", Options{Similarity: func(context.Context, string, []string) ([]float64, error) { return []float64{1}, nil }})
	require.ErrorContains(t, err, "scores for")
}

func ExampleExtract() {
	page := "## Abstract\nShort.\n## Methods\n" + strings.Repeat("m ", 100) + "\n## Other\nx\n"
	res, _ := Extract(context.Background(), page, "task", Options{Budget: 40})
	fmt.Println(res.Mode, res.Sections)
	// Output: sections [Abstract Methods]
}
