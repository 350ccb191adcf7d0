package lookoutadk_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/adk/prebuilt/planexecute"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// unobservedAgents collects the agents Config.OnError reports with
// lookoutadk.ErrUnobservedAgent.
type unobservedAgents struct {
	mu    sync.Mutex
	names []string
}

func (u *unobservedAgents) onError(_ context.Context, err error) {
	if !errors.Is(err, lookoutadk.ErrUnobservedAgent) {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.names = append(u.names, err.Error())
}

func (u *unobservedAgents) list() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.names...)
}

func unobservedError(name string) string {
	return fmt.Errorf("%w: %q", lookoutadk.ErrUnobservedAgent, name).Error()
}

// planCall is the planner's or replanner's call of the plan tool.
func planCall(steps ...string) scripted.Turn {
	args := `{"steps":[`
	for i, s := range steps {
		if i > 0 {
			args += ","
		}
		args += fmt.Sprintf("%q", s)
	}
	return scripted.Calls(scripted.ToolCall{Name: planexecute.PlanToolInfo.Name, Arguments: args + `]}`})
}

// respondCall is the replanner's call of the respond tool, which ends the
// execute-replan loop.
func respondCall(answer string) scripted.Turn {
	return scripted.Calls(scripted.ToolCall{Name: planexecute.RespondToolInfo.Name, Arguments: fmt.Sprintf(`{"response":%q}`, answer)})
}

// observedExecutor is planexecute's executor built by hand, as
// planexecute.NewExecutor builds it, with the Lookout middleware in its
// Handlers: ExecutorConfig has no Handlers field, so the executor the
// package builds cannot carry the middleware.
func observedExecutor(t *testing.T, mw *lookoutadk.Middleware, m model.ToolCallingChatModel) adk.Agent {
	t.Helper()
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "executor", Description: "an executor agent", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
		GenModelInput: func(ctx context.Context, _ string, _ *adk.AgentInput) ([]adk.Message, error) {
			plan, _ := adk.GetSessionValue(ctx, planexecute.PlanSessionKey)
			p, ok := plan.(planexecute.Plan)
			if !ok {
				return nil, errors.New("no plan in the session")
			}
			b, err := p.MarshalJSON()
			if err != nil {
				return nil, err
			}
			return []adk.Message{
				schema.SystemMessage("You are an executor."),
				schema.UserMessage("Plan: " + string(b) + "\nExecute the first step: " + p.FirstStep()),
			}, nil
		},
		OutputKey: planexecute.ExecutedStepSessionKey,
		Handlers:  []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	return a
}

// A plan-execute agent built entirely by planexecute's constructors has
// no part that takes the middleware: the planner and the replanner call
// their models directly in a compose chain (they are not ChatModelAgents),
// and NewExecutor builds a ChatModelAgent but its ExecutorConfig has no
// Handlers. The query is one root run with no children; nothing is
// charged, and each agent is reported as unobserved.
func TestAPlanExecuteAgentFromItsConstructorsIsUnobserved(t *testing.T) {
	var unobserved unobservedAgents
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 100}, OnError: unobserved.onError})
	ctx := context.Background()
	planner, err := planexecute.NewPlanner(ctx, &planexecute.PlannerConfig{
		ToolCallingChatModel: scripted.New(planCall("look it up").WithUsage(400, 100)),
	})
	require.NoError(t, err)
	executor, err := planexecute.NewExecutor(ctx, &planexecute.ExecutorConfig{
		Model: scripted.New(scripted.Reply("looked it up").WithUsage(400, 100)),
	})
	require.NoError(t, err)
	replanner, err := planexecute.NewReplanner(ctx, &planexecute.ReplannerConfig{
		ChatModel: scripted.New(respondCall("here it is").WithUsage(400, 100)),
	})
	require.NoError(t, err)
	root, err := planexecute.New(ctx, &planexecute.Config{Planner: planner, Executor: executor, Replanner: replanner})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	require.NoError(t, o.err, "1500 tokens against a 100-token limit, none of them seen")
	rootName, children := runTree(t, flushedRecords(t, s.sink))
	assert.Equal(t, "plan_execute_replan", rootName)
	assert.Empty(t, children)
	if b, ok := lookout.BudgetOf(store); ok {
		assert.Zero(t, b.TokensUsed)
		assert.Zero(t, b.ModelCalls)
	}
	assert.ElementsMatch(t, []string{unobservedError("planner"), unobservedError("executor"), unobservedError("replanner")}, unobserved.list())
}

