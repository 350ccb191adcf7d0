package lookoutadk_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

func everyCall() []observer.Config {
	return []observer.Config{{Observer: observer.NewResource(), Trigger: observer.Trigger{OnEveryCall: true}}}
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
	work := fnTool{Name: "work", Fn: func(_ context.Context, args string) (string, error) {
		mu.Lock()
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
	store := session.New(nil)
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{work}, cfg: &lookoutadk.Config{Observers: everyCall()}}), store, false)
	require.NoError(t, o.err)
	assert.Equal(t, n, peak, "the calls ran in parallel")

	var indices []int64
	for _, rec := range session.LogOf[observer.ToolCallRecord](store).All() {
		indices = append(indices, rec.CallIndex)
		assert.True(t, rec.Success)
		assert.Equal(t, "work", rec.ToolName)
	}
	slices.Sort(indices)
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 1)
	}
	assert.Equal(t, want, indices)
}

func TestTheNextModelInputHoldsExactlyOneAssessmentBlock(t *testing.T) {
	m := scripted.New(
		scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
		scripted.Call("search", `{"q":"c"}`),
		scripted.Call("search", `{"q":"d"}`),
		scripted.Reply("done"),
	)
	o := runAgent(t, newAgent(t, agentSpec{
		model: m, tools: []tool.BaseTool{echo("search")},
		cfg: &lookoutadk.Config{Observers: everyCall(), Limits: budget.Limits{MaxToolCalls: 50}},
	}), nil, false)
	require.NoError(t, o.err)

	reqs := m.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, 0, reqs[0].CountContaining("## Trajectory Assessment"), "nothing to say before the first call")
	for i := 1; i < 4; i++ {
		assert.Equal(t, 1, reqs[i].CountContaining("## Trajectory Assessment"), "request %d", i)
	}
	assert.Contains(t, reqs[1].Last().Content, "_Generated after tool call #2_")
	assert.Contains(t, reqs[3].Last().Content, "_Generated after tool call #4_")
	assert.Equal(t, schema.User, reqs[3].Last().Role)
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
	cfg := &lookoutadk.Config{
		MaxAgeCalls: 2,
		InjectAs:    schema.System,
		Observers: []observer.Config{{
			Observer: observer.NewResource(),
			Trigger:  observer.Trigger{AfterConsecutiveErrors: 1},
		}},
	}
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search"), failing("flaky", "boom")}, cfg: cfg}), nil, false)
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
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{search}, cfg: &lookoutadk.Config{Limits: budget.Limits{MaxToolCalls: 2}}}), store, false)
	require.NoError(t, o.err)
	assert.Equal(t, 2, ran, "the third call did not run")

	refused := 0
	for _, msg := range m.Requests()[1].Messages {
		if msg.Role == schema.Tool && strings.HasPrefix(msg.Content, "Tool call refused: the tool-call budget is spent") {
			refused++
			assert.Contains(t, msg.Content, "2 of 2 used")
		}
	}
	assert.Equal(t, 1, refused)
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(2), b.ToolCalls)
}

func TestTheWrapUpTurnOffersNoTools(t *testing.T) {
	m := scripted.New(
		scripted.Call("search", `{"q":"a"}`).WithUsage(900, 50),
		scripted.Reply("Summary: searched once.").WithUsage(20, 10),
	)
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{Limits: budget.Limits{MaxTokens: 1000}}}), nil, false)
	require.NoError(t, o.err)

	reqs := m.Requests()
	require.Len(t, reqs, 2)
	assert.False(t, reqs[0].ToolsWithheld())
	assert.True(t, reqs[1].ToolsWithheld(), "tools offered: %v", reqs[1].ToolNames())
	assert.Contains(t, reqs[1].Last().Content, "Your budget is nearly spent (tokens: 950 of 1000 used)")
	assert.Equal(t, 1, reqs[1].CountContaining("Budget nearly spent"))
}

func TestTokenExhaustionEndsTheRunWithTheTypedError(t *testing.T) {
	const perCall = 60
	m := scripted.New(
		scripted.Call("search", `{"q":"a"}`).WithUsage(perCall, 0),
		scripted.Call("search", `{"q":"b"}`).WithUsage(perCall, 0),
		scripted.Call("search", `{"q":"c"}`).WithUsage(perCall, 0),
		scripted.Reply("never reached"),
	)
	store := session.New(nil)
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1}}), store, false)

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

