package drivetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
	"github.com/lookout-go/lookout/session"
)

// scenarios returns the behaviours every adapter must show, fresh on each
// call.
func scenarios() []scenario {
	var out []scenario
	out = append(out, injectionScenarios()...)
	out = append(out, budgetScenarios()...)
	out = append(out, toolScenarios()...)
	out = append(out, recordingScenarios()...)
	out = append(out, recordingBudgetScenarios()...)
	out = append(out, recordingFaultScenarios()...)
	out = append(out, openAIScenarios()...)
	return out
}

const assessmentHeading = "## Trajectory Assessment"

func injectionScenarios() []scenario {
	return []scenario{
		{Name: "the next model input holds exactly one assessment block", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			m := scripted.New(
				scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
				scripted.Call("search", `{"q":"c"}`),
				scripted.Call("search", `{"q":"d"}`),
				scripted.Reply("done"),
			)
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Observers: adaptertest.EveryCall(), Limits: budget.Limits{MaxToolCalls: 50}},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					reqs := m.Requests()
					require.Len(t, reqs, 4)
					assert.Equal(t, 0, reqs[0].CountContaining(assessmentHeading), "nothing to say before the first call")
					for i := 1; i < 4; i++ {
						assert.Equal(t, 1, reqs[i].CountContaining(assessmentHeading), "request %d", i)
						kind, ok := lookout.Injected(reqs[i].Last())
						assert.True(t, ok)
						assert.Equal(t, lookout.TagAssessment, kind)
					}
					assert.Contains(t, reqs[1].Last().Content, "_Generated after tool call #2_")
					assert.Contains(t, reqs[3].Last().Content, "_Generated after tool call #4_")
					assert.Equal(t, schema.User, reqs[3].Last().Role)
				},
			}
		}},
		{Name: "a stale assessment is not injected", Build: func(t *testing.T, _ Adapter) spec {
			// The observer speaks only after a failure; three successful
			// calls later its assessment is older than MaxAgeCalls.
			m := scripted.New(
				scripted.Call("flaky", `{}`),
				scripted.Call("search", `{"q":"a"}`),
				scripted.Call("search", `{"q":"b"}`),
				scripted.Call("search", `{"q":"c"}`),
				scripted.Reply("done"),
			)
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search"), adaptertest.Failing("flaky", "boom")},
				Config: &lookout.Config{
					MaxAgeCalls: 2,
					InjectAs:    schema.System,
					ToolErrors:  lookout.ToolErrorsAsMessages,
					Observers: []observer.Spec{{
						Observer: adaptertest.Probe{},
						Trigger:  observer.Trigger{AfterConsecutiveErrors: 1},
					}},
				},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					reqs := m.Requests()
					require.Len(t, reqs, 5)
					counts := make([]int, len(reqs))
					for i, req := range reqs {
						counts[i] = req.CountContaining(assessmentHeading)
					}
					// Made after call 1: fresh at calls 1, 2 and 3, stale at 4.
					assert.Equal(t, []int{0, 1, 1, 1, 0}, counts)
					assert.Equal(t, schema.System, reqs[1].Last().Role)
				},
			}
		}},
		denseIndicesScenario(),
		{Name: "tool errors become messages and count as failures", Build: func(t *testing.T, _ Adapter) spec {
			m := scripted.New(
				scripted.Call("deploy", `{}`),
				scripted.Call("deploy", `{}`),
				scripted.Call("deploy", `{}`),
				scripted.Reply("giving up"),
			)
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Failing("deploy", "permission denied")},
				Config: &lookout.Config{
					ToolErrors: lookout.ToolErrorsAsMessages,
					Observers:  []observer.Spec{{Observer: adaptertest.Probe{}, Trigger: observer.Trigger{AfterConsecutiveErrors: 3}}},
				},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					tools := adaptertest.ToolMessages(m.Requests()[3].Messages)
					require.Len(t, tools, 3)
					assert.Equal(t, "Error: permission denied", tools[0].Content)
					tally, _ := session.ValueOf[observer.Tally](r.Store).Latest()
					assert.Equal(t, int64(3), tally.ConsecutiveErrors)
					assert.Contains(t, m.Requests()[3].Last().Content, "_Generated after tool call #3_", "the error trigger fired")
				},
			}
		}},
		{Name: "tool errors can abort the run as Eino does", Build: func(t *testing.T, _ Adapter) spec {
			return spec{
				Model: scripted.New(scripted.Call("deploy", `{}`), scripted.Reply("never reached")),
				Tools: []tool.BaseTool{adaptertest.Failing("deploy", "permission denied")}, Config: &lookout.Config{ToolErrors: lookout.ToolErrorsAbort},
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					assert.Contains(t, r.Err.Error(), "permission denied")
					rec, ok := session.LogOf[observer.ToolCallRecord](r.Store).Latest()
					require.True(t, ok, "the failed call was recorded before the run ended")
					assert.False(t, rec.Success)
				},
			}
		}},
		{Name: "new rejects a bad config", Runs: func(t *testing.T, a Adapter, _ runFunc) {
			for name, cfg := range map[string]*lookout.Config{
				"negative limits":        {Limits: budget.Limits{MaxTokens: -1}},
				"an unknown role":        {InjectAs: schema.Assistant},
				"an unknown resource":    {Advisory: []budget.Resource{"money"}},
				"a wrap-up share of 1":   {WrapUpAt: 1},
				"a bad observer trigger": {Observers: []observer.Spec{{Observer: resource.New()}}},
			} {
				assert.Error(t, a.New(cfg), "it rejects %s", name)
			}
			assert.NoError(t, a.New(nil), "a nil config means the defaults")
		}},
	}
}