// newPlanExecute builds a plan-execute agent with planexecute's planner
// and replanner, whose models the middleware's Model wraps, and an
// executor that carries the middleware.
func newPlanExecute(t *testing.T, s *shape, planner, executor, replanner *scripted.Model) adk.Agent {
	t.Helper()
	ctx := context.Background()
	p, err := planexecute.NewPlanner(ctx, &planexecute.PlannerConfig{ToolCallingChatModel: s.mw.Model(planner)})
	require.NoError(t, err)
	r, err := planexecute.NewReplanner(ctx, &planexecute.ReplannerConfig{ChatModel: s.mw.Model(replanner)})
	require.NoError(t, err)
	root, err := planexecute.New(ctx, &planexecute.Config{Planner: p, Executor: observedExecutor(t, s.mw, executor), Replanner: r})
	require.NoError(t, err)
	return root
}

// With the executor carrying the middleware and the planner's and the
// replanner's models wrapped by Middleware.Model, a plan-execute query is
// one root run, named after the outer sequential agent, with a child run
// per execution, each named "executor"; every model call is charged, the
// planner's and the replanner's to the root, and no agent is unobserved.
func TestAPlanExecuteAgentIsOneRootWithAChildPerExecution(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			var unobserved unobservedAgents
			s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 100_000}, OnError: unobserved.onError})
			planner := scripted.New(planCall("look it up", "write it down").WithUsage(1000, 100))
			executor := scripted.New(
				scripted.Call("search", `{"q":"it"}`).WithUsage(200, 20),
				scripted.Reply("looked it up").WithUsage(210, 21),
				scripted.Reply("wrote it down").WithUsage(220, 22),
			)
			replanner := scripted.New(
				planCall("write it down").WithUsage(1000, 100),
				respondCall("here it is").WithUsage(1000, 100),
			)
			store := session.New(nil)
			o := runAgent(t, s.mw.Agent(newPlanExecute(t, s, planner, executor, replanner)), store, streaming)
			require.NoError(t, o.err)
			assert.Equal(t, 1, planner.Calls())
			assert.Equal(t, 3, executor.Calls())
			assert.Equal(t, 2, replanner.Calls())

			records := flushedRecords(t, s.sink)
			rootName, children := runTree(t, records)
			assert.Equal(t, "plan_execute_replan", rootName)
			assert.Equal(t, []string{"executor", "executor"}, children, "one child per execution, named")
			end := records[len(records)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)

			b, ok := lookout.BudgetOf(store)
			require.True(t, ok)
			assert.Equal(t, int64(1+3+2), b.ModelCalls, "the planner's, the executor's and the replanner's calls")
			assert.Equal(t, int64(1100+220+231+242+1100+1100), b.TokensUsed)
			assert.Equal(t, int64(1), b.ToolCalls)
			assert.Empty(t, unobserved.list())
		})
	}
}

// A token limit stops a plan-execute query with the typed budget error
// once its calls have spent it: the second execution's second call is
// refused.
func TestAPlanExecuteAgentsBudgetStopsTheQuery(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			var unobserved unobservedAgents
			s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 3_000}, WrapUpAt: -1, OnError: unobserved.onError})
			planner := scripted.New(planCall("look it up", "write it down").WithUsage(1000, 100))
			executor := scripted.New(
				scripted.Reply("looked it up").WithUsage(500, 100),
				scripted.Call("search", `{"q":"more"}`).WithUsage(500, 100),
				scripted.Reply("never").WithUsage(500, 100),
			)
			replanner := scripted.New(
				planCall("write it down").WithUsage(1000, 100),
				respondCall("never").WithUsage(1000, 100),
			)
			store := session.New(nil)
			o := runAgent(t, s.mw.Agent(newPlanExecute(t, s, planner, executor, replanner)), store, streaming)
			adaptertest.RequireExceeded(t, o.err, budget.Tokens)
			errs := 0
			for _, ev := range o.events {
				if ev.Err != nil {
					errs++
				}
			}
			assert.Equal(t, 1, errs, "one error event")
			assert.Equal(t, 2, executor.Calls(), "the call after the limit was not made")
			assert.Equal(t, 1, replanner.Calls(), "the query ended inside the second execution")

			records := flushedRecords(t, s.sink)
			rootName, children := runTree(t, records)
			assert.Equal(t, "plan_execute_replan", rootName)
			assert.Equal(t, []string{"executor", "executor"}, children)
			end := records[len(records)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)
			b, ok := lookout.BudgetOf(store)
			require.True(t, ok)
			assert.Equal(t, int64(1100+600+1100+600), b.TokensUsed, "the planner, one execution, the replanner, and the call that crossed the limit")
		})
	}
}

