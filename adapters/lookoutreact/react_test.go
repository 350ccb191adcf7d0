package lookoutreact_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// TestEinoHandsTheGraphStartCtxToEveryNode checks the Eino behaviour the
// whole package rests on: the ctx a callbacks handler returns from the
// react graph's OnStart is the ctx its model, message modifier and tool
// middleware run with, in Generate and in Stream.
func TestEinoHandsTheGraphStartCtxToEveryNode(t *testing.T) {
	type key struct{}
	for _, streaming := range []bool{false, true} {
		var mu sync.Mutex
		seen := map[string]any{}
		note := func(where string, ctx context.Context) {
			mu.Lock()
			seen[where] = ctx.Value(key{})
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
		starts := 0
		onStart := func(ctx context.Context, info *callbacks.RunInfo) context.Context {
			if info.Component != compose.ComponentOfGraph {
				return ctx
			}
			starts++
			return context.WithValue(ctx, key{}, "from OnStart")
		}
		// A streamed run starts the graph with a stream input.
		h := callbacks.NewHandlerBuilder().
			OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
				return onStart(ctx, info)
			}).
			OnStartWithStreamInputFn(func(ctx context.Context, info *callbacks.RunInfo, in *schema.StreamReader[callbacks.CallbackInput]) context.Context {
				in.Close()
				return onStart(ctx, info)
			}).Build()
		o := reactAgent{Agent: a}.runCtx(context.Background(), streaming, agent.WithComposeOptions(compose.WithCallbacks(h)))
		require.NoError(t, o.err)
		assert.Equal(t, 1, starts, "streaming=%v", streaming)
		for _, where := range []string{"model", "modifier", "middleware", "tool"} {
			assert.Equal(t, "from OnStart", seen[where], "%s, streaming=%v", where, streaming)
		}
	}
}

func TestParallelToolCallsGetDenseUniqueIndices(t *testing.T) {
	const n = 12
	var calls []scripted.ToolCall
	for i := range n {
		calls = append(calls, scripted.ToolCall{Name: "work", Arguments: callArgs(i)})
	}
	m := scripted.New(scripted.Calls(calls...), scripted.Reply("done"))

	var inflight, peak int
	var mu sync.Mutex
	release := make(chan struct{})
	var store *session.Store
	work := fnTool{Name: "work", Fn: func(ctx context.Context, args string) (string, error) {
		mu.Lock()
		store, _ = lookoutreact.Session(ctx)
		inflight++
		peak = max(peak, inflight)
		if inflight == n {
			close(release) // every call is in flight at once
		}
		mu.Unlock()
		<-release
		mu.Lock()
		inflight--
		mu.Unlock()
		return "done " + args, nil
	}}
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{work}, cfg: &lookoutreact.Config{Observers: everyCall()}}).run(t, nil, false)
	require.NoError(t, o.err)
	assert.Equal(t, n, peak, "the calls ran in parallel")
	require.NotNil(t, store, "the tools saw the run's session")

	var indices []int64
	ids := map[string]bool{}
	for _, rec := range session.LogOf[observer.ToolCallRecord](store).All() {
		indices = append(indices, rec.CallIndex)
		ids[rec.CallID] = true
		assert.True(t, rec.Success)
		assert.Equal(t, "work", rec.ToolName)
	}
	slices.Sort(indices)
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 1)
	}
	assert.Equal(t, want, indices)
	assert.Len(t, ids, n, "each record carries its own call ID")
	assert.Len(t, toolMessages(m.Requests()[1].Messages), n)
}

