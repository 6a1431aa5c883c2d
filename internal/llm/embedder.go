package llm

import "context"

// MemoryEmbedder gives the memory store (memory.Embedder) the embedding model's vectors.
type MemoryEmbedder struct{ C *Client }

// Embed embeds texts with the embedder stage's model.
func (e MemoryEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, _, err := e.C.Embed(ctx, texts)
	return v, err
}

// MemoryEmbedderID names the embedding space of an Ollama model in the memory store's manifest.
func MemoryEmbedderID(model string) string { return "ollama:" + model }
