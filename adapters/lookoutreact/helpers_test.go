package lookoutreact_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/drive/drivetest"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var t0 = adaptertest.T0

// fnTool is an invokable tool backed by a function.
type fnTool = adaptertest.Tool

func echo(name string) fnTool { return adaptertest.Echo(name) }

type agentSpec struct {
	model    model.ToolCallingChatModel
	tools    []tool.BaseTool
	cfg      *lookout.Config
	lookout  *lookoutreact.Hooks // used instead of cfg when set
	bare     bool                // no Lookout at all
	modifier react.MessageModifier
	maxStep  int
	// readWholeStream replaces react's default stream tool-call checker,
	// which decides from the first chunk, so replies with text before
	// their tool calls work when streaming.
	readWholeStream bool
}

// reactAgent is a react agent and the Lookout wired into it. Its Generate
// and Stream run the agent through the Lookout ([lookoutreact.Hooks.Agent]),
// each call one run; a bare agent's run it as it is.
type reactAgent struct {
	lookoutreact.Generator
	// raw is the react agent itself, with Lookout's hooks inside it (unless
	// bare) but not run through the wrapper.
	raw     *react.Agent
	lookout *lookoutreact.Hooks
}

func newAgent(t testing.TB, s agentSpec) reactAgent {
	t.Helper()
	ctx := context.Background()
	cfg := &react.AgentConfig{
		ToolCallingModel: s.model,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: s.tools},
		MessageModifier:  s.modifier,
		MaxStep:          s.maxStep,
	}
	if s.readWholeStream {
		cfg.StreamToolCallChecker = func(_ context.Context, sr *schema.StreamReader[*schema.Message]) (bool, error) {
			msg, err := concat(sr)
			return err == nil && len(msg.ToolCalls) > 0, err
		}
	}
	if cfg.MaxStep == 0 {
		cfg.MaxStep = 40
	}
	l := s.lookout
	if !s.bare {
		if l == nil {
			var err error
			l, err = lookoutreact.New(context.Background(), s.cfg)
			require.NoError(t, err)
		}
		cfg.ToolCallingModel = l.WrapModel(s.model)
		cfg.ToolsConfig.ToolCallMiddlewares = []compose.ToolMiddleware{l.ToolMiddleware()}
	}
	a, err := react.NewAgent(ctx, cfg)
	require.NoError(t, err)
	if s.bare {
		return reactAgent{Generator: a, raw: a}
	}
	return reactAgent{Generator: l.Agent(a), raw: a, lookout: l}
}

// outcome is what a run produced.
type outcome struct {
	out *schema.Message
	err error
}

// run runs the agent on one user message with store (if any) on the ctx,
// through Generate or, when streaming, through Stream read to its end.
func (a reactAgent) run(t testing.TB, store *session.Store, streaming bool, opts ...agent.AgentOption) outcome {
	t.Helper()
	ctx := context.Background()
	if store != nil {
		ctx = session.NewContext(ctx, store)
	}
	return a.runCtx(ctx, streaming, opts...)
}

func (a reactAgent) runCtx(ctx context.Context, streaming bool, opts ...agent.AgentOption) outcome {
	return a.runQuery(ctx, "do the task", streaming, opts...)
}

// runQuery runs the agent on query with ctx, through the Lookout unless
// the agent is bare.
func (a reactAgent) runQuery(ctx context.Context, query string, streaming bool, opts ...agent.AgentOption) outcome {
	input := []*schema.Message{schema.UserMessage(query)}
	if !streaming {
		out, err := a.Generate(ctx, input, opts...)
		return outcome{out: out, err: err}
	}
	sr, err := a.Stream(ctx, input, opts...)
	if err != nil {
		return outcome{err: err}
	}
	out, err := concat(sr)
	return outcome{out: out, err: err}
}

func concat(sr *schema.StreamReader[*schema.Message]) (*schema.Message, error) {
	defer sr.Close()
	var chunks []*schema.Message
	for {
		c, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, c)
	}
	return schema.ConcatMessages(chunks)
}

var (
	toolMessages = adaptertest.ToolMessages
	everyCall    = adaptertest.EveryCall
)

func callArgs(i int) string { return fmt.Sprintf(`{"n":%d}`, i) }

// errorLog collects the errors given to Config.OnError.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (e *errorLog) OnError(_ context.Context, err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
}

func (e *errorLog) all() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.errs...)
}

// runInput runs one shared scenario's run on a react agent with Lookout's
// model wrapper and tool middleware, run through Hooks.Agent.
func runInput(t testing.TB, in drivetest.Input) drivetest.Outcome {
	t.Helper()
	o := newAgent(t, agentSpec{model: in.Model, tools: in.Tools, cfg: in.Config, readWholeStream: in.TextThenCalls}).
		runQuery(in.Ctx, in.Query, in.Mode.Streaming())
	return drivetest.Outcome{Final: o.out, Err: o.err}
}

// newRecorder returns a Recorder over a new MemorySink, closed when the
// test ends.
func newRecorder(t testing.TB) (*recorder.Recorder, *recorder.MemorySink) {
	t.Helper()
	sink := recorder.NewMemorySink()
	return adaptertest.NewRecorder(t, sink, nil), sink
}

// flushed flushes rec and returns sink's records, checking that the last
// is the run_ended of a root run: a run's end is queued before Generate
// returns or its stream reports its end, so one Flush is all it takes.
func flushed(t testing.TB, rec *recorder.Recorder, sink *recorder.MemorySink) []recorder.Record {
	t.Helper()
	require.NoError(t, rec.Flush(context.Background()))
	recs := sink.Records()
	require.NotEmpty(t, recs)
	last := recs[len(recs)-1]
	_, ok := last.Payload.(*recorder.RunEnded)
	require.True(t, ok, "the last record is run_ended, not %s", last.Kind())
	require.Empty(t, last.ParentRunID, "of the root run")
	return recs
}

// started starts a run of l by hand, as Hooks.Agent does, and returns
// the ctx that carries it. The run ends when the test does.
func started(t testing.TB, l *lookoutreact.Hooks) context.Context {
	t.Helper()
	ctx, run, err := l.Lookout().Start(context.Background(), drive.StartOptions{})
	require.NoError(t, err)
	require.NotNil(t, run)
	t.Cleanup(func() { run.End(context.Background(), nil) })
	return ctx
}