func TestTheOverrunIsAtMostOneResponseWhateverItsSize(t *testing.T) {
	for _, last := range []int{1, 99, 5000} {
		m := scripted.New(
			scripted.Call("search", `{}`).WithUsage(99, 0),
			scripted.Call("search", `{}`).WithUsage(last, 0),
			scripted.Reply("never reached"),
		)
		store := session.New(nil)
		o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1}}), store, false)
		require.ErrorIs(t, o.err, budget.ErrExceeded)
		b, _ := session.ValueOf[budget.Budget](store).Latest()
		assert.Equal(t, int64(99+last), b.TokensUsed)
		assert.LessOrEqual(t, b.TokensUsed-b.MaxTokens, int64(last))
	}
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
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{slow}, cfg: &lookoutadk.Config{
		Limits: budget.Limits{Timeout: 30 * time.Minute}, Now: c.Now, WrapUpAt: -1,
	}}), nil, false)
	assert.True(t, sawDeadline, "the run's ctx carries the deadline")
	require.ErrorIs(t, o.err, budget.ErrExceeded)
	var ex *budget.ExceededError
	require.ErrorAs(t, o.err, &ex)
	assert.Equal(t, budget.Time, ex.Resource)
	assert.Equal(t, 1, m.Calls())
}

func TestTheCtxDeadlineCarriesTheBudgetCause(t *testing.T) {
	// The deadline is already past when the run starts: the ctx is done
	// with the budget error as its cause, and the run ends with it.
	m := scripted.New(scripted.Reply("never reached"))
	o := runAgent(t, newAgent(t, agentSpec{model: m, cfg: &lookoutadk.Config{
		Limits: budget.Limits{Deadline: time.Now().Add(-time.Second)}, WrapUpAt: -1,
	}}), nil, false)
	require.Error(t, o.err)
	assert.ErrorIs(t, o.err, budget.ErrExceeded)
	assert.Equal(t, 0, m.Calls())
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
		o := runAgent(t, newAgent(t, agentSpec{model: script(), tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{Limits: budget.Limits{MaxTokens: 100_000}}}), store, streaming)
		require.NoError(t, o.err)
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
	require.NoError(t, runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}}), store, true).err)
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(2), b.ModelCalls)
	assert.Equal(t, int64(1), b.ModelCallsWithoutUsage)
	assert.Zero(t, b.TokensUsed)
}

func TestToolErrorsBecomeMessagesAndCountAsFailures(t *testing.T) {
	m := scripted.New(
		scripted.Call("deploy", `{}`),
		scripted.Call("deploy", `{}`),
		scripted.Call("deploy", `{}`),
		scripted.Reply("giving up"),
	)
	store := session.New(nil)
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{failing("deploy", "permission denied")}, cfg: &lookoutadk.Config{
		Observers: []observer.Config{{Observer: observer.NewResource(), Trigger: observer.Trigger{AfterConsecutiveErrors: 3}}},
	}}), store, false)
	require.NoError(t, o.err)
	tools := o.toolMessages()
	require.Len(t, tools, 3)
	assert.Equal(t, "Error: permission denied", tools[0].Content)
	tally, _ := session.ValueOf[observer.Tally](store).Latest()
	assert.Equal(t, int64(3), tally.ConsecutiveErrors)
	assert.Contains(t, m.Requests()[3].Last().Content, "_Generated after tool call #3_", "the error trigger fired")
}

func TestToolErrorsCanAbortTheRunAsEinoDoes(t *testing.T) {
	m := scripted.New(scripted.Call("deploy", `{}`), scripted.Reply("never reached"))
	store := session.New(nil)
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{failing("deploy", "permission denied")}, cfg: &lookoutadk.Config{ToolErrors: lookoutadk.ToolErrorsAbort}}), store, false)
	require.Error(t, o.err)
	assert.Contains(t, o.err.Error(), "permission denied")
	rec, ok := session.LogOf[observer.ToolCallRecord](store).Latest()
	require.True(t, ok, "the failed call was recorded before the run ended")
	assert.False(t, rec.Success)
}

