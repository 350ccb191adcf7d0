package lookoutadk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/adk/prebuilt/planexecute"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
)

// build makes the agents of one shape. With a nil mw it builds them bare:
// no middleware in any Handlers and no model wrapped.
type build struct {
	t  *testing.T
	mw *lookoutadk.Middleware
}

func (b build) handlers() []adk.ChatModelAgentMiddleware {
	if b.mw == nil {
		return nil
	}
	return []adk.ChatModelAgentMiddleware{b.mw}
}

func (b build) model(m *scripted.Model) model.ToolCallingChatModel {
	if b.mw == nil {
		return m
	}
	return b.mw.Model(m)
}

func (b build) agent(cfg adk.ChatModelAgentConfig) *adk.ChatModelAgent {
	b.t.Helper()
	if cfg.Description == "" {
		cfg.Description = "the " + cfg.Name + " agent"
	}
	if cfg.Instruction == "" {
		cfg.Instruction = "You are the " + cfg.Name + " agent."
	}
	cfg.Handlers = append(cfg.Handlers, b.handlers()...)
	a, err := adk.NewChatModelAgent(context.Background(), &cfg)
	require.NoError(b.t, err)
	return a
}

func (b build) simple(name string, m *scripted.Model, tools ...tool.BaseTool) *adk.ChatModelAgent {
	return b.agent(adk.ChatModelAgentConfig{Name: name, Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}}})
}

// transparentShape is one agent shape, built afresh for each run so that
// both runs play the same scripts.
type transparentShape struct {
	name string
	// byAgent compares each agent's events apart, for shapes whose agents
	// run at the same time.
	byAgent bool
	// rootTwice says that, wrapped, the run paths start with the root's
	// name twice: a root made with adk.SetSubAgents is one of Eino's flow
	// agents, which the Runner takes as it is but would wrap once
	// Lookout's wrapper is around it. Eino's own supervisor.New wraps its
	// root the same way, and its run paths start with the name twice
	// without Lookout too.
	rootTwice bool
	build     func(b build) adk.Agent
}

var errBranchDown = errors.New("branch model unavailable")

