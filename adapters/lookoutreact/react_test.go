package lookoutreact_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/drive/drivetest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// TestTheRunReachesEveryNode checks the Eino behaviour the package rests
// on: the ctx given to the agent's Generate or Stream, which Hooks.Agent
// makes carry the run, is the ctx its model, message modifier, tool
// middleware and tools run with.
func TestTheRunReachesEveryNode(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		var mu sync.Mutex
		seen := map[string]*drive.Run{}
		note := func(where string, ctx context.Context) {
			r, _ := drive.FromContext(ctx)
			mu.Lock()
			seen[where] = r
			mu.Unlock()
		}
		m := scripted.New(
			scripted.Func(func(ctx context.Context, _ []*schema.Message, _ *model.Options) (*schema.Message, error) {
				note("model", ctx)
				return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: "look", Arguments: "{}"}}}), nil
			}),
			scripted.Reply("done"),
		)
		look := fnTool{Name: "look", Fn: func(ctx context.Context, _ string) (string, error) {
			note("tool", ctx)
			return "seen", nil
		}}
		l, err := lookoutreact.New(context.Background(), nil)
		require.NoError(t, err)
		a, err := react.NewAgent(context.Background(), &react.AgentConfig{
			ToolCallingModel: m,
			ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{look}, ToolCallMiddlewares: []compose.ToolMiddleware{{
				Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
					return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
						note("middleware", ctx)
						return next(ctx, in)
					}
				},
			}}},
			MessageModifier: func(ctx context.Context, in []*schema.Message) []*schema.Message {
				note("modifier", ctx)
				return in
			},
		})
		require.NoError(t, err)
		o := reactAgent{Generator: l.Agent(a), raw: a, lookout: l}.runCtx(context.Background(), streaming)
		require.NoError(t, o.err)
		run := seen["model"]
		require.NotNil(t, run, "streaming=%v", streaming)
		assert.Equal(t, "ReActAgent", run.AgentName())
		assert.True(t, run.Ended(), "the run ended before the caller saw its end, streaming=%v", streaming)
		for _, where := range []string{"modifier", "middleware", "tool"} {
			assert.Same(t, run, seen[where], "%s, streaming=%v", where, streaming)
		}
	}
}

func TestInjectionReplacesLookoutMessagesAlreadyInTheHistory(t *testing.T) {
	// A history carried over from an earlier run holds an old block; the
	// model still sees exactly one.
	old := &schema.Message{Role: schema.User, Content: "## Trajectory Assessment\n\nold", Extra: map[string]any{lookout.Tag: lookout.TagAssessment}}
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookout.Config{Observers: everyCall()}})
	history := []*schema.Message{schema.UserMessage("earlier question"), old, schema.UserMessage("do the task")}
	_, err := a.Generate(context.Background(), history)
	require.NoError(t, err)

	reqs := m.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, 0, reqs[0].CountContaining("## Trajectory Assessment"), "the old block was dropped")
	assert.Len(t, reqs[0].Messages, 2)
	assert.Equal(t, 1, reqs[1].CountContaining("## Trajectory Assessment"))
	assert.Equal(t, 0, reqs[1].CountContaining("old"))
}

func TestTheBlockFollowsWhatTheAgentsOwnModifierAdds(t *testing.T) {
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	persona := func(_ context.Context, in []*schema.Message) []*schema.Message {
		return append([]*schema.Message{schema.SystemMessage("You are terse.")}, in...)
	}
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, modifier: persona, cfg: &lookout.Config{Observers: everyCall()}}).run(t, nil, false)
	require.NoError(t, o.err)
	req := m.Requests()[1]
	assert.Equal(t, "You are terse.", req.Messages[0].Content)
	assert.Equal(t, 1, req.CountContaining("You are terse."))
	assert.Contains(t, req.Last().Content, "## Trajectory Assessment", "the block comes last")
}

