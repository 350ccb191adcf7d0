package lookoutadk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
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
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// The limits every shape is run under, one at a time, and what each
// reply costs.
const (
	backstopModelCalls = 6
	backstopToolCalls  = 4
	backstopTokens     = 1_000
	backstopCostUSD    = 0.0017
	// The clock moves a minute per request, so the deadline passes
	// during the tenth.
	backstopTimeout = 9*time.Minute + 30*time.Second

	replyPromptTokens     = 100
	replyCompletionTokens = 20
	// replyCostUSD is a reply's cost at backstopPrice.
	replyCostUSD = (replyPromptTokens*1.0 + replyCompletionTokens*5.0) / 1e6

	// safetyStop is the number of requests after which the server fails
	// every call, so that a query the budget does not stop fails fast.
	safetyStop = 120

	// backstopModel begins the model name each agent's client sends:
	// gpt-test-<agent>, priced at backstopPrice.
	backstopModel = "gpt-test-"
)

var backstopPrice = budget.Price{InputPerMTok: 1, OutputPerMTok: 5}

// backstopAgents are the agents of the shapes below: each one's model is
// priced at backstopPrice.
var backstopAgents = []string{"a", "b", "c", "p1", "p2", "p3", "p4", "boss", "lead", "helper", "deep", "planner", "replanner", "executor"}

// queryError returns the first budget error among the events' errors,
// else their first error, or nil. It mirrors lookoutadk.QueryError.
func queryError(events []*adk.AgentEvent) error {
	var first error
	for _, ev := range events {
		if ev == nil || ev.Err == nil {
			continue
		}
		if errors.Is(ev.Err, budget.ErrExceeded) {
			return ev.Err
		}
		if first == nil {
			first = ev.Err
		}
	}
	return first
}

// role is how an agent's model answers its k-th request (from 1), given
// the tools the request offers. Every role ignores the tool choice: on a
// wrap-up turn it calls what it would call on any other.
type role func(k int, offered map[string]bool) *schema.Message

func toolCallMessage(c scripted.ToolCall) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: c.Name, Arguments: c.Arguments}}})
}

// searchOr calls search when it is offered, and else answers.
func searchOr(offered map[string]bool) *schema.Message {
	if offered["search"] {
		return toolCallMessage(scripted.ToolCall{Name: "search", Arguments: `{"q":"more"}`})
	}
	return schema.AssistantMessage("nothing left to call", nil)
}

// answerTurn, among a delegating role's calls, is a turn that answers.
var answerTurn = scripted.ToolCall{}

// delegating makes the calls in turn, one a request, each while its tool
// is offered, and else searches; answerTurn answers.
func delegating(calls ...scripted.ToolCall) role {
	return func(k int, offered map[string]bool) *schema.Message {
		c := calls[(k-1)%len(calls)]
		switch {
		case c.Name == "":
			return schema.AssistantMessage("handing back for now", nil)
		case offered[c.Name]:
			return toolCallMessage(c)
		default:
			return searchOr(offered)
		}
	}
}

// alternating searches, then answers without calling exit, and again.
func alternating(k int, offered map[string]bool) *schema.Message {
	if k%2 == 1 {
		return searchOr(offered)
	}
	return schema.AssistantMessage("more to do next time", nil)
}

// searching searches on every request.
func searching(_ int, offered map[string]bool) *schema.Message { return searchOr(offered) }

// backend is the loopback OpenAI server the agents of a query call, each
// through a client of its own model name. It plays each agent's role,
// counts the requests and the tool calls that ran, and notes the request
// by which each limit was reached.
type backend struct {
	lim   budget.Limits
	clock *adaptertest.Clock
	roles map[string]role
	// key names the role of a request to model (the agent's name);
	// nil means model itself.
	key func(model string, offered map[string]bool) string

	mu        sync.Mutex
	requests  int
	calls     map[string]int // requests per role
	wrapUps   int            // requests whose tool choice was none or allowed
	tokens    int
	cost      float64
	toolCalls int // non-control tool calls that ran
	// The request count when the limit was reached, or 0.
	tokensAt, costAt, timeAt, toolsAt int
}

