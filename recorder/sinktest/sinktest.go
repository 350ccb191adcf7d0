package sinktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// ReadBack returns every record a sink has stored, in stored order. The kit
// calls it from the test's goroutine only.
type ReadBack func() ([]recorder.Record, error)

// Factory returns a fresh, empty sink and a way to read back what it
// stored. Use t for temporary directories and cleanup. The kit calls it
// from the test's goroutine only.
type Factory func(t *testing.T) (recorder.Sink, ReadBack)

// Goroutines and PerGoroutine size the concurrency case: Goroutines
// goroutines each record PerGoroutine records into one run.
const (
	Goroutines   = 64
	PerGoroutine = 1000
)

// stuckTimeout bounds how long a case waits for a sink call that should
// return promptly, so a hanging sink fails instead of stalling the suite.
const stuckTimeout = 30 * time.Second

type check struct {
	name string
	fn   func(s recorder.Sink, read ReadBack) error
}

var checks = []check{
	{"keeps write order", checkOrder},
	{"keeps every kind intact", checkKinds},
	{"keeps seq dense and ordered under 64 goroutines", checkConcurrentRun},
	{"keeps each run ordered when runs interleave", checkInterleavedRuns},
	{"flush is idempotent", checkFlushTwice},
	{"close is idempotent", checkCloseTwice},
	{"write and flush after close return ErrClosed", checkAfterClose},
	{"cancelled context returns promptly", checkCancelled},
}

// Run runs every check as a subtest, each on a fresh sink. A sink (or
// read-back function) that panics fails the check it panicked in; the
// other checks still run.
func Run(t *testing.T, newSink Factory) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			s, read := newSink(t)
			if err := c.run(s, read); err != nil {
				t.Error(err)
			}
		})
	}
}

// Check runs every check, each on a fresh sink from newSink, outside a
// test: from a program that vets a sink at start-up, or from a test
// framework other than package testing. It returns nil when the sink
// passes, or an error naming each failed check, one per line, in the
// order Run runs them. A panic of the sink or of the read-back function
// fails its check instead of the program.
func Check(newSink func() (recorder.Sink, ReadBack)) error {
	var errs []error
	for _, c := range checks {
		s, read := newSink()
		if err := c.run(s, read); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// run runs the check, turning a panic of the sink or of the read-back
// function into a failure of the check.
func (c check) run(s recorder.Sink, read ReadBack) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked(v)
		}
	}()
	return c.fn(s, read)
}

// errPanicked is what a check that panicked fails with.
var errPanicked = errors.New("sinktest: panic")

func panicked(v any) error { return fmt.Errorf("%w: %v", errPanicked, v) }

var fixedTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// newRecorder returns a Recorder writing to s that loses no record to a
// full queue and fails on the first record s fails.
func newRecorder(s recorder.Sink) *recorder.Recorder {
	return recorder.New(s, &recorder.Options{
		Policy:       recorder.Escalate,
		Clock:        func() time.Time { return fixedTime },
		Block:        true,
		BlockTimeout: stuckTimeout,
		OnError:      func(context.Context, error) {},
	})
}

// closeSink closes s (if it is a Closer) and fails if that hangs.
func closeSink(s recorder.Sink) error {
	return within(func() error { return recorder.Close(context.Background(), s) })
}

// within runs fn on a goroutine of its own and returns its error, or a
// failure if it panics or does not return within stuckTimeout.
func within(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- panicked(v)
			}
		}()
		done <- fn()
	}()
	timer := time.NewTimer(stuckTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return fmt.Errorf("sink call did not return within %v", stuckTimeout)
	}
}

// closeRecorder closes rec, which closes its sink, fails if that hangs,
// and returns the first record the sink failed, if any.
func closeRecorder(rec *recorder.Recorder) error {
	if err := within(func() error { return rec.Close(context.Background()) }); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	if err := rec.Err(); err != nil {
		return err
	}
	if n := rec.Dropped(); n > 0 {
		return fmt.Errorf("%d records lost", n)
	}
	return nil
}

