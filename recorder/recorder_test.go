package recorder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

func fixedClock() time.Time { return t0 }

// newRec returns a Recorder writing to sink, closed when the test ends.
func newRec(t testing.TB, sink recorder.Sink, opts *recorder.Options) *recorder.Recorder {
	t.Helper()
	rec := recorder.New(sink, opts)
	t.Cleanup(func() { rec.Close(context.Background()) })
	return rec
}

// memView reads a MemorySink behind a Recorder, flushing the Recorder
// first so that every record emitted so far is there.
type memView struct {
	*recorder.MemorySink
	rec *recorder.Recorder
	t   testing.TB
}

func (m *memView) flush() {
	m.t.Helper()
	require.NoError(m.t, m.rec.Flush(context.Background()))
}

func (m *memView) Records() []recorder.Record {
	m.t.Helper()
	m.flush()
	return m.MemorySink.Records()
}

func (m *memView) Len() int {
	m.t.Helper()
	m.flush()
	return m.MemorySink.Len()
}

// newMem returns a Recorder writing to a MemorySink, with the fixed clock
// unless opts names one, closed when the test ends.
func newMem(t testing.TB, opts *recorder.Options) (*recorder.Recorder, *memView) {
	t.Helper()
	sink := recorder.NewMemorySink()
	if opts == nil {
		opts = &recorder.Options{}
	}
	if opts.Clock == nil {
		opts.Clock = fixedClock
	}
	rec := newRec(t, sink, opts)
	return rec, &memView{MemorySink: sink, rec: rec, t: t}
}

func TestStartRunWritesRunStartedAtSeqZero(t *testing.T) {
	rec, sink := newMem(t, nil)
	limits := recorder.RunLimits{Timeout: time.Minute, MaxTokens: 100, MaxToolCalls: 5}
	run, err := rec.StartRun(context.Background(), recorder.RunInfo{RunID: "r1", AgentName: "coder", Limits: limits, Metadata: map[string]string{"team": "infra"}})
	require.NoError(t, err)
	assert.Equal(t, "r1", run.ID())
	assert.Equal(t, uint64(1), run.Next())

	recs := sink.Records()
	require.Len(t, recs, 1)
	r := recs[0]
	assert.Equal(t, recorder.SchemaVersion, r.SchemaVersion)
	assert.Equal(t, uint64(0), r.Seq)
	assert.Equal(t, "r1", r.RunID)
	assert.Equal(t, "", r.ParentRunID)
	assert.Equal(t, 0, r.Depth)
	assert.Equal(t, t0, r.RecordedAt, "the injected clock stamps records")
	assert.Equal(t, &recorder.RunStarted{AgentName: "coder", Limits: limits, Metadata: map[string]string{"team": "infra"}}, r.Payload)
}

func TestRunIDsDefaultToUUIDs(t *testing.T) {
	rec, _ := newMem(t, nil)
	run, err := rec.StartRun(context.Background(), recorder.RunInfo{})
	require.NoError(t, err)
	_, perr := uuid.Parse(run.ID())
	assert.NoError(t, perr)
	other, _ := rec.StartRun(context.Background(), recorder.RunInfo{})
	assert.NotEqual(t, run.ID(), other.ID())
}

func TestNewRunIDOptionNamesRuns(t *testing.T) {
	var n atomic.Int32
	rec, _ := newMem(t, &recorder.Options{NewRunID: func() string { return "run-" + string(rune('a'+n.Add(1)-1)) }})
	a, _ := rec.StartRun(context.Background(), recorder.RunInfo{})
	b := rec.ResumeRun(recorder.RunInfo{}, 0)
	assert.Equal(t, "run-a", a.ID())
	assert.Equal(t, "run-b", b.ID())
}

