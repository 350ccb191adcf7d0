package drivetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// budgetScenarios are the budget's scenarios: limits reached, wrap-up
// turns, and what a run is charged.
func budgetScenarios() []scenario {
	var out []scenario
	out = append(out, toolCallBudgetScenarios()...)
	out = append(out, tokenBudgetScenarios()...)
	out = append(out, deadlineScenarios()...)
	out = append(out, chargingScenarios()...)
	return out
}

// toolCallBudgetScenarios are the budget's scenarios where the tool calls
// run out.
func toolCallBudgetScenarios() []scenario {
	return []scenario{
		{Name: "a tool call over the limit is refused with a readable message", Build: func(t *testing.T, _ Adapter) spec {
			m := scripted.New(
				scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`),
				scripted.Reply("done"),
			)
			var mu sync.Mutex
			ran := 0
			search := adaptertest.Tool{Name: "search", Fn: func(context.Context, string) (string, error) {
				mu.Lock()
				ran++
				mu.Unlock()
				return "found", nil
			}}
			return spec{
				Model: m, Tools: []tool.BaseTool{search}, Config: &lookout.Config{Limits: budget.Limits{MaxToolCalls: 2}},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					mu.Lock()
					assert.Equal(t, 2, ran, "the third call did not run")
					mu.Unlock()
					refused := 0
					for _, msg := range adaptertest.ToolMessages(m.Requests()[1].Messages) {
						if strings.HasPrefix(msg.Content, "Tool call refused: the tool-call budget is spent") {
							refused++
							assert.Contains(t, msg.Content, "2 of 2 used")
							assert.Contains(t, msg.Content, "Do not call more tools")
						}
					}
					assert.Equal(t, 1, refused)
					assert.Equal(t, int64(2), latestBudget(r.Store).ToolCalls)
				},
			}
		}},
		{Name: "spending the tool calls gives a wrap-up turn", Modes: both, Build: func(t *testing.T, a Adapter) spec {
			m := scripted.New(
				scripted.Call("search", `{"q":"a"}`),
				scripted.Call("search", `{"q":"b"}`),
				scripted.Reply("Summary: searched twice."),
			)
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: &lookout.Config{Limits: budget.Limits{MaxToolCalls: 2}},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					reqs := m.Requests()
					require.Len(t, reqs, 3)
					assert.False(t, reqs[1].ToolsWithheld(), "one call left")
					assertToolsWithheld(t, a, reqs[2], "search")
					assert.Contains(t, reqs[2].Last().Content, "Your budget is nearly spent (no tool calls left: 2 of 2 used)")
				},
			}
		}},
		{Name: "advisory tool calls give no wrap-up turn", Build: func(t *testing.T, _ Adapter) spec {
			m := scripted.New(
				scripted.Call("search", `{"q":"a"}`),
				scripted.Call("search", `{"q":"b"}`),
				scripted.Reply("done"),
			)
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Limits: budget.Limits{MaxToolCalls: 1}, Advisory: []budget.Resource{budget.ToolCalls}},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					for i, req := range m.Requests() {
						assert.False(t, req.ToolsWithheld(), "request %d", i)
					}
					assert.Equal(t, int64(2), latestBudget(r.Store).ToolCalls, "both calls ran")
				},
			}
		}},
		{Name: "a tool call made on the wrap-up turn ends the run with the typed error", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			// The model ignores the withheld tools and the refusal.
			m := scripted.New(scripted.Forever(scripted.Call("search", `{"q":"again"}`)))
			sink := recorder.NewMemorySink()
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: &lookout.Config{Limits: budget.Limits{MaxToolCalls: 2}, Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					ex := adaptertest.RequireExceeded(t, r.Err, budget.ToolCalls)
					assert.Equal(t, int64(2), ex.Limit)
					assert.Equal(t, 3, m.Calls(), "the model call after the refusal was not made")
					assert.Equal(t, int64(2), latestBudget(r.Store).ToolCalls)
					assert.Len(t, exceededRecords(adaptertest.Ended(t, sink)), 1, "one refusal, one exceeded record")
				},
			}
		}},
	}
}

// tokenBudgetScenarios are the budget's scenarios where the tokens run out.
func tokenBudgetScenarios() []scenario {
	out := []scenario{
		{Name: "the wrap-up turn offers no tools", Modes: both, Build: func(t *testing.T, a Adapter) spec {
			m := scripted.New(
				scripted.Call("search", `{"q":"a"}`).WithUsage(900, 50),
				scripted.Reply("Summary: searched once.").WithUsage(20, 10),
			)
			sink := recorder.NewMemorySink()
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: &lookout.Config{Limits: budget.Limits{MaxTokens: 1000}, Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					var withheld []bool
					for _, p := range payloadsOf[*recorder.ModelRequest](adaptertest.Ended(t, sink)) {
						withheld = append(withheld, p.ToolsWithheld)
					}
					assert.Equal(t, []bool{false, true}, withheld, "the recorded requests")
					require.NoError(t, r.Err)
					assert.Equal(t, "Summary: searched once.", r.Final.Content)
					reqs := m.Requests()
					require.Len(t, reqs, 2)
					assert.False(t, reqs[0].ToolsWithheld())
					assert.Equal(t, []string{"search"}, reqs[0].ToolNames())
					assertToolsWithheld(t, a, reqs[1], "search")
					assert.Contains(t, reqs[1].Last().Content, "Your budget is nearly spent (tokens: 950 of 1,000 used)")
					assert.Equal(t, 1, reqs[1].CountContaining("Budget nearly spent"))
				},
			}
		}},
		{Name: "token exhaustion ends the run with the typed error", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			const perCall = 60
			m := scripted.New(
				scripted.Call("search", `{"q":"a"}`).WithUsage(perCall, 0),
				scripted.Call("search", `{"q":"b"}`).WithUsage(perCall, 0),
				scripted.Call("search", `{"q":"c"}`).WithUsage(perCall, 0),
				scripted.Reply("never reached"),
			)
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: &lookout.Config{Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1},
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					ex := adaptertest.RequireExceeded(t, r.Err, budget.Tokens)
					assert.Equal(t, int64(100), ex.Limit)
					assert.Equal(t, 2, m.Calls(), "the third model call was not made")
					// The overrun bound: at most one model response past the limit.
					b := latestBudget(r.Store)
					assert.Equal(t, int64(120), b.TokensUsed)
					assert.LessOrEqual(t, b.TokensUsed-b.MaxTokens, int64(perCall))
				},
			}
		}},
		{Name: "advisory resources are not enforced", Build: func(t *testing.T, _ Adapter) spec {
			m := scripted.New(
				scripted.Call("search", `{}`).Call("search", `{}`).WithUsage(500, 0),
				scripted.Reply("done").WithUsage(500, 0),
			)
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{
					Limits:   budget.Limits{MaxTokens: 100, MaxToolCalls: 1},
					Advisory: []budget.Resource{budget.Tokens, budget.ToolCalls},
					WrapUpAt: -1,
				},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					for _, msg := range adaptertest.ToolMessages(m.Requests()[1].Messages) {
						assert.NotContains(t, msg.Content, "refused")
					}
					b := latestBudget(r.Store)
					assert.Equal(t, int64(2), b.ToolCalls, "calls past an advisory limit are still counted")
					assert.Equal(t, int64(1000), b.TokensUsed)
				},
			}
		}},
	}
	for _, last := range []int{1, 99, 5000} {
		out = append(out, scenario{Name: fmt.Sprintf("the overrun is at most one response of %d tokens", last), Build: func(t *testing.T, _ Adapter) spec {
			return spec{
				Model: scripted.New(
					scripted.Call("search", `{}`).WithUsage(99, 0),
					scripted.Call("search", `{}`).WithUsage(last, 0),
					scripted.Reply("never reached"),
				),
				Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: &lookout.Config{Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1},
				Check: func(t *testing.T, r result) {
					require.ErrorIs(t, r.Err, budget.ErrExceeded)
					b := latestBudget(r.Store)
					assert.Equal(t, int64(99+last), b.TokensUsed)
					assert.LessOrEqual(t, b.TokensUsed-b.MaxTokens, int64(last))
				},
			}
		}})
	}
	return out
}

// deadlineScenarios are the budget's scenarios where the time runs out.
func deadlineScenarios() []scenario {
	return []scenario{
		{Name: "a deadline ends the run with its cause", Build: func(t *testing.T, _ Adapter) spec {
			c := adaptertest.NewClock()
			var mu sync.Mutex
			var sawDeadline bool
			slow := adaptertest.Tool{Name: "slow", Fn: func(ctx context.Context, _ string) (string, error) {
				mu.Lock()
				_, sawDeadline = ctx.Deadline()
				mu.Unlock()
				c.Advance(31 * time.Minute)
				return "finally", nil
			}}
			m := scripted.New(scripted.Call("slow", `{}`), scripted.Reply("never reached"))
			return spec{
				Model: m, Tools: []tool.BaseTool{slow},
				Config: &lookout.Config{Limits: budget.Limits{Timeout: 30 * time.Minute}, Now: c.Now, WrapUpAt: -1},
				Check: func(t *testing.T, r result) {
					mu.Lock()
					assert.True(t, sawDeadline, "the run's ctx carries the deadline")
					mu.Unlock()
					adaptertest.RequireExceeded(t, r.Err, budget.Time)
					assert.Equal(t, 1, m.Calls())
				},
			}
		}},
		{Name: "a deadline that expires in real time ends the run with the budget error", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			// The budget's clock stands still, so only the ctx's timer can
			// end the run. The tool waits for it and ignores the error, so
			// it is Eino that notices the expired ctx before the next model
			// call.
			c := adaptertest.NewClock()
			sink := recorder.NewMemorySink()
			m := scripted.New(scripted.Call("wait", `{}`), scripted.Reply("never reached"))
			return spec{
				Model: m, Tools: []tool.BaseTool{waitForDeadline},
				Config: &lookout.Config{Limits: budget.Limits{Timeout: 20 * time.Millisecond}, Now: c.Now, WrapUpAt: -1, Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					adaptertest.RequireExceeded(t, r.Err, budget.Time)
					assert.ErrorIs(t, r.Err, context.DeadlineExceeded, "still a deadline for code that checks for one")
					// On a machine slow enough for the deadline to pass
					// before the first model call, Lookout's hook ends the
					// run there, with the same error.
					assert.LessOrEqual(t, m.Calls(), 1)
					records := adaptertest.Ended(t, sink)
					end := records[len(records)-1].Payload.(*recorder.RunEnded)
					assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)
					assert.Equal(t, "time budget exceeded", end.StopReason)
				},
			}
		}},
		{Name: "the caller's own deadline is recorded as a cancellation, not a budget stop", Build: func(t *testing.T, _ Adapter) spec {
			// The caller's ctx reaches its deadline once the tool starts.
			sink := recorder.NewMemorySink()
			expire := make(chan struct{})
			var once sync.Once
			wait := adaptertest.Tool{Name: "wait", Fn: func(ctx context.Context, _ string) (string, error) {
				once.Do(func() { close(expire) })
				<-ctx.Done()
				return "stopped waiting", nil
			}}
			m := scripted.New(scripted.Call("wait", `{}`), scripted.Reply("never reached"))
			return spec{
				Model: m, Tools: []tool.BaseTool{wait},
				Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Ctx: func(t *testing.T, ctx context.Context) context.Context {
					return &expiringCtx{Context: ctx, done: expire}
				},
				Check: func(t *testing.T, r result) {
					require.ErrorIs(t, r.Err, context.DeadlineExceeded)
					assert.NotErrorIs(t, r.Err, budget.ErrExceeded)
					records := adaptertest.Ended(t, sink)
					end := records[len(records)-1].Payload.(*recorder.RunEnded)
					assert.Equal(t, recorder.OutcomeCancelled, end.Outcome)
					assert.Equal(t, "deadline", end.StopReason)
				},
			}
		}},
		{Name: "a tool that returns its ctx's error at the deadline ends the run with the budget error", Build: func(t *testing.T, _ Adapter) spec {
			c := adaptertest.NewClock()
			wait := adaptertest.Tool{Name: "wait", Fn: func(ctx context.Context, _ string) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			}}
			m := scripted.New(scripted.Call("wait", `{}`), scripted.Reply("never reached"))
			return spec{
				Model: m, Tools: []tool.BaseTool{wait},
				Config: &lookout.Config{Limits: budget.Limits{Timeout: 20 * time.Millisecond}, Now: c.Now, WrapUpAt: -1},
				Check: func(t *testing.T, r result) {
					adaptertest.RequireExceeded(t, r.Err, budget.Time)
					assert.LessOrEqual(t, m.Calls(), 1)
				},
			}
		}},
		{Name: "a deadline already past ends the run with the budget error", Build: func(t *testing.T, _ Adapter) spec {
			// The run's ctx is done from the start, with the budget error
			// as its cause.
			c := adaptertest.NewClock()
			m := scripted.New(scripted.Reply("never reached"))
			return spec{
				Model:  m,
				Config: &lookout.Config{Limits: budget.Limits{Deadline: adaptertest.T0.Add(-time.Second)}, Now: c.Now, WrapUpAt: -1},
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					assert.ErrorIs(t, r.Err, budget.ErrExceeded)
					assert.Equal(t, 0, m.Calls())
				},
			}
		}},
	}
}

// chargingScenarios check what runs are charged: the same whether the
// agent streams or not, once per model call, and across runs that share a
// session.
func chargingScenarios() []scenario {
	return []scenario{
		{Name: "streaming charges exactly what generate charges", Runs: func(t *testing.T, _ Adapter, run runFunc) {
			budgets := map[Mode]budget.Budget{}
			for _, mode := range both {
				m := scripted.New(
					scripted.Reply("Let me look.").Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
					scripted.Call("search", `{"q":"c"}`),
					scripted.Reply("All three searches agree."),
				)
				r := run(t, spec{Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, TextThenCalls: true,
					Config: &lookout.Config{Limits: budget.Limits{MaxTokens: 100_000}}}, mode)
				require.NoError(t, r.Err)
				assert.Equal(t, "All three searches agree.", r.Final.Content)
				for _, req := range m.Requests() {
					assert.Equal(t, mode.Streaming(), req.Stream, "the model was called through Stream when the agent streamed")
				}
				budgets[mode] = latestBudget(r.Store)
			}
			assert.Positive(t, budgets[Generate].TokensUsed)
			assert.Equal(t, int64(3), budgets[Stream].ModelCalls)
			assert.Zero(t, budgets[Stream].ModelCallsWithoutUsage)
			assert.Equal(t, budgets[Generate].TokensUsed, budgets[Stream].TokensUsed)
			assert.Equal(t, budgets[Generate].PromptTokens, budgets[Stream].PromptTokens)
			assert.Equal(t, budgets[Generate].CompletionTokens, budgets[Stream].CompletionTokens)
		}},
		charged("a call without usage is told apart from zero", []Mode{Stream}, func() *scripted.Model {
			return scripted.New(scripted.Call("search", `{}`).WithoutUsage(), scripted.Reply("done").WithUsage(0, 0))
		}, budget.Budget{ModelCalls: 2, ModelCallsWithoutUsage: 1}),
		charged("a model that fires its own callbacks is charged once", both, func() *scripted.Model {
			return scripted.New(
				scripted.Call("search", `{}`).WithUsage(100, 10),
				scripted.Reply("done").WithUsage(200, 20),
			).WithCallbacks(true)
		}, budget.Budget{ModelCalls: 2, TokensUsed: 330}),
		{Name: "several runs share the session on the ctx", Runs: func(t *testing.T, _ Adapter, run runFunc) {
			store := session.New(nil)
			cfg := &lookout.Config{Limits: budget.Limits{MaxToolCalls: 3}}
			for range 2 {
				m := scripted.New(scripted.Call("search", `{}`).Call("search", `{}`), scripted.Reply("ok"))
				require.NoError(t, run(t, spec{Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: cfg, Store: store}, Generate).Err)
			}
			assert.Equal(t, int64(3), latestBudget(store).ToolCalls, "the second run had one call left")
			assert.Equal(t, int64(3), session.LogOf[observer.ToolCallRecord](store).Total())
		}},
	}
}

// charged is a scenario in which a one-search run on a fresh script is
// charged the model calls, calls without usage and tokens in
// want.
func charged(name string, modes []Mode, script func() *scripted.Model, want budget.Budget) scenario {
	return scenario{Name: name, Modes: modes, Build: func(t *testing.T, _ Adapter) spec {
		return spec{
			Model: script(), Tools: []tool.BaseTool{adaptertest.Echo("search")},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				b := latestBudget(r.Store)
				assert.Equal(t, want.ModelCalls, b.ModelCalls)
				assert.Equal(t, want.ModelCallsWithoutUsage, b.ModelCallsWithoutUsage)
				assert.Equal(t, want.TokensUsed, b.TokensUsed)
			},
		}
	}}
}
