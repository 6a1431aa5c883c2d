package corpus

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestDbgVariants(t *testing.T) {
	x, err := Open("/tmp/benchcorpus/corpus.db")
	if err != nil { t.Fatal(err) }
	defer x.Close()
	ctx := context.Background()
	variants := map[string]string{
		"full": `SELECT d.id, d.url, d.title, snippet(docs_fts, 1, '', '', '…', 48) FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid WHERE docs_fts MATCH ? ORDER BY bm25(docs_fts, 8.0, 1.0) LIMIT 10`,
		"nosnip": `SELECT docs_fts.rowid FROM docs_fts WHERE docs_fts MATCH ? ORDER BY bm25(docs_fts, 8.0, 1.0) LIMIT 10`,
		"cte": `WITH top AS (SELECT rowid AS r, bm25(docs_fts, 8.0, 1.0) AS score FROM docs_fts WHERE docs_fts MATCH ?1 ORDER BY score LIMIT 10)
SELECT d.id, d.url, d.title, (SELECT snippet(docs_fts, 1, '', '', '…', 48) FROM docs_fts WHERE docs_fts MATCH ?1 AND docs_fts.rowid = top.r)
FROM top JOIN docs d ON d.rowid = top.r ORDER BY top.score`,
		"count": `SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?`,
	}
	for name, q := range variants {
		var tot time.Duration
		for _, bq := range benchQueries {
			m, _ := matchQuery(bq)
			t0 := time.Now()
			rows, err := x.db.QueryContext(ctx, q, m)
			if err != nil { t.Fatal(err) }
			n := 0
			for rows.Next() { n++ }
			rows.Close()
			d := time.Since(t0)
			tot += d
			if name == "count" { var c int; x.db.QueryRow(q, m).Scan(&c); fmt.Println(bq, c, d) }
		}
		fmt.Println(name, tot/time.Duration(len(benchQueries)))
	}
}