func TestChildRunsLinkToTheirParentAndCountTheirOwnSeq(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, nil)
	parent, _ := rec.StartRun(ctx, recorder.RunInfo{RunID: "p"})
	require.NoError(t, parent.Message(ctx, nil))
	child, _ := parent.StartChild(ctx, recorder.RunInfo{RunID: "c", ParentRunID: "ignored", Depth: 9})
	grandchild, _ := child.StartChild(ctx, recorder.RunInfo{RunID: "g"})
	require.NoError(t, child.Budget(ctx, recorder.BudgetRecord{Resource: "tokens"}))
	require.NoError(t, parent.Budget(ctx, recorder.BudgetRecord{Resource: "tokens"}))

	assert.Equal(t, "p", child.ParentID())
	assert.Equal(t, 1, child.Depth())
	assert.Equal(t, 2, grandchild.Depth())
	type key struct {
		run, parent string
		depth       int
		seq         uint64
	}
	var got []key
	for _, r := range sink.Records() {
		got = append(got, key{r.RunID, r.ParentRunID, r.Depth, r.Seq})
	}
	assert.Equal(t, []key{
		{"p", "", 0, 0}, {"p", "", 0, 1},
		{"c", "p", 1, 0},
		{"g", "c", 2, 0},
		{"c", "p", 1, 1},
		{"p", "", 0, 2},
	}, got)
}

func TestResumeRunContinuesSeqWithoutRunStarted(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, nil)
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r", ParentRunID: "p", Depth: 1}, 41)
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{Resource: "tokens"}))
	recs := sink.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, uint64(41), recs[0].Seq)
	assert.Equal(t, recorder.KindBudget, recs[0].Kind())
	assert.Equal(t, "p", recs[0].ParentRunID)
}

func TestTypedMethodsWriteTheirKinds(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, nil)
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Message(ctx, nil))
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{}))
	require.NoError(t, run.ModelResponse(ctx, recorder.ModelResponse{}))
	require.NoError(t, run.ToolStarted(ctx, recorder.ToolStarted{}))
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{}))
	require.NoError(t, run.Assessment(ctx, recorder.AssessmentRecord{}))
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}))
	require.NoError(t, run.Extension(ctx, "x", nil))
	require.NoError(t, run.Emit(ctx, &recorder.Unknown{Name: "mine"}))
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	var kinds []recorder.Kind
	for i, r := range sink.Records() {
		assert.Equal(t, uint64(i), r.Seq)
		kinds = append(kinds, r.Kind())
	}
	assert.Equal(t, []recorder.Kind{
		recorder.KindMessage, recorder.KindModelRequest, recorder.KindModelResponse, recorder.KindToolStarted,
		recorder.KindToolEnded, recorder.KindAssessment, recorder.KindBudget, recorder.KindExtension, "mine", recorder.KindRunEnded,
	}, kinds)
}

func TestNilPayloadsWriteNothing(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, nil)
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	require.NoError(t, run.Emit(ctx, nil))
	require.NoError(t, run.Emit(ctx, (*recorder.ToolEnded)(nil)))
	require.NoError(t, run.Emit(ctx, (*recorder.Unknown)(nil)))
	assert.Zero(t, sink.Len())
	assert.Zero(t, run.Next())
}

func TestANilRunIgnoresEveryCall(t *testing.T) {
	ctx := context.Background()
	var run *recorder.Trace
	assert.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "x"}))
	assert.NoError(t, run.End(ctx, recorder.RunEnded{}))
	child, err := run.StartChild(ctx, recorder.RunInfo{})
	assert.NoError(t, err)
	assert.Nil(t, child)
	assert.Equal(t, "", run.ID())
	assert.Equal(t, "", run.ParentID())
	assert.Zero(t, run.Depth())
	assert.Zero(t, run.Next())
	assert.Zero(t, run.Dropped())
}

func TestANilSinkDiscardsRecords(t *testing.T) {
	rec := recorder.New(nil, nil)
	run, err := rec.StartRun(context.Background(), recorder.RunInfo{})
	require.NoError(t, err)
	require.NoError(t, run.Budget(context.Background(), recorder.BudgetRecord{}))
	assert.Equal(t, uint64(2), run.Next())
	assert.Zero(t, rec.Dropped())
}

