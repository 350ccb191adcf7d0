package lookoutadk_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/supervisor"
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
	"github.com/lookout-go/lookout/recorder/summary"
	"github.com/lookout-go/lookout/session"
)

// shape builds ChatModelAgents that share one middleware, as a program
// with several agents attaches Lookout.
type shape struct {
	t    *testing.T
	mw   *lookoutadk.Middleware
	sink *recorder.MemorySink
}

func newShape(t *testing.T, cfg lookout.Config) *shape {
	sink := recorder.NewMemorySink()
	cfg.Recorder = adaptertest.NewRecorder(t, sink, nil)
	mw, err := lookoutadk.New(context.Background(), &cfg)
	require.NoError(t, err)
	return &shape{t: t, mw: mw, sink: sink}
}

func (s *shape) agent(name string, m *scripted.Model, tools ...tool.BaseTool) *adk.ChatModelAgent {
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: name, Description: "the " + name + " agent", Instruction: "You are the " + name + " agent.", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
		Handlers:    []adk.ChatModelAgentMiddleware{s.mw},
	})
	require.NoError(s.t, err)
	return a
}

// run runs the query on root, wrapped, and returns its outcome and the
// recording, grouped by run.
func (s *shape) run(root adk.Agent) (outcome, []recorder.Record) {
	o := runAgent(s.t, s.mw.Agent(root), nil, false)
	return o, flushedRecords(s.t, s.sink)
}

// runTree checks the recording holds one root run and returns the
// names of its child runs, in the order they started.
func runTree(t *testing.T, records []recorder.Record) (root string, children []string) {
	t.Helper()
	roots := 0
	for _, r := range records {
		started, ok := r.Payload.(*recorder.RunStarted)
		if !ok {
			continue
		}
		if r.ParentRunID == "" {
			roots++
			root = started.AgentName
		} else {
			children = append(children, started.AgentName)
		}
	}
	require.Equal(t, 1, roots, "one query, one root run")
	last := records[len(records)-1]
	require.Equal(t, recorder.KindRunEnded, last.Kind(), "run_ended is the last record")
	require.Empty(t, last.ParentRunID, "and it is the root's")
	return root, children
}

func transferTo(name string) scripted.ToolCall {
	return scripted.ToolCall{Name: adk.TransferToAgentToolName, Arguments: `{"agent_name":"` + name + `"}`}
}

// A supervisor that transfers to two agents in turn is one root run, with
// a child run per segment, and one budget across the transfers.
func TestASupervisorQueryIsOneRootWithAChildPerSegment(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 100_000}})
	lead := s.agent("lead", scripted.New(
		scripted.Calls(transferTo("researcher")).WithUsage(100, 10),
		scripted.Calls(transferTo("writer")).WithUsage(100, 10),
		scripted.Reply("all done").WithUsage(100, 10),
	))
	researcher := s.agent("researcher", scripted.New(
		scripted.Call("search", `{"q":"x"}`).WithUsage(200, 20),
		scripted.Reply("found x").WithUsage(200, 20),
	), echo("search"))
	writer := s.agent("writer", scripted.New(scripted.Reply("wrote it").WithUsage(300, 30)))
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher, writer}})
	require.NoError(t, err)

	o, records := s.run(root)
	require.NoError(t, o.err)
	rootName, children := runTree(t, records)
	assert.Equal(t, "lead", rootName)
	assert.Equal(t, []string{"lead", "researcher", "lead", "writer", "lead"}, children, "one child per segment, named")
	var reasons []string
	for _, r := range records {
		if e, ok := r.Payload.(*recorder.RunEnded); ok && r.ParentRunID != "" {
			reasons = append(reasons, e.StopReason)
		}
	}
	assert.Equal(t, []string{"handed over: transfer_to_agent", "final answer", "handed over: transfer_to_agent", "final answer", "final answer"}, reasons,
		"a segment that transferred says so")
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
	var rootUsers []string
	for _, r := range records {
		m, ok := r.Payload.(*recorder.Message)
		if !ok || m.Message.Role != schema.User {
			continue
		}
		if r.ParentRunID == "" {
			rootUsers = append(rootUsers, m.Message.Content)
		}
		if strings.HasPrefix(m.Message.Content, "For context:") {
			assert.Equal(t, recorder.OriginContext, m.Origin, "the transfers' rewritten context is not the user's")
		} else {
			assert.Equal(t, recorder.OriginQuery, m.Origin, "each segment's copy of the query is the query")
		}
	}
	assert.Equal(t, []string{"do the task"}, rootUsers, "the root holds the query")
	assert.Equal(t, 1, summary.Analyze(records).Total.UserMessages, "the segments' copies and context are not the user's messages")
	if path := os.Getenv("LOOKOUT_WRITE_SUPERVISOR"); path != "" {
		var b []byte
		for i := range records {
			b, _ = records[i].AppendJSON(b)
			b = append(b, '\n')
		}
		require.NoError(t, os.WriteFile(path, b, 0o600))
	}
}

