package lookoutadk_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/observer"
)

// BenchmarkMiddlewareOverhead runs the same agent, a scripted model making
// 1,000 sequential tool calls, three ways side by side in each iteration so
// all see the same machine: bare, with a middleware that does nothing (the
// cost of Eino's handler machinery, which any middleware pays), and with
// the whole Lookout middleware. Each run starts after a garbage collection,
// so none pays for the garbage of the one before; the order rotates so none
// always runs first.
//
// It reports the median wall time of each and the medians of the
// per-iteration ratios: Lookout over bare ("ratio") and Lookout over the
// do-nothing middleware ("ratio-vs-noop"). Pairing the runs of one
// iteration cancels most of the drift of a shared machine. It also
// reports, in absolute terms, the median of what Lookout adds to each of
// the agent's 1,000 iterations of a model call and a tool call, over bare
// ("added-us/iter") and over the do-nothing middleware
// ("added-vs-noop-us/iter").
func BenchmarkMiddlewareOverhead(b *testing.B) {
	var runs [3][]float64
	var ratio, ratioNoop, added, addedNoop []float64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		var took [3]time.Duration
		for j := range 3 {
			kind := (i + j) % 3
			took[kind] = timedRun(b, func(b *testing.B) adk.Agent { return overheadAgent(b, kind) })
			runs[kind] = append(runs[kind], float64(took[kind].Microseconds())/1e3)
		}
		ratio = append(ratio, float64(took[lookoutAgent])/float64(took[bareAgent]))
		ratioNoop = append(ratioNoop, float64(took[lookoutAgent])/float64(took[noopAgent]))
		added = append(added, float64(took[lookoutAgent]-took[bareAgent])/agentCalls/1e3)
		addedNoop = append(addedNoop, float64(took[lookoutAgent]-took[noopAgent])/agentCalls/1e3)
	}
	b.ReportMetric(median(runs[bareAgent]), "bare-ms/run")
	b.ReportMetric(median(runs[noopAgent]), "noop-ms/run")
	b.ReportMetric(median(runs[lookoutAgent]), "lookout-ms/run")
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(median(ratioNoop), "ratio-vs-noop")
	b.ReportMetric(median(added), "added-us/iter")
	b.ReportMetric(median(addedNoop), "added-vs-noop-us/iter")
}

// timedRun builds an agent with build and runs it to the end after a
// garbage collection, so that it does not pay for the garbage of the run
// before, and returns how long the run took.
func timedRun(b *testing.B, build func(*testing.B) adk.Agent) time.Duration {
	b.StopTimer()
	agent := build(b)
	ctx := context.Background()
	runtime.GC()
	b.StartTimer()
	start := time.Now()
	o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go"))
	elapsed := time.Since(start)
	if o.err != nil {
		b.Fatal(o.err)
	}
	return elapsed
}

// The agents BenchmarkMiddlewareOverhead and BenchmarkAgentRun compare.
const (
	bareAgent = iota
	noopAgent
	lookoutAgent
)

// overheadAgent returns an agent of the given kind whose scripted model
// makes 1,000 sequential tool calls and then answers. The Lookout agent
// has limits on time, tokens and tool calls and a Resource observer every
// 10 calls.
func overheadAgent(b *testing.B, kind int) adk.Agent {
	switch kind {
	case bareAgent:
		return scriptedAgent(b)
	case noopAgent:
		return scriptedAgent(b, &adk.BaseChatModelAgentMiddleware{})
	}
	return configAgent(b, overheadConfig(10))
}

// overheadConfig is the Lookout configuration of BenchmarkMiddlewareOverhead,
// with the Resource observer every `every` calls.
func overheadConfig(every int) *lookout.Config {
	return &lookout.Config{
		Limits: overheadLimits,
		Observers: []observer.Spec{{
			Observer: observer.NewResource(),
			Trigger:  observer.Trigger{EveryNCalls: every, AfterConsecutiveErrors: 3},
		}},
	}
}

// lookoutAgentWith is the Lookout agent of overheadAgent with the Resource
// observer every `every` calls and the middleware passed through wrap.
func lookoutAgentWith(b *testing.B, every int, wrap func(adk.ChatModelAgentMiddleware) adk.ChatModelAgentMiddleware) adk.Agent {
	mw, err := lookoutadk.New(context.Background(), overheadConfig(every))
	if err != nil {
		b.Fatal(err)
	}
	return scriptedAgent(b, wrap(mw))
}

