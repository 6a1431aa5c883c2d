package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
)

// The search attributes runs and expansions set (registered by the worker at start).
var (
	strategyAttr = temporal.NewSearchAttributeKeyKeyword(activities.SearchAttrStrategy)
	stateAttr    = temporal.NewSearchAttributeKeyKeyword(activities.SearchAttrState)
)

// workflowStrategy is the SatedStrategy update for a run's strategy.
func workflowStrategy(strategy string) temporal.SearchAttributeUpdate {
	return strategyAttr.ValueSet(strategy)
}

// upsertSearchAttributes sets search attributes; a failure is logged, never the run's end.
func upsertSearchAttributes(ctx workflow.Context, updates ...temporal.SearchAttributeUpdate) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, updates...); err != nil {
		workflow.GetLogger(ctx).Warn("search attributes not set", "error", err)
	}
}
