package recorder_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

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

// TestEncodingARecordAllocatesNothing holds that the records of an
// agent's model and tool call encode into a buffer with room without
// allocating, through AppendJSON and through a FileSink.
func TestEncodingARecordAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	ctx := context.Background()
	sink := recorder.NewWriterSink(io.Discard, nil)
	buf := make([]byte, 0, 4096)
	for _, p := range iterationRecords(3) {
		r := recorder.Record{SchemaVersion: 1, Seq: 7, RunID: "fbbeffbe-b0ef-440a-aa29-78510d945b1e", RecordedAt: t0, Payload: p}
		allocs := testing.AllocsPerRun(100, func() {
			var err error
			if buf, err = r.AppendJSON(buf[:0]); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "AppendJSON of %s", p.Kind())
		allocs = testing.AllocsPerRun(100, func() {
			if err := sink.Write(ctx, &r); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "a FileSink's Write of %s", p.Kind())
	}
}