// scriptedAgent returns the benchmarks' agent, with handlers as its
// middleware: a scripted model that makes 1,000 sequential tool calls and
// then answers, and one tool.
func scriptedAgent(b *testing.B, handlers ...adk.ChatModelAgentMiddleware) adk.Agent {
	m := scripted.New(scripted.Repeat(agentCalls, scripted.Call("noop", "{}")), scripted.Reply("done")).WithCapture(false)
	return newAgent(b, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, bare: true, handlers: handlers, maxIter: agentCalls + 1})
}

// agentCalls is how many tool calls the benchmarks' agent makes, each
// after a model call.
const agentCalls = 1000

// BenchmarkAgentRun runs one of BenchmarkOverheadByConfig's agents per
// sub-benchmark ("bare", "noop" and "lookout" are BenchmarkMiddlewareOverhead's),
// for profilers and for counting what a run executes. Under cachegrind (see
// docs/performance.md) the difference between two of them is what the
// middleware's parts cost, counted exactly: instructions, and
// instruction-cache misses, which are what that cost mostly is inside an
// agent.
func BenchmarkAgentRun(b *testing.B) {
	for _, c := range breakdown {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				agent := c.agent(b)
				ctx := context.Background()
				b.StartTimer()
				if o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")); o.err != nil {
					b.Fatal(o.err)
				}
			}
		})
	}
}

// BenchmarkHooksInAgent times Lookout's hooks inside the agent of
// BenchmarkMiddlewareOverhead, where they run with the CPU caches holding
// Eino's code and data rather than their own. A wrapping middleware
// times each hook, leaving out the model and the tool it calls, and
// reports per iteration (one model call and one tool call): the state
// rewrite before the model call, the model wrapper, the tool wrapper,
// their sum, and the whole iteration. "every-10" has the Resource
// observer every 10 calls, as BenchmarkMiddlewareOverhead does; "quiet"
// never runs it. The difference is what running the observer, showing
// its block and tracking the reaction costs, spread over 10 iterations.
// The timing itself reads the clock six times per iteration, about
// 0.3 µs.
func BenchmarkHooksInAgent(b *testing.B) {
	for _, every := range []int{10, 1 << 30} {
		name := "every-10"
		if every != 10 {
			name = "quiet"
		}
		b.Run(name, func(b *testing.B) {
			var t hookTimes
			var wall time.Duration
			for range b.N {
				b.StopTimer()
				agent := lookoutAgentWith(b, every, func(mw adk.ChatModelAgentMiddleware) adk.ChatModelAgentMiddleware {
					return &timedHooks{ChatModelAgentMiddleware: mw, t: &t}
				})
				ctx := context.Background()
				runtime.GC()
				b.StartTimer()
				start := time.Now()
				if o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")); o.err != nil {
					b.Fatal(o.err)
				}
				wall += time.Since(start)
			}
			n := float64(b.N) * agentCalls
			b.ReportMetric(float64(t.before)/n, "before-ns/iter")
			b.ReportMetric(float64(t.model)/n, "model-ns/iter")
			b.ReportMetric(float64(t.tool)/n, "tool-ns/iter")
			b.ReportMetric(float64(t.before+t.model+t.tool)/n, "hooks-ns/iter")
			b.ReportMetric(float64(wall)/n, "wall-ns/iter")
		})
	}
}

// hookTimes accumulates the time spent in each kind of hook. The agent
// makes one call at a time, so no lock is needed.
type hookTimes struct {
	before, model, tool time.Duration
}

// timedHooks times the hooks of the middleware it wraps.
type timedHooks struct {
	adk.ChatModelAgentMiddleware
	t *hookTimes
}

func (h *timedHooks) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, mc *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	start := time.Now()
	ctx, state, err := h.ChatModelAgentMiddleware.BeforeModelRewriteState(ctx, state, mc)
	h.t.before += time.Since(start)
	return ctx, state, err
}

func (h *timedHooks) WrapModel(ctx context.Context, inner model.BaseChatModel, mc *adk.ModelContext) (model.BaseChatModel, error) {
	start := time.Now()
	tm := &timedModel{t: h.t}
	var err error
	tm.wrapped, err = h.ChatModelAgentMiddleware.WrapModel(ctx, timedInner{m: inner, spent: &tm.inside}, mc)
	h.t.model += time.Since(start)
	return tm, err
}

