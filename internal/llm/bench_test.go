package llm

import (
	"strings"
	"testing"
)

// go test ./internal/llm -run '^$' -bench . -benchtime 2000x
func BenchmarkExtractJSON(b *testing.B) {
	answer := strings.Repeat("Sure, here is some {prose} with braces. ", 50) + "```json\n" + goodPlan + "\n```"
	for b.Loop() {
		if _, ok := ExtractJSON(answer); !ok {
			b.Fatal("not found")
		}
	}
}

func BenchmarkFitPrompt(b *testing.B) {
	ev := make([]string, 100)
	for i := range ev {
		ev[i] = strings.Repeat("evidence ", 400)
	}
	for b.Loop() {
		if got := FitPrompt("question", ev, 8192, 1500); len(got) == 0 {
			b.Fatal("nothing fit")
		}
	}
}