func TestTheNextModelInputHoldsExactlyOneAssessmentBlock(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		m := scripted.New(
			scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
			scripted.Call("search", `{"q":"c"}`),
			scripted.Call("search", `{"q":"d"}`),
			scripted.Reply("done"),
		)
		o := newAgent(t, agentSpec{
			model: m, tools: []tool.BaseTool{echo("search")},
			cfg: &lookoutreact.Config{Observers: everyCall(), Limits: budget.Limits{MaxToolCalls: 50}},
		}).run(t, nil, streaming)
		require.NoError(t, o.err)

		reqs := m.Requests()
		require.Len(t, reqs, 4)
		assert.Equal(t, 0, reqs[0].CountContaining("## Trajectory Assessment"), "nothing to say before the first call")
		for i := 1; i < 4; i++ {
			assert.Equal(t, 1, reqs[i].CountContaining("## Trajectory Assessment"), "request %d, streaming=%v", i, streaming)
			kind, ok := lookoutreact.Injected(reqs[i].Last())
			assert.True(t, ok)
			assert.Equal(t, lookoutreact.TagAssessment, kind)
		}
		assert.Contains(t, reqs[1].Last().Content, "_Generated after tool call #2_")
		assert.Contains(t, reqs[3].Last().Content, "_Generated after tool call #4_")
		assert.Equal(t, schema.User, reqs[3].Last().Role)
	}
}

func TestAStaleAssessmentIsNotInjected(t *testing.T) {
	// The observer speaks only after a failure; three successful calls
	// later its assessment is older than MaxAgeCalls and is dropped.
	m := scripted.New(
		scripted.Call("flaky", `{}`),
		scripted.Call("search", `{"q":"a"}`),
		scripted.Call("search", `{"q":"b"}`),
		scripted.Call("search", `{"q":"c"}`),
		scripted.Reply("done"),
	)
	cfg := &lookoutreact.Config{
		MaxAgeCalls: 2,
		InjectAs:    schema.System,
		Observers: []observer.Config{{
			Observer: observer.NewResource(),
			Trigger:  observer.Trigger{AfterConsecutiveErrors: 1},
		}},
	}
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search"), failing("flaky", "boom")}, cfg: cfg}).run(t, nil, false)
	require.NoError(t, o.err)

	reqs := m.Requests()
	require.Len(t, reqs, 5)
	counts := make([]int, len(reqs))
	for i, r := range reqs {
		counts[i] = r.CountContaining("## Trajectory Assessment")
	}
	// Made after call 1: fresh at calls 1, 2 and 3, stale at 4.
	assert.Equal(t, []int{0, 1, 1, 1, 0}, counts)
	assert.Equal(t, schema.System, reqs[1].Last().Role)
}

func TestInjectionReplacesLookoutMessagesAlreadyInTheHistory(t *testing.T) {
	// A history carried over from an earlier run holds an old block; the
	// model still sees exactly one.
	old := &schema.Message{Role: schema.User, Content: "## Trajectory Assessment\n\nold", Extra: map[string]any{lookoutreact.Tag: lookoutreact.TagAssessment}}
	m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("done"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{Observers: everyCall()}})
	history := []*schema.Message{schema.UserMessage("earlier question"), old, schema.UserMessage("do the task")}
	_, err := a.Generate(context.Background(), history, a.lookout.AgentOption())
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
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, modifier: persona, cfg: &lookoutreact.Config{Observers: everyCall()}}).run(t, nil, false)
	require.NoError(t, o.err)
	req := m.Requests()[1]
	assert.Equal(t, "You are terse.", req.Messages[0].Content)
	assert.Equal(t, 1, req.CountContaining("You are terse."))
	assert.Contains(t, req.Last().Content, "## Trajectory Assessment", "the block comes last")
}

