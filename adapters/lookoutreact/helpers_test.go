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

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
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
	cfg      *lookoutreact.Config
	lookout  *lookoutreact.Lookout // used instead of cfg when set
	bare     bool                  // no Lookout at all
	modifier react.MessageModifier
	maxStep  int
	// readWholeStream replaces react's default stream tool-call checker,
	// which decides from the first chunk, so replies with text before
	// their tool calls work when streaming.
	readWholeStream bool
}

// reactAgent is a react agent and the Lookout wired into it.
type reactAgent struct {
	*react.Agent
	lookout *lookoutreact.Lookout
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
			l, err = lookoutreact.New(s.cfg)
			require.NoError(t, err)
		}
		cfg.ToolCallingModel = l.WrapModel(s.model)
		cfg.ToolsConfig.ToolCallMiddlewares = []compose.ToolMiddleware{l.ToolMiddleware()}
	}
	a, err := react.NewAgent(ctx, cfg)
	require.NoError(t, err)
	return reactAgent{Agent: a, lookout: l}
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

// runQuery runs the agent on query with ctx, with the Lookout's run option.
func (a reactAgent) runQuery(ctx context.Context, query string, streaming bool, opts ...agent.AgentOption) outcome {
	if a.lookout != nil {
		opts = append([]agent.AgentOption{a.lookout.AgentOption()}, opts...)
	}
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
// model wrapper, tool middleware and run option.
func runInput(t testing.TB, in adaptertest.Input) adaptertest.Outcome {
	t.Helper()
	o := newAgent(t, agentSpec{model: in.Model, tools: in.Tools, cfg: in.Config, readWholeStream: in.TextThenCalls}).
		runQuery(in.Ctx, in.Query, in.Mode.Streaming())
	return adaptertest.Outcome{Final: o.out, Err: o.err}
}
