package report

import (
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

func TestExtractiveSkipsSourcesWithNothingOnTheQuestion(t *testing.T) {
	sources := []research.Source{
		{N: 1, Result: search.Result{Title: "Memory model"}, Text: "The memory model says a send on a channel happens before the receive completes. Programs with races are wrong."},
		{N: 2, Result: search.Result{Title: "Release notes"}, Text: "Release notes should be added to the next directory. Ask the author to add a file to the change list."},
	}
	body := ExtractiveBody("When does a channel send happen before the receive?", sources, 3)
	if !strings.Contains(body, "[1]") || !strings.Contains(body, "happens before the receive") {
		t.Fatalf("the relevant source is missing:\n%s", body)
	}
	if strings.Contains(body, "[2]") || strings.Contains(body, "Release notes") {
		t.Fatalf("a source sharing nothing with the question was cited:\n%s", body)
	}
	if strings.Contains(body, "races are wrong") {
		t.Fatalf("an off-question sentence was quoted:\n%s", body)
	}
}