func TestAToolCallOverTheLimitIsRefusedWithAReadableMessage(t *testing.T) {
	m := scripted.New(
		scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`),
		scripted.Reply("done"),
	)
	ran := 0
	var mu sync.Mutex
	search := fnTool{Name: "search", Fn: func(context.Context, string) (string, error) {
		mu.Lock()
		ran++
		mu.Unlock()
		return "found", nil
	}}
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{search}, cfg: &lookoutreact.Config{Limits: budget.Limits{MaxToolCalls: 2}}}).run(t, store, false)
	require.NoError(t, o.err)
	assert.Equal(t, 2, ran, "the third call did not run")

	refused := 0
	for _, msg := range toolMessages(m.Requests()[1].Messages) {
		if strings.HasPrefix(msg.Content, "Tool call refused: the tool-call budget is spent") {
			refused++
			assert.Contains(t, msg.Content, "2 of 2 used")
			assert.Contains(t, msg.Content, "Do not call more tools")
		}
	}
	assert.Equal(t, 1, refused)
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(2), b.ToolCalls)
}

func TestTheWrapUpTurnOffersNoTools(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		m := scripted.New(
			scripted.Call("search", `{"q":"a"}`).WithUsage(900, 50),
			scripted.Reply("Summary: searched once.").WithUsage(20, 10),
		)
		o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{Limits: budget.Limits{MaxTokens: 1000}}}).run(t, nil, streaming)
		require.NoError(t, o.err)
		assert.Equal(t, "Summary: searched once.", o.out.Content)

		reqs := m.Requests()
		require.Len(t, reqs, 2)
		assert.False(t, reqs[0].ToolsWithheld())
		assert.Equal(t, []string{"search"}, reqs[0].ToolNames())
		assert.True(t, reqs[1].ToolsWithheld(), "tools offered: %v", reqs[1].ToolNames())
		require.NotNil(t, reqs[1].ToolChoice)
		assert.Equal(t, schema.ToolChoiceForbidden, *reqs[1].ToolChoice)
		assert.Contains(t, reqs[1].Last().Content, "Your budget is nearly spent (tokens: 950 of 1000 used)")
		assert.Equal(t, 1, reqs[1].CountContaining("Budget nearly spent"))
	}
}

func TestTokenExhaustionEndsTheRunWithTheTypedError(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		const perCall = 60
		m := scripted.New(
			scripted.Call("search", `{"q":"a"}`).WithUsage(perCall, 0),
			scripted.Call("search", `{"q":"b"}`).WithUsage(perCall, 0),
			scripted.Call("search", `{"q":"c"}`).WithUsage(perCall, 0),
			scripted.Reply("never reached"),
		)
		store := session.New(nil)
		o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1}}).run(t, store, streaming)

		require.Error(t, o.err)
		assert.ErrorIs(t, o.err, budget.ErrExceeded)
		var ex *budget.ExceededError
		require.ErrorAs(t, o.err, &ex)
		assert.Equal(t, budget.Tokens, ex.Resource)
		assert.Equal(t, int64(100), ex.Limit)
		assert.Equal(t, 2, m.Calls(), "the third model call was not made")

		// The overrun bound: at most one model response past the limit.
		b, _ := session.ValueOf[budget.Budget](store).Latest()
		assert.Equal(t, int64(120), b.TokensUsed)
		assert.LessOrEqual(t, b.TokensUsed-b.MaxTokens, int64(perCall))
	}
}

func TestStreamingChargesExactlyWhatGenerateCharges(t *testing.T) {
	script := func() *scripted.Model {
		return scripted.New(
			scripted.Reply("Let me look.").Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
			scripted.Call("search", `{"q":"c"}`),
			scripted.Reply("All three searches agree."),
		)
	}
	budgets := map[bool]budget.Budget{}
	for _, streaming := range []bool{false, true} {
		store := session.New(nil)
		m := script()
		o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{Limits: budget.Limits{MaxTokens: 100_000}}, readWholeStream: true}).run(t, store, streaming)
		require.NoError(t, o.err)
		assert.Equal(t, "All three searches agree.", o.out.Content)
		for _, r := range m.Requests() {
			assert.Equal(t, streaming, r.Stream, "the model was called through Stream when the agent streamed")
		}
		budgets[streaming], _ = session.ValueOf[budget.Budget](store).Latest()
	}
	assert.Positive(t, budgets[false].TokensUsed)
	assert.Equal(t, int64(3), budgets[true].ModelCalls)
	assert.Zero(t, budgets[true].ModelCallsWithoutUsage)
	assert.Equal(t, budgets[false].TokensUsed, budgets[true].TokensUsed)
	assert.Equal(t, budgets[false].PromptTokens, budgets[true].PromptTokens)
	assert.Equal(t, budgets[false].CompletionTokens, budgets[true].CompletionTokens)
}

func TestACallWithoutUsageIsToldApartFromZero(t *testing.T) {
	m := scripted.New(
		scripted.Call("search", `{}`).WithoutUsage(),
		scripted.Reply("done").WithUsage(0, 0),
	)
	store := session.New(nil)
	require.NoError(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}}).run(t, store, true).err)
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(2), b.ModelCalls)
	assert.Equal(t, int64(1), b.ModelCallsWithoutUsage)
	assert.Zero(t, b.TokensUsed)
}

func TestAModelThatFiresItsOwnCallbacksIsChargedOnce(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		m := scripted.New(
			scripted.Call("search", `{}`).WithUsage(100, 10),
			scripted.Reply("done").WithUsage(200, 20),
		).WithCallbacks(true)
		store := session.New(nil)
		require.NoError(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}}).run(t, store, streaming).err)
		b, _ := session.ValueOf[budget.Budget](store).Latest()
		assert.Equal(t, int64(2), b.ModelCalls)
		assert.Equal(t, int64(330), b.TokensUsed)
	}
}

func TestTwoConcurrentRunsKeepSeparateBudgets(t *testing.T) {
	// One agent, one Lookout, two runs at once. Each run makes three tool
	// calls under a limit of three: shared state would refuse some.
	const perRun = 3
	l, err := lookoutreact.New(&lookoutreact.Config{Limits: budget.Limits{MaxToolCalls: perRun, MaxTokens: 10_000}, WrapUpAt: -1})
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
			outs[i], errs[i] = a.Generate(ctx, []*schema.Message{schema.UserMessage(name)}, l.AgentOption())
		}()
	}
	done.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, "alpha: done", outs[0].Content)
	assert.Equal(t, "beta: done", outs[1].Content)

	require.Len(t, stores, 2, "each run had its own session")
	for store := range stores {
		b, _ := session.ValueOf[budget.Budget](store).Latest()
		assert.Equal(t, int64(perRun), b.ToolCalls)
		assert.Equal(t, int64(perRun+1), b.ModelCalls)
		assert.Equal(t, int64((perRun+1)*100), b.TokensUsed)
		assert.Equal(t, int64(perRun), session.LogOf[observer.ToolCallRecord](store).Total())
	}
	for _, req := range m.Requests() {
		for _, msg := range toolMessages(req.Messages) {
			assert.Equal(t, "found", msg.Content, "no call was refused")
		}
	}
}

type runnerKey struct{}

func TestToolErrorsBecomeMessagesAndCountAsFailures(t *testing.T) {
	m := scripted.New(
		scripted.Call("deploy", `{}`),
		scripted.Call("deploy", `{}`),
		scripted.Call("deploy", `{}`),
		scripted.Reply("giving up"),
	)
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{failing("deploy", "permission denied")}, cfg: &lookoutreact.Config{
		Observers: []observer.Config{{Observer: observer.NewResource(), Trigger: observer.Trigger{AfterConsecutiveErrors: 3}}},
	}}).run(t, store, false)
	require.NoError(t, o.err)
	tools := toolMessages(m.Requests()[3].Messages)
	require.Len(t, tools, 3)
	assert.Equal(t, "Error: permission denied", tools[0].Content)
	tally, _ := session.ValueOf[observer.Tally](store).Latest()
	assert.Equal(t, int64(3), tally.ConsecutiveErrors)
	assert.Contains(t, m.Requests()[3].Last().Content, "_Generated after tool call #3_", "the error trigger fired")
}

func TestToolErrorsCanAbortTheRunAsEinoDoes(t *testing.T) {
	m := scripted.New(scripted.Call("deploy", `{}`), scripted.Reply("never reached"))
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{failing("deploy", "permission denied")}, cfg: &lookoutreact.Config{ToolErrors: lookoutreact.ToolErrorsAbort}}).run(t, store, false)
	require.Error(t, o.err)
	assert.Contains(t, o.err.Error(), "permission denied")
	rec, ok := session.LogOf[observer.ToolCallRecord](store).Latest()
	require.True(t, ok, "the failed call was recorded before the run ended")
	assert.False(t, rec.Success)
}

func TestEveryKindOfToolIsRecorded(t *testing.T) {
	tools := []tool.BaseTool{
		echo("plain"),
		streamTool{Name: "streamed", Chunks: []string{"part one, ", "part two"}},
		streamTool{Name: "broken_stream", Chunks: []string{"half"}, Err: errors.New("connection reset")},
		richTool{Name: "rich", Text: "a picture of a cat"},
		richTool{Name: "rich_failing", Err: errors.New("no camera")},
		richStreamTool{Name: "rich_streamed", Chunks: []string{"frame 1 ", "frame 2"}},
	}
	type want struct {
		result  string
		success bool
		errText string
	}
	wants := map[string]want{
		"plain":         {result: "plain ok {}", success: true},
		"streamed":      {result: "part one, part two", success: true},
		"rich":          {result: "a picture of a cat", success: true},
		"rich_failing":  {success: false, errText: "no camera"},
		"rich_streamed": {result: "frame 1 frame 2", success: true},
	}
	for _, streaming := range []bool{false, true} {
		for _, tl := range tools {
			info, _ := tl.Info(context.Background())
			name := info.Name
			if name == "broken_stream" {
				continue // below: a mid-stream error ends the run
			}
			m := scripted.New(scripted.Call(name, `{}`), scripted.Reply("done"))
			store := session.New(nil)
			o := newAgent(t, agentSpec{model: m, tools: tools}).run(t, store, streaming)
			require.NoError(t, o.err, "%s, streaming=%v", name, streaming)
			rec, ok := session.LogOf[observer.ToolCallRecord](store).Latest()
			require.True(t, ok, "%s was recorded, streaming=%v", name, streaming)
			w := wants[name]
			assert.Equal(t, name, rec.ToolName)
			assert.Equal(t, w.success, rec.Success, name)
			assert.Equal(t, w.result, rec.Result, name)
			assert.Equal(t, w.errText, rec.ErrorMessage, name)
			assert.Equal(t, int64(1), session.LogOf[observer.ToolCallRecord](store).Total(), "%s recorded once", name)
		}
	}

	m := scripted.New(scripted.Call("broken_stream", `{}`), scripted.Reply("never reached"))
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: m, tools: tools}).run(t, store, false)
	require.Error(t, o.err)
	assert.Contains(t, o.err.Error(), "connection reset")
	rec, ok := session.LogOf[observer.ToolCallRecord](store).Latest()
	require.True(t, ok)
	assert.False(t, rec.Success)
	assert.Equal(t, "half", rec.Result)
	assert.Equal(t, "connection reset", rec.ErrorMessage)
}

func TestRefusalsReachTheModelForEveryKindOfTool(t *testing.T) {
	tools := []tool.BaseTool{
		echo("plain"),
		streamTool{Name: "streamed", Chunks: []string{"streamed ok"}},
		richTool{Name: "rich", Text: "rich ok"},
		richStreamTool{Name: "rich_streamed", Chunks: []string{"rich_streamed ok"}},
	}
	for _, streaming := range []bool{false, true} {
		for _, name := range []string{"plain", "streamed", "rich", "rich_streamed"} {
			// Two parallel calls under a limit of one: one runs, one is refused.
			m := scripted.New(scripted.Call(name, `{"n":1}`).Call(name, `{"n":2}`), scripted.Reply("done"))
			store := session.New(nil)
			o := newAgent(t, agentSpec{model: m, tools: tools, cfg: &lookoutreact.Config{Limits: budget.Limits{MaxToolCalls: 1}}}).run(t, store, streaming)
			require.NoError(t, o.err, "%s, streaming=%v", name, streaming)
			var refused, ran int
			for _, msg := range toolMessages(m.Requests()[1].Messages) {
				text := messageText(msg)
				switch {
				case strings.HasPrefix(text, "Tool call refused: the tool-call budget is spent"):
					refused++
				case strings.Contains(text, "ok"):
					ran++
				default:
					t.Errorf("%s: unexpected tool message %q", name, text)
				}
			}
			assert.Equal(t, 1, refused, "%s, streaming=%v", name, streaming)
			assert.Equal(t, 1, ran, "%s, streaming=%v", name, streaming)
			assert.Equal(t, int64(1), session.LogOf[observer.ToolCallRecord](store).Total(), "a refused call is not recorded")
		}
	}
}

// messageText returns a message's text: its content and its text parts.
func messageText(m *schema.Message) string {
	var b strings.Builder
	b.WriteString(m.Content)
	for _, p := range m.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestADeadlineEndsTheRunWithItsCause(t *testing.T) {
	c := newClock()
	m := scripted.New(
		scripted.Call("slow", `{}`),
		scripted.Reply("never reached"),
	)
	var sawDeadline bool
	slow := fnTool{Name: "slow", Fn: func(ctx context.Context, _ string) (string, error) {
		_, sawDeadline = ctx.Deadline()
		c.Advance(31 * time.Minute)
		return "finally", nil
	}}
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{slow}, cfg: &lookoutreact.Config{
		Limits: budget.Limits{Timeout: 30 * time.Minute}, Now: c.Now, WrapUpAt: -1,
	}}).run(t, nil, false)
	assert.True(t, sawDeadline, "the run's ctx carries the deadline")
	require.ErrorIs(t, o.err, budget.ErrExceeded)
	var ex *budget.ExceededError
	require.ErrorAs(t, o.err, &ex)
	assert.Equal(t, budget.Time, ex.Resource)
	assert.Equal(t, 1, m.Calls())
}

func TestADeadlineAlreadyPastEndsTheRunWithTheBudgetError(t *testing.T) {
	m := scripted.New(scripted.Reply("never reached"))
	o := newAgent(t, agentSpec{model: m, cfg: &lookoutreact.Config{
		Limits: budget.Limits{Deadline: time.Now().Add(-time.Second)}, WrapUpAt: -1,
	}}).run(t, nil, false)
	require.Error(t, o.err)
	assert.ErrorIs(t, o.err, budget.ErrExceeded)
	assert.Equal(t, 0, m.Calls())
}

func TestTheDeadlineTimerIsReleasedWhenTheRunEndsAndNotBefore(t *testing.T) {
	// The tool runs after the model node has ended: its ctx must still be
	// live. Once the run is over (for a stream, once its output has been
	// read), the run's ctx is released.
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
		o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{look}, cfg: &lookoutreact.Config{
			Limits: budget.Limits{Timeout: time.Hour},
		}}).run(t, nil, streaming)
		require.NoError(t, o.err)
		assert.Equal(t, "a long final answer in several words", o.out.Content, "the stream was not cut")
		mu.Lock()
		assert.True(t, liveInTool)
		require.NotNil(t, toolCtx)
		done := toolCtx
		mu.Unlock()
		assert.Eventually(t, func() bool { return errors.Is(done.Err(), context.Canceled) }, 5*time.Second, time.Millisecond,
			"the timer was released at the end of the run, streaming=%v", streaming)
	}
}

func TestWithoutTheRunOptionTheHooksPassThroughAndReportOnce(t *testing.T) {
	log := &errorLog{}
	m := scripted.New(scripted.Call("search", `{}`), scripted.Call("search", `{}`), scripted.Reply("done"))
	a := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{
		Limits: budget.Limits{MaxToolCalls: 1}, OnError: log.OnError,
	}})
	out, err := a.Generate(context.Background(), []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err, "the agent still runs")
	assert.Equal(t, "done", out.Content)
	errs := log.all()
	require.Len(t, errs, 1, "reported once, not on every hook")
	assert.ErrorIs(t, errs[0], lookoutreact.ErrNoRun)
	assert.Contains(t, errs[0].Error(), "AgentOption")
	assert.Len(t, toolMessages(m.Requests()[2].Messages), 2, "the second call was not refused")
}

func TestSeveralRunsShareTheSessionOnTheCtx(t *testing.T) {
	store := session.New(nil)
	cfg := &lookoutreact.Config{Limits: budget.Limits{MaxToolCalls: 3}}
	for range 2 {
		m := scripted.New(scripted.Call("search", `{}`).Call("search", `{}`), scripted.Reply("ok"))
		require.NoError(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: cfg}).run(t, store, false).err)
	}
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(3), b.ToolCalls, "the second run had one call left")
	assert.Equal(t, int64(3), session.LogOf[observer.ToolCallRecord](store).Total())
}

func TestANestedAgentSharesTheBudget(t *testing.T) {
	// A tool that runs another react agent with the same Lookout: the inner
	// graph finds the outer run on its ctx and charges the same budget.
	l, err := lookoutreact.New(&lookoutreact.Config{Limits: budget.Limits{MaxTokens: 10_000}})
	require.NoError(t, err)
	innerModel := scripted.New(
		scripted.Call("lookup", `{"id":1}`).WithUsage(100, 10),
		scripted.Reply("inner answer").WithUsage(200, 20),
	)
	inner := newAgent(t, agentSpec{model: innerModel, tools: []tool.BaseTool{echo("lookup")}, lookout: l})
	research := fnTool{Name: "research", Fn: func(ctx context.Context, args string) (string, error) {
		out, err := inner.Generate(ctx, []*schema.Message{schema.UserMessage(args)}, l.AgentOption())
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
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(4), b.ModelCalls, "two outer and two inner model calls")
	assert.Equal(t, int64(100+10+200+20+1000+100+2000+200), b.TokensUsed)
	var names []string
	for _, rec := range session.LogOf[observer.ToolCallRecord](store).All() {
		names = append(names, rec.ToolName)
	}
	assert.Equal(t, []string{"lookup", "research"}, names)
	assert.Equal(t, "inner answer", toolMessages(outerModel.Requests()[1].Messages)[0].Content)
}

func TestAdvisoryResourcesAreNotEnforced(t *testing.T) {
	m := scripted.New(
		scripted.Call("search", `{}`).Call("search", `{}`).WithUsage(500, 0),
		scripted.Reply("done").WithUsage(500, 0),
	)
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{
		Limits:   budget.Limits{MaxTokens: 100, MaxToolCalls: 1},
		Advisory: []budget.Resource{budget.Tokens, budget.ToolCalls},
		WrapUpAt: -1,
	}}).run(t, nil, false)
	require.NoError(t, o.err)
	for _, msg := range toolMessages(m.Requests()[1].Messages) {
		assert.NotContains(t, msg.Content, "refused")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]*lookoutreact.Config{
		"negative limits":        {Limits: budget.Limits{MaxTokens: -1}},
		"an unknown role":        {InjectAs: schema.Assistant},
		"an unknown resource":    {Advisory: []budget.Resource{"money"}},
		"a wrap-up share of 1":   {WrapUpAt: 1},
		"a bad observer trigger": {Observers: []observer.Config{{Observer: observer.NewResource()}}},
	} {
		t.Run("it rejects "+name, func(t *testing.T) {
			_, err := lookoutreact.New(cfg)
			require.Error(t, err)
		})
	}
	_, err := lookoutreact.New(nil)
	require.NoError(t, err)
}

func TestTheZeroLookoutUsesTheDefaults(t *testing.T) {
	var l lookoutreact.Lookout
	m := scripted.New(scripted.Call("search", `{}`).WithUsage(10, 1), scripted.Reply("done").WithUsage(20, 2))
	store := session.New(nil)
	o := newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, lookout: &l}).run(t, store, false)
	require.NoError(t, o.err)
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(33), b.TokensUsed)
	assert.Equal(t, int64(1), session.LogOf[observer.ToolCallRecord](store).Total())
}

func TestWrapModelLooksLikeTheInnerModelToEino(t *testing.T) {
	var l lookoutreact.Lookout
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
	l, err := lookoutreact.New(&lookoutreact.Config{Observers: everyCall()})
	require.NoError(t, err)
	ctx := l.Handler().OnStart(context.Background(), &callbacks.RunInfo{Component: compose.ComponentOfGraph}, nil)
	call := l.ToolMiddleware().Invokable(func(context.Context, *compose.ToolInput) (*compose.ToolOutput, error) {
		return &compose.ToolOutput{Result: "ok"}, nil
	})
	_, err = call(ctx, &compose.ToolInput{Name: "search", Arguments: "{}", CallID: "c1"})
	require.NoError(t, err)

	old := &schema.Message{Role: schema.User, Content: "old block", Extra: map[string]any{lookoutreact.Tag: lookoutreact.TagAssessment}}
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
			if _, injected := lookoutreact.Injected(msg); !injected {
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
	_, err := a.Generate(session.NewContext(context.Background(), store), history, a.lookout.AgentOption())
	require.NoError(t, err)
	task, ok := session.ValueOf[observer.Task](store).Latest()
	require.True(t, ok)
	assert.Equal(t, "migrate the billing service", task.Prompt)
}