func (b *backend) reply(_ context.Context, _ []*schema.Message, o *model.Options) (*schema.Message, error) {
	offered := map[string]bool{}
	for _, t := range o.Tools {
		offered[t.Name] = true
	}
	name := ""
	if o.Model != nil {
		name = strings.TrimPrefix(*o.Model, backstopModel)
	}
	if b.key != nil {
		name = b.key(name, offered)
	}
	b.mu.Lock()
	b.requests++
	n := b.requests
	b.calls[name]++
	k := b.calls[name]
	if o.ToolChoice != nil && *o.ToolChoice != schema.ToolChoiceForced {
		b.wrapUps++
	}
	if n > safetyStop {
		b.mu.Unlock()
		return nil, fmt.Errorf("safety stop: request %d, the query was not stopped", n)
	}
	b.clock.Advance(time.Minute)
	b.tokens += replyPromptTokens + replyCompletionTokens
	b.cost += replyCostUSD
	reached := func(at *int, hit bool) {
		if hit && *at == 0 {
			*at = n
		}
	}
	reached(&b.tokensAt, b.lim.MaxTokens > 0 && int64(b.tokens) >= b.lim.MaxTokens)
	reached(&b.costAt, b.lim.MaxCostUSD > 0 && b.cost >= b.lim.MaxCostUSD)
	reached(&b.timeAt, b.lim.Timeout > 0 && !b.clock.Now().Before(adaptertest.T0.Add(b.lim.Timeout)))
	b.mu.Unlock()
	r, ok := b.roles[name]
	if !ok {
		return nil, fmt.Errorf("no role for the model %q", name)
	}
	return r(k, offered), nil
}

// toolRan counts a tool call that ran: Lookout admitted it.
func (b *backend) toolRan(name string) {
	if name == adk.TransferToAgentToolName || name == "exit" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.toolCalls++
	if b.lim.MaxToolCalls > 0 && int64(b.toolCalls) == b.lim.MaxToolCalls {
		b.toolsAt = b.requests
	}
}

// toolCounter is a middleware placed after Lookout's in every agent's
// Handlers, so that it sees the tool calls Lookout lets run.
type toolCounter struct {
	*adk.BaseChatModelAgentMiddleware
	b *backend
}

func (c *toolCounter) WrapInvokableToolCall(_ context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		c.b.toolRan(tc.Name)
		return next(ctx, args, opts...)
	}, nil
}

func (c *toolCounter) WrapStreamableToolCall(_ context.Context, next adk.StreamableToolCallEndpoint, tc *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	return func(ctx context.Context, args string, opts ...tool.Option) (*schema.StreamReader[string], error) {
		c.b.toolRan(tc.Name)
		return next(ctx, args, opts...)
	}, nil
}

// backstop is one subtest's query: the server, the middleware every
// agent shares, and the recording.
type backstop struct {
	t       *testing.T
	b       *backend
	srv     *scripted.OpenAIServer
	tr      *http.Transport
	mw      *lookoutadk.Middleware
	counter *toolCounter
	sink    *recorder.MemorySink
}

func newBackstop(t *testing.T, cfg lookout.Config) *backstop {
	clock := adaptertest.NewClock()
	b := &backend{lim: cfg.Limits, clock: clock, roles: map[string]role{}, calls: map[string]int{}}
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Forever(scripted.Func(b.reply).WithUsage(replyPromptTokens, replyCompletionTokens))))
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	sink := recorder.NewMemorySink()
	cfg.Recorder = adaptertest.NewRecorder(t, sink, nil)
	cfg.Now = clock.Now
	cfg.Prices = budget.Prices{}
	for _, name := range backstopAgents {
		cfg.Prices[backstopModel+name] = backstopPrice
	}
	mw, err := lookoutadk.New(context.Background(), &cfg)
	require.NoError(t, err)
	return &backstop{t: t, b: b, srv: srv, tr: tr, mw: mw, sink: sink,
		counter: &toolCounter{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, b: b}}
}

// chat returns an OpenAI client for the agent name, on the server.
func (s *backstop) chat(name string) model.ToolCallingChatModel {
	require.Contains(s.t, backstopAgents, name, "an agent whose model has no price")
	m, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
		BaseURL: s.srv.BaseURL(), APIKey: "test-key", Model: backstopModel + name, HTTPClient: &http.Client{Transport: s.tr},
	})
	require.NoError(s.t, err)
	return m
}

func (s *backstop) handlers() []adk.ChatModelAgentMiddleware {
	return []adk.ChatModelAgentMiddleware{s.mw, s.counter}
}

// agent is a ChatModelAgent playing r, with a search tool and tools.
func (s *backstop) agent(name string, r role, tools ...tool.BaseTool) *adk.ChatModelAgent {
	return s.agentWith(name, r, nil, tools...)
}

