package llm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"7", 7, true},
		{"Score: 7/10", 7, true},
		{"  10\n", 10, true},
		{"I'd say 3. Maybe 4.", 3, true},
		{"7.5", 7, true},
		{"-2", -2, true},
		{"well-3", -3, true},
		{"seven", 0, false},
		{"", 0, false},
		{"99999999999999999999999", 0, false},
	} {
		got, ok := FirstInt(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestClampScoreAndParseNovelty(t *testing.T) {
	for _, tc := range []struct {
		in   int
		want float64
	}{{-4, 0}, {0, 0}, {5, 5}, {10, 10}, {11, 10}, {1000, 10}} {
		assert.Equal(t, tc.want, ClampScore(tc.in), tc.in)
	}
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{{"8", 8, true}, {"Novelty: 12 out of 10", 10, true}, {"none", 0, false}, {"-1", 0, true}} {
		got, ok := ParseNovelty(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestExtractJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", `{"a":1}`, `{"a":1}`, true},
		{"fenced", "```json\n{\"a\": [1, 2]}\n```", `{"a": [1, 2]}`, true},
		{"prose before and after", `Sure! Here it is: {"q": "x"} Hope it helps {"b":2}`, `{"q": "x"}`, true},
		{"braces in strings", `{"a": "} { \" }", "b": {"c": 1}}`, `{"a": "} { \" }", "b": {"c": 1}}`, true},
		{"invalid first, valid later", `{not json} then {"ok": true}`, `{"ok": true}`, true},
		{"nested object start inside broken outer", `{"a": {"b": 1}`, `{"b": 1}`, true},
		{"truncated", `{"search_queries": ["a", "b"`, "", false},
		{"no object", `just words`, "", false},
		{"array only", `[1,2,3]`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ExtractJSON(tc.in)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		n, want int
	}{{0, 0}, {1, 1}, {7, 2}, {8, 3}, {35, 10}, {3500, 1000}} {
		assert.Equal(t, tc.want, EstimateTokens(strings.Repeat("x", tc.n)), tc.n)
	}
}

func TestFitPrompt(t *testing.T) {
	item := func(n int) string { return strings.Repeat("e", n) }
	ev := []string{item(700), item(700), item(700)} // 200 tokens each, 202 with separator
	for _, tc := range []struct {
		name         string
		ev           []string
		fixed        string
		numCtx, resv int
		wantLens     []int // 0: shortened (ends in an ellipsis, shorter than the item)
	}{
		{name: "no limit", numCtx: 0, wantLens: []int{700, 700, 700}},
		{name: "all fit", numCtx: 1000, resv: 100, wantLens: []int{700, 700, 700}},
		{name: "a little short: every source trimmed, none dropped", numCtx: 700, resv: 100, wantLens: []int{0, 0, 0}},
		{name: "fixed text counts", fixed: item(700), numCtx: 700, resv: 100, wantLens: []int{0, 0, 0}},
		{name: "room for two pieces: the third dropped", numCtx: 2*(minPieceTokens+2) + 5, wantLens: []int{0, 0}},
		{name: "a short source stays whole, the long ones share the rest", ev: []string{item(700), item(70), item(700)},
			numCtx: 300, wantLens: []int{0, 70, 0}},
		{name: "fixed text alone too big", fixed: item(7000), numCtx: 700, wantLens: []int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := ev
			if tc.ev != nil {
				src = tc.ev
			}
			in := append([]string(nil), src...)
			got := FitPrompt(tc.fixed, in, tc.numCtx, tc.resv)
			assert.Equal(t, src, in, "input modified")
			require.Len(t, got, len(tc.wantLens))
			for i, w := range tc.wantLens {
				if w > 0 {
					assert.Len(t, got[i], w)
					continue
				}
				assert.True(t, strings.HasSuffix(got[i], "…"), "item %d shortened", i)
				assert.Less(t, len(got[i]), len(src[i]))
				assert.GreaterOrEqual(t, EstimateTokens(got[i]), minPieceTokens-1, "item %d kept a useful piece", i)
			}
			if tc.numCtx > 0 {
				total := EstimateTokens(tc.fixed)
				for _, g := range got {
					total += EstimateTokens(g) + 2
				}
				if len(got) > 0 {
					assert.LessOrEqual(t, total, tc.numCtx-tc.resv, "estimate must fit")
				}
			}
		})
	}
}

func TestClip(t *testing.T) {
	assert.Equal(t, "short", clip("short", 10))
	assert.Equal(t, "abcdefg…", clip("abcdefghijkl", 10))
	got := clip("ééééé", 6) // 10 bytes; must not split a rune
	assert.True(t, strings.HasSuffix(got, "…"))
	assert.Equal(t, "é…", got)
}

func TestBudgetExceeded(t *testing.T) {
	for _, tc := range []struct {
		b      Budget
		u      Usage
		want   bool
		reason string
	}{
		{Budget{}, Usage{Calls: 1000, PromptTokens: 1e6}, false, ""},
		{Budget{MaxCalls: 12}, Usage{Calls: 11}, false, ""},
		{Budget{MaxCalls: 12}, Usage{Calls: 12}, true, "model budget reached: 12/12 calls"},
		{Budget{MaxTokens: 100}, Usage{Calls: 1, PromptTokens: 60, OutputTokens: 40}, true, "model budget reached: 100/100 tokens"},
		{Budget{MaxCalls: 5, MaxTokens: 100}, Usage{Calls: 2, PromptTokens: 60, OutputTokens: 39}, false, ""},
	} {
		got, reason := tc.b.Exceeded(tc.u)
		assert.Equal(t, tc.want, got, "%+v %+v", tc.b, tc.u)
		assert.Equal(t, tc.reason, reason)
	}
}

func TestUsageAdd(t *testing.T) {
	u := Usage{Calls: 1, PromptTokens: 10, OutputTokens: 2}
	u.Add(Usage{Calls: 2, PromptTokens: 5, OutputTokens: 3, Truncated: true})
	u.Add(Usage{Calls: 1})
	assert.Equal(t, Usage{Calls: 4, PromptTokens: 15, OutputTokens: 5, Truncated: true}, u)
	assert.Equal(t, 20, u.Tokens())
}

func TestPromptCut(t *testing.T) {
	for _, tc := range []struct {
		sc     StageConfig
		prompt int
		want   bool
	}{
		{StageConfig{NumCtx: 4096, MaxTokens: 512}, 3583, false},
		{StageConfig{NumCtx: 4096, MaxTokens: 512}, 3584, true},
		{StageConfig{NumCtx: 4096}, 4095, false},
		{StageConfig{NumCtx: 4096}, 4096, true},
		{StageConfig{NumCtx: 100, MaxTokens: 200}, 50, true}, // reserve capped at half the window
		{StageConfig{NumCtx: 100, MaxTokens: 200}, 49, false},
		{StageConfig{}, 1 << 20, false},
	} {
		assert.Equal(t, tc.want, promptCut(tc.sc, tc.prompt), "%+v %d", tc.sc, tc.prompt)
	}
}

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig("h", "p", "w", "e", "m", "v")
	assert.Equal(t, StageConfig{"p", 0.2, 512, 4096, 10 * time.Minute}, c.Planner)
	assert.Equal(t, StageConfig{"w", 0.3, 1500, 8192, 10 * time.Minute}, c.Producer)
	assert.Equal(t, StageConfig{"e", 0, 8, 4096, 10 * time.Minute}, c.Evaluator)
	assert.Equal(t, "m", c.Embedder.Model)
	assert.Equal(t, StageConfig{"v", 0.1, 300, 4096, 10 * time.Minute}, c.Vision)
	assert.Equal(t, c.Producer, c.Stage(Producer))
	assert.Equal(t, StageConfig{}, c.Stage("nope"))
}

func TestPlanValidate(t *testing.T) {
	task := "What is  the History of Go?"
	for _, tc := range []struct {
		name    string
		queries []string
		errHas  string
	}{
		{"ok", []string{"go language history", "go 1.0 release", "rob pike go design"}, ""},
		{"too few", []string{"a", "b"}, "3-5"},
		{"too many", []string{"a", "b", "c", "d", "e", "f"}, "3-5"},
		{"empty", []string{"a", "  ", "c"}, "query 2 is empty"},
		{"duplicate after normalisation", []string{"Go history", "b", "go   HISTORY"}, "query 3 repeats an earlier"},
		{"task repeated", []string{"a", "what is the history of go?", "c"}, "query 2 repeats the task"},
		{"too long", []string{"a", "b", strings.Repeat("x", 200)}, "query 3 is 200 characters"},
		{"just under the limit", []string{"a", "b", strings.Repeat("x", 199)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Plan{SearchQueries: tc.queries}).Validate(task)
			if tc.errHas == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tc.errHas)
			}
		})
	}
}

