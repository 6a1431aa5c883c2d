package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// failingEmbedder embeds the first n texts, then fails: a model that goes away mid-way.
type failingEmbedder struct {
	LexicalEmbedder
	n int
}

func (e *failingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.n < len(texts) {
		return nil, errors.New("model went away")
	}
	e.n -= len(texts)
	return e.LexicalEmbedder.Embed(ctx, texts)
}

// Memory built with one embedder is re-embedded with the next instead of being moved away:
// the worker's refusal names the command, the command swaps the vectors in only when complete,
// and the store then opens and recalls with the new embedder.
func TestReembedMovesAStoreToANewEmbedder(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, func(o *Options) { o.Create = true })
	var obs []Observation
	for i := 0; i < 40; i++ { // more than one batch
		obs = append(obs, Observation{Fact: facts[i%len(facts)].Fact + " variant " + string(rune('a'+i%26)) + string(rune('a'+i/26)), Task: "t"})
	}
	res, err := s.Remember(ctx, obs)
	require.NoError(t, err)
	stored := res.Stored
	require.Greater(t, stored, reembedBatch)
	from := s.Stats().Embedder
	require.NoError(t, s.Close())

	next := LexicalEmbedder{Dims: 64}
	_, err = Open(ctx, Options{Dir: dir, Embedder: next})
	require.Error(t, err)
	require.Contains(t, err.Error(), "starter memory reembed --dir "+dir)

	// a model failing mid-way leaves the store as it was
	_, err = Reembed(ctx, dir, &failingEmbedder{LexicalEmbedder: next, n: reembedBatch}, next.ID(), nil)
	require.ErrorContains(t, err, "model went away")
	old := open(t, dir)
	require.Equal(t, stored, old.Stats().Count)
	require.NoError(t, old.Close())

	var calls int
	out, err := Reembed(ctx, dir, next, next.ID(), func(done, total int) { calls++; require.Equal(t, stored, total) })
	require.NoError(t, err)
	require.Equal(t, stored, out.Observations)
	require.Equal(t, from, out.From)
	require.Equal(t, 2, calls)
	_, err = os.Stat(filepath.Join(out.OldVectors))
	require.NoError(t, err, "the old vectors are kept")

	s2 := open(t, dir, func(o *Options) { o.Embedder = next })
	st := s2.Stats()
	require.Equal(t, stored, st.Count)
	require.Equal(t, next.ID(), st.Embedder)
	require.Equal(t, st.VectorCount, st.FullTextCount)
	hits, err := s2.Search(ctx, obs[3].Fact, 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits.Hits)
	require.NoError(t, s2.Close())

	again, err := Reembed(ctx, dir, next, next.ID(), nil)
	require.NoError(t, err)
	require.True(t, again.Unchanged)
}
