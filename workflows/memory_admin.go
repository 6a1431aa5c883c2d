package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
)

// MemoryAdminWorkflowName is the registered name the starter starts.
const MemoryAdminWorkflowName = "MemoryAdminWorkflow"

// Memory admin operations.
const (
	MemoryOpSearch = "search"
	MemoryOpStats  = "stats"
	MemoryOpForget = "forget"
)

// MemoryAdminRequest is one admin operation. The starter never opens the memory directory
// itself: only the memory worker may, so the operation runs there as an activity.
type MemoryAdminRequest struct {
	Op        string `json:"op"`
	Text      string `json:"text,omitempty"`  // search
	Limit     int    `json:"limit,omitempty"` // search
	ID        string `json:"id,omitempty"`    // forget
	Task      string `json:"task,omitempty"`  // forget
	TaskQueue string `json:"task_queue,omitempty"`
}

// MemoryAdminResult carries the answer of whichever operation ran.
type MemoryAdminResult struct {
	Op     string                         `json:"op"`
	Search *activities.MemorySearchOutput `json:"search,omitempty"`
	Stats  *activities.MemoryStatsOutput  `json:"stats,omitempty"`
	Forget *activities.MemoryForgetOutput `json:"forget,omitempty"`
}

// MemoryAdminWorkflow runs one search, stats or forget operation on the memory task queue.
func MemoryAdminWorkflow(ctx workflow.Context, req MemoryAdminRequest) (MemoryAdminResult, error) {
	opts := memoryAdminOptions
	opts.TaskQueue = req.TaskQueue
	if opts.TaskQueue == "" {
		opts.TaskQueue = activities.DefaultMemoryTaskQueue
	}
	ctx = workflow.WithActivityOptions(ctx, opts)
	res := MemoryAdminResult{Op: req.Op}
	switch req.Op {
	case MemoryOpSearch:
		res.Search = &activities.MemorySearchOutput{}
		return res, workflow.ExecuteActivity(ctx, memoryActs.SearchMemory, activities.MemorySearchInput{Text: req.Text, Limit: req.Limit}).Get(ctx, res.Search)
	case MemoryOpStats:
		res.Stats = &activities.MemoryStatsOutput{}
		return res, workflow.ExecuteActivity(ctx, memoryActs.MemoryStats, activities.MemoryStatsInput{}).Get(ctx, res.Stats)
	case MemoryOpForget:
		res.Forget = &activities.MemoryForgetOutput{}
		return res, workflow.ExecuteActivity(ctx, memoryActs.ForgetMemory, activities.MemoryForgetInput{ID: req.ID, Task: req.Task}).Get(ctx, res.Forget)
	default:
		return res, temporal.NewNonRetryableApplicationError(fmt.Sprintf("unknown memory operation %q (want search, stats or forget)", req.Op), badInput, nil)
	}
}