// A token limit holds across the transfers, with no session on the ctx:
// the query stops within one response of the limit, with one typed error
// event.
func TestASupervisorsBudgetHoldsAcrossTransfers(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 1_500}, WrapUpAt: -1})
	lead := s.agent("lead", scripted.New(
		scripted.Calls(transferTo("worker")).WithUsage(400, 100),
		scripted.Reply("never").WithUsage(400, 100),
	))
	worker := s.agent("worker", scripted.New(
		scripted.Call("search", `{"q":"a"}`).WithUsage(400, 100),
		scripted.Call("search", `{"q":"b"}`).WithUsage(400, 100),
		scripted.Call("search", `{"q":"c"}`).WithUsage(400, 100),
		scripted.Reply("never").WithUsage(400, 100),
	), echo("search"))
	writer := s.agent("writer", scripted.New(scripted.Reply("never").WithUsage(400, 100)))
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{worker, writer}})
	require.NoError(t, err)

	store := session.New(nil) // only to read the budget: the query shares it without one
	o := runAgent(t, s.mw.Agent(root), store, false)
	records := flushedRecords(t, s.sink)
	adaptertest.RequireExceeded(t, o.err, budget.Tokens)
	b, _ := lookout.BudgetOf(store)
	assert.GreaterOrEqual(t, b.TokensUsed, int64(1_500))
	assert.LessOrEqual(t, b.TokensUsed, int64(1_500+500), "within one response of the limit")
	// The worker fails, Eino hands back to the lead, and the lead's call
	// fails too: the events pass as Eino sends them, and QueryError finds
	// the budget error among them.
	errs := 0
	for _, ev := range o.events {
		if ev.Err != nil {
			errs++
			assert.ErrorIs(t, ev.Err, budget.ErrExceeded)
		}
	}
	assert.Equal(t, 2, errs, "the worker's error and the lead's")
	assert.ErrorIs(t, lookoutadk.QueryError(o.events), budget.ErrExceeded)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)
}

// A sequential workflow of two agents is one root run with a child per
// agent, on one budget.
func TestASequentialWorkflowIsOneRootOnOneBudget(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 1_000}, WrapUpAt: -1})
	first := s.agent("first", scripted.New(scripted.Reply("step one").WithUsage(400, 100)))
	second := s.agent("second", scripted.New(
		scripted.Call("search", `{}`).WithUsage(400, 100),
		scripted.Reply("never").WithUsage(400, 100),
	), echo("search"))
	root, err := adk.NewSequentialAgent(context.Background(), &adk.SequentialAgentConfig{Name: "pipeline", SubAgents: []adk.Agent{first, second}})
	require.NoError(t, err)

	o, records := s.run(root)
	adaptertest.RequireExceeded(t, o.err, budget.Tokens)
	rootName, children := runTree(t, records)
	assert.Equal(t, "pipeline", rootName)
	assert.Equal(t, []string{"first", "second"}, children)
}

