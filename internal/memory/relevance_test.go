package memory

import "testing"

func TestRelevance(t *testing.T) {
	task := "How do channel sends synchronize goroutines in the Go memory model?"
	for _, tc := range []struct {
		fact  string
		above bool
	}{
		{"A send on a channel is synchronized before the completion of the corresponding receive.", true},
		{"The Go toolchain downloads modules from a proxy.", false},
		{"In the Go memory model, a channel send synchronizes the sending and receiving goroutines.", true},
		{"GOGC sets the garbage collector's target heap growth.", false},
		{"Sending on channels synchronizes goroutines.", true},
	} {
		r := Relevance(task, tc.fact)
		if (r >= RelevanceFloor) != tc.above {
			t.Errorf("%q: relevance %.2f, want above the floor %v", tc.fact, r, tc.above)
		}
	}
	if Relevance("the of and", "anything") != 0 {
		t.Error("a task without content words makes nothing relevant")
	}
}
