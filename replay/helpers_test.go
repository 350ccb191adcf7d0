package replay_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// fnTool is a tool backed by a function of its arguments.
type fnTool struct {
	name string
	fn   func(ctx context.Context, args string) (string, error)
}

func (t fnTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: t.name, Desc: "the " + t.name + " tool"}, nil
}

func (t fnTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	return t.fn(ctx, args)
}

// echo answers with its name and arguments.
func echo(name string) fnTool {
	return fnTool{name: name, fn: func(_ context.Context, args string) (string, error) { return name + " " + args, nil }}
}

// failing always fails.
func failing(name, msg string) fnTool {
	return fnTool{name: name, fn: func(context.Context, string) (string, error) { return "", errors.New(msg) }}
}

// newWorld makes a world whose agents share one Lookout middleware,
// configured by config(rec, now).
func newWorld(t testing.TB, rec *recorder.Recorder, now func() time.Time, models func(string) model.ToolCallingChatModel, tools func([]tool.BaseTool) []tool.BaseTool) *world {
	t.Helper()
	mw, err := lookoutadk.New(context.Background(), config(rec, now))
	require.NoError(t, err)
	return &world{mw: mw, model: models, tools: tools}
}

// every gives every agent chat.
func every(chat model.ToolCallingChatModel) func(string) model.ToolCallingChatModel {
	return func(string) model.ToolCallingChatModel { return chat }
}

// unwrapped leaves an agent's tools as they are.
func unwrapped(ts []tool.BaseTool) []tool.BaseTool { return ts }

// queryAndResume runs a query on agent that an interrupt stops, resumes
// it, and returns what the resumed run did.
func queryAndResume(t testing.TB, w *world, agent adk.Agent, query string) outcome {
	t.Helper()
	ctx := context.Background()
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: w.mw.Agent(agent), CheckPointStore: &memStore{}})
	first := drain(runner.Query(ctx, query, adk.WithCheckPointID("c1")))
	require.NoError(t, first.err)
	iter, err := runner.Resume(ctx, "c1")
	require.NoError(t, err)
	return drain(iter)
}

// world is how a test builds its agent, once to record it and once to
// replay it: models gives each agent its model, tools wraps each agent's
// tools.
type world struct {
	mw    *lookoutadk.Middleware
	model func(name string) model.ToolCallingChatModel
	tools func([]tool.BaseTool) []tool.BaseTool
}

func (w *world) agent(t testing.TB, name, instruction string, tools ...tool.BaseTool) adk.Agent {
	t.Helper()
	cfg := &adk.ChatModelAgentConfig{
		Name: name, Description: "the " + name + " agent", Instruction: instruction,
		Model:    w.model(name),
		Handlers: []adk.ChatModelAgentMiddleware{w.mw},
	}
	if len(tools) > 0 {
		cfg.ToolsConfig = adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: w.tools(tools)}}
	}
	a, err := adk.NewChatModelAgent(context.Background(), cfg)
	require.NoError(t, err)
	return a
}

// config is the Lookout configuration of every test: observers that
// speak after every call, so assessments are part of what replays.
func config(rec *recorder.Recorder, now func() time.Time) *lookout.Config {
	return &lookout.Config{
		Recorder:   rec,
		Now:        now,
		ToolErrors: lookout.ToolErrorsAsMessages,
		Limits:     budget.Limits{MaxTokens: 100_000, MaxToolCalls: 50, Timeout: time.Hour},
		Observers: []observer.Spec{
			{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}},
			{Observer: cascade.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		},
	}
}

// outcome is what a query did.
type outcome struct {
	final string
	err   error
	tools []string // tool results, in the order their events came
}

func drain(iter *adk.AsyncIterator[*adk.AgentEvent]) outcome {
	var o outcome
	for {
		ev, ok := iter.Next()
		if !ok {
			return o
		}
		if ev.Err != nil {
			o.err = ev.Err
			continue
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		if err != nil || msg == nil {
			continue
		}
		switch {
		case msg.Role == schema.Assistant && len(msg.ToolCalls) == 0:
			o.final = msg.Content
		case msg.Role == schema.Tool:
			o.tools = append(o.tools, msg.ToolName+": "+msg.Content)
		}
	}
}

// record runs build on scripted models and returns the recording.
func record(t testing.TB, models map[string]model.ToolCallingChatModel, build func(*world) adk.Agent, query string) ([]recorder.Record, outcome) {
	t.Helper()
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	w := newWorld(t, rec, nil, func(name string) model.ToolCallingChatModel {
		m, ok := models[name]
		require.True(t, ok, "no model for agent %s", name)
		return m
	}, unwrapped)
	o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: w.mw.Agent(build(w))}).Query(ctx, query))
	require.NoError(t, rec.Close(ctx))
	return sink.Records(), o
}

// replayed runs build on the cassette's model, with the tools named in
// live run live and the others answered from the recording.
func replayed(t testing.TB, c *replay.Cassette, build func(*world) adk.Agent, query string, live ...string) outcome {
	return replayedOn(t, c, build, query, nil, live)
}

// replayedWith runs build on the cassette as a test that uses Open
// does: its model, its tools, its recorder and its clock.
func replayedWith(t testing.TB, c *replay.Cassette, build func(*world) adk.Agent) outcome {
	return replayedOn(t, c, build, "deploy billing", c.Recorder(), nil)
}

func replayedOn(t testing.TB, c *replay.Cassette, build func(*world) adk.Agent, query string, rec *recorder.Recorder, live []string) outcome {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t, rec, c.Now, every(c.Model()), func(ts []tool.BaseTool) []tool.BaseTool {
		out, err := c.Tools(ctx, ts, live...)
		require.NoError(t, err)
		return out
	})
	return drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: w.mw.Agent(build(w))}).Query(ctx, query))
}

// divergence returns the *replay.DivergenceError err holds.
func divergence(t testing.TB, err error) *replay.DivergenceError {
	t.Helper()
	var d *replay.DivergenceError
	require.ErrorAs(t, err, &d)
	require.ErrorIs(t, err, replay.ErrDiverged)
	return d
}

// must fails the test if a live tool is called.
func must(name string, t testing.TB) fnTool {
	return fnTool{name: name, fn: func(context.Context, string) (string, error) {
		t.Errorf("tool %s ran live", name)
		return "", errors.New("ran live")
	}}
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