// A parallel workflow's agents run as children of one root, charging one
// budget.
func TestAParallelWorkflowIsOneRootOnOneBudget(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 10_000}})
	a := s.agent("a", scripted.New(scripted.Reply("a done").WithUsage(100, 10)))
	b := s.agent("b", scripted.New(scripted.Reply("b done").WithUsage(200, 20)))
	root, err := adk.NewParallelAgent(context.Background(), &adk.ParallelAgentConfig{Name: "fanout", SubAgents: []adk.Agent{a, b}})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	require.NoError(t, o.err)
	rootName, children := runTree(t, flushedRecords(t, s.sink))
	assert.Equal(t, "fanout", rootName)
	assert.ElementsMatch(t, []string{"a", "b"}, children)
	used, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(330), used.TokensUsed, "both agents charged the one budget")
}

// A loop near its budget gets a wrap-up turn that still offers the exit
// tool; the model leaves through it, and the query ends cleanly. Neither
// the exit nor any other control tool is charged to the tool calls.
func TestALoopNearItsBudgetLeavesThroughItsExitTool(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 1_000, MaxToolCalls: 1}})
	var wrapUpChoices []string
	m := scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, _ []*schema.Message, o *model.Options) (*schema.Message, error) {
		if o.ToolChoice != nil && *o.ToolChoice == schema.ToolChoiceAllowed {
			wrapUpChoices = append(wrapUpChoices, o.AllowedToolNames...)
			msg := schema.AssistantMessage("", []schema.ToolCall{{ID: "leave", Function: schema.FunctionCall{Name: "exit", Arguments: `{"final_result":"stopped near the budget"}`}}})
			msg.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 40, CompletionTokens: 10, TotalTokens: 50}}
			return msg, nil
		}
		msg := schema.AssistantMessage("working", nil)
		msg.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 400, CompletionTokens: 50, TotalTokens: 450}}
		return msg, nil
	})))
	worker, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "worker", Description: "works", Instruction: "Work.", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
		Exit:        &adk.ExitTool{},
		Handlers:    []adk.ChatModelAgentMiddleware{s.mw},
	})
	require.NoError(t, err)
	root, err := adk.NewLoopAgent(context.Background(), &adk.LoopAgentConfig{Name: "loop", SubAgents: []adk.Agent{worker}, MaxIterations: 10})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	require.NoError(t, o.err, "the loop ended on its exit, not on the budget")
	assert.Equal(t, []string{"exit"}, wrapUpChoices, "the wrap-up turn offered the exit tool alone")
	records := flushedRecords(t, s.sink)
	_, children := runTree(t, records)
	assert.Len(t, children, 3, "two iterations, then the wrap-up one")
	used, _ := lookout.BudgetOf(store)
	assert.Zero(t, used.ToolCalls, "the exit is not charged")
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
}

// With a model-call limit below Eino's MaxIterations, the last call the
// limit allows is a wrap-up turn, and the run ends on its answer rather
// than on Eino's error.
func TestAModelCallLimitEndsOnTheWrapUpAnswer(t *testing.T) {
	m := scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, _ []*schema.Message, o *model.Options) (*schema.Message, error) {
		if o.ToolChoice != nil && *o.ToolChoice == schema.ToolChoiceForbidden {
			return schema.AssistantMessage("final answer", nil), nil
		}
		return schema.AssistantMessage("", []schema.ToolCall{{ID: "c", Function: schema.FunctionCall{Name: "search", Arguments: `{}`}}}), nil
	})))
	agent := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, maxIter: 5,
		cfg: &lookout.Config{Limits: budget.Limits{MaxModelCalls: 3}}})
	store := session.New(nil)
	o := runAgent(t, agent, store, false)
	require.NoError(t, o.err)
	require.NotEmpty(t, o.messages)
	assert.Equal(t, "final answer", o.messages[len(o.messages)-1].Content)
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(3), b.ModelCalls)
}