func TestTwoConcurrentRunsKeepSeparateBudgets(t *testing.T) {
	// One agent, one Lookout, two runs at once. Each run makes three tool
	// calls under a limit of three: shared state would refuse some.
	const perRun = 3
	l, err := lookoutreact.New(context.Background(), &lookout.Config{Limits: budget.Limits{MaxToolCalls: perRun, MaxTokens: 10_000}, WrapUpAt: -1})
	require.NoError(t, err)
	m := scripted.New(scripted.Forever(scripted.Func(func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		if len(toolMessages(in)) < perRun {
			return schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: "search", Arguments: "{}"}}}), nil
		}
		return schema.AssistantMessage(in[0].Content+": done", nil), nil
	}).WithUsage(100, 0)))

	// Both runs wait for each other inside their first tool call, so their
	// calls interleave.
	var wg sync.WaitGroup
	wg.Add(2)
	var mu sync.Mutex
	stores := map[*session.Store]bool{}
	first := map[string]bool{}
	search := fnTool{Name: "search", Fn: func(ctx context.Context, _ string) (string, error) {
		store, _ := lookoutreact.Session(ctx)
		mu.Lock()
		stores[store] = true
		runner, _ := ctx.Value(runnerKey{}).(string)
		wait := !first[runner]
		first[runner] = true
		mu.Unlock()
		if wait {
			wg.Done()
			wg.Wait()
		}
		return "found", nil
	}}
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{search}, lookout: l})

	outs := make([]*schema.Message, 2)
	errs := make([]error, 2)
	var done sync.WaitGroup
	for i, name := range []string{"alpha", "beta"} {
		done.Add(1)
		go func() {
			defer done.Done()
			ctx := context.WithValue(context.Background(), runnerKey{}, name)
			outs[i], errs[i] = a.Generate(ctx, []*schema.Message{schema.UserMessage(name)})
		}()
	}
	done.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, "alpha: done", outs[0].Content)
	assert.Equal(t, "beta: done", outs[1].Content)

	require.Len(t, stores, 2, "each run had its own session")
	for store := range stores {
		b, ok := lookout.BudgetOf(store)
		require.True(t, ok)
		assert.Equal(t, int64(perRun), b.ToolCalls)
		assert.Equal(t, int64(perRun+1), b.ModelCalls)
		assert.Equal(t, int64((perRun+1)*100), b.TokensUsed)
		assert.Len(t, lookout.ToolCallsOf(store, 0), perRun)
	}
	for _, req := range m.Requests() {
		for _, msg := range toolMessages(req.Messages) {
			assert.Equal(t, "found", msg.Content, "no call was refused")
		}
	}
}

type runnerKey struct{}

func TestTheDeadlineTimerIsReleasedWhenTheRunEndsAndNotBefore(t *testing.T) {
	// The tool runs after the model node has ended: its ctx must still be
	// live. Once the run is over (Generate has returned, or the stream has
	// reported its end), the run's ctx is already released.
	for _, streaming := range []bool{false, true} {
		var mu sync.Mutex
		var toolCtx context.Context
		var liveInTool bool
		look := fnTool{Name: "look", Fn: func(ctx context.Context, _ string) (string, error) {
			mu.Lock()
			toolCtx, liveInTool = ctx, ctx.Err() == nil
			mu.Unlock()
			return "ok", nil
		}}
		m := scripted.New(scripted.Call("look", `{}`), scripted.Reply("a long final answer in several words"))
		o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{look}, cfg: &lookout.Config{
			Limits: budget.Limits{Timeout: time.Hour},
		}}).run(t, nil, streaming)
		require.NoError(t, o.err)
		assert.Equal(t, "a long final answer in several words", o.out.Content, "the stream was not cut")
		mu.Lock()
		assert.True(t, liveInTool)
		require.NotNil(t, toolCtx)
		done := toolCtx
		mu.Unlock()
		assert.ErrorIs(t, done.Err(), context.Canceled, "the timer was released at the end of the run, streaming=%v", streaming)
	}
}

func TestWithoutTheAgentWrapperTheHooksPassThroughAndReportOnce(t *testing.T) {
	log := &errorLog{}
	m := scripted.New(scripted.Call("search", `{}`), scripted.Call("search", `{}`), scripted.Reply("done"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookout.Config{
		Limits: budget.Limits{MaxToolCalls: 1}, OnError: log.OnError,
	}})
	// The hooks are in the agent, but it is run directly, not through
	// Hooks.Agent.
	out, err := a.raw.Generate(context.Background(), []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err, "the agent still runs")
	assert.Equal(t, "done", out.Content)
	errs := log.all()
	require.Len(t, errs, 1, "reported once, not on every hook")
	assert.ErrorIs(t, errs[0], lookoutreact.ErrNoRun)
	assert.Contains(t, errs[0].Error(), "Hooks.Agent")
	assert.Len(t, toolMessages(m.Requests()[2].Messages), 2, "the second call was not refused")
}

func TestANestedAgentSharesTheBudget(t *testing.T) {
	// A tool that runs another react agent with the same Lookout: the inner
	// graph finds the outer run on its ctx and charges the same budget.
	l, err := lookoutreact.New(context.Background(), &lookout.Config{Limits: budget.Limits{MaxTokens: 10_000}})
	require.NoError(t, err)
	innerModel := scripted.New(
		scripted.Call("lookup", `{"id":1}`).WithUsage(100, 10),
		scripted.Reply("inner answer").WithUsage(200, 20),
	)
	inner := newAgent(t, agentSpec{model: innerModel, tools: []tool.BaseTool{echo("lookup")}, lookout: l})
	research := fnTool{Name: "research", Fn: func(ctx context.Context, args string) (string, error) {
		out, err := inner.Generate(ctx, []*schema.Message{schema.UserMessage(args)})
		if err != nil {
			return "", err
		}
		return out.Content, nil
	}}
	outerModel := scripted.New(
		scripted.Call("research", `{"request":"find it"}`).WithUsage(1000, 100),
		scripted.Reply("outer answer").WithUsage(2000, 200),
	)
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: outerModel, tools: []tool.BaseTool{research}, lookout: l}).run(t, store, false)
	require.NoError(t, o.err)
	b, _ := lookout.BudgetOf(store)
	assert.Equal(t, int64(4), b.ModelCalls, "two outer and two inner model calls")
	assert.Equal(t, int64(100+10+200+20+1000+100+2000+200), b.TokensUsed)
	var names []string
	for _, rec := range lookout.ToolCallsOf(store, 0) {
		names = append(names, rec.ToolName)
	}
	assert.Equal(t, []string{"lookup", "research"}, names)
	assert.Equal(t, "inner answer", toolMessages(outerModel.Requests()[1].Messages)[0].Content)
}

