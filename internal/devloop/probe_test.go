package devloop

import (
	"context"
	"os"
	"testing"
)

// TestProbe prints the top passages for QUERY over SET's corpus (a debugging aid).
func TestProbe(t *testing.T) {
	q := os.Getenv("QUERY")
	if q == "" {
		t.Skip("set QUERY")
	}
	set := os.Getenv("SET")
	if set == "" {
		set = "sqlite"
	}
	path := corpusPath(set)
	x := open(t, path, "")
	n := 10
	rs, err := x.Search(context.Background(), q, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		p, _ := x.Passage(context.Background(), r.DocID)
		t.Logf("%s | %s | %d words\n   %.300q", r.DocID, r.Title, len(p.Text)/6, p.Text)
	}
}
