package recorder_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/endwait"
	"github.com/lookout-go/lookout/recorder"
)

// stuckSink's Write does not return until the test releases it, whatever
// its ctx says: the worst sink there is.
type stuckSink struct {
	recorder.MemorySink
	entered chan uint64 // gets each record's seq as Write starts
	gate    chan struct{}
}

func newStuckSink() *stuckSink {
	return &stuckSink{entered: make(chan uint64, 1024), gate: make(chan struct{})}
}

func (s *stuckSink) Write(ctx context.Context, r *recorder.Record) error {
	s.entered <- r.Seq
	<-s.gate
	return s.MemorySink.Write(ctx, r)
}

func (s *stuckSink) release() { close(s.gate) }

// patientSink's Write waits until its ctx ends and returns ctx's error.
type patientSink struct {
	entered chan context.Context // gets each call's ctx as Write starts
	errs    chan error           // gets ctx.Err() at the start of each call, unless the deadline had passed
	values  chan any             // gets ctx.Value(ctxKey{}) at the start of each call
}

func newPatientSink() *patientSink {
	return &patientSink{entered: make(chan context.Context, 16), errs: make(chan error, 16), values: make(chan any, 16)}
}

func (s *patientSink) Write(ctx context.Context, _ *recorder.Record) error {
	err := ctx.Err()
	if d, ok := ctx.Deadline(); ok && time.Now().After(d) {
		err = nil // a slow start, not a stale context
	}
	if _, ok := ctx.Deadline(); !ok {
		err = errors.New("no deadline")
	}
	s.errs <- err
	s.values <- ctx.Value(ctxKey{})
	s.entered <- ctx
	<-ctx.Done()
	return ctx.Err()
}

// promptly runs f and fails the test if it has not returned within a
// generous bound: the calls it wraps must not wait for the sink.
func promptly(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("%s did not return while the sink was stuck", what)
	}
}

func TestAFullQueueDropsAndCountsExactlyLeavingSeqGaps(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	var reported []error
	rec := newRec(t, sink, &recorder.Options{QueueSize: 4, OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered // the goroutine is stuck writing seq 0; the queue only fills

	promptly(t, "emitting", func() {
		for range 20 {
			assert.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}), "the drop policy never fails the run")
		}
	})
	assert.Equal(t, uint64(16), rec.Dropped(), "seqs 1 to 4 are queued, 5 to 20 dropped")
	assert.Equal(t, uint64(16), run.Dropped())
	require.Len(t, reported, 16)
	for _, err := range reported {
		assert.ErrorIs(t, err, recorder.ErrQueueFull)
		assert.ErrorIs(t, err, recorder.ErrSinkFailed)
	}

	sink.release()
	require.NoError(t, rec.Flush(ctx)) // the queue has room again
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, []uint64{0, 1, 2, 3, 4, 21}, seqs(sink.Records()), "the dropped records left a gap")
	assert.Equal(t, uint64(16), rec.Dropped())
}

func TestCloseWithADeadlineReturnsByItWhileTheSinkIsStuck(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := recorder.New(sink, &recorder.Options{OnError: func(context.Context, error) {}})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	for range 3 {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	}
	<-sink.entered

	deadline, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	promptly(t, "Close", func() {
		assert.ErrorIs(t, rec.Close(deadline), context.DeadlineExceeded)
	})
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}), "emitting after Close drops under the Drop policy")

	sink.release() // the goroutine finishes seq 0 and drops the rest unwritten
	err := rec.Close(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a later Close returns the shutdown's result, which names why it was given up")
	assert.ErrorIs(t, err, recorder.ErrSinkFailed)
	assert.Equal(t, []uint64{0}, seqs(sink.Records()))
	assert.Equal(t, uint64(3), rec.Dropped(), "two records dropped unwritten and one emitted after Close")
	assert.Equal(t, uint64(3), run.Dropped())
	// TestMain's goleak check proves the goroutine is gone.
}

func TestCloseEndsTheContextOfTheWriteInProgress(t *testing.T) {
	ctx := context.Background()
	sink := newPatientSink()
	rec := recorder.New(sink, &recorder.Options{WriteTimeout: time.Hour, OnError: func(context.Context, error) {}})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	writing := <-sink.entered

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, rec.Close(cancelled), context.Canceled)
	<-writing.Done()
	assert.ErrorIs(t, writing.Err(), context.Canceled)
	assert.ErrorIs(t, rec.Close(ctx), context.Canceled, "the shutdown finishes once the write returns")
	assert.Equal(t, uint64(1), rec.Dropped())
}