// A failed model attempt counts as a model call without usage.
func TestAFailedModelAttemptCounts(t *testing.T) {
	m := scripted.New(scripted.Fail(errModelDown), scripted.Reply("done").WithUsage(10, 5))
	sink := recorder.NewMemorySink()
	mw := mustNew(t, &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)})
	agent, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "worker", Description: "works", Instruction: "Work.", Model: m,
		ModelRetryConfig: &adk.ModelRetryConfig{MaxRetries: 1},
		Handlers:         []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	store := session.New(nil)
	require.NoError(t, runAgent(t, mw.Agent(agent), store, false).err)
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(2), b.ModelCalls)
	assert.Equal(t, int64(1), b.ModelCallsWithoutUsage, "the failed attempt reported no usage")
	assert.Equal(t, int64(15), b.TokensUsed)

	// The recording counts what the budget counts: the failed attempt
	// is a model_response with its error.
	records := flushedRecords(t, sink)
	var failed []string
	for _, r := range records {
		if p, ok := r.Payload.(*recorder.ModelResponse); ok && p.Error != "" {
			failed = append(failed, p.Error)
			assert.Nil(t, p.Message)
			assert.False(t, p.UsageReported)
		}
	}
	assert.Equal(t, []string{errModelDown.Error()}, failed)
	total := summary.Analyze(records).Total
	assert.Equal(t, 2, total.ModelCalls, "the analytics count both attempts")
	assert.Equal(t, 1, total.ModelCallsWithoutUsage)
	assert.Equal(t, int64(2), records[len(records)-1].Payload.(*recorder.RunEnded).Usage.ModelCalls)
}

func mustNew(t *testing.T, cfg *lookout.Config) *lookoutadk.Middleware {
	mw, err := lookoutadk.New(context.Background(), cfg)
	require.NoError(t, err)
	return mw
}

// A child with a lease wraps up at its cap and hands back; the query
// goes on with the budget the child left.
func TestAChildWithALeaseWrapsUpAtItsCapWhileTheQueryGoesOn(t *testing.T) {
	s := newShape(t, lookout.Config{
		Limits: budget.Limits{MaxTokens: 100_000},
		Leases: map[string]budget.Limits{"researcher": {MaxModelCalls: 3}},
	})
	lead := s.agent("lead", scripted.New(
		scripted.Calls(transferTo("researcher")),
		scripted.Reply("summary of the findings"),
	))
	var wrappedUp bool
	researcher := s.agent("researcher", scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, _ []*schema.Message, o *model.Options) (*schema.Message, error) {
		if o.ToolChoice != nil && *o.ToolChoice != schema.ToolChoiceForced {
			wrappedUp = true
			return schema.AssistantMessage("partial findings", nil), nil
		}
		return schema.AssistantMessage("", []schema.ToolCall{{ID: "s", Function: schema.FunctionCall{Name: "search", Arguments: `{}`}}}), nil
	}))), echo("search"))
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{researcher}})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	require.NoError(t, o.err, "the query goes on past the child's cap")
	assert.True(t, wrappedUp, "the researcher got a wrap-up turn")
	require.NotEmpty(t, o.messages)
	assert.Equal(t, "summary of the findings", o.messages[len(o.messages)-1].Content)
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(2+3), b.ModelCalls, "the lead's two calls and the researcher's three")
	var reasons []string
	for _, r := range flushedRecords(t, s.sink) {
		if e, ok := r.Payload.(*recorder.RunEnded); ok && r.ParentRunID != "" {
			reasons = append(reasons, e.StopReason)
		}
	}
	assert.Contains(t, reasons, "wrapped up near the budget")
}

// An agent of the query without the middleware is reported once, so the
// trajectory is never split silently.
func TestAnAgentWithoutTheMiddlewareIsReportedOnce(t *testing.T) {
	var mu sync.Mutex
	var reported []error
	s := newShape(t, lookout.Config{OnError: func(_ context.Context, err error) {
		mu.Lock()
		reported = append(reported, err)
		mu.Unlock()
	}})
	lead := s.agent("lead", scripted.New(
		scripted.Calls(transferTo("bare")),
		scripted.Reply("done"),
	))
	bare, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "bare", Description: "no middleware", Instruction: "Work.",
		Model: scripted.New(scripted.Reply("one"), scripted.Reply("two")),
	})
	require.NoError(t, err)
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{bare}})
	require.NoError(t, err)

	o, _ := s.run(root)
	require.NoError(t, o.err)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, reported, 1)
	assert.ErrorIs(t, reported[0], lookoutadk.ErrUnobservedAgent)
	assert.Contains(t, reported[0].Error(), `"bare"`)
}

