package recorder_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

func TestARunsStartAndEndEnterAFullQueueAtOnceWhateverTheirContextAndBlockSay(t *testing.T) {
	for _, block := range []bool{false, true} {
		name := map[bool]string{false: "drop policy", true: "block"}[block]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			sink := newStuckSink()
			rec := newRec(t, sink, &recorder.Options{QueueSize: 1, Block: block, BlockTimeout: time.Hour})
			first := rec.ResumeRun(recorder.RunInfo{RunID: "first"}, 0)
			require.NoError(t, first.Budget(ctx, recorder.BudgetRecord{}))
			<-sink.entered // the goroutine is stuck writing it
			require.NoError(t, first.Budget(ctx, recorder.BudgetRecord{}))

			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			var runs []*recorder.Trace
			promptly(t, "starting and ending runs into a full queue", func() {
				for range 3 {
					run, err := rec.StartRun(cancelled, recorder.RunInfo{})
					assert.NoError(t, err)
					assert.NoError(t, run.End(cancelled, recorder.RunEnded{Outcome: recorder.OutcomeCancelled}))
					runs = append(runs, run)
				}
				assert.NoError(t, first.End(cancelled, recorder.RunEnded{Outcome: recorder.OutcomeCancelled}))
			})
			sink.release()
			require.NoError(t, rec.Flush(ctx))
			assert.Zero(t, rec.Dropped())
			byRun := map[string][]recorder.Kind{}
			for _, r := range sink.Records() {
				byRun[r.RunID] = append(byRun[r.RunID], r.Kind())
			}
			assert.Equal(t, []recorder.Kind{recorder.KindBudget, recorder.KindBudget, recorder.KindRunEnded}, byRun["first"])
			for _, run := range runs {
				assert.Equal(t, []recorder.Kind{recorder.KindRunStarted, recorder.KindRunEnded}, byRun[run.ID()])
			}
		})
	}
}

func TestARunsEndTakesItsWaitingRecordsIntoTheQueueWithItInSeqOrder(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, &recorder.Options{QueueSize: 1, Block: true, BlockTimeout: time.Hour})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{})) // fills the queue
	waited := make(chan error)
	go func() { waited <- run.Message(ctx, nil) }() // seq 2 waits for room
	for run.Next() < 3 {
		runtime.Gosched() // until seq 2 is stamped and waiting
	}

	promptly(t, "End", func() {
		assert.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	})
	require.NoError(t, <-waited, "the waiting record went into the queue with the end")
	sink.release()
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, []uint64{0, 1, 2, 3}, seqs(sink.Records()))
	assert.Zero(t, rec.Dropped())
}

func TestPastThreeQuartersOfTheQueueRecordsOtherRecordsCarryAreShedFirst(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	var reported []error
	rec := newRec(t, sink, &recorder.Options{QueueSize: 4, OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Message(ctx, nil))
	<-sink.entered // seq 0 is being written; the queue only fills

	charge := recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: 1}
	for range 3 {
		require.NoError(t, run.Budget(ctx, charge)) // seqs 1-3: 3 of 4 queued
	}
	require.NoError(t, run.Budget(ctx, charge))                                             // 4: shed
	require.NoError(t, run.ToolStarted(ctx, recorder.ToolStarted{Name: "ls"}))              // 5: shed
	require.NoError(t, run.Assessment(ctx, recorder.AssessmentRecord{}))                    // 6: shed
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "ls"}))                  // 7: the last slot
	require.NoError(t, run.Message(ctx, nil))                                               // 8: refused, the queue is full
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted})) // 9: past it

	require.Len(t, reported, 4)
	var kinds []recorder.Kind
	for _, err := range reported {
		var se *recorder.SinkError
		require.ErrorAs(t, err, &se)
		assert.ErrorIs(t, err, recorder.ErrQueueFull)
		kinds = append(kinds, se.Kind)
	}
	assert.Equal(t, []recorder.Kind{recorder.KindBudget, recorder.KindToolStarted, recorder.KindAssessment, recorder.KindMessage}, kinds)
	assert.Contains(t, reported[0].Error(), "shed first", "the cause says the record was shed for its kind")
	assert.NotContains(t, reported[3].Error(), "shed first")

	sink.release()
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, []uint64{0, 1, 2, 3, 7, 9}, seqs(sink.Records()))
	assert.Equal(t, uint64(4), rec.Dropped())
}

func TestABudgetLimitExceededIsNotShedFirst(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, &recorder.Options{QueueSize: 4, OnError: func(context.Context, error) {}})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Message(ctx, nil))
	<-sink.entered
	for range 3 {
		require.NoError(t, run.Message(ctx, nil))
	}
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: "tokens"}))
	sink.release()
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, []uint64{0, 1, 2, 3, 4}, seqs(sink.Records()))
	assert.Zero(t, rec.Dropped())
}

func TestUnderBlockARecordShedFirstWaitsForTheQueueToFallBelowThreeQuarters(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, &recorder.Options{QueueSize: 4, Block: true, BlockTimeout: time.Millisecond, OnError: func(context.Context, error) {}})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Message(ctx, nil))
	<-sink.entered
	for range 3 {
		require.NoError(t, run.Message(ctx, nil))
	}
	require.NoError(t, run.ToolStarted(ctx, recorder.ToolStarted{Name: "ls"}), "the drop policy never fails the run")
	assert.Equal(t, uint64(1), rec.Dropped(), "it waited BlockTimeout with the queue 3/4 full, then was lost")
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "ls"}), "an ordinary record still has the last slot")
	assert.Equal(t, uint64(1), rec.Dropped())
	sink.release()
}