type ctxKey struct{}

func TestEveryWriteGetsAContextThatEndsAndKeepsTheEmittersValues(t *testing.T) {
	sink := newPatientSink()
	var reported []error
	rec := newRec(t, sink, &recorder.Options{WriteTimeout: time.Millisecond, OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	for range 3 {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	}
	for range 3 {
		<-sink.entered
		assert.NoError(t, <-sink.errs, "each write starts with a live context with a deadline, not the last one's")
		assert.Equal(t, "v", <-sink.values)
	}
	require.NoError(t, rec.Flush(context.Background()))
	assert.Equal(t, uint64(3), rec.Dropped())
	require.Len(t, reported, 3)
	for _, err := range reported {
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	}
}

func TestBlockWaitsForRoomUntilTheContextEnds(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	var reported []error
	rec := newRec(t, sink, &recorder.Options{QueueSize: 1, Block: true, BlockTimeout: time.Hour, OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{})) // fills the queue

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.NoError(t, run.Budget(cancelled, recorder.BudgetRecord{}))
	require.Len(t, reported, 1)
	assert.ErrorIs(t, reported[0], recorder.ErrQueueFull)
	assert.ErrorIs(t, reported[0], context.Canceled)

	done := make(chan error)
	go func() { done <- run.Budget(ctx, recorder.BudgetRecord{}) }()
	sink.release()
	require.NoError(t, <-done, "a blocked emit goes through once there is room")
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, []uint64{0, 1, 3}, seqs(sink.Records()))
	assert.Equal(t, uint64(1), rec.Dropped())
}

func TestBlockTimeoutBoundsTheWaitForRoom(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, &recorder.Options{Policy: recorder.Escalate, QueueSize: 1, Block: true, BlockTimeout: time.Millisecond})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	err := run.Budget(ctx, recorder.BudgetRecord{})
	assert.ErrorIs(t, err, recorder.ErrQueueFull)
	assert.Same(t, rec.Err(), err)
	sink.release()
}

// countingSink counts the calls a Recorder makes to it.
type countingSink struct {
	recorder.MemorySink
	flushes, closes atomic.Int32
	closeErr        error
}

func (s *countingSink) Flush(ctx context.Context) error {
	s.flushes.Add(1)
	return s.MemorySink.Flush(ctx)
}

func (s *countingSink) Close(ctx context.Context) error {
	s.closes.Add(1)
	s.MemorySink.Close(ctx)
	return s.closeErr
}

func TestFlushDeliversEverythingQueuedBeforeItAndFlushesTheSink(t *testing.T) {
	ctx := context.Background()
	sink := &countingSink{}
	rec := newRec(t, sink, &recorder.Options{Block: true, BlockTimeout: time.Hour})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				assert.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, 2000, sink.Len())
	assert.Equal(t, int32(1), sink.flushes.Load())
}

func TestFlushHonoursItsContext(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, nil)
	require.NoError(t, rec.ResumeRun(recorder.RunInfo{}, 0).Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, rec.Flush(cancelled), context.Canceled)
	sink.release()
	require.NoError(t, rec.Flush(ctx))
}

// TestFlushWithinABoundGivesUpAfterIt checks that the Flush of a query's
// end, bounded by an endwait.Context, returns once the bound passes when
// the sink is stuck, a second time too with the timer the first left,
// and gets its answer once the sink returns.
func TestFlushWithinABoundGivesUpAfterIt(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, nil)
	require.NoError(t, rec.ResumeRun(recorder.RunInfo{}, 0).Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered
	for range 2 {
		assert.ErrorIs(t, rec.Flush(&endwait.Context{Context: ctx, Within: time.Millisecond}), context.DeadlineExceeded)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, rec.Flush(&endwait.Context{Context: cancelled, Within: time.Hour}), context.Canceled)
	sink.release()
	require.NoError(t, rec.Flush(&endwait.Context{Context: ctx, Within: time.Hour}))
	require.NoError(t, rec.Flush(ctx))
}

func TestCloseIsIdempotent(t *testing.T) {
	ctx := context.Background()
	errShut := errors.New("shut badly")
	sink := &countingSink{closeErr: errShut}
	rec := recorder.New(sink, nil)
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	first := rec.Close(ctx)
	assert.ErrorIs(t, first, errShut)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for range 3 {
		assert.Equal(t, first, rec.Close(cancelled), "a later Close returns the first's result, whatever its ctx")
	}
	assert.Equal(t, int32(1), sink.closes.Load())
	assert.Equal(t, 1, sink.Len(), "Close wrote the queue out first")
	assert.ErrorIs(t, rec.Flush(ctx), recorder.ErrClosed)
}