func (s *backstop) agentWith(name string, r role, exit tool.BaseTool, tools ...tool.BaseTool) *adk.ChatModelAgent {
	s.b.roles[name] = r
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: name, Description: "the " + name + " agent", Instruction: "You are the " + name + " agent.", Model: s.chat(name),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: append([]tool.BaseTool{echo("search")}, tools...)}},
		Exit:        exit,
		Handlers:    s.handlers(),
	})
	require.NoError(s.t, err)
	return a
}

// run runs the query on root, wrapped, and returns what happened once
// its events end.
func (s *backstop) run(root adk.Agent) (outcome, budget.Budget) {
	t := s.t
	store := session.New(nil)
	ctx, cancel := context.WithCancel(session.NewContext(context.Background(), store))
	defer cancel()
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: s.mw.Agent(root)})
	done := make(chan outcome, 1)
	go func() { done <- drain(runner.Query(ctx, "do the task", adk.WithCallbacks(s.mw.Callbacks()))) }()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Errorf("the query did not end within 30s (%d requests); cancelling it", s.requests())
		cancel()
		o = <-done
	}
	b, _ := lookout.BudgetOf(store)
	return o, b
}

func (s *backstop) requests() int {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.b.requests
}

// backstopShapes build the agents of a query on s, and say how many
// ChatModelAgents it has.
var backstopShapes = []struct {
	name  string
	build func(t *testing.T, s *backstop) (root adk.Agent, agents int)
}{
	// A supervisor's sub-agents are offered no transfer_to_agent: Eino
	// hands back to the supervisor after their last event, an error
	// included, and the supervisor runs again.
	{"supervisor", func(t *testing.T, s *backstop) (adk.Agent, int) {
		lead := s.agent("lead", delegating(transferTo("a"), transferTo("b")))
		a := s.agent("a", alternating)
		b := s.agent("b", alternating)
		root, err := supervisor.New(context.Background(), &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{a, b}})
		require.NoError(t, err)
		return root, 3
	}},
	// The inner supervisor's lead answers every third turn, so that the
	// team hands back to the boss, which delegates again.
	{"nested supervisors", func(t *testing.T, s *backstop) (adk.Agent, int) {
		ctx := context.Background()
		lead := s.agent("lead", delegating(transferTo("a"), transferTo("b"), answerTurn))
		a := s.agent("a", alternating)
		b := s.agent("b", alternating)
		team, err := supervisor.New(ctx, &supervisor.Config{Supervisor: lead, SubAgents: []adk.Agent{a, b}})
		require.NoError(t, err)
		boss := s.agent("boss", delegating(transferTo("lead"), transferTo("c")))
		c := s.agent("c", alternating)
		root, err := supervisor.New(ctx, &supervisor.Config{Supervisor: boss, SubAgents: []adk.Agent{team, c}})
		require.NoError(t, err)
		return root, 5
	}},
	// The loop has no iteration limit, and its agents are offered exit
	// and never call it.
	{"loop", func(t *testing.T, s *backstop) (adk.Agent, int) {
		a := s.agentWith("a", alternating, adk.ExitTool{})
		b := s.agentWith("b", alternating, adk.ExitTool{})
		root, err := adk.NewLoopAgent(context.Background(), &adk.LoopAgentConfig{Name: "loop", SubAgents: []adk.Agent{a, b}, MaxIterations: 0})
		require.NoError(t, err)
		return root, 2
	}},
	{"sequential", func(t *testing.T, s *backstop) (adk.Agent, int) {
		a := s.agent("a", alternating)
		b := s.agent("b", searching)
		c := s.agent("c", searching)
		root, err := adk.NewSequentialAgent(context.Background(), &adk.SequentialAgentConfig{Name: "pipeline", SubAgents: []adk.Agent{a, b, c}})
		require.NoError(t, err)
		return root, 3
	}},
	{"parallel", func(t *testing.T, s *backstop) (adk.Agent, int) {
		var branches []adk.Agent
		for i := 1; i <= 4; i++ {
			branches = append(branches, s.agent(fmt.Sprintf("p%d", i), searching))
		}
		root, err := adk.NewParallelAgent(context.Background(), &adk.ParallelAgentConfig{Name: "fanout", SubAgents: branches})
		require.NoError(t, err)
		return root, 4
	}},
	{"plan-execute", func(t *testing.T, s *backstop) (adk.Agent, int) {
		ctx := context.Background()
		plan := scripted.ToolCall{Name: planexecute.PlanToolInfo.Name, Arguments: `{"steps":["look it up","write it down"]}`}
		s.b.roles["planner"] = delegating(plan)
		s.b.roles["replanner"] = delegating(plan) // never responds
		s.b.roles["executor"] = alternating
		p, err := planexecute.NewPlanner(ctx, &planexecute.PlannerConfig{ToolCallingChatModel: s.mw.Model(s.chat("planner"))})
		require.NoError(t, err)
		r, err := planexecute.NewReplanner(ctx, &planexecute.ReplannerConfig{ChatModel: s.mw.Model(s.chat("replanner"))})
		require.NoError(t, err)
		root, err := planexecute.New(ctx, &planexecute.Config{Planner: p, Executor: s.executor(), Replanner: r, MaxIterations: 1_000})
		require.NoError(t, err)
		// The planner and the replanner are not ChatModelAgents.
		return root, 1
	}},
	{"deep", func(t *testing.T, s *backstop) (adk.Agent, int) {
		// The general-purpose sub-agent shares the deep agent's model;
		// its requests are told apart by the task tool, offered to the
		// deep agent alone.
		s.b.key = func(model string, offered map[string]bool) string {
			if model == "deep" && !offered["task"] {
				return "general-purpose"
			}
			return model
		}
		s.b.roles["deep"] = delegating(scripted.ToolCall{Name: "task", Arguments: `{"subagent_type":"general-purpose","description":"look it up"}`})
		s.b.roles["general-purpose"] = alternating
		root, err := deep.New(context.Background(), &deep.Config{
			Name: "deep", Description: "a deep agent", ChatModel: s.chat("deep"),
			ToolsConfig:  adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
			MaxIteration: 50,
			Handlers:     s.handlers(),
		})
		require.NoError(t, err)
		return root, 2
	}},
	{"agent as tool", func(t *testing.T, s *backstop) (adk.Agent, int) {
		helper := s.agent("helper", alternating)
		boss := s.agent("boss", delegating(scripted.ToolCall{Name: "helper", Arguments: `{"request":"look it up"}`}),
			adk.NewAgentTool(context.Background(), helper))
		return boss, 2
	}},
}

