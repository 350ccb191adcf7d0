package otelexport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/adk/prebuilt/planexecute"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
)

// The shapes of the adapters' scenario suite, recorded as a program
// records them, for the export to be checked against the conventions.

// scenarioModel is the model every scenario's agents are configured
// with.
const scenarioModel = "gpt-4o-mini"

// modelFor makes the chat model that plays turns: the scripted model
// itself, or eino-ext's OpenAI client talking to it on loopback.
type modelFor func(t *testing.T, turns ...scripted.Turn) model.ToolCallingChatModel

func scriptedModel(_ *testing.T, turns ...scripted.Turn) model.ToolCallingChatModel {
	return scripted.New(turns...)
}

func openAIModel(t *testing.T, turns ...scripted.Turn) model.ToolCallingChatModel {
	t.Helper()
	srv := scripted.NewOpenAIServer(scripted.New(turns...))
	t.Cleanup(srv.Close)
	m, err := einoopenai.NewChatModel(context.Background(), &einoopenai.ChatModelConfig{BaseURL: srv.BaseURL(), APIKey: "test", Model: scenarioModel})
	require.NoError(t, err)
	return m
}

// adkShape builds a query's agents, each with mw, their models made by mk.
type adkShape func(t *testing.T, mw *lookoutadk.Middleware, mk modelFor) adk.Agent

// scenarios are the ADK shapes by name.
var scenarios = map[string]adkShape{
	"supervisor":    supervisorShape,
	"sequential":    workflowShape("sequential"),
	"loop":          workflowShape("loop"),
	"parallel":      workflowShape("parallel"),
	"plan-execute":  planExecuteShape,
	"deep":          deepShape,
	"agent-as-tool": agentAsToolShape,
}

// search is a tool that fails on its first call and answers after.
func search() tool.BaseTool {
	calls := 0
	return fnTool{name: "search", fn: func(string) (string, error) {
		calls++
		if calls == 1 {
			return "", errors.New("search backend timed out")
		}
		return "Go ships every six months.", nil
	}}
}

func supervisorShape(t *testing.T, mw *lookoutadk.Middleware, mk modelFor) adk.Agent {
	transfer := func(to string) scripted.Turn {
		return scripted.Call(adk.TransferToAgentToolName, `{"agent_name":"`+to+`"}`).WithUsage(100, 10)
	}
	lead := newAgent(t, mw, "lead", mk(t, transfer("researcher"), transfer("writer"), scripted.Reply("Done.").WithUsage(150, 15)))
	researcher := newAgent(t, mw, "researcher", mk(t,
		scripted.Call("search", `{"q":"go"}`).WithUsage(200, 20),
		scripted.Call("search", `{"q":"go, again"}`).WithUsage(220, 20),
		scripted.Reply("Every six months.").WithUsage(300, 40),
	), search())
	writer := newAgent(t, mw, "writer", mk(t, scripted.Reply("Go ships twice a year.").WithUsage(100, 10)))
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher, writer}})
	require.NoError(t, err)
	return root
}

func workflowShape(kind string) adkShape {
	return func(t *testing.T, mw *lookoutadk.Middleware, mk modelFor) adk.Agent {
		ctx := context.Background()
		first := newAgent(t, mw, "first", mk(t,
			scripted.Call("search", `{"q":"a"}`).WithUsage(100, 10),
			scripted.Reply("step one").WithUsage(120, 12),
		), search())
		second := newAgent(t, mw, "second", mk(t, scripted.Reply("step two").WithUsage(200, 20)))
		subs := []adk.Agent{first, second}
		var root adk.Agent
		var err error
		switch kind {
		case "sequential":
			root, err = adk.NewSequentialAgent(ctx, &adk.SequentialAgentConfig{Name: "pipeline", SubAgents: subs})
		case "loop":
			root, err = adk.NewLoopAgent(ctx, &adk.LoopAgentConfig{Name: "loop", SubAgents: subs, MaxIterations: 1})
		default:
			root, err = adk.NewParallelAgent(ctx, &adk.ParallelAgentConfig{Name: "fanout", SubAgents: subs})
		}
		require.NoError(t, err)
		return root
	}
}