func TestCompressionAndGapValidate(t *testing.T) {
	assert.ErrorContains(t, (&Compression{}).Validate(), "got 0")
	assert.NoError(t, (&Compression{Facts: []string{"one"}}).Validate())
	assert.ErrorContains(t, (&Compression{Facts: make([]string, 9)}).Validate(), "got 9")
	assert.ErrorContains(t, (&Compression{Facts: []string{"a", " "}}).Validate(), "fact 2 is empty")
	assert.NoError(t, (&GapQuery{Query: "go generics history"}).Validate())
	assert.ErrorContains(t, (&GapQuery{Query: " "}).Validate(), "empty")
	assert.ErrorContains(t, (&GapQuery{Query: strings.Repeat("q", 250)}).Validate(), "250 characters")
}

func TestPrompts(t *testing.T) {
	sys, p := PlanPrompt("history of Go", []string{"Go 1.0 shipped in 2012"})
	assert.NotEmpty(t, sys)
	assert.Contains(t, p, "history of Go")
	assert.Contains(t, p, "- Go 1.0 shipped in 2012")

	_, p = NoveltyPrompt("", []PromptSource{{Title: "T", URL: "u", Text: "snippet"}})
	assert.Contains(t, p, "(nothing yet)")
	assert.Contains(t, p, "[1] T: snippet")

	_, p = GapQueryPrompt("q", "k", []string{"gap one"}, []string{"tried one"})
	assert.Contains(t, p, "- gap one")
	assert.Contains(t, p, "- tried one")

	sources := []PromptSource{{"A", "https://a", "alpha"}, {"B", "https://b", "beta"}}
	sys, p = SynthesisPrompt("Compare A and B", sources, "A is older.", []string{"B was renamed"})
	assert.Equal(t, SynthesisSystem, sys)
	assert.Contains(t, p, "[1] A (https://a)\nalpha")
	assert.Contains(t, p, "[2] B (https://b)\nbeta")
	assert.Contains(t, p, "A is older.")
	assert.Contains(t, p, "- B was renamed")
	assert.True(t, strings.HasSuffix(p, SynthesisQuestion("Compare A and B")), "the question ends the prompt")
	assert.Less(t, strings.Index(p, "[2]"), strings.Index(p, "Task:"))
}

