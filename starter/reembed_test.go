package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/memory"
	"github.com/sated-dev/sated/internal/testenv"
)

// The README's path from an offline start to a real embedding model: memory built with the
// lexical embedder is re-embedded by the real Ollama embedding model, then opens with it.
func TestMemoryReembedWithTheRealEmbeddingModel(t *testing.T) {
	host := testenv.OllamaHost(t)
	model := os.Getenv("SATED_TEST_MODEL")
	if model == "" {
		model = "sated-test-stories"
	}
	dir := filepath.Join(t.TempDir(), "memory")
	ctx := context.Background()
	s, err := memory.Open(ctx, memory.Options{Dir: dir, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remember(ctx, []memory.Observation{
		{Fact: "The Go memory model defines happens-before through channel operations.", Task: "go"},
		{Fact: "WAL mode lets readers continue while a writer appends to the log.", Task: "sqlite"},
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	t.Setenv("OLLAMA_HOST", host)
	t.Setenv("SATED_EMBED_MODEL", model)
	code, out := runCLI(t, "memory", "reembed", "--dir", dir)
	if code != 0 || !strings.Contains(out, "re-embedded 2 observations") || !strings.Contains(out, "ollama:"+model) {
		t.Fatalf("reembed: code %d\n%s", code, out)
	}
	llmEmb := ollamaEmbedderFor(t, host, model)
	s2, err := memory.Open(ctx, memory.Options{Dir: dir, Embedder: llmEmb, EmbedderID: "ollama:" + model})
	if err != nil {
		t.Fatalf("open with the real embedder after re-embedding: %v", err)
	}
	defer s2.Close()
	if st := s2.Stats(); st.Count != 2 || st.Embedder != "ollama:"+model {
		t.Errorf("stats after re-embed: %+v", st)
	}
	res, err := s2.Search(ctx, "happens-before channel", 2)
	if err != nil || len(res.Hits) == 0 {
		t.Errorf("search with the new vectors: %+v %v", res, err)
	}
}

func ollamaEmbedderFor(t *testing.T, host, model string) memory.Embedder {
	t.Helper()
	m, err := llm.New(llm.DefaultConfig(host, "", "", "", model, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	return llm.MemoryEmbedder{C: m}
}
