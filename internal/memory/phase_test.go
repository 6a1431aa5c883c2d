package memory
import ("testing";"time";"context";"fmt";"os")
func TestPhase(t *testing.T){
	dir := os.Getenv("PDIR"); if dir=="" { dir = t.TempDir() } else { dir, _ = os.MkdirTemp(dir, "p"); defer os.RemoveAll(dir) }
	obs := observations(10000)
	s, _ := Open(context.Background(), Options{Dir: dir}); defer s.Close()
	ctx := context.Background()
	texts := make([]string, len(obs)); docs := make([]TextDoc, len(obs))
	for i, o := range obs { texts[i]=o.Fact; docs[i]=TextDoc{ID:o.ID,Text:o.Fact,Task:o.Task} }
	t0 := time.Now(); s.embed.Embed(ctx, texts); fmt.Println("embed", time.Since(t0))
	t0 = time.Now(); s.local.Index(ctx, docs); fmt.Println("fts", time.Since(t0))
	t0 = time.Now(); bulkLoad(t, s, obs); fmt.Println("bulk", time.Since(t0))
	t0 = time.Now(); for i:=0;i<20;i++ { s.Search(ctx, "garbage collector pauses", 4) }; fmt.Println("search x20", time.Since(t0))
}