func transparentShapes() []transparentShape {
	ctx := context.Background()
	return []transparentShape{
		{name: "a single agent", build: func(b build) adk.Agent {
			return b.simple("solo", scripted.New(scripted.Call("search", `{"q":"x"}`), scripted.Reply("found x")), echo("search"))
		}},
		{name: "a supervisor with transfers", build: func(b build) adk.Agent {
			lead := b.simple("lead", scripted.New(
				scripted.Calls(transferTo("researcher")),
				scripted.Calls(transferTo("writer")),
				scripted.Reply("all done"),
			))
			researcher := b.simple("researcher", scripted.New(scripted.Call("search", `{"q":"x"}`), scripted.Reply("found x")), echo("search"))
			writer := b.simple("writer", scripted.New(scripted.Reply("wrote it")))
			root, err := supervisor.New(ctx, &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher, writer}})
			require.NoError(b.t, err)
			return root
		}},
		{name: "sub-agents set with SetSubAgents", rootTwice: true, build: func(b build) adk.Agent {
			lead := b.simple("lead", scripted.New(scripted.Calls(transferTo("helper"))))
			helper := b.simple("helper", scripted.New(scripted.Reply("helped")))
			root, err := adk.SetSubAgents(ctx, lead, []adk.Agent{helper})
			require.NoError(b.t, err)
			return root
		}},
		{name: "a supervisor whose sub-agent fails", build: func(b build) adk.Agent {
			lead := b.simple("lead", scripted.New(scripted.Calls(transferTo("worker")), scripted.Reply("the worker failed")))
			worker := b.simple("worker", scripted.New(scripted.Fail(errModelDown)))
			root, err := supervisor.New(ctx, &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{worker}})
			require.NoError(b.t, err)
			return root
		}},
		{name: "nested supervisors", build: func(b build) adk.Agent {
			teamLead := b.simple("team_lead", scripted.New(scripted.Calls(transferTo("worker")), scripted.Reply("team done")))
			worker := b.simple("worker", scripted.New(scripted.Call("search", `{"q":"y"}`), scripted.Reply("found y")), echo("search"))
			team, err := supervisor.New(ctx, &supervisor.Config{Supervisor: teamLead, SubAgents: []adk.Agent{worker}})
			require.NoError(b.t, err)
			lead := b.simple("lead", scripted.New(scripted.Calls(transferTo("team_lead")), scripted.Reply("all done")))
			root, err := supervisor.New(ctx, &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{team}})
			require.NoError(b.t, err)
			return root
		}},
		{name: "a sequential workflow", build: func(b build) adk.Agent {
			first := b.simple("first", scripted.New(scripted.Reply("step one")))
			second := b.simple("second", scripted.New(scripted.Call("search", `{}`), scripted.Reply("step two")), echo("search"))
			root, err := adk.NewSequentialAgent(ctx, &adk.SequentialAgentConfig{Name: "pipeline", Description: "runs in turn", SubAgents: []adk.Agent{first, second}})
			require.NoError(b.t, err)
			return root
		}},
		{name: "a loop that exits", build: func(b build) adk.Agent {
			worker := b.agent(adk.ChatModelAgentConfig{Name: "worker", Exit: &adk.ExitTool{}, Model: scripted.New(
				scripted.Reply("still working"),
				scripted.Call("exit", `{"final_result":"finished"}`),
			)})
			root, err := adk.NewLoopAgent(ctx, &adk.LoopAgentConfig{Name: "loop", Description: "repeats", SubAgents: []adk.Agent{worker}, MaxIterations: 5})
			require.NoError(b.t, err)
			return root
		}},
		{name: "a parallel workflow", byAgent: true, build: func(b build) adk.Agent {
			a := b.simple("a", scripted.New(scripted.Call("search", `{"q":"a"}`), scripted.Reply("a done")), echo("search"))
			bb := b.simple("b", scripted.New(scripted.Reply("b done")))
			c := b.simple("c", scripted.New(scripted.Call("search", `{"q":"c"}`), scripted.Reply("c done")), echo("search"))
			root, err := adk.NewParallelAgent(ctx, &adk.ParallelAgentConfig{Name: "fanout", Description: "fans out", SubAgents: []adk.Agent{a, bb, c}})
			require.NoError(b.t, err)
			return root
		}},
		{name: "a parallel workflow with a failing branch", byAgent: true, build: func(b build) adk.Agent {
			a := b.simple("a", scripted.New(scripted.Call("search", `{"q":"a"}`), scripted.Reply("a done")), echo("search"))
			bb := b.simple("b", scripted.New(scripted.Fail(errBranchDown)))
			c := b.simple("c", scripted.New(scripted.Reply("c done")))
			root, err := adk.NewParallelAgent(ctx, &adk.ParallelAgentConfig{Name: "fanout", Description: "fans out", SubAgents: []adk.Agent{a, bb, c}})
			require.NoError(b.t, err)
			return root
		}},
		{name: "a plan-execute agent", build: func(b build) adk.Agent {
			planner, err := planexecute.NewPlanner(ctx, &planexecute.PlannerConfig{
				ToolCallingChatModel: b.model(scripted.New(planCall("look it up", "write it down"))),
			})
			require.NoError(b.t, err)
			replanner, err := planexecute.NewReplanner(ctx, &planexecute.ReplannerConfig{
				ChatModel: b.model(scripted.New(planCall("write it down"), respondCall("here it is"))),
			})
			require.NoError(b.t, err)
			executor := b.agent(adk.ChatModelAgentConfig{Name: "executor",
				Model:       scripted.New(scripted.Call("search", `{"q":"it"}`), scripted.Reply("looked it up"), scripted.Reply("wrote it down")),
				ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
				GenModelInput: func(ctx context.Context, _ string, _ *adk.AgentInput) ([]adk.Message, error) {
					plan, _ := adk.GetSessionValue(ctx, planexecute.PlanSessionKey)
					p, ok := plan.(planexecute.Plan)
					if !ok {
						return nil, errors.New("no plan in the session")
					}
					return []adk.Message{schema.UserMessage("Execute the first step: " + p.FirstStep())}, nil
				},
				OutputKey: planexecute.ExecutedStepSessionKey,
			})
			root, err := planexecute.New(ctx, &planexecute.Config{Planner: planner, Executor: executor, Replanner: replanner})
			require.NoError(b.t, err)
			return root
		}},
		{name: "a deep agent", build: func(b build) adk.Agent {
			root, err := deep.New(ctx, &deep.Config{
				Name: "deep", Description: "a deep agent", MaxIteration: 10, Handlers: b.handlers(),
				ChatModel: scripted.New(
					scripted.Call("write_todos", todos),
					taskCall("look it up"),
					scripted.Call("search", `{"q":"it"}`), // the general-purpose sub-agent
					scripted.Reply("found it"),
					scripted.Reply("all done"), // the deep agent again
				),
				ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
			})
			require.NoError(b.t, err)
			return root
		}},
		{name: "an agent used as a tool", build: func(b build) adk.Agent {
			helper := b.simple("helper", scripted.New(scripted.Call("search", `{"q":"z"}`), scripted.Reply("found z")), echo("search"))
			return b.agent(adk.ChatModelAgentConfig{Name: "parent",
				Model: scripted.New(scripted.Call("helper", `{"request":"find z"}`), scripted.Reply("z is found")),
				ToolsConfig: adk.ToolsConfig{
					ToolsNodeConfig:    compose.ToolsNodeConfig{Tools: []tool.BaseTool{adk.NewAgentTool(ctx, helper)}},
					EmitInternalEvents: true,
				},
			})
		}},
		{name: "an agent used as a tool whose model fails", build: func(b build) adk.Agent {
			// Without Lookout the tool's error ends the query; with it, by
			// default, too.
			helper := b.simple("helper", scripted.New(scripted.Fail(errModelDown)))
			return b.agent(adk.ChatModelAgentConfig{Name: "parent",
				Model: scripted.New(scripted.Call("helper", `{"request":"find z"}`), scripted.Reply("final report")),
				ToolsConfig: adk.ToolsConfig{
					ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{adk.NewAgentTool(ctx, helper)}},
				},
			})
		}},
	}
}

