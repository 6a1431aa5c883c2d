package research

import (
	"encoding/json"
	"testing"

	"github.com/sated-dev/sated/internal/search"
)

// The JSON of these types is recorded in workflow histories: a changed tag breaks replay.
func TestWireFormatIsStable(t *testing.T) {
	got, err := json.Marshal([]any{
		Plan{SearchQueries: []string{"q"}, Planner: "model", FallbackReason: "r"},
		Round{Round: 2, Query: "q", Method: "model", Note: "n"},
		Source{N: 1, Result: search.Result{URL: "u", DocID: "d"}, Round: 3, Text: "t"},
		PriorFact{Fact: "f", Sources: []string{"s"}},
		Usage{Calls: 1, PromptTokens: 2, OutputTokens: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"search_queries":["q"],"known_facts":null,"knowledge_gaps":null,"subtasks":null,"planner":"model","fallback_reason":"r"},` +
		`{"round":2,"query":"q","query_source":"","novelty":0,"scored":false,"method":"model","decision":"","results":0,"new_results":0,"chars":0,"cached":false,"note":"n"},` +
		`{"n":1,"url":"u","title":"","snippet":"","provider":"","doc_id":"d","round":3,"enriched":false,"text":"t"},` +
		`{"fact":"f","sources":["s"]},` +
		`{"calls":1,"prompt_tokens":2,"output_tokens":3}]`
	if string(got) != want {
		t.Errorf("wire format changed:\n got %s\nwant %s", got, want)
	}
}

func TestUsageAdd(t *testing.T) {
	u := Usage{Calls: 1, PromptTokens: 10}
	u.Add(Usage{Calls: 2, OutputTokens: 5, Truncated: true})
	if u != (Usage{Calls: 3, PromptTokens: 10, OutputTokens: 5, Truncated: true}) || u.Tokens() != 15 {
		t.Fatalf("got %+v", u)
	}
}