func TestTheZeroRecorderDiscardsRecords(t *testing.T) {
	var rec recorder.Recorder
	run, err := rec.StartRun(context.Background(), recorder.RunInfo{})
	require.NoError(t, err)
	require.NoError(t, run.ToolEnded(context.Background(), recorder.ToolEnded{Result: strings.Repeat("x", 10_000)}))
	assert.NotEmpty(t, run.ID())
}

func TestInvalidExtensionBodyIsRejectedBeforeWriting(t *testing.T) {
	rec, sink := newMem(t, &recorder.Options{Policy: recorder.Drop})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	err := run.Extension(context.Background(), "x", json.RawMessage(`{nope`))
	require.ErrorIs(t, err, recorder.ErrEncode)
	assert.Zero(t, sink.Len())
	assert.Zero(t, run.Next(), "no seq is used up")
}

// TestJSONTooDeepToReadBackIsNotWritten checks that bodies and parameter
// schemas nesting deeper than MaxBodyDepth never reach the sink, under
// either policy, while the deepest allowed ones are written and read back.
func TestJSONTooDeepToReadBackIsNotWritten(t *testing.T) {
	ctx := context.Background()
	nested := func(levels int) json.RawMessage {
		return json.RawMessage(strings.Repeat("[", levels) + strings.Repeat("]", levels))
	}
	deepest, tooDeep := nested(recorder.MaxBodyDepth), nested(recorder.MaxBodyDepth+1)
	// Brackets inside strings do not count.
	inStrings := json.RawMessage(`["` + strings.Repeat("[", recorder.MaxBodyDepth+1) + `\"{"]`)

	path := filepath.Join(t.TempDir(), "deep.jsonl")
	sink, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	var handled []error
	rec := newRec(t, sink, &recorder.Options{OnError: func(_ context.Context, err error) { handled = append(handled, err) }})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)

	require.ErrorIs(t, run.Extension(ctx, "x", tooDeep), recorder.ErrEncode)
	assert.Zero(t, run.Next(), "a rejected extension uses up no seq")
	require.NoError(t, run.Extension(ctx, "x", deepest))
	require.NoError(t, run.Extension(ctx, "x", inStrings))
	require.NoError(t, run.Emit(ctx, &recorder.Extension{Name: "x", Body: tooDeep}))
	require.NoError(t, run.Emit(ctx, &recorder.Unknown{Name: "future", Body: tooDeep}))
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{Model: "m", Tools: []string{"t"},
		ToolDefinitions: []recorder.ToolDefinition{{Name: "t", Parameters: tooDeep}}}))
	require.NoError(t, run.ModelRequest(ctx, recorder.ModelRequest{Model: "m", Tools: []string{"t"},
		ToolDefinitions: []recorder.ToolDefinition{{Name: "t", Parameters: deepest}}}))
	require.NoError(t, rec.Close(ctx))

	assert.Equal(t, uint64(3), rec.Dropped())
	require.Len(t, handled, 3)
	for _, err := range handled {
		assert.ErrorIs(t, err, recorder.ErrEncode)
	}
	recs, tear, err := recorder.ReadFile(path)
	require.NoError(t, err, "every record written reads back")
	assert.Nil(t, tear)
	var seqs []uint64
	for _, r := range recs {
		seqs = append(seqs, r.Seq)
	}
	assert.Equal(t, []uint64{0, 1, 5}, seqs, "the failed records left gaps")

	strict := newRec(t, recorder.NewMemorySink(), &recorder.Options{Policy: recorder.Escalate})
	err = strict.ResumeRun(recorder.RunInfo{}, 0).Emit(ctx, &recorder.Unknown{Name: "future", Body: tooDeep})
	assert.ErrorIs(t, err, recorder.ErrEncode)
	assert.ErrorIs(t, err, recorder.ErrSinkFailed)
}

