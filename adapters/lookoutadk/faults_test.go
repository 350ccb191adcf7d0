package lookoutadk_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
)

// faults is a middleware whose clock can be made to panic, which stands in
// for a fault in Lookout's own work, and the panics it reported.
type faults struct {
	mw    adk.ChatModelAgentMiddleware
	ctx   context.Context
	armed atomic.Bool

	mu     sync.Mutex
	panics []string
}

// newFaults calls the middleware's hooks directly, outside an agent, with a
// recording so that model calls read the clock.
func newFaults(t *testing.T) *faults {
	t.Helper()
	f := &faults{}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mw, err := lookoutadk.New(context.Background(), &lookout.Config{
		Limits:   budget.Limits{Timeout: time.Hour, MaxToolCalls: 100},
		Recorder: adaptertest.NewRecorder(t, recorder.NewMemorySink(), nil),
		Now: func() time.Time {
			if f.armed.Load() {
				panic("clock fault")
			}
			return start
		},
		OnError: func(_ context.Context, err error) {
			// Outside an agent the session cannot be registered for
			// checkpoints; only the panics matter here.
			if strings.Contains(err.Error(), "panicked") {
				f.mu.Lock()
				f.panics = append(f.panics, err.Error())
				f.mu.Unlock()
			}
		},
	})
	require.NoError(t, err)
	f.mw = mw
	f.ctx, _, err = mw.BeforeAgent(context.Background(), &adk.ChatModelAgentContext{})
	require.NoError(t, err)
	// The first state rewrite starts the recording.
	_, _, err = mw.BeforeModelRewriteState(f.ctx, &adk.ChatModelAgentState{Messages: []*schema.Message{schema.UserMessage("hi")}}, nil)
	require.NoError(t, err)
	return f
}

func (f *faults) reported() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.panics...)
}

func TestAFaultAdmittingAToolCallRunsTheToolUnobserved(t *testing.T) {
	f := newFaults(t)
	ran := false
	call, err := f.mw.WrapInvokableToolCall(f.ctx, func(context.Context, string, ...tool.Option) (string, error) {
		ran = true
		return "deployed", nil
	}, &adk.ToolContext{Name: "deploy", CallID: "c1"})
	require.NoError(t, err)
	f.armed.Store(true)
	out, err := call(f.ctx, "{}")
	require.NoError(t, err)
	assert.True(t, ran)
	assert.Equal(t, "deployed", out)
	panics := f.reported()
	require.Len(t, panics, 1)
	assert.Contains(t, panics[0], "admitting tool call c1 panicked: clock fault")
}

func TestAFaultRecordingAToolCallLetsTheToolsOutcomeThrough(t *testing.T) {
	f := newFaults(t)
	errDisk := errors.New("disk on fire")
	call, err := f.mw.WrapInvokableToolCall(f.ctx, func(context.Context, string, ...tool.Option) (string, error) {
		f.armed.Store(true)
		return "", errDisk
	}, &adk.ToolContext{Name: "deploy", CallID: "c1"})
	require.NoError(t, err)
	_, err = call(f.ctx, "{}")
	assert.ErrorIs(t, err, errDisk, "the tool's error goes on as it would without Lookout")
	panics := f.reported()
	require.Len(t, panics, 1)
	assert.Contains(t, panics[0], "recording a tool call panicked")
}

func TestAFaultRecordingAStreamedToolCallPassesTheStreamOn(t *testing.T) {
	f := newFaults(t)
	call, err := f.mw.WrapStreamableToolCall(f.ctx, func(context.Context, string, ...tool.Option) (*schema.StreamReader[string], error) {
		f.armed.Store(true)
		return schema.StreamReaderFromArray([]string{"half", " and half"}), nil
	}, &adk.ToolContext{Name: "fetch", CallID: "c1"})
	require.NoError(t, err)
	sr, err := call(f.ctx, "{}")
	require.NoError(t, err)
	defer sr.Close()
	var got []string
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		got = append(got, chunk)
	}
	assert.Equal(t, []string{"half", " and half"}, got)
	panics := f.reported()
	require.Len(t, panics, 1)
	assert.Contains(t, panics[0], "recording a tool call panicked")
}

// armingModel arms the fault while it answers, so that Lookout's work
// after the call panics.
type armingModel struct {
	f     *faults
	reply *schema.Message
}

func (m armingModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	m.f.armed.Store(true)
	return m.reply, nil
}

func (m armingModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m.f.armed.Store(true)
	return schema.StreamReaderFromArray([]*schema.Message{m.reply}), nil
}

