package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGroundingRefusal(t *testing.T) {
	valid := func(n int) bool { return n >= 1 && n <= 8 }
	for _, tc := range []struct {
		name           string
		body           string
		inPrompt, srcs int
		wantRefused    string // substring of the refusal; "" means grounded
	}{
		{name: "no source in the prompt (the tiny-model report)", body: "Once upon a time there was a little dog. He liked to play.",
			inPrompt: 0, srcs: 8, wantRefused: "held 0 of 8 sources"},
		{name: "two of eight sources", body: "Go has a memory model [1]. It defines happens-before [2].",
			inPrompt: 2, srcs: 8, wantRefused: "at least 3 needed"},
		{name: "two of two sources is all there is", body: "Go has a memory model [1]. It defines happens-before [2].",
			inPrompt: 2, srcs: 2},
		{name: "free text with no citation", body: "Once upon a time there was a little dog. He liked to play in the park.",
			inPrompt: 8, srcs: 8, wantRefused: "only 0 of 2 sentences"},
		{name: "citations to sources that do not exist do not count", body: "Go has a memory model [9]. It defines happens-before edges [12].",
			inPrompt: 8, srcs: 8, wantRefused: "only 0 of 2"},
		{name: "one of three cited", body: "Go has a memory model [1]. It is a language made at Google. Many people use it every day.",
			inPrompt: 8, srcs: 8, wantRefused: "only 1 of 3"},
		{name: "half cited, headings and prior knowledge not counted",
			body:     "## Summary\n\nGo has a memory model [1]. It is a language made at Google.\n\nChannels synchronise goroutines (prior knowledge).",
			inPrompt: 8, srcs: 8},
		{name: "empty answer", body: "## Findings", inPrompt: 8, srcs: 8, wantRefused: "no sentences"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Ground(tc.body, tc.inPrompt, tc.srcs, valid).Refusal()
			if tc.wantRefused == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tc.wantRefused)
		})
	}
}
