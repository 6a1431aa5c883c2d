package activities

import (
	"context"

	"github.com/sated-dev/sated/internal/llm"
)

// Capabilities says which model stages this worker has, so the workflow decides once, in
// recorded history, which stages run on a model.
type Capabilities struct {
	Planner     bool   `json:"planner"`
	Producer    bool   `json:"producer"`
	Evaluator   bool   `json:"evaluator"`
	Embedder    bool   `json:"embedder"`
	Vision      bool   `json:"vision"`
	Memory      bool   `json:"memory"`
	MemoryQueue string `json:"memory_queue,omitempty"`
	// SearchAttributes: the namespace has SatedStrategy and SatedState (EnsureSearchAttributes).
	SearchAttributes bool `json:"search_attributes,omitempty"`
}

// Any reports whether any generation stage is configured.
func (c Capabilities) Any() bool { return c.Planner || c.Producer || c.Evaluator }

// CapabilitiesInput is empty: one struct in, so fields can be added.
type CapabilitiesInput struct{}

// WorkerCapabilities reports the configured stages.
func (a *Activities) WorkerCapabilities(ctx context.Context, _ CapabilitiesInput) (Capabilities, error) {
	has := func(s llm.Stage) bool { return a.model != nil && a.model.Configured(s) }
	return Capabilities{Planner: has(llm.Planner), Producer: has(llm.Producer), Evaluator: has(llm.Evaluator),
		Embedder: has(llm.Embedder), Vision: has(llm.Vision), Memory: a.memoryQueue != "", MemoryQueue: a.memoryQueue,
		SearchAttributes: a.searchAttributes}, nil
}