func TestEmittingAfterCloseDropsOrEscalates(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		policy  recorder.LossPolicy
		wantErr bool
	}{{recorder.Drop, false}, {recorder.Escalate, true}} {
		t.Run(fmt.Sprintf("policy %d", tc.policy), func(t *testing.T) {
			rec := recorder.New(recorder.NewMemorySink(), &recorder.Options{Policy: tc.policy, OnError: func(context.Context, error) {}})
			run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
			require.NoError(t, rec.Close(ctx))
			err := run.Budget(ctx, recorder.BudgetRecord{})
			if tc.wantErr {
				assert.ErrorIs(t, err, recorder.ErrClosed)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, uint64(1), rec.Dropped())
			assert.Equal(t, uint64(1), run.Next(), "the lost record used up its seq")
		})
	}
}

func TestEachRunReachesTheSinkInSeqOrderUnderConcurrentEmitters(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{QueueSize: 16, Block: true, BlockTimeout: time.Hour})
	const runs, goroutines, each = 8, 8, 200
	var wg sync.WaitGroup
	for i := range runs {
		run := rec.ResumeRun(recorder.RunInfo{RunID: fmt.Sprint(i)}, 0)
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					assert.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
				}
			}()
		}
	}
	wg.Wait()
	require.NoError(t, rec.Close(ctx))
	assert.Zero(t, rec.Dropped())
	next := map[string]uint64{}
	for _, r := range sink.Records() {
		require.Equal(t, next[r.RunID], r.Seq, "run %s", r.RunID)
		next[r.RunID]++
	}
	assert.Len(t, next, runs)
	for id, n := range next {
		assert.Equal(t, uint64(goroutines*each), n, "run %s", id)
	}
}

func TestTheZeroRecorderFlushesAndClosesAtOnce(t *testing.T) {
	ctx := context.Background()
	var zero recorder.Recorder
	assert.NoError(t, zero.Flush(ctx))
	assert.NoError(t, zero.Close(ctx))
	assert.NoError(t, zero.Err())
	discard := recorder.New(nil, &recorder.Options{Policy: recorder.Escalate})
	require.NoError(t, discard.Close(ctx))
	assert.NoError(t, discard.ResumeRun(recorder.RunInfo{}, 0).Budget(ctx, recorder.BudgetRecord{}), "a nil sink discards, even after Close")
}

func TestEveryBlockedEmitterGetsInAsRoomAppears(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, &recorder.Options{QueueSize: 2, Block: true, BlockTimeout: time.Hour})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered
	for range 2 {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{})) // fills the queue
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
		}()
	}
	sink.release()
	wg.Wait()
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, 7, sink.Len())
	assert.Zero(t, rec.Dropped())
}

// TestAQueueEntryHoldsOnlyWhatDiffersBetweenRecords holds the size of a
// queue entry: every record passes through one, and a run's records
// write len(queue) of them. The run's id, its parent and its depth are
// read from the run when the record is written, not copied per record.
func TestAQueueEntryHoldsOnlyWhatDiffersBetweenRecords(t *testing.T) {
	if recorder.QueueItemSize > 72 {
		t.Errorf("a queue entry takes %d bytes, want at most 72", recorder.QueueItemSize)
	}
}

// derivingSink derives a ctx from each write's, as a sink that calls out
// with a timeout of its own does, and keeps it until the test is done.
type derivingSink struct {
	recorder.MemorySink
	mu      sync.Mutex
	derived []context.Context
	cancels []context.CancelFunc
}

func (s *derivingSink) Write(ctx context.Context, r *recorder.Record) error {
	d, cancel := context.WithTimeout(ctx, time.Hour)
	s.mu.Lock()
	s.derived = append(s.derived, d)
	s.cancels = append(s.cancels, cancel)
	s.mu.Unlock()
	return s.MemorySink.Write(ctx, r)
}