// denseIndicesScenario runs twelve parallel tool calls at once and checks
// that each is recorded once, with its own call ID, under the indices 1 to
// 12.
func denseIndicesScenario() scenario {
	return scenario{Name: "parallel tool calls get dense unique indices", Build: func(t *testing.T, a Adapter) spec {
		const n = 12
		m := scripted.New(scripted.Calls(numberedCalls("work", n)...), scripted.Reply("done"))
		var mu sync.Mutex
		var inflight, peak int
		var seen *session.Store
		release := make(chan struct{})
		work := adaptertest.Tool{Name: "work", Fn: func(ctx context.Context, args string) (string, error) {
			mu.Lock()
			seen, _ = a.Session(ctx)
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
		return spec{
			Model: m, Tools: []tool.BaseTool{work}, Config: &lookout.Config{Observers: adaptertest.EveryCall()},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				mu.Lock()
				assert.Equal(t, n, peak, "the calls ran in parallel")
				assert.Same(t, r.Store, seen, "the tools saw the run's session")
				mu.Unlock()
				var indices []int64
				ids := map[string]bool{}
				for _, rec := range session.LogOf[observer.ToolCallRecord](r.Store).All() {
					indices = append(indices, rec.CallIndex)
					ids[rec.CallID] = true
					assert.True(t, rec.Success)
					assert.Equal(t, "work", rec.ToolName)
				}
				slices.Sort(indices)
				assert.Equal(t, callIndices[int64](n), indices)
				assert.Len(t, ids, n, "each record carries its own call ID")
				assert.Len(t, adaptertest.ToolMessages(m.Requests()[1].Messages), n)
			},
		}
	}}
}

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

func toolScenarios() []scenario {
	wants := []observer.ToolCallRecord{
		{ToolName: "plain", Result: "plain ok {}", Success: true},
		{ToolName: "streamed", Result: "part one, part two", Success: true},
		{ToolName: "rich", Result: "a picture of a cat", Success: true},
		{ToolName: "rich_failing", Success: false, ErrorMessage: "no camera"},
		{ToolName: "rich_streamed", Result: "frame 1 frame 2", Success: true},
	}
	var out []scenario
	for _, want := range wants {
		out = append(out, scenario{Name: "a " + want.ToolName + " tool call is recorded", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			return spec{
				Model:  scripted.New(scripted.Call(want.ToolName, `{}`), scripted.Reply("done")),
				Tools:  adaptertest.EveryKindOfTool(),
				Config: &lookout.Config{ToolErrors: lookout.ToolErrorsAsMessages},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					calls := session.LogOf[observer.ToolCallRecord](r.Store)
					rec, ok := calls.Latest()
					require.True(t, ok, "the call was recorded")
					assert.Equal(t, int64(1), calls.Total(), "recorded once")
					assert.Equal(t, want.ToolName, rec.ToolName)
					assert.Equal(t, want.Success, rec.Success)
					assert.Equal(t, want.Result, rec.Result)
					assert.Equal(t, want.ErrorMessage, rec.ErrorMessage)
				},
			}
		}})
	}
	out = append(out, scenario{Name: "an error in mid-stream is recorded and ends the run", Build: func(t *testing.T, _ Adapter) spec {
		// Part of the output reached the model already, so the error
		// cannot become a message.
		return spec{
			Model: scripted.New(scripted.Call("broken_stream", `{}`), scripted.Reply("never reached")),
			Tools: adaptertest.EveryKindOfTool(),
			Check: func(t *testing.T, r result) {
				require.Error(t, r.Err)
				assert.Contains(t, r.Err.Error(), "connection reset")
				rec, ok := session.LogOf[observer.ToolCallRecord](r.Store).Latest()
				require.True(t, ok)
				assert.False(t, rec.Success)
				assert.Equal(t, "half", rec.Result)
				assert.Equal(t, "connection reset", rec.ErrorMessage)
			},
		}
	}})
	for _, name := range []string{"plain", "streamed", "rich", "rich_streamed"} {
		out = append(out, scenario{Name: "a " + name + " tool call over the limit is refused", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			// Two parallel calls under a limit of one: one runs, one is refused.
			m := scripted.New(scripted.Call(name, `{"n":1}`).Call(name, `{"n":2}`), scripted.Reply("done"))
			return spec{
				Model: m, Tools: adaptertest.EveryKindOfTool(), Config: &lookout.Config{Limits: budget.Limits{MaxToolCalls: 1}},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					var refused, ran int
					for _, msg := range adaptertest.ToolMessages(m.Requests()[1].Messages) {
						assert.NotEmpty(t, msg.ToolCallID)
						text := adaptertest.MessageText(msg)
						if strings.HasPrefix(text, "Tool call refused: the tool-call budget is spent") {
							refused++
						} else {
							ran++
							assert.NotEmpty(t, text, "the call that ran answered")
						}
					}
					assert.Equal(t, 1, refused, "one refusal reached the model")
					assert.Equal(t, 1, ran)
					assert.Equal(t, int64(1), session.LogOf[observer.ToolCallRecord](r.Store).Total(), "the refused call did not run")
				},
			}
		}})
	}
	return out
}

