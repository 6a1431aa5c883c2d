package workflows

import "github.com/sated-dev/sated/activities"

// Workflows name activities through typed nil pointers: only the method values are used, for
// their names, and each struct's activities run on the queue its worker serves.
var (
	// researchActs: search, novelty, compress, plan, fetch, synthesize and investigation, on the
	// main queue (Search also on each sated-source-* queue).
	researchActs *activities.Activities
	// memoryActs: recall, remember and the admin operations, on the memory worker's queue.
	memoryActs *activities.MemoryActivities
	// harnessActs: the evaluation harness's store, scoring and monitor calls.
	harnessActs *activities.HarnessActivities
	// gateActs: the harness gate's notifications and audit log.
	gateActs *activities.GateActivities
)