// executor is planexecute's executor built by hand, as observedExecutor
// builds it, on the server.
func (s *backstop) executor() adk.Agent {
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "executor", Description: "an executor agent", Model: s.chat("executor"),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
		GenModelInput: func(ctx context.Context, _ string, _ *adk.AgentInput) ([]adk.Message, error) {
			plan, _ := adk.GetSessionValue(ctx, planexecute.PlanSessionKey)
			p, ok := plan.(planexecute.Plan)
			if !ok {
				return nil, errors.New("no plan in the session")
			}
			return []adk.Message{
				schema.SystemMessage("You are an executor."),
				schema.UserMessage("Execute the first step: " + p.FirstStep()),
			}, nil
		},
		OutputKey: planexecute.ExecutedStepSessionKey,
		Handlers:  s.handlers(),
	})
	require.NoError(s.t, err)
	return a
}

// backstopLimits are the limits a query is run under, one at a time,
// with the bound each sets on what happens once it is spent. agents is
// the number of ChatModelAgents in the query.
var backstopLimits = []struct {
	name     string
	limits   budget.Limits
	resource budget.Resource
	bound    func(t *testing.T, b *backend, agents int)
}{
	{"MaxModelCalls", budget.Limits{MaxModelCalls: backstopModelCalls}, budget.ModelCalls, func(t *testing.T, b *backend, agents int) {
		assert.LessOrEqual(t, b.requests, backstopModelCalls+agents, "the limit, and one last word per agent")
	}},
	{"MaxToolCalls", budget.Limits{MaxToolCalls: backstopToolCalls}, budget.ToolCalls, func(t *testing.T, b *backend, agents int) {
		assert.LessOrEqual(t, b.toolCalls, backstopToolCalls, "no tool call past the limit ran")
		if assert.NotZero(t, b.toolsAt, "the tool calls were spent") {
			assert.LessOrEqual(t, b.requests-b.toolsAt, 2*agents, "requests after the last tool call was admitted: two per agent at most")
		}
	}},
	{"MaxTokens", budget.Limits{MaxTokens: backstopTokens}, budget.Tokens, func(t *testing.T, b *backend, agents int) {
		if assert.NotZero(t, b.tokensAt, "the tokens were spent") {
			assert.LessOrEqual(t, b.requests-b.tokensAt, agents, "requests after the tokens were spent: one per agent at most")
		}
	}},
	{"MaxCostUSD", budget.Limits{MaxCostUSD: backstopCostUSD}, budget.CostUSD, func(t *testing.T, b *backend, agents int) {
		if assert.NotZero(t, b.costAt, "the cost limit was reached") {
			assert.LessOrEqual(t, b.requests-b.costAt, agents, "requests after the cost limit was reached: one per agent at most")
		}
	}},
	{"Timeout", budget.Limits{Timeout: backstopTimeout}, budget.Time, func(t *testing.T, b *backend, agents int) {
		if assert.NotZero(t, b.timeAt, "the deadline passed") {
			assert.LessOrEqual(t, b.requests-b.timeAt, agents, "requests after the deadline: one per agent at most")
		}
	}},
}

