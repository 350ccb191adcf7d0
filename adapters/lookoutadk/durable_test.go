package lookoutadk_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
)

var errModelDown = errors.New("model unavailable")

// endingCase is one way Eino ends a run with an error that no middleware
// hook sees.
type endingCase struct {
	name    string
	outcome recorder.Outcome
	// agent builds the run's model and tools; cancel cancels the run's
	// ctx, for a case whose tool does so.
	agent func(cancel context.CancelFunc) (model.ToolCallingChatModel, []tool.BaseTool)
}

func endingCases() []endingCase {
	return []endingCase{
		{name: "a model error", outcome: recorder.OutcomeError,
			agent: func(context.CancelFunc) (model.ToolCallingChatModel, []tool.BaseTool) {
				return scripted.New(scripted.Fail(errModelDown)), nil
			}},
		{name: "a tool panic", outcome: recorder.OutcomeError,
			agent: func(context.CancelFunc) (model.ToolCallingChatModel, []tool.BaseTool) {
				boom := fnTool{Name: "boom", Fn: func(context.Context, string) (string, error) { panic("tool bug") }}
				return scripted.New(scripted.Call("boom", `{}`), scripted.Reply("never")), []tool.BaseTool{boom}
			}},
		{name: "a ctx cancelled during a tool", outcome: recorder.OutcomeCancelled,
			agent: func(cancel context.CancelFunc) (model.ToolCallingChatModel, []tool.BaseTool) {
				wait := fnTool{Name: "wait", Fn: func(ctx context.Context, _ string) (string, error) {
					cancel()
					<-ctx.Done()
					return "", ctx.Err()
				}}
				return scripted.New(scripted.Call("wait", `{}`), scripted.Reply("never")), []tool.BaseTool{wait}
			}},
		{name: "a model error after tool calls", outcome: recorder.OutcomeError,
			agent: func(context.CancelFunc) (model.ToolCallingChatModel, []tool.BaseTool) {
				return scripted.New(scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`), scripted.Fail(errModelDown)),
					[]tool.BaseTool{echo("search")}
			}},
	}
}

// A program that closes its recorder straight after draining the Runner's
// events keeps the run's end: the wrapper queues run_ended before the
// iterator reports the error or its end.
func TestTheRunsEndIsKeptByAProgramThatClosesRightAfterTheRun(t *testing.T) {
	const runs = 200
	for _, tc := range endingCases() {
		t.Run(tc.name, func(t *testing.T) {
			kept := 0
			for i := range runs {
				path := filepath.Join(t.TempDir(), fmt.Sprintf("run-%d.jsonl", i))
				kept += runAndClose(t, tc, path)
			}
			assert.Equal(t, runs, kept, "runs whose file ends with the root's run_ended")
		})
	}
}

// runAndClose runs tc once, recording to a file at path that is closed
// straight after the events are drained, and returns 1 when the file ends
// with the root run's run_ended, recording the error.
func runAndClose(t *testing.T, tc endingCase, path string) int {
	t.Helper()
	file, err := recorder.NewFileSink(path, nil)
	require.NoError(t, err)
	rec := recorder.New(file, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, tools := tc.agent(cancel)
	agent := newAgent(t, agentSpec{model: m, tools: tools, cfg: &lookout.Config{Recorder: rec}})
	o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "do the task"))
	require.Error(t, o.err)
	require.NoError(t, rec.Close(context.Background()))

	records, tear, err := recorder.ReadFile(path)
	require.NoError(t, err)
	require.Nil(t, tear)
	if len(records) == 0 {
		return 0
	}
	last := records[len(records)-1]
	end, ok := last.Payload.(*recorder.RunEnded)
	if !ok || last.ParentRunID != "" {
		return 0
	}
	assert.Equal(t, tc.outcome, end.Outcome)
	assert.NotEmpty(t, end.Error)
	return 1
}

// stuckSink's Write blocks until its ctx ends, or, when forever is set,
// until the test releases it.
type stuckSink struct {
	forever bool
	release chan struct{}
	entered chan struct{}
	once    sync.Once
}

func newStuckSink(forever bool) *stuckSink {
	return &stuckSink{forever: forever, release: make(chan struct{}), entered: make(chan struct{})}
}

func (s *stuckSink) Write(ctx context.Context, _ *recorder.Record) error {
	s.once.Do(func() { close(s.entered) })
	if s.forever {
		<-s.release
		return errors.New("released")
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.release:
		return errors.New("released")
	}
}

// A sink that never lets a write through cannot hang the run: a run
// cancelled by its ctx returns within a second, under either policy,
// blocking or not (under Escalate the lost records may end it sooner);
// Close with a deadline returns by it; and once the sink lets go, no
// goroutine is left.
func TestABlockingSinkCannotHangARun(t *testing.T) {
	for _, forever := range []bool{false, true} {
		for _, policy := range []recorder.LossPolicy{recorder.Drop, recorder.Escalate} {
			for _, block := range []bool{false, true} {
				name := fmt.Sprintf("forever=%v policy=%d block=%v", forever, policy, block)
				t.Run(name, func(t *testing.T) { testBlockingSink(t, forever, policy, block) })
			}
		}
	}
}

func testBlockingSink(t *testing.T, forever bool, policy recorder.LossPolicy, block bool) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sink := newStuckSink(forever)
	rec := recorder.New(sink, &recorder.Options{Policy: policy, Block: block, QueueSize: 4,
		OnError: func(context.Context, error) {}})
	defer func() {
		closeCtx, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer stop()
		start := time.Now()
		_ = rec.Close(closeCtx)
		assert.Less(t, time.Since(start), time.Second, "Close returns by its deadline")
		close(sink.release)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledAt atomic.Pointer[time.Time]
	wait := fnTool{Name: "wait", Fn: func(ctx context.Context, _ string) (string, error) {
		<-sink.entered // the sink is stuck on the run's first record
		now := time.Now()
		cancelledAt.Store(&now)
		cancel()
		<-ctx.Done()
		return "", ctx.Err()
	}}
	agent := newAgent(t, agentSpec{
		model: scripted.New(scripted.Call("wait", `{}`), scripted.Reply("never")),
		tools: []tool.BaseTool{wait},
		cfg: &lookout.Config{Recorder: rec, Observers: everyCall(), OnError: func(context.Context, error) {},
			Limits: budget.Limits{Timeout: time.Hour}},
	})
	done := make(chan outcome, 1)
	go func() { done <- drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "do the task")) }()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run hung on its sink")
	}
	ended := time.Now()
	require.Error(t, o.err)
	if at := cancelledAt.Load(); at != nil {
		assert.Less(t, ended.Sub(*at), time.Second, "the cancelled run returned at once")
		assert.ErrorIs(t, o.err, context.Canceled)
	} else {
		require.Equal(t, recorder.Escalate, policy, "only a lost record under Escalate ends the run before its tool")
		assert.ErrorIs(t, o.err, recorder.ErrSinkFailed)
	}
}

// assessmentFailingSink keeps records in a memory sink, failing the
// first assessment record written to it.
type assessmentFailingSink struct {
	*recorder.MemorySink
	failed atomic.Bool
}

var errFirstAssessment = errors.New("the first assessment write failed")

func (s *assessmentFailingSink) Write(ctx context.Context, r *recorder.Record) error {
	if r.Kind() == recorder.KindAssessment && s.failed.CompareAndSwap(false, true) {
		return errFirstAssessment
	}
	return s.MemorySink.Write(ctx, r)
}

// Under the Escalate policy, a failed write ends the run once it is
// known, and nothing is lost silently: every tool_started that reached the sink has its
// tool_ended, or the run's recording has a gap for each one missing, and
// every gap is counted.
func TestNoSilentLossUnderEscalate(t *testing.T) {
	const runs = 500
	for i := range runs {
		sink := &assessmentFailingSink{MemorySink: recorder.NewMemorySink()}
		rec := recorder.New(sink, &recorder.Options{Policy: recorder.Escalate, OnError: func(context.Context, error) {}})
		m := scripted.New(
			scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`),
			scripted.Call("search", `{"q":"d"}`).Call("search", `{"q":"e"}`),
			scripted.Reply("done"),
		)
		agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")},
			cfg: &lookout.Config{Recorder: rec, Observers: everyCall(), OnError: func(context.Context, error) {}}})
		o := drain(adk.NewRunner(context.Background(), adk.RunnerConfig{Agent: agent}).Query(context.Background(), "search"))
		require.NoError(t, rec.Close(context.Background()))
		require.True(t, sink.failed.Load(), "run %d: the assessment write failed", i)
		if o.err != nil {
			// The failure is written on the recorder's goroutine: the run
			// ends with it when it is known before the run is done.
			require.ErrorIs(t, o.err, errFirstAssessment, "run %d", i)
		}

		records := sink.Records()
		gaps := 0
		started, ended := map[string]bool{}, map[string]bool{}
		var next uint64
		for _, r := range records {
			gaps += int(r.Seq - next)
			next = r.Seq + 1
			switch p := r.Payload.(type) {
			case *recorder.ToolStarted:
				started[p.CallID] = true
			case *recorder.ToolEnded:
				ended[p.CallID] = true
			}
		}
		unmatched := 0
		for id := range started {
			if !ended[id] {
				unmatched++
			}
		}
		require.LessOrEqual(t, unmatched, gaps, "run %d: a tool_started without its tool_ended is a counted gap", i)
		require.Equal(t, uint64(gaps), rec.Dropped(), "run %d: every gap is counted", i)
		require.IsType(t, &recorder.RunEnded{}, records[len(records)-1].Payload, "run %d: run_ended is last", i)
	}
}