// A model-call limit that runs out in a sub-agent still ends the query on
// an answer: the supervisor the sub-agent hands back to gets one wrap-up
// turn of its own.
func TestAModelCallLimitSpentInASubAgentEndsOnTheSupervisorsAnswer(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxModelCalls: 3}})
	answer := func(transfer string) *scripted.Model {
		return scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, _ []*schema.Message, o *model.Options) (*schema.Message, error) {
			if o.ToolChoice != nil {
				return schema.AssistantMessage("answer under the limit", nil), nil
			}
			if transfer != "" {
				return schema.AssistantMessage("", []schema.ToolCall{{ID: "t", Function: schema.FunctionCall{Name: adk.TransferToAgentToolName, Arguments: `{"agent_name":"` + transfer + `"}`}}}), nil
			}
			return schema.AssistantMessage("", []schema.ToolCall{{ID: "s", Function: schema.FunctionCall{Name: "search", Arguments: `{}`}}}), nil
		})))
	}
	lead := s.agent("lead", answer("worker"))
	worker := s.agent("worker", answer(""), echo("search"))
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{worker}})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	require.NoError(t, o.err, "the query ends on an answer, not on the limit")
	require.NotEmpty(t, o.messages)
	assert.Equal(t, "answer under the limit", o.messages[len(o.messages)-1].Content)
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(4), b.ModelCalls, "the limit, and the supervisor's one wrap-up call")
}

// A supervisor's query interrupted in a sub-agent and resumed in a fresh
// ctx is one run across the resume: one root run, one run_ended, and the
// budget from before the interrupt kept.
func TestASupervisorsQueryResumedFromACheckpointIsOneRun(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 100_000}})
	lead := s.agent("lead", scripted.New(
		scripted.Calls(transferTo("deployer")).WithUsage(100, 10),
		scripted.Reply("deployed and checked").WithUsage(100, 10),
	))
	deployer := s.agent("deployer", scripted.New(
		scripted.Call("approve", `{}`).WithUsage(200, 20),
		scripted.Reply("deployed").WithUsage(200, 20),
	), interruptOnce("approve"))
	root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{deployer}})
	require.NoError(t, err)
	runner := adk.NewRunner(context.Background(), adk.RunnerConfig{Agent: s.mw.Agent(root), CheckPointStore: &memStore{}})

	first := drain(runner.Query(context.Background(), "deploy it", adk.WithCheckPointID("c1")))
	require.NoError(t, first.err)
	last := first.events[len(first.events)-1]
	require.NotNil(t, last.Action)
	require.NotNil(t, last.Action.Interrupted, "the query paused at the interrupt")
	iter, err := runner.Resume(context.Background(), "c1")
	require.NoError(t, err)
	second := drain(iter)
	require.NoError(t, second.err)

	records := flushedRecords(t, s.sink)
	rootName, _ := runTree(t, records)
	assert.Equal(t, "lead", rootName)
	ends := 0
	var rootEnd *recorder.RunEnded
	for _, r := range records {
		if e, ok := r.Payload.(*recorder.RunEnded); ok && r.ParentRunID == "" {
			ends++
			rootEnd = e
		}
	}
	assert.Equal(t, 1, ends, "the root ends once, after the resume")
	require.NotNil(t, rootEnd)
	assert.Equal(t, recorder.OutcomeCompleted, rootEnd.Outcome)
}

// A parallel workflow's agents are stopped by the one budget they share:
// the query ends with the typed error.
func TestAParallelWorkflowsBudgetStopsTheQuery(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxTokens: 1_000}, WrapUpAt: -1})
	searcher := func() *scripted.Model {
		return scripted.New(scripted.Forever(scripted.Call("search", `{}`).WithUsage(200, 50)))
	}
	a := s.agent("a", searcher(), echo("search"))
	b := s.agent("b", searcher(), echo("search"))
	root, err := adk.NewParallelAgent(context.Background(), &adk.ParallelAgentConfig{Name: "fanout", SubAgents: []adk.Agent{a, b}})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	adaptertest.RequireExceeded(t, o.err, budget.Tokens)
	used, _ := lookout.BudgetOf(store)
	assert.GreaterOrEqual(t, used.TokensUsed, int64(1_000))
	assert.LessOrEqual(t, used.TokensUsed, int64(1_000+2*250), "within one response per agent running at once")
	end := flushedRecords(t, s.sink)
	assert.Equal(t, recorder.OutcomeBudgetExceeded, end[len(end)-1].Payload.(*recorder.RunEnded).Outcome)
}