// failingSink fails every write whose 1-based number is a multiple of
// every, or every write when every is 1.
type failingSink struct {
	inner  recorder.MemorySink
	every  int
	n      atomic.Int64
	err    error
	panics bool
}

func (f *failingSink) Write(ctx context.Context, r *recorder.Record) error {
	if n := f.n.Add(1); n%int64(f.every) == 0 {
		if f.panics {
			panic("sink exploded")
		}
		return f.err
	}
	return f.inner.Write(ctx, r)
}

func TestDropPolicyCountsEveryFailedWriteExactly(t *testing.T) {
	ctx := context.Background()
	errDisk := errors.New("disk full")
	sink := &failingSink{every: 3, err: errDisk}
	var handled []error
	var mu sync.Mutex
	rec := newRec(t, sink, &recorder.Options{OnError: func(_ context.Context, err error) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, err)
	}})
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "r"})
	require.NoError(t, err)

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				assert.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "t", CallIndex: g*100 + i}), "the drop policy never fails the run")
			}
		}()
	}
	wg.Wait()
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, rec.Flush(ctx))

	const total = 1 + 800 + 1
	wantDropped := uint64(total / 3)
	assert.Equal(t, wantDropped, rec.Dropped())
	assert.Equal(t, wantDropped, run.Dropped())
	require.Len(t, handled, int(wantDropped))
	for _, err := range handled {
		assert.ErrorIs(t, err, errDisk)
		assert.ErrorIs(t, err, recorder.ErrSinkFailed)
		var se *recorder.SinkError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "r", se.RunID)
	}

	// Each dropped record leaves exactly one gap in the stored seqs.
	kept := sink.inner.Records()
	assert.Len(t, kept, total-int(wantDropped))
	seen := map[uint64]bool{}
	for _, r := range kept {
		seen[r.Seq] = true
	}
	var gaps uint64
	for s := uint64(0); s < total; s++ {
		if !seen[s] {
			gaps++
		}
	}
	assert.Equal(t, wantDropped, gaps)
}

func TestEscalatePolicyReturnsTheFirstFailureFromLaterCallsAndStillWrites(t *testing.T) {
	ctx := context.Background()
	errDisk := errors.New("disk full")
	sink := &failingSink{every: 2, err: errDisk} // fails seq 1 and 3
	var reported []error
	rec := newRec(t, sink, &recorder.Options{Policy: recorder.Escalate, OnError: func(_ context.Context, err error) { reported = append(reported, err) }})
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "r"})
	require.NoError(t, err)
	// The write fails on the recorder's goroutine, so this call returns
	// nil, or the failure if the goroutine was quicker.
	err = run.ToolEnded(ctx, recorder.ToolEnded{Name: "t"})
	require.NoError(t, rec.Flush(ctx))

	first := rec.Err()
	if err != nil {
		assert.Same(t, first, err)
	}
	require.Error(t, first)
	assert.ErrorIs(t, first, errDisk)
	assert.ErrorIs(t, first, recorder.ErrSinkFailed)
	var se *recorder.SinkError
	require.ErrorAs(t, first, &se)
	assert.Equal(t, uint64(1), se.Seq)
	assert.Equal(t, recorder.KindToolEnded, se.Kind)

	assert.Same(t, first, run.Budget(ctx, recorder.BudgetRecord{}), "every later call returns the first failure")
	assert.Same(t, first, run.Budget(ctx, recorder.BudgetRecord{}))
	assert.Same(t, first, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeError}))
	require.NoError(t, rec.Flush(ctx))

	assert.Same(t, first, rec.Err(), "the first failure is kept")
	assert.Equal(t, uint64(2), rec.Dropped(), "failures are counted under Escalate too")
	assert.Equal(t, uint64(2), run.Dropped())
	assert.Equal(t, []uint64{0, 2, 4}, seqs(sink.inner.Records()), "records after the failure are still written")
	require.Len(t, reported, 1, "failures after the first go to OnError")
	assert.ErrorIs(t, reported[0], errDisk)
}