func TestWrapModelLooksLikeTheInnerModelToEino(t *testing.T) {
	var l lookoutreact.Hooks
	assert.Nil(t, l.WrapModel(nil))
	for _, callbacksOn := range []bool{false, true} {
		m := scripted.New(scripted.Reply("hi")).WithCallbacks(callbacksOn)
		w := l.WrapModel(m)
		checker, ok := w.(interface{ IsCallbacksEnabled() bool })
		require.True(t, ok)
		assert.Equal(t, callbacksOn, checker.IsCallbacksEnabled())
		typer, ok := w.(interface{ GetType() string })
		require.True(t, ok)
		assert.Equal(t, "Scripted", typer.GetType())
	}
	bound, err := l.WrapModel(scripted.New()).WithTools([]*schema.ToolInfo{{Name: "x"}})
	require.NoError(t, err)
	_, ok := bound.(interface{ GetType() string })
	assert.True(t, ok, "WithTools returns a wrapped model")
	assert.Equal(t, "plainModel", l.WrapModel(&plainModel{}).(interface{ GetType() string }).GetType())
	assert.Equal(t, "plainModel", l.WrapModel((*plainModel)(nil)).(interface{ GetType() string }).GetType(), "a typed nil does not panic")
}

// plainModel implements nothing beyond model.ToolCallingChatModel.
type plainModel struct{}

func (*plainModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return schema.AssistantMessage("plain", nil), nil
}

func (*plainModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray([]*schema.Message{schema.AssistantMessage("plain", nil)}), nil
}

func (p *plainModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return p, nil }

func TestInjectionNeverWritesToTheCallersInput(t *testing.T) {
	l, err := lookoutreact.New(context.Background(), &lookout.Config{Observers: everyCall()})
	require.NoError(t, err)
	ctx := started(t, l)
	call := l.ToolMiddleware().Invokable(func(context.Context, *compose.ToolInput) (*compose.ToolOutput, error) {
		return &compose.ToolOutput{Result: "ok"}, nil
	})
	_, err = call(ctx, &compose.ToolInput{Name: "search", Arguments: "{}", CallID: "c1"})
	require.NoError(t, err)

	old := &schema.Message{Role: schema.User, Content: "old block", Extra: map[string]any{lookout.Tag: lookout.TagAssessment}}
	for name, history := range map[string][]*schema.Message{
		"with nothing to remove": {schema.UserMessage("go")},
		"with an old block":      {schema.UserMessage("go"), old, schema.UserMessage("more")},
		"with a nil message":     {schema.UserMessage("go"), nil, old},
	} {
		// Spare capacity that an append would write into.
		input := make([]*schema.Message, len(history), len(history)+4)
		copy(input, history)
		before := slices.Clone(input[:cap(input)])
		m := scripted.New(scripted.Reply("done"))
		_, err := l.WrapModel(m).Generate(ctx, input)
		require.NoError(t, err, name)
		assert.Equal(t, before, input[:cap(input)], "%s: the input's backing array is untouched", name)
		req := m.Requests()[0]
		assert.Equal(t, 1, req.CountContaining("## Trajectory Assessment"), name)
		assert.Equal(t, 0, req.CountContaining("old block"), name)
		want := 1 // the new block
		for _, msg := range history {
			if _, injected := lookout.Injected(msg); !injected {
				want++
			}
		}
		assert.Len(t, req.Messages, want, name)
	}
}

func TestTheDriftObserverIsGivenTheTask(t *testing.T) {
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	store := session.New(nil)
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}})
	history := []*schema.Message{schema.SystemMessage("be brief"), schema.UserMessage("migrate the billing service")}
	_, err := a.Generate(session.NewContext(context.Background(), store), history)
	require.NoError(t, err)
	task, ok := session.ValueOf[observer.Task](store).Latest()
	require.True(t, ok)
	assert.Equal(t, "migrate the billing service", task.Prompt)
}

// TestSharedBehaviour runs the behaviours both adapters share.
func TestSharedBehaviour(t *testing.T) {
	drivetest.Run(t, drivetest.Adapter{
		Run:                  runInput,
		New:                  func(cfg *lookout.Config) error { _, err := lookoutreact.New(context.Background(), cfg); return err },
		Session:              lookoutreact.Session,
		AgentName:            "ReActAgent",
		InputMessages:        1, // the user's message
		WrapUpDescribesTools: true,
	})
}