func planExecuteShape(t *testing.T, mw *lookoutadk.Middleware, mk modelFor) adk.Agent {
	ctx := context.Background()
	plan := func(steps ...string) scripted.Turn {
		b, _ := json.Marshal(map[string][]string{"steps": steps})
		return scripted.Call(planexecute.PlanToolInfo.Name, string(b)).WithUsage(500, 50)
	}
	planner, err := planexecute.NewPlanner(ctx, &planexecute.PlannerConfig{ToolCallingChatModel: mw.Model(mk(t, plan("look it up")))})
	require.NoError(t, err)
	replanner, err := planexecute.NewReplanner(ctx, &planexecute.ReplannerConfig{ChatModel: mw.Model(mk(t,
		scripted.Call(planexecute.RespondToolInfo.Name, `{"response":"here it is"}`).WithUsage(500, 50)))})
	require.NoError(t, err)
	// The executor built as planexecute.NewExecutor builds it, with the
	// middleware, which its config cannot carry.
	executor, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "executor", Description: "an executor agent", Model: mk(t,
			scripted.Call("search", `{"q":"it"}`).WithUsage(200, 20),
			scripted.Reply("looked it up").WithUsage(210, 21)),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{search()}}},
		GenModelInput: func(ctx context.Context, _ string, _ *adk.AgentInput) ([]adk.Message, error) {
			p, _ := adk.GetSessionValue(ctx, planexecute.PlanSessionKey)
			if p, ok := p.(planexecute.Plan); ok {
				return []adk.Message{schema.UserMessage("Execute: " + p.FirstStep())}, nil
			}
			return nil, errors.New("no plan in the session")
		},
		OutputKey: planexecute.ExecutedStepSessionKey,
		Handlers:  []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	root, err := planexecute.New(ctx, &planexecute.Config{Planner: planner, Executor: executor, Replanner: replanner})
	require.NoError(t, err)
	return root
}

func deepShape(t *testing.T, mw *lookoutadk.Middleware, mk modelFor) adk.Agent {
	m := mk(t,
		scripted.Call("write_todos", `{"todos":[{"content":"look it up","activeForm":"looking it up","status":"in_progress"}]}`).WithUsage(100, 10),
		scripted.Call("task", `{"subagent_type":"general-purpose","description":"look it up"}`).WithUsage(200, 20),
		// The general-purpose sub-agent, inside the task tool.
		scripted.Call("search", `{"q":"it"}`).WithUsage(300, 30),
		scripted.Reply("found it").WithUsage(400, 40),
		// The deep agent again.
		scripted.Reply("all done").WithUsage(500, 50),
	)
	a, err := deep.New(context.Background(), &deep.Config{
		Name: "deep", Description: "a deep agent", ChatModel: m,
		ToolsConfig:  adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{search()}}},
		MaxIteration: 10,
		Handlers:     []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	return a
}

func agentAsToolShape(t *testing.T, mw *lookoutadk.Middleware, mk modelFor) adk.Agent {
	researcher := newAgent(t, mw, "researcher", mk(t,
		scripted.Call("search", `{"q":"go release cycle"}`).WithUsage(200, 20),
		scripted.Reply("Every six months.").WithoutUsage(),
	), search())
	return newAgent(t, mw, "lead", mk(t,
		scripted.Call("researcher", `{"request":"how often does Go ship?"}`).WithUsage(300, 30),
		scripted.Reply("Go ships twice a year.").WithUsage(500, 40),
	), adk.NewAgentTool(context.Background(), researcher))
}

// scenarioConfig is the configuration every scenario runs with.
func scenarioConfig(t *testing.T, rec *recorder.Recorder) *lookout.Config {
	return &lookout.Config{
		Limits:     budget.Limits{MaxTokens: 100_000, Timeout: time.Hour},
		Recorder:   rec,
		Agent:      lookout.AgentInfo{Model: scenarioModel, Version: "1.0.0"},
		ToolErrors: lookout.ToolErrorsAsMessages,
		OnError:    func(_ context.Context, err error) { t.Errorf("lookout: %v", err) },
	}
}

