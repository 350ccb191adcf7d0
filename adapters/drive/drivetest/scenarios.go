package drivetest

import (
	"context"
	"errors"
	"fmt"
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
	out = append(out, refusalScenarios()...)
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

// failingSink fails writes with errDiskFull: every one, or those from
// the first record of kind From on. It is safe for concurrent use.
type failingSink struct {
	// From, when set, lets the writes before the first record of that
	// kind succeed; from it on every write fails. The zero From fails
	// every write.
	From recorder.Kind

	mu      sync.Mutex
	writes  int
	failing bool
}

// errDiskFull is the error a [failingSink] returns.
var errDiskFull = errors.New("disk full")

// Write counts the write and fails it, or lets it succeed before From.
func (f *failingSink) Write(_ context.Context, r *recorder.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	f.failing = f.failing || f.From == "" || r.Kind() == f.From
	if !f.failing {
		return nil
	}
	return errDiskFull
}

// Writes returns how many writes were tried.
func (f *failingSink) Writes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
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