func closeAndRead(rec *recorder.Recorder, read ReadBack) ([]recorder.Record, error) {
	if err := closeRecorder(rec); err != nil {
		return nil, err
	}
	recs, err := read()
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	return recs, nil
}

// writeThenRead writes with write to a run of a new Recorder on s, closes
// the Recorder and reads the records back.
func writeThenRead(s recorder.Sink, info recorder.RunInfo, read ReadBack, write func(run *recorder.Trace) error) ([]recorder.Record, error) {
	rec := newRecorder(s)
	if err := write(rec.ResumeRun(info, 0)); err != nil {
		closeRecorder(rec)
		return nil, err
	}
	return closeAndRead(rec, read)
}

func checkOrder(s recorder.Sink, read ReadBack) error {
	const n = 300
	recs, err := writeThenRead(s, recorder.RunInfo{RunID: "order"}, read, func(run *recorder.Trace) error {
		return writeCharges(run, n)
	})
	if err != nil {
		return err
	}
	return inWriteOrder(recs, n)
}

// writeCharges writes n budget records to run, the i-th charging i tokens.
func writeCharges(run *recorder.Trace, n int) error {
	ctx := context.Background()
	for i := range n {
		if err := run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged, Resource: "tokens", Amount: int64(i)}); err != nil {
			return fmt.Errorf("write %d: %w", i, err)
		}
	}
	return nil
}

// inWriteOrder reports records read back that are not the n records
// writeCharges wrote to the run "order", in the order written.
func inWriteOrder(recs []recorder.Record, n int) error {
	if len(recs) != n {
		return fmt.Errorf("read back %d records, want %d", len(recs), n)
	}
	for i := range recs {
		if r := &recs[i]; !isCharge(r, i) {
			return fmt.Errorf("record %d is seq %d run %q payload %#v; want seq %d in write order", i, r.Seq, r.RunID, r.Payload, i)
		}
	}
	return nil
}

// isCharge reports whether r is the i-th record writeCharges wrote.
func isCharge(r *recorder.Record, i int) bool {
	b, ok := r.Payload.(*recorder.BudgetRecord)
	return r.Seq == uint64(i) && r.RunID == "order" && ok && b.Amount == int64(i)
}

func samplePayloads() []recorder.Payload {
	return []recorder.Payload{
		&recorder.RunStarted{AgentName: "agent", Limits: recorder.RunLimits{Timeout: time.Minute, MaxTokens: 1000, MaxToolCalls: 10}, Metadata: map[string]string{"k": "v"}},
		&recorder.Message{Message: schema.UserMessage("migrate <billing> & report")},
		&recorder.ModelRequest{Model: "m", MessageCount: 2, Tools: []string{"ls"}},
		&recorder.ModelResponse{Message: schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "ls", Arguments: `{"dir":"."}`}}}), Usage: recorder.TokenUsage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7}, UsageReported: true, Latency: time.Second},
		&recorder.ToolStarted{CallID: "c1", Name: "ls", Arguments: `{"dir":"."}`, ArgumentsBytes: 11},
		&recorder.ToolEnded{CallID: "c1", Name: "ls", Result: "a\nb\n", ResultBytes: 4, Duration: time.Millisecond},
		&recorder.AssessmentRecord{Markdown: "## Status\n- fine", AfterCallIndex: 0, Observers: []recorder.ObserverNote{{Name: "resource", Severity: "info"}}},
		&recorder.BudgetRecord{Event: recorder.BudgetExceeded, Resource: "tool_calls", Amount: 1, Used: 11, Limit: 10},
		&recorder.Extension{Name: "custom", Body: []byte(`{"a":1}`)},
		&recorder.Unknown{Name: "from_the_future", Body: []byte(`{"x": [1, 2]}`)},
		&recorder.RunEnded{Outcome: recorder.OutcomeCompleted, Usage: recorder.RunUsage{TotalTokens: 7, ToolCalls: 1, ModelCalls: 1}},
	}
}