// A budget is a backstop on every shape of agent: with models that keep
// delegating, never exit a loop and ignore the tool choice, each limit
// ends the query within its bound, on an answer or with the budget's
// error, and every run recorded as started is recorded as ended.
func TestEveryLimitBoundsEveryShape(t *testing.T) {
	for _, shape := range backstopShapes {
		t.Run(shape.name, func(t *testing.T) {
			for _, limit := range backstopLimits {
				t.Run(limit.name, func(t *testing.T) {
					s := newBackstop(t, lookout.Config{Limits: limit.limits})
					root, agents := shape.build(t, s)
					o, used := s.run(root)
					records := flushedRecords(t, s.sink)

					b := s.b
					b.mu.Lock()
					defer b.mu.Unlock()
					t.Logf("%d requests (%d wrap-up turns), %d tool calls; budget: %d model calls, %d tool calls, %d tokens, $%.4f",
						b.requests, b.wrapUps, b.toolCalls, used.ModelCalls, used.ToolCalls, used.TokensUsed, used.CostUSD)
					assert.Less(t, b.requests, safetyStop, "the query was stopped")
					limit.bound(t, b, agents)
					if err := queryError(o.events); err != nil {
						require.ErrorIs(t, err, budget.ErrExceeded, "the query ended on its budget")
						var ex *budget.ExceededError
						require.ErrorAs(t, err, &ex)
						assert.Equal(t, limit.resource, ex.Resource)
					} else {
						require.NotEmpty(t, o.messages, "the query ended on an answer")
						last := o.messages[len(o.messages)-1]
						assert.Equal(t, schema.Assistant, last.Role, "the query ended on an answer")
						assert.Empty(t, last.ToolCalls, "the query ended on an answer")
					}
					require.Positive(t, checkEveryRunEnded(t, records), "the query was recorded")
				})
			}
		})
	}
}

// Stall's RefuseAfter holds against a model that keeps delegating the
// same request and ignores the tool choice: the delegations past the
// third are refused, the sub-agent is not run again, and the query ends
// with ErrRepeatRefused, through the eino-ext client and adk.Runner.
func TestRefuseAfterStopsAModelThatKeepsDelegating(t *testing.T) {
	for _, name := range []string{"agent as tool", "deep"} {
		t.Run(name, func(t *testing.T) {
			s := newBackstop(t, lookout.Config{Observers: []observer.Spec{{
				Observer: &stall.Detector{RefuseAfter: 3}, Trigger: observer.Trigger{OnEveryCall: true},
			}}})
			var root adk.Agent
			for _, shape := range backstopShapes {
				if shape.name == name {
					root, _ = shape.build(t, s)
				}
			}
			require.NotNil(t, root)
			o, _ := s.run(root)
			records := flushedRecords(t, s.sink)

			err := lookoutadk.QueryError(o.events)
			require.ErrorIs(t, err, lookout.ErrRepeatRefused, "the query ends on the refusal")
			delegations := 0
			for _, r := range records {
				if _, ok := r.Payload.(*recorder.RunStarted); ok && r.ParentRunID != "" {
					delegations++
				}
			}
			assert.Equal(t, 3, delegations, "the sub-agent ran for the first three delegations only")
			s.b.mu.Lock()
			defer s.b.mu.Unlock()
			assert.Less(t, s.b.requests, 20, "the query stopped soon after the loop began")
			require.Positive(t, checkEveryRunEnded(t, records))
		})
	}
}