// A parent whose agent used as a tool spends the last model call the
// limit allows, on a wrap-up answer, gets one last turn of its own: the
// query ends on the parent's answer, one call over the limit. The deep
// agent's task tool runs its sub-agent the same way.
func TestAParentWhoseAgentToolSpentTheLastCallAnswers(t *testing.T) {
	// answers calls a tool until its call is a wrap-up turn, then answers.
	answers := func(call scripted.Turn, answer string) *scripted.Model {
		return scripted.New(call, scripted.Forever(scripted.Func(func(_ context.Context, _ []*schema.Message, o *model.Options) (*schema.Message, error) {
			if o.ToolChoice != nil {
				return schema.AssistantMessage(answer, nil), nil
			}
			return schema.AssistantMessage("", []schema.ToolCall{{ID: "s", Function: schema.FunctionCall{Name: "search", Arguments: `{}`}}}), nil
		})))
	}
	for _, shape := range []string{"agent tool", "deep"} {
		t.Run(shape, func(t *testing.T) {
			s := newShape(t, lookout.Config{Limits: budget.Limits{MaxModelCalls: 3}})
			var root adk.Agent
			if shape == "deep" {
				// The deep agent and its general-purpose sub-agent share
				// one model: the task call, then searches until the
				// wrap-up turns.
				root = newDeep(t, s, answers(taskCall("look it up"), "the report"))
			} else {
				helper := s.agent("helper", answers(scripted.Call("search", `{}`), "found it"), echo("search"))
				parent, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
					Name: "parent", Description: "the parent", Instruction: "You are the parent.",
					Model:       answers(scripted.Call("helper", `{"request":"find it"}`), "the report"),
					ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{adk.NewAgentTool(context.Background(), helper)}}},
					Handlers:    []adk.ChatModelAgentMiddleware{s.mw},
				})
				require.NoError(t, err)
				root = parent
			}
			store := session.New(nil)
			o := runAgent(t, s.mw.Agent(root), store, false)
			require.NoError(t, o.err, "the query ends on the parent's answer, not on the limit")
			require.NotEmpty(t, o.messages)
			assert.Equal(t, "the report", o.messages[len(o.messages)-1].Content)
			b, _ := lookout.BudgetOf(store)
			assert.Equal(t, int64(4), b.ModelCalls, "the limit, and the parent's last turn")
		})
	}
}

// Sixteen parallel branches share a model-call limit of ten: the calls
// are counted before they are made, so no more than ten start under the
// limit; each branch that made one gets one last turn, and every other
// call ends its branch with the budget's error, which the query reports.
func TestParallelBranchesTakeNoMoreModelCallsThanTheLimitAllows(t *testing.T) {
	s := newShape(t, lookout.Config{Limits: budget.Limits{MaxModelCalls: 10}})
	var branches []adk.Agent
	for i := range 16 {
		branches = append(branches, s.agent(fmt.Sprintf("b%d", i), scripted.New(scripted.Forever(scripted.Call("search", `{}`).WithUsage(10, 5))), echo("search")))
	}
	root, err := adk.NewParallelAgent(context.Background(), &adk.ParallelAgentConfig{Name: "fanout", SubAgents: branches})
	require.NoError(t, err)

	store := session.New(nil)
	o := runAgent(t, s.mw.Agent(root), store, false)
	adaptertest.RequireExceeded(t, lookoutadk.QueryError(o.events), budget.ModelCalls)
	b, _ := lookout.BudgetOf(store)
	assert.LessOrEqual(t, b.ModelCalls, int64(10+10), "the limit, and one last turn for each branch that made a call")
	records := flushedRecords(t, s.sink)
	require.Positive(t, checkEveryRunEnded(t, records))
}
