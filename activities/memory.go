package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/sated-dev/sated/internal/memory"
)

// DefaultMemoryTaskQueue is the queue memory activities run on. chromem-go keeps its index in
// one process, so exactly one worker serves this queue while research workers scale out.
const DefaultMemoryTaskQueue = "sated-memory"

// MemoryFallbackAttempt is the attempt from which an unreachable Meilisearch no longer fails
// the activity (so Temporal retries it) but is replaced by the embedded full-text index.
// Memory activity options need MaximumAttempts of 0 or at least this.
const MemoryFallbackAttempt = 3

// memoryStore is what the memory activities need from *memory.Store.
type memoryStore interface {
	Remember(ctx context.Context, obs []memory.Observation) (memory.WriteResult, error)
	Search(ctx context.Context, query string, k int) (memory.SearchResult, error)
	Forget(ctx context.Context, id string) (memory.ForgetResult, error)
	ForgetTask(ctx context.Context, task string) (memory.ForgetResult, error)
	Stats() memory.Stats
	CheckFullText(ctx context.Context) error
}

// MemoryActivities read and write the memory across runs.
type MemoryActivities struct {
	store memoryStore
}

// NewMemoryActivities wraps the one open store of this process.
func NewMemoryActivities(store *memory.Store) *MemoryActivities {
	return &MemoryActivities{store: store}
}

// MemoryRecallInput asks for what earlier runs established about a task.
type MemoryRecallInput struct {
	Task string `json:"task"`
	K    int    `json:"k,omitempty"` // 0: the store's default (4)
}

// MemoryRecallOutput holds the recalled facts with their original sources, for known_facts
// and the synthesis prompt.
type MemoryRecallOutput struct {
	Facts []PriorFact `json:"facts"`
	Note  string      `json:"note,omitempty"`
}

// MemoryFactInput is one fact a run established.
type MemoryFactInput struct {
	Fact    string   `json:"fact"`
	Sources []string `json:"sources"`
}

// MemoryRememberInput is what a completed run offers to memory.
type MemoryRememberInput struct {
	Task  string            `json:"task"`
	Facts []MemoryFactInput `json:"facts"`
	At    time.Time         `json:"at,omitempty"` // workflow.Now of the run; zero: now
}

// MemoryRememberOutput counts what happened, for the report.
type MemoryRememberOutput struct {
	Stored      int    `json:"stored"`
	Skipped     int    `json:"skipped"`
	Quarantined int    `json:"quarantined"`
	Note        string `json:"note,omitempty"`
}

// MemorySearchInput is an admin search.
type MemorySearchInput struct {
	Text  string `json:"text"`
	Limit int    `json:"limit,omitempty"`
}

// MemoryHit is one observation as the admin commands show it.
type MemoryHit struct {
	ID      string    `json:"id"`
	Fact    string    `json:"fact"`
	Sources []string  `json:"sources"`
	Task    string    `json:"task"`
	At      time.Time `json:"at"`
	Score   float64   `json:"score"`
	Vector  float64   `json:"vector"`
	Text    float64   `json:"text"`
}

// MemorySearchOutput lists hits, best first.
type MemorySearchOutput struct {
	Hits     []MemoryHit `json:"hits"`
	FullText string      `json:"full_text"`
	Note     string      `json:"note,omitempty"`
}

// MemoryStatsInput has no fields yet; it exists so fields can be added.
type MemoryStatsInput struct{}

// MemoryStatsOutput describes the store.
type MemoryStatsOutput = memory.Stats

// MemoryForgetInput names one observation or a whole task; exactly one must be set.
type MemoryForgetInput struct {
	ID   string `json:"id,omitempty"`
	Task string `json:"task,omitempty"`
}

// MemoryForgetOutput says how many observations were removed.
type MemoryForgetOutput struct {
	Removed int    `json:"removed"`
	Note    string `json:"note,omitempty"`
}

