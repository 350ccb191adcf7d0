package lookoutadk_test

import (
	"context"
	"testing"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/drive/drivetest"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// fnTool is an invokable tool backed by a function.
type fnTool = adaptertest.Tool

func echo(name string) fnTool { return adaptertest.Echo(name) }

var everyCall = adaptertest.EveryCall

type agentSpec struct {
	name  string
	model model.ToolCallingChatModel
	tools []tool.BaseTool
	cfg   *lookout.Config
	bare  bool // no Lookout middleware
	// inner leaves the agent unwrapped by Middleware.Agent: it runs
	// inside an agent that is wrapped, such as a transfer target.
	inner    bool
	handlers []adk.ChatModelAgentMiddleware
	maxIter  int
}

func newAgent(t testing.TB, s agentSpec) adk.Agent {
	t.Helper()
	ctx := context.Background()
	name := s.name
	if name == "" {
		name = "worker"
	}
	cfg := &adk.ChatModelAgentConfig{
		Name: name, Description: "test agent " + name, Instruction: "You are a test agent.",
		Model:         s.model,
		MaxIterations: s.maxIter,
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: s.tools}},
	}
	cfg.Handlers = s.handlers
	if s.bare {
		agent, err := adk.NewChatModelAgent(ctx, cfg)
		require.NoError(t, err)
		return agent
	}
	mw, err := lookoutadk.New(ctx, s.cfg)
	require.NoError(t, err)
	cfg.Handlers = append(cfg.Handlers, mw)
	agent, err := adk.NewChatModelAgent(ctx, cfg)
	require.NoError(t, err)
	if s.inner {
		return agent
	}
	return mw.Agent(agent)
}

// outcome is what a run produced.
type outcome struct {
	messages []*schema.Message
	err      error
	events   []*adk.AgentEvent
}

func drain(iter *adk.AsyncIterator[*adk.AgentEvent]) outcome {
	var o outcome
	for {
		ev, ok := iter.Next()
		if !ok {
			return o
		}
		o.events = append(o.events, ev)
		if ev.Err != nil {
			o.err = ev.Err
			continue
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			if msg, err := ev.Output.MessageOutput.GetMessage(); err == nil && msg != nil {
				o.messages = append(o.messages, msg)
			}
		}
	}
}

// runAgent runs agent on a query with store on the ctx and returns what
// happened.
func runAgent(t testing.TB, agent adk.Agent, store *session.Store, streaming bool, opts ...adk.AgentRunOption) outcome {
	t.Helper()
	ctx := context.Background()
	if store != nil {
		ctx = session.NewContext(ctx, store)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming})
	o := drain(runner.Query(ctx, "do the task", opts...))
	adaptertest.Flush(t)
	return o
}

// runInput runs one shared scenario's run on a ChatModelAgent with the
// middleware, wrapped by Middleware.Agent, through an ADK Runner.
func runInput(t testing.TB, in drivetest.Input) drivetest.Outcome {
	t.Helper()
	agent := newAgent(t, agentSpec{model: in.Model, tools: in.Tools, cfg: in.Config})
	runner := adk.NewRunner(in.Ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: in.Mode.Streaming()})
	o := drain(runner.Query(in.Ctx, in.Query))
	var final *schema.Message
	if len(o.messages) > 0 {
		final = o.messages[len(o.messages)-1]
	}
	return drivetest.Outcome{Final: final, Err: o.err}
}

// flushedRecords returns sink's records once every Recorder the test made
// has delivered what it queued.
func flushedRecords(t testing.TB, sink *recorder.MemorySink) []recorder.Record {
	t.Helper()
	adaptertest.Flush(t)
	return sink.Records()
}
