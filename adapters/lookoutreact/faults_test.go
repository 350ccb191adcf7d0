package lookoutreact_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
)

// faultyCtx panics when asked whether it is done. Lookout asks that on its
// own paths, so the ctx stands in for a fault in Lookout's work; the
// models and tools below never ask.
type faultyCtx struct{ context.Context }

func (faultyCtx) Err() error { panic("fault in Lookout's work") }

func faultyRun(t *testing.T, log *errorLog) (*lookoutreact.Hooks, context.Context) {
	t.Helper()
	l, err := lookoutreact.New(context.Background(), &lookout.Config{OnError: log.OnError})
	require.NoError(t, err)
	return l, faultyCtx{started(t, l)}
}

func TestAFaultPreparingAModelCallLetsTheCallGoAhead(t *testing.T) {
	log := &errorLog{}
	l, ctx := faultyRun(t, log)
	reply := schema.AssistantMessage("answer", nil)
	out, err := l.WrapModel(fixedModel{reply: reply}).Generate(ctx, []*schema.Message{schema.UserMessage("hi")})
	require.NoError(t, err)
	assert.Equal(t, "answer", out.Content)
	errs := log.all()
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "preparing a model call panicked")
}

func TestAFaultRecordingAToolCallLetsTheToolsOutcomeThrough(t *testing.T) {
	log := &errorLog{}
	l, ctx := faultyRun(t, log)
	errDisk := errors.New("disk on fire")
	call := l.ToolMiddleware().Invokable(func(context.Context, *compose.ToolInput) (*compose.ToolOutput, error) {
		return nil, errDisk
	})
	_, err := call(ctx, &compose.ToolInput{Name: "deploy", Arguments: "{}", CallID: "c1"})
	assert.ErrorIs(t, err, errDisk, "the tool's error goes on as it would without Lookout")
	errs := log.all()
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "recording a tool call panicked")
}

func TestAFaultAdmittingAToolCallRunsTheToolUnobserved(t *testing.T) {
	log := &errorLog{}
	var armed atomic.Bool
	clock := func() time.Time {
		if armed.Load() {
			panic("clock fault")
		}
		return t0
	}
	l, err := lookoutreact.New(context.Background(), &lookout.Config{OnError: log.OnError, Now: clock, Limits: budget.Limits{Timeout: time.Hour}})
	require.NoError(t, err)
	ctx := started(t, l)
	armed.Store(true)
	ran := false
	call := l.ToolMiddleware().Invokable(func(context.Context, *compose.ToolInput) (*compose.ToolOutput, error) {
		ran = true
		return &compose.ToolOutput{Result: "deployed"}, nil
	})
	out, err := call(ctx, &compose.ToolInput{Name: "deploy", Arguments: "{}", CallID: "c1"})
	require.NoError(t, err)
	assert.True(t, ran)
	assert.Equal(t, "deployed", out.Result)
	errs := log.all()
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "admitting tool call c1 panicked")
}

func TestAFaultRecordingAStreamedToolCallPassesTheStreamsErrorOn(t *testing.T) {
	log := &errorLog{}
	l, ctx := faultyRun(t, log)
	errReset := errors.New("connection reset")
	call := l.ToolMiddleware().Streamable(func(context.Context, *compose.ToolInput) (*compose.StreamToolOutput, error) {
		sr, sw := schema.Pipe[string](2)
		sw.Send("half", nil)
		sw.Send("", errReset)
		sw.Close()
		return &compose.StreamToolOutput{Result: sr}, nil
	})
	out, err := call(ctx, &compose.ToolInput{Name: "fetch", Arguments: "{}", CallID: "c1"})
	require.NoError(t, err)
	defer out.Result.Close()
	chunk, err := out.Result.Recv()
	require.NoError(t, err)
	assert.Equal(t, "half", chunk)
	_, err = out.Result.Recv()
	assert.ErrorIs(t, err, errReset)
	errs := log.all()
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "recording a tool call panicked")
}

// Hooks.Agent starts the run on the caller's goroutine. A fault there
// goes to OnError, and the agent runs without Lookout, its nested
// components included.
func TestAFaultStartingARunLetsTheAgentRunWithoutLookout(t *testing.T) {
	var clock adaptertest.FaultyClock
	// One script per run: through Generate, then Stream.
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"), scripted.Call("search", `{}`), scripted.Reply("done"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookout.Config{
		Limits: budget.Limits{Timeout: time.Hour, MaxToolCalls: 10},
		Now:    clock.Now, OnError: clock.OnError,
	}})
	clock.Arm()
	for _, streaming := range []bool{false, true} {
		var o outcome
		require.NotPanics(t, func() { o = a.run(t, nil, streaming) }, "streaming=%v", streaming)
		require.NoError(t, o.err)
		assert.Equal(t, "done", o.out.Content)
	}
	reported := clock.Reported()
	require.Len(t, reported, 2, "one report per run: %q", reported)
	for _, r := range reported {
		assert.Contains(t, r, "panicked: clock fault")
	}
}