func TestSchemasMatchTypes(t *testing.T) {
	for name, s := range map[string][]byte{"plan": PlanSchema, "compression": CompressionSchema, "gap": GapQuerySchema} {
		_, ok := ExtractJSON(string(s))
		assert.True(t, ok, "%s schema is not a JSON object", name)
	}
	assert.Contains(t, string(PlanSchema), `"search_queries"`)
	assert.Contains(t, string(CompressionSchema), `"facts"`)
	assert.Contains(t, string(GapQuerySchema), `"rationale"`)
}

func TestFindAndReplaceImages(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("img"), 0o644))
		return p
	}
	chart := mk("chart.PNG")
	photo := mk("my photo.jpeg")
	webp := mk("x.webp")
	notImage := mk("notes.txt")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder.png"), 0o755))
	missing := filepath.Join(dir, "missing.gif")

	task := fmt.Sprintf("Compare %s, and \"%s\" with (%s). Also %s and %s and %s/folder.png. "+
		"Remote: https://example.com/a.png file://%s %s again.",
		chart, photo, webp, notImage, missing, dir, chart, chart)
	got := FindImagePaths(task)
	assert.Equal(t, []string{chart, photo, webp}, got)

	out := ReplaceImages(task, map[string]string{chart: "A bar chart\nof sales.", photo: "A cat.", webp: "Logo."})
	want := fmt.Sprintf("Compare [Image: A bar chart of sales.], and [Image: A cat.] with ([Image: Logo.]). Also %s and %s and %s/folder.png. "+
		"Remote: https://example.com/a.png file://%s [Image: A bar chart of sales.] again.",
		notImage, missing, dir, chart)
	assert.Equal(t, want, out)

	assert.Nil(t, FindImagePaths("no images here, just words. It's fine isn't it"))
	assert.Equal(t, "unchanged a.png", ReplaceImages("unchanged a.png", nil))
}

func TestFindImagePathsRelative(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("diagram.bmp", []byte("x"), 0o644))
	require.NoError(t, os.WriteFile("ba.png", []byte("x"), 0o644))
	assert.Equal(t, []string{"diagram.bmp"}, FindImagePaths("see diagram.bmp; not a.png"))
	// A described path is replaced only as a whole word, not inside a longer name.
	assert.Equal(t, "ba.png [Image: d]", ReplaceImages("ba.png a.png", map[string]string{"a.png": "d"}))
}

func TestApplyEnv(t *testing.T) {
	env := map[string]string{"SATED_PLANNER_MAX_TOKENS": "48", "SATED_PRODUCER_NUM_CTX": "2048", "SATED_EVALUATOR_TEMPERATURE": "0.5"}
	c := DefaultConfig("h", "p", "p", "e", "", "")
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.Planner.MaxTokens != 48 || c.Producer.NumCtx != 2048 || c.Evaluator.Temperature != 0.5 || c.Producer.MaxTokens != 1500 {
		t.Fatalf("overrides not applied: %+v", c)
	}
	for k, v := range map[string]string{"SATED_VISION_MAX_TOKENS": "-1", "SATED_PLANNER_TEMPERATURE": "hot", "SATED_EMBEDDER_NUM_CTX": "4k"} {
		c := DefaultConfig("h", "p", "p", "e", "", "")
		err := c.ApplyEnv(func(x string) string {
			if x == k {
				return v
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: want an error naming the variable, got %v", k, v, err)
		}
	}
}