// A ctx a sink derives from its write ctx needs no goroutine to learn
// that the write ctx ended: 201 writes whose derived contexts are all
// still live start no goroutine, and a derived ctx still ends with its
// write's.
func TestContextsDerivedFromAWriteStartNoGoroutine(t *testing.T) {
	ctx := context.Background()
	sink := &derivingSink{}
	rec := newRec(t, sink, &recorder.Options{WriteTimeout: time.Hour})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, rec.Flush(ctx))
	before := runtime.NumGoroutine()
	for range 201 {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	}
	require.NoError(t, rec.Flush(ctx))
	assert.Less(t, runtime.NumGoroutine()-before, 20, "201 derived contexts, no goroutine each")
	sink.mu.Lock()
	require.Len(t, sink.derived, 201)
	for _, cancel := range sink.cancels {
		cancel()
	}
	sink.mu.Unlock()

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	patient := newPatientSink()
	rec = recorder.New(patient, &recorder.Options{WriteTimeout: time.Hour, OnError: func(context.Context, error) {}})
	run = rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	derived, stop := context.WithCancel(<-patient.entered)
	defer stop()
	_ = rec.Close(cancelled) // gives up, ending the write in progress
	promptly(t, "the derived ctx ends with the write's", func() { <-derived.Done() })
	assert.ErrorIs(t, derived.Err(), context.Canceled)
}

// Under Block, emits of one run that find the queue full wait for room
// each for BlockTimeout or until its own ctx ends, not one after another:
// with BlockTimeout 200 ms no emit returns after more than 250 ms, and one
// whose ctx ends at 20 ms returns within 50 ms. The records that
// got in keep their run's seq order.
func TestEmitsOfARunWaitForRoomSideBySide(t *testing.T) {
	ctx := context.Background()
	sink := newStuckSink()
	rec := newRec(t, sink, &recorder.Options{QueueSize: 1, Block: true, BlockTimeout: 200 * time.Millisecond, OnError: func(context.Context, error) {}})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	<-sink.entered
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{})) // fills the queue

	start := time.Now()
	took := make(chan time.Duration, 4)
	for range 4 {
		go func() {
			_ = run.Budget(ctx, recorder.BudgetRecord{})
			took <- time.Since(start)
		}()
	}
	short, cancel := context.WithCancel(ctx)
	ended := make(chan time.Time, 1)
	time.AfterFunc(20*time.Millisecond, func() { ended <- time.Now(); cancel() })
	err := run.Budget(short, recorder.BudgetRecord{})
	returned := time.Now()
	assert.ErrorIs(t, err, nil, "Drop reports to OnError, not to the emitter")
	<-ended
	assert.LessOrEqual(t, returned.Sub(start), 50*time.Millisecond, "the emit whose ctx ended at 20 ms returned at once")
	for range 4 {
		// Waiting one after another, the second would return at 400 ms.
		assert.LessOrEqual(t, <-took, 350*time.Millisecond, "each emit waited BlockTimeout at most, side by side")
	}
	sink.release()
	require.NoError(t, rec.Flush(ctx))
	assert.Equal(t, []uint64{0, 1}, seqs(sink.Records()), "the records that got in, in order")
	assert.Equal(t, uint64(5), rec.Dropped())
}

// deadlineSink keeps the deadline of each write's ctx.
type deadlineSink struct {
	mu        sync.Mutex
	deadlines []time.Time
}

func (s *deadlineSink) Write(ctx context.Context, _ *recorder.Record) error {
	d, ok := ctx.Deadline()
	if !ok {
		return errors.New("no deadline")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deadlines = append(s.deadlines, d)
	return nil
}

// TestAWritesDeadlineIsWriteTimeoutAfterItBegins holds that the ctx of
// each write says it ends WriteTimeout after the write began.
func TestAWritesDeadlineIsWriteTimeoutAfterItBegins(t *testing.T) {
	ctx := context.Background()
	sink := &deadlineSink{}
	const timeout = time.Hour
	rec := newRec(t, sink, &recorder.Options{WriteTimeout: timeout})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	before := time.Now()
	for range 3 {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	}
	require.NoError(t, rec.Flush(ctx))
	after := time.Now()
	require.Equal(t, uint64(0), rec.Dropped())
	sink.mu.Lock()
	defer sink.mu.Unlock()
	require.Len(t, sink.deadlines, 3)
	for i, d := range sink.deadlines {
		assert.False(t, d.Before(before.Add(timeout)), "write %d: deadline %v, before %v", i, d, before.Add(timeout))
		assert.False(t, d.After(after.Add(timeout)), "write %d: deadline %v, after %v", i, d, after.Add(timeout))
	}
}

// TestWritesToThePackagesOwnSinksAreNotTimed holds that a FileSink, which
// never waits on the ctx of Write, is not handed a write ctx with a
// deadline: its OnError gets the emitter's values, without the emitter's
// cancellation.
func TestWritesToThePackagesOwnSinksAreNotTimed(t *testing.T) {
	w := newTestWriter()
	w.err = errors.New("disk full")
	type seen struct {
		hasDeadline bool
		err         error
		value       any
	}
	seenCh := make(chan seen, 1)
	sink := recorder.NewWriterSink(w, &recorder.FileOptions{BufferSize: 1, OnError: func(ctx context.Context, _ error) {
		_, ok := ctx.Deadline()
		seenCh <- seen{ok, ctx.Err(), ctx.Value(ctxKey{})}
	}})
	rec := newRec(t, sink, &recorder.Options{WriteTimeout: time.Hour, OnError: func(context.Context, error) {}})
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, "v"), time.Hour)
	cancel()
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	got := <-seenCh
	assert.False(t, got.hasDeadline)
	assert.NoError(t, got.err)
	assert.Equal(t, "v", got.value)
}