// FailingSink fails writes with ErrDiskFull: every one, or those from
// the first record of kind From on. It is safe for concurrent use.
type FailingSink struct {
	// From, when set, lets the writes before the first record of that
	// kind succeed; from it on every write fails. The zero From fails
	// every write.
	From recorder.Kind

	mu      sync.Mutex
	writes  int
	failing bool
}

// ErrDiskFull is the error a [FailingSink] returns.
var ErrDiskFull = errors.New("disk full")

// Write counts the write and fails it, or lets it succeed before From.
func (f *FailingSink) Write(_ context.Context, r *recorder.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	f.failing = f.failing || f.From == "" || r.Kind() == f.From
	if !f.failing {
		return nil
	}
	return ErrDiskFull
}

// Writes returns how many writes were tried.
func (f *FailingSink) Writes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

func recordingScenarios() []scenario {
	return []scenario{
		mediaScenario("a multimodal tool's image is recorded and exported", func(image []byte) tool.BaseTool {
			return adaptertest.RichTool{Name: "camera", Text: "the screen:", Image: image}
		}),
		mediaScenario("a multimodal streaming tool's image is recorded and exported", func(image []byte) tool.BaseTool {
			return adaptertest.RichStreamTool{Name: "camera", Chunks: []string{"the ", "screen:"}, Image: image}
		}),
		trajectoryScenario(),
		callIndexOrderScenario(),
	}
}

