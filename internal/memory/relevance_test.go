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
	// a fact remembered from a search result is "Title: text", and its title alone does not
	// make it relevant (a real recall, before the title was set aside)
	clients := "Our app sometimes can't connect because the database says there are too many clients already. How do I raise the limit, and how do I see who is using the connections?"
	for _, tc := range []struct {
		fact  string
		above bool
	}{
		{"20.11. Client Connection Defaults — 20.11.1. Statement Behavior: …should use to decide whether to freeze row versions while scanning a table. The default is 50 million transactions. Although users can set this value anywhere from zero to one billion, VACUUM will silently limit the effective value to half the value of autovacuum_freeze_max_age, so that there is not an unreasonably short time between forced autovacuums. For more information see Section 25.1.5. vacuum_failsafe_age (integer) Specifies the maximum age (in transactions) that a table's pg_class.relfrozenxid field can attain before VACUUM takes extraordinary measures to avoid system-wide trans…", false},
		{"20.3.1. Connection Settings: max_connections determines the maximum number of concurrent connections to the database server; clients beyond the limit are refused.", true},
		{"Connections: the database refuses clients over the connection limit; raise max_connections.", true},
		{"The database refuses clients. Note: raise the connection limit.", true}, // a sentence before the colon: no label
	} {
		if r := Relevance(clients, tc.fact); (r >= RelevanceFloor) != tc.above {
			t.Errorf("%q: relevance %.2f, want above the floor %v", tc.fact, r, tc.above)
		}
	}
	if Relevance("the of and", "anything") != 0 {
		t.Error("a task without content words makes nothing relevant")
	}
}
