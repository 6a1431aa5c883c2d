package workflows

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/memory"
)

func TestMemoryAdminWorkflowOps(t *testing.T) {
	cases := []struct {
		name  string
		req   MemoryAdminRequest
		mock  func(env *testsuite.TestWorkflowEnvironment)
		check func(t *testing.T, r MemoryAdminResult)
	}{
		{"search", MemoryAdminRequest{Op: MemoryOpSearch, Text: "gc", Limit: 3},
			func(env *testsuite.TestWorkflowEnvironment) {
				env.OnActivity(memoryActs.SearchMemory, mock.Anything, activities.MemorySearchInput{Text: "gc", Limit: 3}).
					Return(activities.MemorySearchOutput{Hits: []activities.MemoryHit{{ID: "x", Fact: "f"}}, FullText: "sqlite-fts5"}, nil).Once()
			},
			func(t *testing.T, r MemoryAdminResult) {
				require.Equal(t, "x", r.Search.Hits[0].ID)
				require.Nil(t, r.Stats)
			}},
		{"stats", MemoryAdminRequest{Op: MemoryOpStats},
			func(env *testsuite.TestWorkflowEnvironment) {
				env.OnActivity(memoryActs.MemoryStats, mock.Anything, activities.MemoryStatsInput{}).
					Return(activities.MemoryStatsOutput{Count: 7, Quarantined: 2}, nil).Once()
			},
			func(t *testing.T, r MemoryAdminResult) { require.Equal(t, 7, r.Stats.Count) }},
		{"forget task", MemoryAdminRequest{Op: MemoryOpForget, Task: "t1"},
			func(env *testsuite.TestWorkflowEnvironment) {
				env.OnActivity(memoryActs.ForgetMemory, mock.Anything, activities.MemoryForgetInput{Task: "t1"}).
					Return(activities.MemoryForgetOutput{Removed: 3}, nil).Once()
			},
			func(t *testing.T, r MemoryAdminResult) { require.Equal(t, 3, r.Forget.Removed) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.RegisterActivity(&activities.MemoryActivities{})
			c.mock(env)
			env.ExecuteWorkflow(MemoryAdminWorkflow, c.req)
			require.True(t, env.IsWorkflowCompleted())
			require.NoError(t, env.GetWorkflowError())
			var r MemoryAdminResult
			require.NoError(t, env.GetWorkflowResult(&r))
			require.Equal(t, c.req.Op, r.Op)
			c.check(t, r)
			env.AssertExpectations(t)
		})
	}
}

func TestMemoryAdminWorkflowUnknownOp(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(&activities.MemoryActivities{})
	env.ExecuteWorkflow(MemoryAdminWorkflow, MemoryAdminRequest{Op: "drop"})
	require.ErrorContains(t, env.GetWorkflowError(), `unknown memory operation "drop"`)
}

// unreachable is a Meilisearch that never answers.
type unreachable struct{ *memory.SQLiteFTS }

func (unreachable) Name() string { return "meilisearch" }
func (unreachable) Health(context.Context) error {
	return errors.Join(memory.ErrFullTextUnavailable, errors.New("connection refused"))
}
func (unreachable) Search(context.Context, string, int) ([]memory.TextHit, error) {
	return nil, errors.Join(memory.ErrFullTextUnavailable, errors.New("connection refused"))
}

// With the real activity: an unreachable Meilisearch is retried, then the embedded index
// answers and the result says so.
func TestMemoryAdminSearchFallsBackAfterRetries(t *testing.T) {
	fts, err := memory.OpenSQLiteFTS(filepath.Join(t.TempDir(), "r.db"))
	require.NoError(t, err)
	store, err := memory.Open(context.Background(), memory.Options{Dir: t.TempDir(), FullText: unreachable{fts}})
	require.NoError(t, err)
	defer store.Close()
	_, err = store.Remember(context.Background(), []memory.Observation{{Fact: "Workers poll task queues for tasks.", Task: "t"}})
	require.NoError(t, err)

	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(activities.NewMemoryActivities(store))
	attempts := 0
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { attempts++ })
	env.ExecuteWorkflow(MemoryAdminWorkflow, MemoryAdminRequest{Op: MemoryOpSearch, Text: "task queues"})
	require.NoError(t, env.GetWorkflowError())
	var r MemoryAdminResult
	require.NoError(t, env.GetWorkflowResult(&r))
	require.Equal(t, activities.MemoryFallbackAttempt, attempts)
	require.Equal(t, "sqlite-fts5", r.Search.FullText)
	require.Contains(t, r.Search.Note, "meilisearch unreachable")
	require.Len(t, r.Search.Hits, 1)
}