func checkKinds(s recorder.Sink, read ReadBack) error {
	var want [][]byte
	recs, err := writeThenRead(s, recorder.RunInfo{RunID: "kinds", ParentRunID: "parent", Depth: 2}, read, func(run *recorder.Trace) error {
		var err error
		want, err = writeSamples(run)
		return err
	})
	if err != nil {
		return err
	}
	return sameEncoding(recs, want)
}

// writeSamples writes every sample payload to run, and returns the JSON of
// the records they make.
func writeSamples(run *recorder.Trace) ([][]byte, error) {
	ctx := context.Background()
	var want [][]byte
	for _, p := range samplePayloads() {
		if err := run.Emit(ctx, p); err != nil {
			return nil, fmt.Errorf("write %s: %w", p.Kind(), err)
		}
		r := recorder.Record{SchemaVersion: recorder.SchemaVersion, Seq: uint64(len(want)), RunID: "kinds", ParentRunID: "parent", Depth: 2, RecordedAt: fixedTime, Payload: p}
		b, err := r.AppendJSON(nil)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", p.Kind(), err)
		}
		want = append(want, b)
	}
	return want, nil
}

// sameEncoding reports records read back whose JSON is not want's.
func sameEncoding(recs []recorder.Record, want [][]byte) error {
	if len(recs) != len(want) {
		return fmt.Errorf("read back %d records, want %d", len(recs), len(want))
	}
	for i := range recs {
		got, err := recs[i].AppendJSON(nil)
		if err != nil {
			return fmt.Errorf("re-encode record %d: %w", i, err)
		}
		if string(got) != string(want[i]) {
			return fmt.Errorf("record %d changed in the sink:\n got %s\nwant %s", i, got, want[i])
		}
	}
	return nil
}

func checkConcurrentRun(s recorder.Sink, read ReadBack) error {
	recs, err := writeThenRead(s, recorder.RunInfo{RunID: "crowd"}, read, func(run *recorder.Trace) error {
		return hammer([]*recorder.Trace{run}, Goroutines, PerGoroutine)
	})
	if err != nil {
		return err
	}
	return denseAndOrdered(recs, map[string]int{"crowd": Goroutines * PerGoroutine})
}

func checkInterleavedRuns(s recorder.Sink, read ReadBack) error {
	rec := newRecorder(s)
	const runs, perRun = 8, 8
	var rs []*recorder.Trace
	want := map[string]int{}
	for i := range runs {
		id := fmt.Sprintf("run-%d", i)
		rs = append(rs, rec.ResumeRun(recorder.RunInfo{RunID: id}, 0))
		want[id] = perRun * 250
	}
	if err := hammer(rs, perRun, 250); err != nil {
		closeRecorder(rec)
		return err
	}
	recs, err := closeAndRead(rec, read)
	if err != nil {
		return err
	}
	return denseAndOrdered(recs, want)
}

