package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
)

// BaselineWorkflowName is the plain-search-box baseline `starter eval` runs beside the
// strategies (strategy bm25).
const BaselineWorkflowName = "BaselineWorkflow"

// BaselineRequest asks for the baseline answer to one question.
type BaselineRequest struct {
	Question string `json:"question"`
	Provider string `json:"provider"`
	Budget   int    `json:"budget"`
}

// BaselineWorkflow answers with one search of the raw question, its top results read until the
// findings budget: the floor sated's reports are measured against.
func BaselineWorkflow(ctx workflow.Context, req BaselineRequest) (activities.BaselineOutput, error) {
	var out activities.BaselineOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, searchOptions), researchActs.BaselineAnswer,
		activities.BaselineInput{Provider: req.Provider, Question: req.Question, Budget: req.Budget}).Get(ctx, &out)
	return out, err
}
