package memory

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/sated-dev/sated/internal/chunk"
)

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// DefaultLexicalDims is the size of the lexical embedding.
const DefaultLexicalDims = 256

// LexicalEmbedder is the offline fallback used when no Ollama embedding model is configured.
// It hashes word unigrams, word bigrams and character trigrams into a fixed number of signed
// buckets and L2-normalises the result. It is deterministic and needs no model, but it is NOT
// semantic: texts are similar only when they share words or word pieces, so a paraphrase with
// different vocabulary is not recognised.
type LexicalEmbedder struct{ Dims int }

// ID names the embedding space; vectors from different IDs must never be mixed in one store.
func (e LexicalEmbedder) ID() string { return fmt.Sprintf("lexical-hash-v2-%d", e.dims()) }

func (e LexicalEmbedder) dims() int {
	if e.Dims <= 0 {
		return DefaultLexicalDims
	}
	return e.Dims
}

// Embed never fails; the error is there to satisfy Embedder.
func (e LexicalEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vector(t)
	}
	return out, nil
}

// Feature weights: whole words carry most of the signal, trigrams catch inflections.
const (
	wUnigram = 1.0
	wBigram  = 0.5
	wTrigram = 0.25
)

func (e LexicalEmbedder) vector(text string) []float32 {
	v := make([]float64, e.dims())
	add := func(feature string, w float64) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		sum := h.Sum64()
		i := int(sum % uint64(len(v)))
		if sum>>63 == 1 { // a second hash bit gives the sign, so collisions cancel out on average
			w = -w
		}
		v[i] += w
	}
	toks := chunk.Tokens(text)
	for j, t := range toks {
		add("w:"+t, wUnigram)
		if j > 0 {
			add("b:"+toks[j-1]+" "+t, wBigram)
		}
		padded := " " + t + " "
		for k := 0; k+3 <= len(padded); k++ {
			add("c:"+padded[k:k+3], wTrigram)
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, len(v))
	if norm == 0 {
		// An empty text still needs a unit vector: chromem-go expects normalised vectors.
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// normText is the form exact-duplicate detection compares: lower case, single spaces, no
// trailing punctuation.
func normText(s string) string {
	return strings.TrimRight(strings.Join(strings.Fields(strings.ToLower(s)), " "), ".!?;:, ")
}
