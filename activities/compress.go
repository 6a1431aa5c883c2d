package activities

import (
	"context"

	"github.com/sated-dev/sated/internal/knowledge"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/search"
)

// CompressInput merges an accepted round's results into the knowledge state.
type CompressInput struct {
	Question  string          `json:"question"`
	Knowledge string          `json:"knowledge"`
	Results   []search.Result `json:"results"`
	Cap       int             `json:"cap"`
	UseModel  bool            `json:"use_model"`
}

// CompressOutput is the new knowledge state, always within the cap.
type CompressOutput struct {
	Knowledge  string `json:"knowledge"`
	Compressor string `json:"compressor"` // deterministic or model
	Fallback   string `json:"fallback,omitempty"`
	Usage      Usage  `json:"usage"`
}

// CompressKnowledge merges an accepted round into the knowledge state, always within the cap.
func (a *Activities) CompressKnowledge(ctx context.Context, in CompressInput) (CompressOutput, error) {
	if in.Cap < 1 {
		return CompressOutput{}, badInput(nil, "compress: cap %d must be positive", in.Cap)
	}
	if in.UseModel && a.model != nil && a.model.Configured(llm.Producer) {
		return a.modelCompress(ctx, in)
	}
	out := CompressOutput{Knowledge: knowledge.Compress(in.Knowledge, in.Results, in.Cap), Compressor: "deterministic"}
	if in.UseModel {
		out.Fallback = "no producer model configured"
	}
	return out, nil
}

func (a *Activities) modelCompress(ctx context.Context, in CompressInput) (CompressOutput, error) {
	system, prompt := llm.CompressionPrompt(in.Question, in.Knowledge, promptSources(in.Results))
	var c llm.Compression
	outcome, u, err := a.model.GenerateJSON(ctx, llm.Compressor, system, prompt, llm.CompressionSchema, &c, c.Validate)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return CompressOutput{Knowledge: knowledge.Compress(in.Knowledge, in.Results, in.Cap), Compressor: "deterministic", Fallback: reason, Usage: u}, nil
		}
		return CompressOutput{}, err
	}
	if outcome.Fallback {
		return CompressOutput{Knowledge: knowledge.Compress(in.Knowledge, in.Results, in.Cap), Compressor: "deterministic",
			Fallback: "model answer unusable: " + outcome.Reason, Usage: u}, nil
	}
	out := CompressOutput{Knowledge: knowledge.Join(c.Facts, in.Cap), Compressor: "model", Usage: u}
	if outcome.Repaired {
		out.Fallback = "repaired: " + outcome.Reason
	}
	return out, nil
}
