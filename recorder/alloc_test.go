package recorder_test

import (
	"context"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// TestTypedRecordsAllocateAFractionEach holds that a run's typed records
// cost a fraction of an allocation each on their way into a memory sink:
// their payloads come a few at a time from the run's slabs, the queue
// holds them by value, and the sink's slice grows by doubling.
func TestTypedRecordsAllocateAFractionEach(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	ctx := context.Background()
	rec := newRec(t, recorder.NewMemorySink(), &recorder.Options{QueueSize: 1 << 14})
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	const perRun = 1000
	allocs := testing.AllocsPerRun(5, func() {
		for i := range perRun / 5 {
			run.ModelRequest(ctx, recorder.ModelRequest{MessageCount: i})
			run.ModelResponse(ctx, recorder.ModelResponse{})
			run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens"})
			run.ToolStarted(ctx, recorder.ToolStarted{Name: "noop"})
			run.ToolEnded(ctx, recorder.ToolEnded{Name: "noop"})
		}
		if err := rec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}) / perRun
	t.Logf("%.3f allocations per record", allocs)
	if allocs > 0.2 {
		t.Errorf("%.3f allocations per record, want at most 0.2", allocs)
	}
}