// The Runner's events (agent, run path, error or not, action, message)
// are the same, in the same order, with Lookout attached and without it,
// for every agent shape, streaming or not. Agents that run at the same
// time are compared one agent at a time. A query that fails goes on as
// Eino takes it on after the error.
func TestLookoutLeavesTheRunnersEventsAsTheyAre(t *testing.T) {
	for _, sh := range transparentShapes() {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, streaming=%v", sh.name, streaming), func(t *testing.T) {
				bare := runShape(t, sh, nil, streaming)
				rec := recorder.New(recorder.NewMemorySink(), nil)
				t.Cleanup(func() { _ = rec.Close(context.Background()) })
				mw, err := lookoutadk.New(context.Background(), &lookout.Config{Recorder: rec, OnError: func(context.Context, error) {}})
				require.NoError(t, err)
				with := runShape(t, sh, mw, streaming)
				require.NotEmpty(t, bare)
				if sh.rootTwice {
					for i := range bare {
						root, _, _ := strings.Cut(strings.Trim(bare[i].Path, "[]"), " ")
						bare[i].Path = "[" + root + " " + strings.TrimPrefix(bare[i].Path, "[")
					}
				}
				if sh.byAgent {
					assert.Equal(t, byAgentName(bare), byAgentName(with))
					return
				}
				assert.Equal(t, bare, with)
			})
		}
	}
}

// runShape builds sh and runs a query on it, wrapped by mw.Agent when mw
// is set, and describes each event the Runner gives.
func runShape(t *testing.T, sh transparentShape, mw *lookoutadk.Middleware, streaming bool) []eventLine {
	t.Helper()
	root := sh.build(build{t: t, mw: mw})
	if mw != nil {
		root = mw.Agent(root)
	}
	ctx := context.Background()
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: root, EnableStreaming: streaming}).Query(ctx, "do the task")
	var lines []eventLine
	for {
		ev, ok := iter.Next()
		if !ok {
			return lines
		}
		lines = append(lines, describe(ev))
	}
}

// eventLine is what an event says, as a program reading the Runner sees
// it.
type eventLine struct {
	Agent   string
	Path    string
	Err     bool
	Action  string
	Message string
}

func describe(ev *adk.AgentEvent) eventLine {
	steps := make([]string, len(ev.RunPath))
	for i := range ev.RunPath {
		steps[i] = ev.RunPath[i].String()
	}
	l := eventLine{Agent: ev.AgentName, Path: "[" + strings.Join(steps, " ") + "]", Err: ev.Err != nil}
	if a := ev.Action; a != nil {
		switch {
		case a.Exit:
			l.Action = "exit"
		case a.TransferToAgent != nil:
			l.Action = "transfer to " + a.TransferToAgent.DestAgentName
		case a.BreakLoop != nil:
			l.Action = "break loop"
		case a.Interrupted != nil:
			l.Action = "interrupted"
		case a.CustomizedAction != nil:
			l.Action = "customized"
		}
	}
	if ev.Output != nil && ev.Output.MessageOutput != nil {
		if m, err := ev.Output.MessageOutput.GetMessage(); err == nil && m != nil {
			l.Message = string(m.Role) + ": " + m.Content
			for _, c := range m.ToolCalls {
				l.Message += " call " + c.Function.Name + c.Function.Arguments
			}
		}
	}
	return l
}

// byAgentName splits lines by the agent that sent them, keeping each
// agent's order.
func byAgentName(lines []eventLine) map[string][]eventLine {
	out := map[string][]eventLine{}
	for _, l := range lines {
		out[l.Agent] = append(out[l.Agent], l)
	}
	return out
}