// TestFlushingThePackagesOwnSinksIsNotTimed holds that a FileSink's
// Flush, behind a Recorder, gets the values of the ctx Flush was called
// with, and no deadline.
func TestFlushingThePackagesOwnSinksIsNotTimed(t *testing.T) {
	w := newTestWriter()
	w.syncErr = errors.New("sync failed") // only Flush syncs
	type seen struct {
		hasDeadline bool
		value       any
	}
	seenCh := make(chan seen, 1)
	sink := recorder.NewWriterSink(w, &recorder.FileOptions{Sync: recorder.SyncOnFlush, OnError: func(ctx context.Context, _ error) {
		_, ok := ctx.Deadline()
		seenCh <- seen{ok, ctx.Value(ctxKey{})}
	}})
	rec := newRec(t, sink, &recorder.Options{WriteTimeout: time.Hour, OnError: func(context.Context, error) {}})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Budget(context.Background(), recorder.BudgetRecord{}))
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	require.Error(t, rec.Flush(ctx))
	got := <-seenCh
	assert.False(t, got.hasDeadline)
	assert.Equal(t, "v", got.value)
}

// countingMemory is a MemorySink with a Write of its own.
type countingMemory struct {
	*recorder.MemorySink
	writes int
}

func (s *countingMemory) Write(ctx context.Context, r *recorder.Record) error {
	s.writes++
	return s.MemorySink.Write(ctx, r)
}

// timedFile is a FileSink with a Write of its own, which wants a deadline.
type timedFile struct{ *recorder.FileSink }

func (s timedFile) Write(ctx context.Context, r *recorder.Record) error {
	if _, ok := ctx.Deadline(); !ok {
		return errors.New("no deadline")
	}
	return s.FileSink.Write(ctx, r)
}

// TestASinkEmbeddingOneOfThePackagesGetsItsOwnWriteTimed holds that the
// shortcuts taken for this package's sinks are not taken for a sink that
// embeds one and has a Write of its own.
func TestASinkEmbeddingOneOfThePackagesGetsItsOwnWriteTimed(t *testing.T) {
	ctx := context.Background()
	mem := &countingMemory{MemorySink: recorder.NewMemorySink()}
	file := timedFile{recorder.NewWriterSink(io.Discard, nil)}
	for _, sink := range []recorder.Sink{mem, file} {
		rec := newRec(t, sink, nil)
		run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
		for range 3 {
			require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
		}
		require.NoError(t, rec.Flush(ctx))
		assert.Equal(t, uint64(0), rec.Dropped(), "%T", sink)
	}
	assert.Equal(t, 3, mem.writes)
}

// TestFlushDoesNotWaitForRecordsToGather holds that a Flush that wakes
// the Recorder's goroutine has the queue written at once, rather than
// after the goroutine has let more records gather (a millisecond): two
// hundred record-and-flush rounds take far less than two hundred
// milliseconds.
func TestFlushDoesNotWaitForRecordsToGather(t *testing.T) {
	ctx := context.Background()
	rec := newRec(t, recorder.NewMemorySink(), nil)
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	const rounds = 200
	start := time.Now()
	for range rounds {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
		require.NoError(t, rec.Flush(ctx))
		require.NoError(t, rec.Flush(ctx))
	}
	took := time.Since(start)
	assert.Less(t, took, rounds*time.Millisecond/2, "%d rounds took %v", rounds, took)
}
