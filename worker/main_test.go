package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sated-dev/sated/activities"
	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/search"
)

func TestBadConfigFailsBeforeAnythingIsOpened(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	t.Setenv("SATED_DATA_DIR", data)
	t.Setenv("TEMPORAL_ADDRESS", "127.0.0.1:1")
	t.Setenv("SATED_FETCH_TIMEOUT", "abc")
	err := run(false)
	if err == nil || err.Error() != `SATED_FETCH_TIMEOUT="abc": not a duration` {
		t.Fatalf("got %v", err)
	}
	if _, statErr := os.Stat(data); !os.IsNotExist(statErr) {
		t.Fatalf("the data dir was created before the configuration was checked: %v", statErr)
	}
}

type oneResult struct{}

func (oneResult) Name() string { return "fake" }
func (oneResult) Search(context.Context, string, int) ([]search.Result, error) {
	return []search.Result{{URL: "https://example.org/a", Title: "a", Snippet: "s", Provider: "fake"}}, nil
}

// The workflows schedule a.Search on a source queue through a typed nil handle; the source
// queue must answer to the name that handle gives, and to nothing else.
func TestSourceQueuesServeOnlyTheSearchTheWorkflowsSchedule(t *testing.T) {
	acts := activities.NewActivities(activities.Deps{Providers: map[string]search.Provider{"fake": oneResult{}}})
	in := activities.SearchInput{Provider: "fake", Query: "gc pacer", Limit: 3}
	if got := scheduledName(t, acts, in); got != searchActivity {
		t.Fatalf("the workflows schedule %q, the source queues serve %q", got, searchActivity)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	registerSourceActivities(env, acts)
	// by name, as a task from the server arrives: an in-process handle would follow the alias
	v, err := env.ExecuteActivity(searchActivity, in)
	if err != nil {
		t.Fatal(err)
	}
	var out activities.SearchOutput
	if err := v.Get(&out); err != nil || len(out.Results) != 1 {
		t.Fatalf("%+v %v", out, err)
	}
	_, err = env.ExecuteActivity("DecideSourceQuery", activities.SourceDecisionInput{})
	if err == nil || !strings.Contains(err.Error(), "unable to find activityType=DecideSourceQuery") {
		t.Fatalf("a source queue served DecideSourceQuery: %v", err)
	}
}

// scheduledName is the activity type a workflow schedules for a.Search when the research queue
// registers the whole struct, as the worker does.
func scheduledName(t *testing.T, acts *activities.Activities, in activities.SearchInput) string {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(acts)
	var name string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		name = info.ActivityType.Name
	})
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		var a *activities.Activities
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		return workflow.ExecuteActivity(ctx, a.Search, in).Get(ctx, nil)
	})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestApplyTuningOverridesOnlyWhatIsSet(t *testing.T) {
	cfg := llm.DefaultConfig("http://o", "p", "p", "e", "m", "v")
	want := cfg
	n, temp := 2048, 0.7
	applyTuning(&cfg, config.ModelTuning{Planner: config.StageTuning{NumCtx: &n}, Vision: config.StageTuning{Temperature: &temp}})
	want.Planner.NumCtx, want.Vision.Temperature = 2048, 0.7
	if cfg != want {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
}

// The cache knobs reach the worker: SATED_SEARCH_CACHE=off leaves the activities without a
// cache but with the run's search record, SATED_SEARCH_CACHE_TTL is the cache's freshness and
// SATED_CHUNK_BUDGET the chunker's budget.
func TestCacheAndChunkKnobsAreWired(t *testing.T) {
	for _, tc := range []struct {
		env       map[string]string
		wantCache bool
		ttl       time.Duration
		budget    int
	}{
		{env: map[string]string{}, wantCache: true, ttl: 24 * time.Hour, budget: 12000},
		{env: map[string]string{"SATED_SEARCH_CACHE": "off"}, wantCache: false, ttl: 24 * time.Hour, budget: 12000},
		{env: map[string]string{"SATED_SEARCH_CACHE_TTL": "2h", "HARNESS_CHUNK_BUDGET": "3000"}, wantCache: true, ttl: 2 * time.Hour, budget: 3000},
	} {
		t.Setenv("SATED_DATA_DIR", t.TempDir())
		for _, k := range []string{"SATED_SEARCH_CACHE", "SATED_SEARCH_CACHE_TTL", "SATED_CHUNK_BUDGET", "HARNESS_CHUNK_BUDGET"} {
			t.Setenv(k, tc.env[k])
		}
		env, err := config.FromEnv()
		if err != nil {
			t.Fatal(err)
		}
		cl, err := openClients(context.Background(), env, false)
		if err != nil {
			t.Fatal(err)
		}
		if (cl.deps.Cache != nil) != tc.wantCache || cl.deps.Record == nil || cl.deps.ChunkBudget != tc.budget {
			t.Errorf("%v: cache %v record %v budget %d", tc.env, cl.deps.Cache != nil, cl.deps.Record != nil, cl.deps.ChunkBudget)
		}
		// an entry is fresh for the TTL and stale after it
		c := cl.deps.Record.(*search.Cache)
		k := search.Key{Provider: "p", Query: "q", Limit: 1}
		if err := c.PutKey(context.Background(), k, []search.Result{{URL: "https://e/x"}}); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		c.Now = func() time.Time { return now.Add(tc.ttl - time.Minute) }
		if _, ok, _ := c.GetKey(context.Background(), k); !ok {
			t.Errorf("%v: an entry younger than the TTL %v is not served", tc.env, tc.ttl)
		}
		c.Now = func() time.Time { return now.Add(tc.ttl + time.Minute) }
		if _, ok, _ := c.GetKey(context.Background(), k); ok {
			t.Errorf("%v: an entry older than the TTL %v is served", tc.env, tc.ttl)
		}
		cl.close()
	}
}