// hammer records from goroutines goroutines per run, each writing n
// records, and returns the first error.
func hammer(runs []*recorder.Trace, goroutines, n int) error {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, len(runs)*goroutines)
	for _, run := range runs {
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					if err := run.ToolEnded(ctx, recorder.ToolEnded{Name: "t", Result: "ok", CallIndex: g*n + i}); err != nil {
						errs <- fmt.Errorf("goroutine %d write %d: %w", g, i, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// denseAndOrdered checks that each run has seq 0..want-1 exactly once, in
// increasing order in the stored sequence.
func denseAndOrdered(recs []recorder.Record, want map[string]int) error {
	next := map[string]uint64{}
	for i, r := range recs {
		if _, ok := want[r.RunID]; !ok {
			return fmt.Errorf("record %d has unexpected run id %q", i, r.RunID)
		}
		if r.Seq != next[r.RunID] {
			return fmt.Errorf("record %d of run %q has seq %d, want %d (seq must be dense and in order)", i, r.RunID, r.Seq, next[r.RunID])
		}
		next[r.RunID]++
	}
	for id, n := range want {
		if next[id] != uint64(n) {
			return fmt.Errorf("run %q: read back %d records, want %d", id, next[id], n)
		}
	}
	return nil
}

func checkFlushTwice(s recorder.Sink, read ReadBack) error {
	ctx := context.Background()
	rec := newRecorder(s)
	run := rec.ResumeRun(recorder.RunInfo{RunID: "flush"}, 0)
	if err := run.Budget(ctx, recorder.BudgetRecord{Resource: "tokens"}); err != nil {
		closeRecorder(rec)
		return fmt.Errorf("write: %w", err)
	}
	for i := range 2 {
		// The Recorder flushes the sink from its own goroutine.
		if err := within(func() error { return rec.Flush(ctx) }); err != nil {
			closeRecorder(rec)
			return fmt.Errorf("flush %d: %w", i+1, err)
		}
	}
	recs, err := closeAndRead(rec, read)
	if err != nil {
		return err
	}
	if len(recs) != 1 {
		return fmt.Errorf("read back %d records after two flushes, want 1", len(recs))
	}
	return nil
}

func checkCloseTwice(s recorder.Sink, read ReadBack) error {
	if err := writeOneAndClose(s); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	// Closing the Recorder closed the sink once; close it twice more.
	for i := range 2 {
		if err := closeSink(s); err != nil {
			return fmt.Errorf("close %d: %w", i+2, err)
		}
	}
	recs, err := read()
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	if len(recs) != 1 {
		return fmt.Errorf("read back %d records after two closes, want 1", len(recs))
	}
	return nil
}

// writeOneAndClose writes one record to s through a Recorder and closes
// the Recorder, which closes s.
func writeOneAndClose(s recorder.Sink) error {
	rec := newRecorder(s)
	run := rec.ResumeRun(recorder.RunInfo{RunID: "close"}, 0)
	err := run.Budget(context.Background(), recorder.BudgetRecord{Resource: "tokens"})
	if cerr := closeRecorder(rec); err == nil {
		err = cerr
	}
	return err
}

func checkAfterClose(s recorder.Sink, _ ReadBack) error {
	if _, ok := s.(recorder.Closer); !ok {
		return nil
	}
	ctx := context.Background()
	if err := closeSink(s); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	r := recorder.Record{SchemaVersion: recorder.SchemaVersion, RunID: "late", RecordedAt: fixedTime, Payload: &recorder.BudgetRecord{}}
	if err := within(func() error { return s.Write(ctx, &r) }); !errors.Is(err, recorder.ErrClosed) {
		return fmt.Errorf("write after close returned %v, want ErrClosed", err)
	}
	if _, ok := s.(recorder.Flusher); ok {
		if err := within(func() error { return recorder.Flush(ctx, s) }); !errors.Is(err, recorder.ErrClosed) {
			return fmt.Errorf("flush after close returned %v, want ErrClosed", err)
		}
	}
	return nil
}

// okOrCancelled reports an error, from what was done with a cancelled
// context, that is neither nil nor context.Canceled.
func okOrCancelled(what string, err error) error {
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s with a cancelled context returned %v, want nil or context.Canceled", what, err)
	}
	return nil
}

func checkCancelled(s recorder.Sink, read ReadBack) error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := recorder.Record{SchemaVersion: recorder.SchemaVersion, RunID: "cancelled", RecordedAt: fixedTime, Payload: &recorder.BudgetRecord{}}
	for _, op := range []struct {
		what string
		do   func() error
	}{
		{"write", func() error { return s.Write(ctx, &r) }},
		{"flush", func() error { return recorder.Flush(ctx, s) }},
		{"close", func() error { return recorder.Close(ctx, s) }},
	} {
		if err := okOrCancelled(op.what, within(op.do)); err != nil {
			return err
		}
	}
	// A close that gave up on its context can be finished with another.
	if err := closeSink(s); err != nil {
		return fmt.Errorf("close after a cancelled close: %w", err)
	}
	if _, err := read(); err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	return nil
}