// newDeep builds a deep agent whose model (shared, as deep shares it, by
// its general-purpose sub-agent) plays m, with the middleware in its
// Handlers: deep passes them to the general-purpose sub-agent too.
func newDeep(t *testing.T, s *shape, m *scripted.Model) adk.Agent {
	t.Helper()
	a, err := deep.New(context.Background(), &deep.Config{
		Name: "deep", Description: "a deep agent", ChatModel: m,
		ToolsConfig:  adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
		MaxIteration: 10,
		Handlers:     []adk.ChatModelAgentMiddleware{s.mw},
	})
	require.NoError(t, err)
	return a
}

const todos = `{"todos":[{"content":"look it up","activeForm":"looking it up","status":"in_progress"}]}`

func taskCall(request string) scripted.Turn {
	return scripted.Call("task", fmt.Sprintf(`{"subagent_type":"general-purpose","description":%q}`, request))
}

// A deep agent's query is one root run; the general-purpose sub-agent it
// runs through its task tool is a child run of it, named, and every model
// call of both is charged to the one budget.
func TestADeepAgentIsOneRootWithItsSubAgentAsAChild(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			var unobserved unobservedAgents
			s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 100_000}, OnError: unobserved.onError})
			m := scripted.New(
				scripted.Call("write_todos", todos).WithUsage(100, 10),
				taskCall("look it up").WithUsage(200, 20),
				// The general-purpose sub-agent, inside the task tool.
				scripted.Call("search", `{"q":"it"}`).WithUsage(300, 30),
				scripted.Reply("found it").WithUsage(400, 40),
				// The deep agent again.
				scripted.Reply("all done").WithUsage(500, 50),
			)
			store := session.New(nil)
			o := runAgent(t, s.mw.Agent(newDeep(t, s, m)), store, streaming)
			require.NoError(t, o.err)
			require.Equal(t, 5, m.Calls())
			require.NotEmpty(t, o.messages)
			assert.Equal(t, "all done", o.messages[len(o.messages)-1].Content)

			records := flushedRecords(t, s.sink)
			rootName, children := runTree(t, records)
			assert.Equal(t, "deep", rootName)
			assert.Equal(t, []string{"general-purpose"}, children)
			end := records[len(records)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)

			b, ok := lookout.BudgetOf(store)
			require.True(t, ok)
			assert.Equal(t, int64(5), b.ModelCalls)
			assert.Equal(t, int64(110+220+330+440+550), b.TokensUsed)
			assert.Equal(t, int64(3), b.ToolCalls, "write_todos, task and the sub-agent's search")
			assert.Empty(t, unobserved.list())
		})
	}
}

// A token limit spent inside the deep agent's sub-agent stops the whole
// query with the typed budget error: the sub-agent's second call crosses
// the limit, and its third is not made.
func TestADeepAgentsBudgetHoldsAcrossItsSubAgent(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 1_200}, WrapUpAt: -1})
			m := scripted.New(
				taskCall("look it up").WithUsage(400, 100),
				scripted.Call("search", `{"q":"a"}`).WithUsage(400, 100),
				scripted.Call("search", `{"q":"b"}`).WithUsage(400, 100),
				scripted.Reply("never").WithUsage(400, 100),
				scripted.Reply("never").WithUsage(400, 100),
			)
			store := session.New(nil)
			o := runAgent(t, s.mw.Agent(newDeep(t, s, m)), store, streaming)
			adaptertest.RequireExceeded(t, o.err, budget.Tokens)
			errs := 0
			for _, ev := range o.events {
				if ev.Err != nil {
					errs++
				}
			}
			assert.Equal(t, 1, errs, "one error event")
			assert.Equal(t, 3, m.Calls(), "the call that crossed the limit was the last")

			records := flushedRecords(t, s.sink)
			rootName, children := runTree(t, records)
			assert.Equal(t, "deep", rootName)
			assert.Equal(t, []string{"general-purpose"}, children)
			end := records[len(records)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)
			b, ok := lookout.BudgetOf(store)
			require.True(t, ok)
			assert.Equal(t, int64(1500), b.TokensUsed)
		})
	}
}