// recordADK runs a query on shape, streamed or not, and returns its
// records once its root run has ended.
func recordADK(t *testing.T, shape adkShape, mk modelFor, streaming bool) []recorder.Record {
	t.Helper()
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	mw, err := lookoutadk.New(ctx, scenarioConfig(t, rec))
	require.NoError(t, err)
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(shape(t, mw, mk)), EnableStreaming: streaming})
	iter := runner.Query(ctx, "How often does Go ship?")
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			_, err := ev.Output.MessageOutput.GetMessage() // reads a stream to its end
			require.NoError(t, err)
		}
	}
	return closed(t, rec, sink)
}

// closed waits for the root's run_ended, which an adapter may write just
// after the query's output, closes the Recorder and returns its records.
func closed(t *testing.T, rec *recorder.Recorder, sink *recorder.MemorySink) []recorder.Record {
	t.Helper()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		if err := rec.Flush(ctx); err != nil {
			return false
		}
		records := sink.Records()
		return len(records) > 0 && records[len(records)-1].Kind() == recorder.KindRunEnded && records[len(records)-1].ParentRunID == ""
	}, 10*time.Second, time.Millisecond)
	require.NoError(t, rec.Close(ctx))
	return sink.Records()
}

// recordReact runs a react agent, through lookoutreact, whose model calls
// a tool served by an MCP server and a local one.
func recordReact(t *testing.T, mk modelFor, streaming bool) []recorder.Record {
	t.Helper()
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	h, err := lookoutreact.New(ctx, scenarioConfig(t, rec))
	require.NoError(t, err)
	m := mk(t,
		scripted.Call("weather_forecast", `{"city":"Lisbon"}`).Call("search", `{"q":"tides"}`).WithUsage(100, 10),
		scripted.Call("search", `{"q":"tides, again"}`).WithUsage(150, 10),
		scripted.Reply("Sunny, and the tides are fine.").WithUsage(200, 20),
	)
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: h.WrapModel(m),
		ToolsConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{weatherTool(t), search()},
			ToolCallMiddlewares: []compose.ToolMiddleware{h.ToolMiddleware()},
		},
	})
	require.NoError(t, err)
	in := []*schema.Message{schema.UserMessage("Weather and tides in Lisbon?")}
	if streaming {
		sr, err := h.Agent(agent).Stream(ctx, in)
		require.NoError(t, err)
		for {
			if _, err := sr.Recv(); err != nil {
				break
			}
		}
		sr.Close()
	} else {
		_, err = h.Agent(agent).Generate(ctx, in)
		require.NoError(t, err)
	}
	return closed(t, rec, sink)
}

// mcpTool is a tool of an MCP server, adapted to Eino as eino-ext's
// officialmcp adapter adapts it: its info names the server and the
// tool's name there.
type mcpTool struct {
	cs     *mcp.ClientSession
	server string
	name   string
}

// weatherTool serves forecast from an MCP server named weather, over an
// in-memory transport, as the Eino tool weather_forecast.
func weatherTool(t *testing.T) tool.BaseTool {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	type in struct {
		City string `json:"city"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "forecast", Description: "the forecast for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + a.City}}}, nil, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lookout-test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return mcpTool{cs: cs, server: cs.InitializeResult().ServerInfo.Name, name: "forecast"}
}

func (m mcpTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: m.server + "_" + m.name, Desc: "the forecast for a city",
		Extra: map[string]any{lookout.EinoExtMCPServerKey: m.server, lookout.EinoExtMCPToolKey: m.name},
	}, nil
}

func (m mcpTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: m.name, Arguments: json.RawMessage(args)})
	if err != nil {
		return "", err
	}
	if !res.IsError && len(res.Content) > 0 {
		if text, ok := res.Content[0].(*mcp.TextContent); ok {
			return text.Text, nil
		}
	}
	return "", fmt.Errorf("forecast failed: %v", res.Content)
}