func TestEscalatePolicyFailsStartRunButStillReturnsARun(t *testing.T) {
	rec := recorder.New(recorder.NewMemorySink(), &recorder.Options{Policy: recorder.Escalate})
	require.NoError(t, rec.Close(context.Background()))
	run, err := rec.StartRun(context.Background(), recorder.RunInfo{RunID: "r"})
	require.ErrorIs(t, err, recorder.ErrSinkFailed)
	require.ErrorIs(t, err, recorder.ErrClosed)
	require.NotNil(t, run)
	assert.Equal(t, "r", run.ID())
	assert.Equal(t, uint64(1), rec.Dropped())
}

func TestAPanickingSinkIsContained(t *testing.T) {
	var handled error
	rec := newRec(t, &failingSink{every: 1, panics: true}, &recorder.Options{OnError: func(_ context.Context, err error) { handled = err }})
	run, err := rec.StartRun(context.Background(), recorder.RunInfo{})
	require.NoError(t, err)
	require.NoError(t, rec.Flush(context.Background()))
	assert.ErrorIs(t, handled, recorder.ErrSinkPanicked)
	assert.Equal(t, uint64(1), rec.Dropped())
	assert.Equal(t, uint64(1), run.Dropped())
}

// ctxSink fails writes whose context is done, as a blocking sink would.
type ctxSink struct{ recorder.MemorySink }

func (c *ctxSink) Write(ctx context.Context, r *recorder.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.MemorySink.Write(ctx, r)
}

func TestRecordsAreWrittenWhenTheEmittingContextIsCancelled(t *testing.T) {
	sink := &ctxSink{}
	rec := newRec(t, sink, &recorder.Options{Policy: recorder.Escalate})
	ctx, cancel := context.WithCancel(context.Background())
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	require.NoError(t, err)
	cancel()
	require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{}), "a record that finds room is queued whatever ctx says")
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCancelled}))
	require.NoError(t, rec.Flush(context.Background()))
	require.NoError(t, rec.Err())
	recs := sink.Records()
	require.Len(t, recs, 3, "the sink's ctx is not the emitting one")
	assert.Equal(t, recorder.KindRunEnded, recs[2].Kind())
}

func TestLongToolResultsAreTruncatedKeepingTheirSize(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, nil)
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	long := strings.Repeat("é", 3000) // 6000 bytes, two per rune
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "cat", Result: long + "x"}))
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "cat", Result: "short"}))
	require.NoError(t, run.ToolStarted(ctx, recorder.ToolStarted{Name: "write", Arguments: long}))

	recs := sink.Records()
	cut := recs[0].Payload.(*recorder.ToolEnded)
	assert.True(t, cut.Truncated)
	assert.Equal(t, 6001, cut.ResultBytes)
	assert.LessOrEqual(t, len(cut.Result), recorder.DefaultMaxFieldBytes)
	assert.GreaterOrEqual(t, len(cut.Result), recorder.DefaultMaxFieldBytes-1)
	assert.True(t, utf8.ValidString(cut.Result), "cut at a rune boundary")

	whole := recs[1].Payload.(*recorder.ToolEnded)
	assert.False(t, whole.Truncated)
	assert.Equal(t, 5, whole.ResultBytes)
	assert.Equal(t, "short", whole.Result)

	args := recs[2].Payload.(*recorder.ToolStarted)
	assert.True(t, args.ArgumentsTruncated)
	assert.Equal(t, 6000, args.ArgumentsBytes)
	assert.LessOrEqual(t, len(args.Arguments), recorder.DefaultMaxFieldBytes)
}