func TestAFaultChargingAModelCallLetsTheReplyThrough(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		f := newFaults(t)
		reply := schema.AssistantMessage("answer", nil)
		m, err := f.mw.WrapModel(f.ctx, armingModel{f: f, reply: reply}, &adk.ModelContext{})
		require.NoError(t, err)
		input := []*schema.Message{schema.UserMessage("hi")}
		var out *schema.Message
		if streaming {
			sr, err := m.Stream(f.ctx, input)
			require.NoError(t, err)
			out, err = schema.ConcatMessageStream(sr)
			require.NoError(t, err, "the stream ends as the model's does")
		} else {
			out, err = m.Generate(f.ctx, input)
			require.NoError(t, err)
		}
		assert.Equal(t, "answer", out.Content)
		panics := f.reported()
		require.Len(t, panics, 1, "streaming %v", streaming)
		assert.Contains(t, panics[0], "charging a model call panicked: clock fault")
	}
}

func TestAFaultPreparingAModelCallLetsTheCallGoAhead(t *testing.T) {
	f := newFaults(t)
	m, err := f.mw.WrapModel(f.ctx, fixedModel{reply: schema.AssistantMessage("answer", nil)}, &adk.ModelContext{})
	require.NoError(t, err)
	f.armed.Store(true)
	out, err := m.Generate(f.ctx, []*schema.Message{schema.UserMessage("hi")})
	require.NoError(t, err)
	assert.Equal(t, "answer", out.Content)
	panics := f.reported()
	require.NotEmpty(t, panics)
	assert.Contains(t, panics[0], "preparing a model call panicked: clock fault")
}

// panickingModel is a model with a bug of its own.
type panickingModel struct{}

func (panickingModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	panic("model bug")
}

func (panickingModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	panic("model bug")
}

func TestAPanicInTheToolOrModelIsNotLookouts(t *testing.T) {
	f := newFaults(t)
	call, err := f.mw.WrapInvokableToolCall(f.ctx, func(context.Context, string, ...tool.Option) (string, error) {
		panic("tool bug")
	}, &adk.ToolContext{Name: "deploy", CallID: "c1"})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "tool bug", func() { _, _ = call(f.ctx, "{}") },
		"the tool's panic goes on to the runtime, as it would without Lookout")

	m, err := f.mw.WrapModel(f.ctx, panickingModel{}, &adk.ModelContext{})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "model bug", func() { _, _ = m.Generate(f.ctx, []*schema.Message{schema.UserMessage("hi")}) })
	assert.Empty(t, f.reported(), "no fault of Lookout's is reported")
}

// A fault in BeforeAgent, where Lookout starts the run's state, must not
// escape into Runner.Run, which calls it on the caller's goroutine: the
// agent runs as it would without Lookout.
func TestAFaultStartingARunLetsTheAgentRunWithoutLookout(t *testing.T) {
	var clock adaptertest.FaultyClock
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookout.Config{
		Limits:   budget.Limits{Timeout: time.Hour, MaxToolCalls: 10},
		Recorder: adaptertest.NewRecorder(t, recorder.NewMemorySink(), nil),
		Now:      clock.Now, OnError: clock.OnError,
	}})
	clock.Arm()
	var o outcome
	require.NotPanics(t, func() { o = runAgent(t, agent, nil, false) })
	require.NoError(t, o.err)
	require.NotEmpty(t, o.messages)
	assert.Equal(t, "done", o.messages[len(o.messages)-1].Content)
	reported := clock.Reported()
	require.Len(t, reported, 1)
	assert.Contains(t, reported[0], "starting a run panicked: clock fault")
}

// unprintable is an error whose text panics.
type unprintable struct{}

func (unprintable) Error() string { panic("no text") }

// The run watcher records how a run ended on a goroutine of its own, where
// a panic would end the program. An error whose text panics is recorded
// as such.
func TestAnErrorWhoseTextPanicsIsRecordedAsSuch(t *testing.T) {
	m := scripted.New(scripted.Func(func(context.Context, []*schema.Message, *model.Options) (*schema.Message, error) {
		return nil, unprintable{}
	}))
	sink := recorder.NewMemorySink()
	agent := newAgent(t, agentSpec{model: m, cfg: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)}})
	o := runAgent(t, agent, nil, false)
	require.ErrorIs(t, o.err, unprintable{})
	records := adaptertest.Ended(t, sink)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeError, end.Outcome)
	assert.Contains(t, end.Error, "no text")
}