func (h *timedHooks) WrapInvokableToolCall(ctx context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	start := time.Now()
	var inside time.Duration
	wrapped, err := h.ChatModelAgentMiddleware.WrapInvokableToolCall(ctx, func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		start := time.Now()
		out, err := next(ctx, args, opts...)
		inside += time.Since(start)
		return out, err
	}, tc)
	h.t.tool += time.Since(start)
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		start := time.Now()
		out, err := wrapped(ctx, args, opts...)
		h.t.tool += time.Since(start) - inside
		return out, err
	}, err
}

// timedModel is the model Lookout's wrapper returned, timed without the
// model it wraps.
type timedModel struct {
	t       *hookTimes
	wrapped model.BaseChatModel
	inside  time.Duration
}

func (m *timedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	start := time.Now()
	out, err := m.wrapped.Generate(ctx, input, opts...)
	m.t.model += time.Since(start) - m.inside
	return out, err
}

func (m *timedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.wrapped.Stream(ctx, input, opts...)
}

// timedInner is the model Lookout wraps, measuring its own time.
type timedInner struct {
	m     model.BaseChatModel
	spent *time.Duration
}

func (m timedInner) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	start := time.Now()
	out, err := m.m.Generate(ctx, input, opts...)
	*m.spent += time.Since(start)
	return out, err
}

func (m timedInner) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.m.Stream(ctx, input, opts...)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// BenchmarkHooks calls the middleware's hooks for one model call and one
// tool call, as an agent's iteration does, without Eino or a model: the
// state rewrite, the charging model wrapper and the tool wrapper, with the
// Resource observer every 10 calls and limits on time, tokens and tool
// calls. "warm" runs them back to back, so their code and data stay in the
// CPU caches; "cold" first walks 8 MiB of memory, as an agent's own work
// between hooks does, and reports only the hooks' time as hook-ns/op.
// The gap between the two is the cost of cache misses, which is most of
// what the middleware adds inside a real agent (BenchmarkMiddlewareOverhead).
func BenchmarkHooks(b *testing.B) {
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			cfg := overheadConfig(10)
			// Outside an agent's graph the session cannot be registered
			// for checkpoints; that is expected here.
			cfg.OnError = func(context.Context, error) {}
			mw, err := lookoutadk.New(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx, _, err = mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
			if err != nil {
				b.Fatal(err)
			}
			reply := &schema.Message{Role: schema.Assistant,
				ToolCalls:    []schema.ToolCall{{ID: "call", Function: schema.FunctionCall{Name: "noop", Arguments: "{}"}}},
				ResponseMeta: &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 100, CompletionTokens: 5, TotalTokens: 105}}}
			result := schema.ToolMessage("{}", "call")
			model := fixedModel{reply}
			tc := &adk.ToolContext{Name: "noop", CallID: "call"}
			run := func(_ context.Context, args string, _ ...tool.Option) (string, error) { return args, nil }
			state := &adk.ChatModelAgentState{Messages: make([]*schema.Message, 1, 4096)}
			state.Messages[0] = schema.UserMessage("go")
			memory := make([]byte, 8<<20)
			var hooks time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if cold {
					for i := 0; i < len(memory); i += 64 {
						memory[i]++
					}
				}
				if len(state.Messages) > 4000 {
					state.Messages = state.Messages[:1]
				}
				start := time.Now()
				_, st, err := mw.BeforeModelRewriteState(ctx, state, nil)
				if err != nil {
					b.Fatal(err)
				}
				state = st
				m, _ := mw.WrapModel(ctx, model, nil)
				out, _ := m.Generate(ctx, state.Messages)
				state.Messages = append(state.Messages, out)
				call, _ := mw.WrapInvokableToolCall(ctx, run, tc)
				if _, err := call(ctx, "{}"); err != nil {
					b.Fatal(err)
				}
				state.Messages = append(state.Messages, result)
				hooks += time.Since(start)
			}
			b.ReportMetric(float64(hooks.Nanoseconds())/float64(b.N), "hook-ns/op")
		})
	}
}

// fixedModel answers every call with the same message.
type fixedModel struct{ reply *schema.Message }

func (m fixedModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return m.reply, nil
}

func (m fixedModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray([]*schema.Message{m.reply}), nil
}
