package recorder_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/internal/endwait"
	"github.com/lookout-go/lookout/recorder"
)

// TestTypedRecordsAllocateAFractionEach holds that a run's typed records
// cost a fraction of an allocation each on their way into a memory sink:
// their payloads come a few at a time from the run's slabs, the queue
// holds them by value, and the sink's slice grows by doubling.
func TestTypedRecordsAllocateAFractionEach(t *testing.T) {
	assertFractionPerRecord(t, callRecords)
}

// callRecords records, the ith time it is called, a model and tool call's
// typed records, and returns how many.
func callRecords(run *recorder.Trace, i int) int {
	ctx := context.Background()
	run.ModelRequest(ctx, recorder.ModelRequest{MessageCount: i})
	run.ModelResponse(ctx, recorder.ModelResponse{})
	run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens"})
	run.ToolStarted(ctx, recorder.ToolStarted{Name: "noop"})
	run.ToolEnded(ctx, recorder.ToolEnded{Name: "noop"})
	return 5
}

// TestExtensionsAllocateAFractionEach holds that an extension record
// whose body holds no secret costs a fraction of an allocation on its way
// into a memory sink: its payload comes from the run's slabs, and neither
// checking its body nor redacting it copies the body.
func TestExtensionsAllocateAFractionEach(t *testing.T) {
	ctx := context.Background()
	body := []byte(`{"observer":"Stall","severity":"info","assessment_call_index":4,"reaction":"carried_on",` +
		`"counts":{"shown":1,"changed_course":0,"wrapped_up":0,"carried_on":1}}`)
	assertFractionPerRecord(t, func(run *recorder.Trace, _ int) int {
		if err := run.Extension(ctx, "lookout.efficacy", body); err != nil {
			t.Fatal(err)
		}
		return 1
	})
}

// TestAssessmentsAllocateAFractionEach holds that an assessment record
// costs a fraction of an allocation on its way into a memory sink, a new
// text each time: its payload comes from the run's slabs, and remembering
// what the built-in redactor made of its text takes no allocation.
func TestAssessmentsAllocateAFractionEach(t *testing.T) {
	ctx := context.Background()
	texts := make([]string, 16)
	for i := range texts {
		texts[i] = fmt.Sprintf("## Trajectory Assessment\n\n_Generated after tool call #%d_\n\nYou have made %d tool calls.\n", i, i)
	}
	assertFractionPerRecord(t, func(run *recorder.Trace, i int) int {
		run.Assessment(ctx, recorder.AssessmentRecord{Markdown: texts[i%len(texts)], AfterCallIndex: i})
		return 1
	})
}

// assertFractionPerRecord checks that the records emit makes on their way
// into a memory sink cost at most 0.2 allocations each. emit records a
// few records of one run, the ith time it is called, and returns how many.
func assertFractionPerRecord(t *testing.T, emit func(run *recorder.Trace, i int) int) {
	t.Helper()
	assertAllocsPerRecord(t, recorder.NewMemorySink(), 0.2, emit)
}

// assertAllocsPerRecord checks that the records emit makes on their way
// into sink cost at most most allocations each.
func assertAllocsPerRecord(t *testing.T, sink recorder.Sink, most float64, emit func(run *recorder.Trace, i int) int) {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	ctx := context.Background()
	rec := newRec(t, sink, &recorder.Options{QueueSize: 1 << 14})
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	const perRun = 1000
	allocs := testing.AllocsPerRun(5, func() {
		for i, n := 0, 0; n < perRun; i++ {
			n += emit(run, i)
		}
		if err := rec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}) / perRun
	t.Logf("%.4f allocations per record", allocs)
	if allocs > most {
		t.Errorf("%.4f allocations per record, want at most %v", allocs, most)
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

// TestFlushAllocatesNothing holds that a Flush, which an agent makes at
// the end of every query, reuses the channel its answer comes on.
func TestFlushAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	ctx := context.Background()
	rec := newRec(t, recorder.NewMemorySink(), nil)
	allocs := testing.AllocsPerRun(100, func() {
		if err := rec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a Flush, want none", allocs)
	}
	// A query's end bounds its Flush with a timer the Recorder reuses.
	within := &endwait.Context{Context: ctx, Within: time.Hour}
	allocs = testing.AllocsPerRun(100, func() {
		if err := rec.Flush(within); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a bounded Flush, want none", allocs)
	}
}

// TestTypedRecordsIntoAFileAllocateNothing holds that a run's typed
// records of a model and tool call, and its assessments, cost no
// allocation on their way into a file: the payloads the FileSink has
// written come back to the Recorder, for the next records to fill in.
func TestTypedRecordsIntoAFileAllocateNothing(t *testing.T) {
	ctx := context.Background()
	assertAllocsPerRecord(t, recorder.NewWriterSink(io.Discard, nil), 0.005, func(run *recorder.Trace, i int) int {
		n := callRecords(run, i)
		if i%10 == 9 {
			run.Assessment(ctx, recorder.AssessmentRecord{Markdown: "## Trajectory Assessment", AfterCallIndex: i})
			n++
		}
		return n
	})
}