func TestMaxFieldBytesSetsOrRemovesTheLimit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		limit int
		want  int
	}{
		{"a small limit cuts early", 10, 10},
		{"a negative limit keeps results whole", -1, 10_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, sink := newMem(t, &recorder.Options{MaxFieldBytes: tc.limit})
			run := rec.ResumeRun(recorder.RunInfo{}, 0)
			require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Result: strings.Repeat("a", 10_000)}))
			got := sink.Records()[0].Payload.(*recorder.ToolEnded)
			assert.Len(t, got.Result, tc.want)
			assert.Equal(t, 10_000, got.ResultBytes)
		})
	}
}

func TestEmitDoesNotEditTheCallersPayload(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, &recorder.Options{MaxFieldBytes: 8})
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	p := &recorder.ToolEnded{Name: "t", Result: "token=abcdefgh and more text", Error: "api_key=xyz"}
	before := *p
	require.NoError(t, run.Emit(ctx, p))
	assert.Equal(t, before, *p)
	got := sink.Records()[0].Payload.(*recorder.ToolEnded)
	assert.NotSame(t, p, got)
	assert.True(t, got.Truncated)
	assert.Equal(t, "api_key="+recorder.Redacted, got.Error)
}

func TestASecretStraddlingTheCutIsStillRedacted(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, &recorder.Options{MaxFieldBytes: 20})
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Result: "0123456789 sk-abcdefghijklmnopqrstuvwxyz0123"}))
	got := sink.Records()[0].Payload.(*recorder.ToolEnded).Result
	assert.NotContains(t, got, "sk-abc")
	assert.Equal(t, "0123456789 [REDACTED]"[:20], got)
}

func TestEachRedactorSeesATruncatedFieldOnce(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[string]int{}
	count := recorder.RedactFunc(func(s string) string {
		mu.Lock()
		defer mu.Unlock()
		seen[s]++
		return s
	})
	rec, _ := newMem(t, &recorder.Options{MaxFieldBytes: 8, Redactors: []recorder.Redactor{count}})
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Result: "result longer than eight bytes", Error: "failed"}))
	require.NoError(t, run.ToolStarted(ctx, recorder.ToolStarted{Arguments: `{"arguments":"longer than eight bytes"}`}))
	calls := 0
	for s, n := range seen {
		assert.Equal(t, 1, n, "redactor called %d times on %q", n, s)
		calls += n
	}
	assert.Equal(t, 3, calls, "one call each for the result, the error and the arguments: %v", seen)
}

// TestATruncatedFieldThatRedactionShortensEndsOnARuneBoundary checks a
// long field whose redaction removes more than the truncation would: the
// text kept still ends on a rune boundary, not in the middle of a rune
// cut off with the text past the cut-off.
func TestATruncatedFieldThatRedactionShortensEndsOnARuneBoundary(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, &recorder.Options{MaxFieldBytes: 100})
	run := rec.ResumeRun(recorder.RunInfo{}, 0)
	for pad := range 4 {
		long := "sk-" + strings.Repeat("a", 300+pad) + " " + strings.Repeat("é", 200)
		require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "cat", Result: long}))
		require.NoError(t, run.ToolStarted(ctx, recorder.ToolStarted{Name: "echo", Arguments: long}))
	}
	for _, r := range sink.Records() {
		var text string
		switch p := r.Payload.(type) {
		case *recorder.ToolEnded:
			assert.True(t, p.Truncated)
			text = p.Result
		case *recorder.ToolStarted:
			assert.True(t, p.ArgumentsTruncated)
			text = p.Arguments
		}
		assert.True(t, strings.HasPrefix(text, recorder.Redacted+" é"), "%q", text)
		assert.LessOrEqual(t, len(text), 100)
		assert.True(t, utf8.ValidString(text), "seq %d ends in the middle of a rune: %q", r.Seq, text)
	}
}