// trajectoryScenario checks the records of a run with three parallel
// calls, and that they export as a valid ATIF trajectory.
func trajectoryScenario() scenario {
	return scenario{Name: "the trajectory is recorded as a side effect", Modes: both, Build: func(t *testing.T, a Adapter) spec {
		sink := recorder.NewMemorySink()
		return spec{
			Model: scripted.New(
				scripted.Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`).Call("search", `{"q":"c"}`),
				scripted.Reply("done"),
			),
			Tools:  []tool.BaseTool{adaptertest.Echo("search")},
			Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), Observers: adaptertest.EveryCall(), Limits: budget.Limits{MaxTokens: 10_000}},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				records := adaptertest.Ended(t, sink)
				adaptertest.AssertDenseSeq(t, records)
				k := adaptertest.Kinds(records)
				assert.Equal(t, 1, k[recorder.KindRunStarted])
				assert.Equal(t, 1, k[recorder.KindRunEnded])
				assert.Equal(t, 2, k[recorder.KindModelRequest])
				assert.Equal(t, 2, k[recorder.KindModelResponse])
				assert.Equal(t, 3, k[recorder.KindToolStarted])
				assert.Equal(t, 3, k[recorder.KindToolEnded])
				assert.Equal(t, 3, k[recorder.KindAssessment])
				assert.Equal(t, 2, k[recorder.KindBudget], "one charge per model call")
				assert.Equal(t, a.InputMessages, k[recorder.KindMessage], "the run's input")

				started := records[0].Payload.(*recorder.RunStarted)
				assert.Equal(t, a.AgentName, started.AgentName)
				assert.Equal(t, int64(10_000), started.Limits.MaxTokens)
				end := records[len(records)-1].Payload.(*recorder.RunEnded)
				assert.Equal(t, recorder.OutcomeCompleted, end.Outcome)
				assert.Equal(t, int64(2), end.Usage.ModelCalls, "the last reply was charged before the end")

				var replies []string
				for _, rec := range records {
					if resp, ok := rec.Payload.(*recorder.ModelResponse); ok {
						require.NotNil(t, resp.Message)
						assert.True(t, resp.UsageReported)
						replies = append(replies, resp.Message.Content)
					}
				}
				assert.Equal(t, []string{"", "done"}, replies)

				traj, err := atif.FromRecords(records, nil)
				require.NoError(t, err)
				doc, err := json.Marshal(traj)
				require.NoError(t, err)
				assert.Empty(t, atif.Validate(doc))
				var withCalls int
				for _, s := range traj.Steps {
					if len(s.ToolCalls) == 3 {
						withCalls++
						require.NotNil(t, s.Observation)
						assert.Len(t, s.Observation.Results, 3, "parallel calls share one step")
					}
				}
				assert.Equal(t, 1, withCalls)
			},
		}
	}}
}

// callIndexOrderScenario checks that the tool_ended and assessment records
// of parallel calls are written in the order of the calls' indices, however
// the calls end.
func callIndexOrderScenario() scenario {
	return scenario{Name: "parallel calls are recorded in the order of their call indices", Runs: func(t *testing.T, _ Adapter, run runFunc) {
		// Which call ends first is up to the scheduler, so the runs are
		// repeated; a redactor that yields widens the gap between a
		// call getting its index and its records being written.
		const n, runs = 8, 25
		yield := recorder.RedactFunc(func(s string) string {
			for range 3 {
				runtime.Gosched()
			}
			return s
		})
		for range runs {
			sink := recorder.NewMemorySink()
			m := scripted.New(scripted.Calls(numberedCalls("work", n)...), scripted.Reply("done"))
			r := run(t, spec{Model: m, Tools: []tool.BaseTool{adaptertest.Echo("work")}, Config: &lookout.Config{
				Observers: adaptertest.EveryCall(), Recorder: adaptertest.NewRecorder(t, sink, &recorder.Options{Redactors: []recorder.Redactor{yield}}),
			}}, Generate)
			require.NoError(t, r.Err)
			ended, assessed := recordedCallIndices(adaptertest.Ended(t, sink))
			want := callIndices[int](n)
			require.Equal(t, want, ended, "tool_ended records in call-index order")
			require.Equal(t, want, assessed, "assessment records in call-index order: the last is the current one")
		}
	}}
}

// recordedCallIndices returns the call indices of the tool_ended records
// and of the assessment records in records, in the order they were written.
func recordedCallIndices(records []recorder.Record) (ended, assessed []int) {
	for _, rec := range records {
		switch p := rec.Payload.(type) {
		case *recorder.ToolEnded:
			ended = append(ended, p.CallIndex)
		case *recorder.AssessmentRecord:
			assessed = append(assessed, p.AfterCallIndex)
		}
	}
	return ended, assessed
}

// recordingBudgetScenarios are the recording's scenarios where the
// budget stops a run or refuses a call.
func recordingBudgetScenarios() []scenario {
	return []scenario{
		{Name: "a budget stop is recorded", Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			return spec{
				Model:  scripted.New(scripted.Call("search", `{}`).WithUsage(150, 0), scripted.Reply("never")),
				Tools:  []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), Limits: budget.Limits{MaxTokens: 100}, WrapUpAt: -1},
				Check: func(t *testing.T, r result) {
					require.ErrorIs(t, r.Err, budget.ErrExceeded)
					records := adaptertest.Ended(t, sink)
					end := records[len(records)-1].Payload.(*recorder.RunEnded)
					assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)
					assert.Equal(t, "tokens budget exceeded", end.StopReason)
					exceeded := exceededRecords(records)
					for _, b := range exceeded {
						assert.Equal(t, "tokens", b.Resource)
					}
					assert.Len(t, exceeded, 1)
				},
			}
		}},
		refusalRecordedScenario(),
	}
}

// refusalRecordedScenario checks that a call the budget refuses has a
// tool_ended record holding the refusal the model read, and that the
// conversation export answers it.
func refusalRecordedScenario() scenario {
	return scenario{Name: "a refused tool call is recorded with the refusal the model read", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
		// Two parallel calls under a limit of one: one runs, one is
		// refused, and the conversation export answers both.
		sink := recorder.NewMemorySink()
		m := scripted.New(scripted.Calls(
			scripted.ToolCall{ID: "call_a", Name: "search", Arguments: `{"n":1}`},
			scripted.ToolCall{ID: "call_b", Name: "search", Arguments: `{"n":2}`},
		), scripted.Reply("done"))
		return spec{
			Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")},
			Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil), Limits: budget.Limits{MaxToolCalls: 1}, WrapUpAt: -1},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				records := adaptertest.Ended(t, sink)
				answered := map[string]string{}
				for _, msg := range adaptertest.ToolMessages(m.Requests()[1].Messages) {
					answered[msg.ToolCallID] = adaptertest.MessageText(msg)
				}
				require.Len(t, answered, 2)
				ended := map[string]*recorder.ToolEnded{}
				for _, te := range payloadsOf[*recorder.ToolEnded](records) {
					ended[te.CallID] = te
				}
				require.Len(t, ended, 2, "both calls have a tool_ended")
				var refused int
				for id, te := range ended {
					assert.Equal(t, "search", te.Name)
					assert.Equal(t, answered[id], te.Result, "call %s: the result is what the model read", id)
					if strings.HasPrefix(te.Result, "Tool call refused") {
						refused++
						assert.True(t, te.IsError)
						assert.Contains(t, te.Error, "tool_calls: 1 of 1 used")
					}
				}
				assert.Equal(t, 1, refused)
				asked, tools := exportedCallIDs(t, records)
				assert.ElementsMatch(t, asked, tools, "every call the conversation export asks for is answered")
			},
		}
	}}
}

// exportedCallIDs exports records as a conversation and returns the IDs
// of the calls its messages make and the IDs its tool messages answer.
func exportedCallIDs(t *testing.T, records []recorder.Record) (asked, answered []string) {
	t.Helper()
	msgs, err := messages.FromRecords(records, nil)
	require.NoError(t, err)
	for _, msg := range msgs {
		for _, c := range msg.ToolCalls {
			asked = append(asked, c.ID)
		}
		if msg.Role == messages.RoleTool {
			answered = append(answered, msg.ToolCallID)
		}
	}
	return asked, answered
}

// mediaScenario checks that the image a tool named camera, made by
// makeTool, returns after the text "the screen:" reaches its tool_ended
// record and the ATIF export, as a file next to the document.
func mediaScenario(name string, makeTool func(image []byte) tool.BaseTool) scenario {
	return scenario{Name: name, Modes: both, Build: func(t *testing.T, _ Adapter) spec {
		sink := recorder.NewMemorySink()
		screenshot := []byte("\x89PNG\r\n\x1a\n a screenshot")
		return spec{
			Model:  scripted.New(scripted.Call("camera", `{}`), scripted.Reply("I see it")),
			Tools:  []tool.BaseTool{makeTool(screenshot)},
			Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
			Check: func(t *testing.T, r result) {
				require.NoError(t, r.Err)
				records := adaptertest.Ended(t, sink)
				var ended *recorder.ToolEnded
				for _, rec := range records {
					if te, ok := rec.Payload.(*recorder.ToolEnded); ok {
						ended = te
					}
				}
				require.NotNil(t, ended)
				assert.Equal(t, "the screen:", ended.Result)
				require.Len(t, ended.Parts, 2)
				assert.Equal(t, recorder.Part{Type: recorder.PartText, Text: "the screen:"}, ended.Parts[0])
				require.NotNil(t, ended.Parts[1].Media)
				assert.Equal(t, screenshot, ended.Parts[1].Media.Data, "the image is kept inline")

				traj, err := atif.FromRecords(records, nil)
				require.NoError(t, err)
				dir := t.TempDir()
				path, err := atif.WriteFile(dir, "run.trajectory.json", traj)
				require.NoError(t, err)
				problems, err := atif.ValidateFile(path, nil)
				require.NoError(t, err)
				assert.Empty(t, problems)
				files := traj.MediaFiles()
				require.Len(t, files, 1)
				written, err := os.ReadFile(filepath.Join(dir, files[0].Path))
				require.NoError(t, err)
				assert.Equal(t, screenshot, written)
			},
		}
	}}
}

// recordingFaultScenarios are the recording's scenarios where something
// fails: the model, a tool or the sink.
func recordingFaultScenarios() []scenario {
	return []scenario{
		{Name: "an error end is recorded", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			return spec{
				Model:  scripted.New(scripted.Call("search", `{}`), scripted.Fail(errors.New("provider unavailable"))),
				Tools:  []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					records := adaptertest.Ended(t, sink)
					end := records[len(records)-1].Payload.(*recorder.RunEnded)
					assert.Equal(t, recorder.OutcomeError, end.Outcome)
					assert.Contains(t, end.Error, "provider unavailable")
				},
			}
		}},
		{Name: "a failing sink with the drop policy never breaks the run", Build: func(t *testing.T, _ Adapter) spec {
			sink := &FailingSink{}
			var mu sync.Mutex
			reported := 0
			rec := recorder.New(sink, &recorder.Options{OnError: func(context.Context, error) { mu.Lock(); reported++; mu.Unlock() }})
			return spec{
				Model:  scripted.New(scripted.Call("search", `{}`), scripted.Reply("done")),
				Tools:  []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Recorder: rec},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					assert.Equal(t, "done", r.Final.Content)
					require.NoError(t, rec.Close(context.Background()))
					mu.Lock()
					defer mu.Unlock()
					assert.Equal(t, uint64(sink.Writes()), rec.Dropped(), "every failed write is counted")
					assert.Equal(t, sink.Writes(), reported)
					assert.Positive(t, sink.Writes())
				},
			}
		}},
		{Name: "the recorded requests name the offered tools", Modes: both, Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			m := scripted.New(scripted.Call("search", `{"q":"a"}`), scripted.Reply("done"))
			return spec{
				Model: m, Tools: []tool.BaseTool{adaptertest.Echo("search")}, Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					var requests int
					for _, rec := range adaptertest.Ended(t, sink) {
						if p, ok := rec.Payload.(*recorder.ModelRequest); ok {
							requests++
							assert.Equal(t, []string{"search"}, p.Tools, "request %d", requests)
							if requests == 1 {
								require.Len(t, p.ToolDefinitions, 1, "the definitions go with the first request")
								assert.Equal(t, "search", p.ToolDefinitions[0].Name)
							}
						}
					}
					assert.Equal(t, 2, requests)
				},
			}
		}},
		{Name: "a tool that panics is recorded as a failed call", Build: func(t *testing.T, _ Adapter) spec {
			sink := recorder.NewMemorySink()
			boom := adaptertest.Tool{Name: "boom", Fn: func(context.Context, string) (string, error) { panic("kaput") }}
			m := scripted.New(scripted.Call("boom", `{}`), scripted.Reply("after the panic"))
			return spec{
				Model: m, Tools: []tool.BaseTool{boom}, Config: &lookout.Config{Recorder: adaptertest.NewRecorder(t, sink, nil)},
				Check: func(t *testing.T, r result) {
					// What the panic does to the run is Eino's business; the
					// call is recorded either way.
					records := adaptertest.Ended(t, sink)
					k := adaptertest.Kinds(records)
					assert.Equal(t, 1, k[recorder.KindToolStarted])
					assert.Equal(t, 1, k[recorder.KindToolEnded])
					calls := session.LogOf[observer.ToolCallRecord](r.Store).Last(1)
					require.Len(t, calls, 1)
					assert.False(t, calls[0].Success)
					assert.Contains(t, calls[0].ErrorMessage, "the tool panicked")
					assert.Equal(t, int64(1), latestBudget(r.Store).ToolCalls)
				},
			}
		}},
		{Name: "a failing sink with the escalate policy ends the run with its error", Build: func(t *testing.T, _ Adapter) spec {
			// The sink fails from the call's tool_started on, written on
			// the recorder's own goroutine; the tool waits until the
			// failure is known, so the model call after it is the one the
			// failure ends.
			sink := &FailingSink{From: recorder.KindToolStarted}
			rec := adaptertest.NewRecorder(t, sink, &recorder.Options{Policy: recorder.Escalate})
			wait := adaptertest.Tool{Name: "search", Fn: func(context.Context, string) (string, error) {
				for rec.Err() == nil {
					runtime.Gosched()
				}
				return "found", nil
			}}
			m := scripted.New(scripted.Call("search", `{}`), scripted.Reply("never"))
			return spec{
				Model: m, Tools: []tool.BaseTool{wait},
				Config: &lookout.Config{Recorder: rec},
				Check: func(t *testing.T, r result) {
					require.Error(t, r.Err)
					assert.ErrorIs(t, r.Err, ErrDiskFull)
					assert.ErrorIs(t, r.Err, recorder.ErrSinkFailed)
					assert.Equal(t, 1, m.Calls(), "the run ended before the second model call")
				},
			}
		}},
	}
}

func openAIScenarios() []scenario {
	return []scenario{
		// The real eino-ext OpenAI client against a loopback
		// OpenAI-compatible server: the usage it reports is charged, and
		// the wrap-up turn reaches the wire as tool_choice "none" with the
		// tools still described.
		{Name: "the OpenAI client's usage is charged and its wrap-up turn forbids tools", Modes: both, Build: func(t *testing.T, a Adapter) spec {
			backend := scripted.New(
				scripted.Call("search", `{"q":"lookout"}`).WithUsage(850, 60),
				scripted.Reply("Found it.").WithUsage(180, 25),
			)
			srv := scripted.NewOpenAIServer(backend)
			t.Cleanup(srv.Close)
			chat, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
				BaseURL: srv.BaseURL(), APIKey: "test-key", Model: "gpt-test",
			})
			require.NoError(t, err)
			return spec{
				Model: chat, Tools: []tool.BaseTool{adaptertest.Echo("search")},
				Config: &lookout.Config{Limits: budget.Limits{MaxTokens: 1000}},
				Check: func(t *testing.T, r result) {
					require.NoError(t, r.Err)
					assert.Equal(t, "Found it.", r.Final.Content)
					b := latestBudget(r.Store)
					assert.Equal(t, int64(2), b.ModelCalls)
					assert.Zero(t, b.ModelCallsWithoutUsage)
					assert.Equal(t, int64(850+180), b.PromptTokens)
					assert.Equal(t, int64(60+25), b.CompletionTokens)
					assert.Equal(t, int64(1115), b.TokensUsed)

					reqs := backend.Requests()
					require.Len(t, reqs, 2)
					assert.Equal(t, 1, reqs[1].CountContaining("search ok"), "the tool result reached the server")
					assertToolsWithheld(t, a, reqs[1], "search")
					assert.Equal(t, 1, reqs[1].CountContaining("Budget nearly spent"))
				},
			}
		}},
	}
}

// waitForDeadline is a tool named "wait" that waits for its ctx to be
// done and then returns successfully, ignoring why.
var waitForDeadline = adaptertest.Tool{Name: "wait", Fn: func(ctx context.Context, _ string) (string, error) {
	<-ctx.Done()
	return "stopped waiting", nil
}}

// expiringCtx is a ctx that reaches its deadline when done is closed.
type expiringCtx struct {
	context.Context
	done chan struct{}
}

func (c *expiringCtx) Deadline() (time.Time, bool) { return adaptertest.T0, true }

func (c *expiringCtx) Done() <-chan struct{} { return c.done }

func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func latestBudget(store *session.Store) budget.Budget {
	b, _ := session.ValueOf[budget.Budget](store).Latest()
	return b
}

// payloadsOf returns the payloads of type P among records, in order.
func payloadsOf[P any](records []recorder.Record) []P {
	var out []P
	for _, rec := range records {
		if p, ok := rec.Payload.(P); ok {
			out = append(out, p)
		}
	}
	return out
}

// exceededRecords returns the budget records among records that say a
// budget was exceeded.
func exceededRecords(records []recorder.Record) []*recorder.BudgetRecord {
	var out []*recorder.BudgetRecord
	for _, b := range payloadsOf[*recorder.BudgetRecord](records) {
		if b.Event == recorder.BudgetExceeded {
			out = append(out, b)
		}
	}
	return out
}

// numberedCalls returns n parallel calls of the tool name, the i-th with
// the arguments {"n":i}.
func numberedCalls(name string, n int) []scripted.ToolCall {
	calls := make([]scripted.ToolCall, 0, n)
	for i := range n {
		calls = append(calls, scripted.ToolCall{Name: name, Arguments: fmt.Sprintf(`{"n":%d}`, i)})
	}
	return calls
}

// callIndices returns the call indices 1 to n, in order.
func callIndices[I int | int64](n int) []I {
	out := make([]I, n)
	for i := range out {
		out[i] = I(i + 1)
	}
	return out
}

// assertToolsWithheld checks that req, a wrap-up turn of an agent with
// the tools named in tools, let the model call none of them, in the way
// a withholds tools.
func assertToolsWithheld(t testing.TB, a Adapter, req scripted.Request, tools ...string) {
	t.Helper()
	assert.True(t, req.ToolsWithheld(), "tools offered: %v", req.ToolNames())
	if !a.WrapUpDescribesTools {
		assert.Empty(t, req.ToolNames(), "no tools are offered")
		return
	}
	assert.Equal(t, tools, req.ToolNames(), "the tools stay described")
	if assert.NotNil(t, req.ToolChoice) {
		assert.Equal(t, schema.ToolChoiceForbidden, *req.ToolChoice)
	}
}