// RecallMemory returns the top facts for a task by hybrid recall.
func (m *MemoryActivities) RecallMemory(ctx context.Context, in MemoryRecallInput) (MemoryRecallOutput, error) {
	if err := m.fullTextReady(ctx); err != nil {
		return MemoryRecallOutput{}, err
	}
	res, err := m.store.Search(ctx, in.Task, in.K)
	if err != nil {
		return MemoryRecallOutput{}, classify("memory recall", err)
	}
	out := MemoryRecallOutput{Facts: make([]PriorFact, 0, len(res.Hits)), Note: res.Note}
	dropped := 0
	for _, h := range res.Hits {
		if memory.Relevance(in.Task, h.Fact) < memory.RelevanceFloor {
			dropped++ // the nearest memory holds can still be about something else
			continue
		}
		out.Facts = append(out.Facts, PriorFact{Fact: h.Fact, Sources: h.Sources})
	}
	if dropped > 0 {
		note := fmt.Sprintf("%d recalled facts below the relevance floor (%.0f%% of the question's words) left out", dropped, 100*memory.RelevanceFloor)
		if out.Note != "" {
			note = out.Note + "; " + note
		}
		out.Note = note
	}
	return out, nil
}

// RememberRun stores the facts of a completed run after the injection scan and novelty check.
func (m *MemoryActivities) RememberRun(ctx context.Context, in MemoryRememberInput) (MemoryRememberOutput, error) {
	if err := m.fullTextReady(ctx); err != nil {
		return MemoryRememberOutput{}, err
	}
	at := in.At
	if at.IsZero() {
		at = time.Now().UTC()
	}
	obs := make([]memory.Observation, 0, len(in.Facts))
	for _, f := range in.Facts {
		obs = append(obs, memory.Observation{Fact: f.Fact, Sources: f.Sources, Task: in.Task, At: at})
	}
	res, err := m.store.Remember(ctx, obs)
	if err != nil {
		return MemoryRememberOutput{}, classify("memory remember", err)
	}
	return MemoryRememberOutput{Stored: res.Stored, Skipped: res.Skipped, Quarantined: res.Quarantined, Note: res.Note}, nil
}

// SearchMemory is the admin search behind "starter memory search".
func (m *MemoryActivities) SearchMemory(ctx context.Context, in MemorySearchInput) (MemorySearchOutput, error) {
	if err := m.fullTextReady(ctx); err != nil {
		return MemorySearchOutput{}, err
	}
	res, err := m.store.Search(ctx, in.Text, in.Limit)
	if err != nil {
		return MemorySearchOutput{}, classify("memory search", err)
	}
	out := MemorySearchOutput{Hits: make([]MemoryHit, 0, len(res.Hits)), FullText: res.FullText, Note: res.Note}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, MemoryHit{ID: h.ID, Fact: h.Fact, Sources: h.Sources, Task: h.Task, At: h.At,
			Score: h.Score, Vector: h.Vector, Text: h.Text})
	}
	return out, nil
}

// MemoryStats counts observations and quarantined items.
func (m *MemoryActivities) MemoryStats(ctx context.Context, _ MemoryStatsInput) (MemoryStatsOutput, error) {
	return m.store.Stats(), nil
}

// ForgetMemory removes one observation by ID or all of a task's.
func (m *MemoryActivities) ForgetMemory(ctx context.Context, in MemoryForgetInput) (MemoryForgetOutput, error) {
	var res memory.ForgetResult
	var err error
	switch {
	case (in.ID == "") == (in.Task == ""):
		return MemoryForgetOutput{}, badInput(nil, "forget needs exactly one of an ID or a task")
	case in.ID != "":
		res, err = m.store.Forget(ctx, in.ID)
	default:
		res, err = m.store.ForgetTask(ctx, in.Task)
	}
	if err != nil {
		return MemoryForgetOutput{}, classify("memory forget", err)
	}
	return MemoryForgetOutput{Removed: res.Removed, Note: res.Note}, nil
}

// fullTextReady fails early attempts while Meilisearch is unreachable so Temporal retries
// them; from MemoryFallbackAttempt on, the store's embedded full-text index takes over.
func (m *MemoryActivities) fullTextReady(ctx context.Context) error {
	err := m.store.CheckFullText(ctx)
	if err == nil || !errors.Is(err, memory.ErrFullTextUnavailable) {
		return nil // other health errors surface on the real call
	}
	if activity.GetInfo(ctx).Attempt < MemoryFallbackAttempt {
		return fmt.Errorf("memory full-text backend unreachable, retrying before falling back: %w", err)
	}
	return nil
}