func TestASubAgentSharesTheBudget(t *testing.T) {
	ctx := context.Background()
	cfg := &lookoutadk.Config{Limits: budget.Limits{MaxTokens: 10_000}}
	childModel := scripted.New(
		scripted.Call("lookup", `{"id":1}`).WithUsage(100, 10),
		scripted.Reply("child answer").WithUsage(200, 20),
	)
	child := newAgent(t, agentSpec{name: "researcher", model: childModel, tools: []tool.BaseTool{echo("lookup")}, cfg: cfg})
	parentModel := scripted.New(
		scripted.Call("researcher", `{"request":"find it"}`).WithUsage(1000, 100),
		scripted.Reply("parent answer").WithUsage(2000, 200),
	)
	parent := newAgent(t, agentSpec{name: "lead", model: parentModel, tools: []tool.BaseTool{adk.NewAgentTool(ctx, child)}, cfg: cfg})

	store := session.New(nil)
	o := runAgent(t, parent, store, false)
	require.NoError(t, o.err)
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(4), b.ModelCalls, "two parent and two child model calls")
	assert.Equal(t, int64(100+10+200+20+1000+100+2000+200), b.TokensUsed)
	assert.Equal(t, int64(2), b.ToolCalls, "the child's lookup and the parent's agent call")
	var names []string
	for _, rec := range session.LogOf[observer.ToolCallRecord](store).All() {
		names = append(names, rec.ToolName)
	}
	assert.Equal(t, []string{"lookup", "researcher"}, names)
}

func TestSeveralRunsShareTheSessionOnTheCtx(t *testing.T) {
	store := session.New(nil)
	cfg := &lookoutadk.Config{Limits: budget.Limits{MaxToolCalls: 3}}
	for range 2 {
		m := scripted.New(scripted.Call("search", `{}`).Call("search", `{}`), scripted.Reply("ok"))
		require.NoError(t, runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: cfg}), store, false).err)
	}
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(3), b.ToolCalls, "the second run had one call left")
	assert.Equal(t, int64(3), session.LogOf[observer.ToolCallRecord](store).Total())
}

func TestNewRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]*lookoutadk.Config{
		"negative limits":        {Limits: budget.Limits{MaxTokens: -1}},
		"an unknown role":        {InjectAs: schema.Assistant},
		"an unknown resource":    {Advisory: []budget.Resource{"money"}},
		"a wrap-up share of 1":   {WrapUpAt: 1},
		"a bad observer trigger": {Observers: []observer.Config{{Observer: observer.NewResource()}}},
	} {
		t.Run("it rejects "+name, func(t *testing.T) {
			_, err := lookoutadk.New(context.Background(), cfg)
			require.Error(t, err)
		})
	}
	_, err := lookoutadk.New(context.Background(), nil)
	require.NoError(t, err)
}

func TestAdvisoryResourcesAreNotEnforced(t *testing.T) {
	m := scripted.New(
		scripted.Call("search", `{}`).Call("search", `{}`).WithUsage(500, 0),
		scripted.Reply("done").WithUsage(500, 0),
	)
	store := session.New(nil)
	o := runAgent(t, newAgent(t, agentSpec{model: m, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{
		Limits:   budget.Limits{MaxTokens: 100, MaxToolCalls: 1},
		Advisory: []budget.Resource{budget.Tokens, budget.ToolCalls},
		WrapUpAt: -1,
	}}), store, false)
	require.NoError(t, o.err)
	for _, msg := range o.toolMessages() {
		assert.NotContains(t, msg.Content, "refused")
	}
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	assert.Equal(t, int64(2), b.ToolCalls, "calls past an advisory limit are still counted")
	assert.Equal(t, int64(1000), b.TokensUsed)
}

func TestInjectedRecognisesLookoutMessages(t *testing.T) {
	kind, ok := lookoutadk.Injected(&schema.Message{Extra: map[string]any{lookoutadk.Tag: lookoutadk.TagWrapUp}})
	assert.True(t, ok)
	assert.Equal(t, lookoutadk.TagWrapUp, kind)
	_, ok = lookoutadk.Injected(schema.UserMessage("hi"))
	assert.False(t, ok)
}
