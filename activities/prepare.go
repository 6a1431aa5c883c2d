package activities

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/sated-dev/sated/internal/llm"
)

// PrepareInput is the raw task before planning.
type PrepareInput struct {
	Question string `json:"question"`
	UseModel bool   `json:"use_model"`
	MaxCalls int    `json:"max_calls,omitempty"` // images to describe at most; 0: all
}

// PrepareOutput is the task with local images replaced by their descriptions.
type PrepareOutput struct {
	Task   string   `json:"task"`
	Images int      `json:"images"`
	Notes  []string `json:"notes,omitempty"`
	Usage  Usage    `json:"usage"`
}

// PrepareTask is the vision bridge: local image paths in the task are replaced by
// "[Image: description]" from the vision model. URLs and missing files stay as they are.
func (a *Activities) PrepareTask(ctx context.Context, in PrepareInput) (PrepareOutput, error) {
	paths := llm.FindImagePaths(in.Question)
	out := PrepareOutput{Task: in.Question}
	if len(paths) == 0 {
		return out, nil
	}
	if !in.UseModel || a.model == nil || !a.model.Configured(llm.Vision) {
		out.Notes = append(out.Notes, fmt.Sprintf("%d local image(s) in the task were left as paths: no vision model configured", len(paths)))
		return out, nil
	}
	desc := map[string]string{}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if in.MaxCalls > 0 && out.Images >= in.MaxCalls {
			out.Notes = append(out.Notes, fmt.Sprintf("image %s left as a path: model budget", p))
			continue
		}
		d, u, err := a.model.Describe(ctx, p)
		out.Usage.Add(u)
		if err != nil {
			return PrepareOutput{}, err
		}
		desc[p] = strings.TrimSpace(d)
		out.Images++
	}
	out.Task = llm.ReplaceImages(in.Question, desc)
	out.Notes = append(out.Notes, fmt.Sprintf("vision bridge described %d image(s)", out.Images))
	return out, nil
}