func TestAPanickingClockDropsTheRecordAndLeavesTheRunUsable(t *testing.T) {
	ctx := context.Background()
	calls := 0
	clock := func() time.Time {
		calls++
		if calls == 1 {
			panic("clock bug")
		}
		return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	}
	var handled error
	rec, sink := newMem(t, &recorder.Options{Clock: clock, OnError: func(_ context.Context, err error) { handled = err }})
	run := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0)
	done := make(chan error, 1)
	go func() {
		if err := run.ToolEnded(ctx, recorder.ToolEnded{Result: "first"}); err != nil {
			done <- err
			return
		}
		done <- run.ToolEnded(ctx, recorder.ToolEnded{Result: "second"})
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the run stayed locked after its clock panicked")
	}
	assert.ErrorIs(t, handled, recorder.ErrClockPanicked)
	assert.Equal(t, uint64(1), rec.Dropped())
	recs := sink.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, uint64(1), recs[0].Seq, "the dropped record left a gap")
}

// TestWithoutAClockRecordsAreStampedWithTheWallTime holds that the
// default stamp is the wall time, in time.Local, in emit order.
func TestWithoutAClockRecordsAreStampedWithTheWallTime(t *testing.T) {
	sink := recorder.NewMemorySink()
	rec := newRec(t, sink, nil)
	ctx := context.Background()
	before := time.Now()
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	require.NoError(t, err)
	for range 5 {
		require.NoError(t, run.Budget(ctx, recorder.BudgetRecord{Event: recorder.BudgetCharged}))
	}
	require.NoError(t, rec.Flush(ctx))
	after := time.Now()
	recs := sink.Records()
	require.Len(t, recs, 6)
	// A millisecond either side: the wall clock may be slewed against
	// the monotonic one the stamp moves on by.
	for i, r := range recs {
		assert.Same(t, time.Local, r.RecordedAt.Location(), "record %d", i)
		assert.False(t, r.RecordedAt.Before(before.Add(-time.Millisecond)), "record %d at %v, before %v", i, r.RecordedAt, before)
		assert.False(t, r.RecordedAt.After(after.Add(time.Millisecond)), "record %d at %v, after %v", i, r.RecordedAt, after)
		if i > 0 {
			assert.False(t, r.RecordedAt.Before(recs[i-1].RecordedAt), "record %d before the one emitted before it", i)
		}
	}
}

// TestARecordLostBeforeItIsQueuedIsReportedWithItsKind checks the kind of
// a record that a panicking Redactor lost: it is read from the payload
// as emitted, the prepared one being lost with it.
func TestARecordLostBeforeItIsQueuedIsReportedWithItsKind(t *testing.T) {
	ctx := context.Background()
	boom := recorder.RedactFunc(func(string) string { panic("redactor bug") })
	rec := newRec(t, recorder.NewMemorySink(), &recorder.Options{Policy: recorder.Escalate, Redactors: []recorder.Redactor{boom}})
	err := rec.ResumeRun(recorder.RunInfo{RunID: "r"}, 0).ToolEnded(ctx, recorder.ToolEnded{Result: "secret"})
	var se *recorder.SinkError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, recorder.KindToolEnded, se.Kind)
	assert.ErrorIs(t, err, recorder.ErrRedactorPanicked)
}

// TestAPayloadEmittedIntoAFileIsLeftAsTheCallerMadeIt holds that the
// Recorder reuses, once written, only payloads of its own: one the caller
// passed to Emit is still whole after the FileSink wrote it, and the
// records after it do not change it.
func TestAPayloadEmittedIntoAFileIsLeftAsTheCallerMadeIt(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	rec := recorder.New(recorder.NewWriterSink(&out, nil), nil)
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	require.NoError(t, err)
	mine := &recorder.ToolEnded{CallID: "c1", Name: "read_file", Result: "package main", ResultBytes: len("package main")}
	want := *mine
	require.NoError(t, run.Emit(ctx, mine))
	require.NoError(t, rec.Flush(ctx))
	for range 10 {
		require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{CallID: "c2", Name: "grep", Result: "none"}))
	}
	require.NoError(t, rec.Close(ctx))
	assert.Equal(t, want, *mine)
	assert.Equal(t, 12, strings.Count(out.String(), "\n"))
}
