package lookoutadk_test

import (
	"context"
	"testing"
	"time"

	"github.com/lookout-go/lookout"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
)

// namedAgent names an agent the benchmarks build.
type namedAgent struct {
	name  string
	agent func(b *testing.B) *subject
}

// breakdown lists the agents BenchmarkOverheadByConfig compares: the
// agent of BenchmarkMiddlewareOverhead with more and more of Lookout, so
// that the differences between neighbours say what each part costs.
var breakdown = []namedAgent{
	// No middleware.
	{"bare", func(b *testing.B) *subject { return newSubject(b, bareAgent, sequential(agentCalls), nil) }},
	// A middleware that does nothing: Eino's handler machinery.
	{"nothing", func(b *testing.B) *subject { return newSubject(b, nothingAgent, sequential(agentCalls), nil) }},
	// A middleware with Lookout's shape and no work: its state on the ctx,
	// found in every hook, a model wrapper and a tool wrapper.
	{"floor", func(b *testing.B) *subject { return plain(scriptedAgent(b, &floor{})) }},
	// Lookout with no limits and no observers.
	{"empty", func(b *testing.B) *subject {
		return configAgent(b, &lookout.Config{Observers: []observer.Spec{}})
	}},
	// Limits on time, tokens and tool calls, no observers.
	{"limits", func(b *testing.B) *subject {
		return configAgent(b, &lookout.Config{Limits: overheadLimits, Observers: []observer.Spec{}})
	}},
	// The limits and a Resource observer that never fires.
	{"quiet", func(b *testing.B) *subject {
		return configAgent(b, &lookout.Config{Limits: overheadLimits, Observers: []observer.Spec{{
			Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: observer.MaxTriggerCalls},
		}}})
	}},
	// The observer every 10 calls with MaxAgeCalls 1: its block is in the
	// two model calls after each firing and stale after that, so this is
	// what the firings cost without the block staying in every call.
	{"brief", func(b *testing.B) *subject {
		cfg := overheadConfig(10)
		cfg.MaxAgeCalls = 1
		return configAgent(b, cfg)
	}},
	// The observer every 10 calls, so an assessment block in every model
	// call after the 10th; nothing recorded, the agent not wrapped.
	{"observed", func(b *testing.B) *subject { return configAgent(b, overheadConfig(10)) }},
	// And recording into a memory sink, the agent not wrapped.
	{"recorded", func(b *testing.B) *subject {
		return lookoutSubject(b, sequential(agentCalls), recorder.NewMemorySink(), false)
	}},
	// BenchmarkMiddlewareOverhead's Lookout: recording into a memory sink,
	// the agent wrapped by Middleware.Agent.
	{"lookout", func(b *testing.B) *subject { return newSubject(b, lookoutAgent, sequential(agentCalls), nil) }},
}

// BenchmarkOverheadByConfig runs the agents of breakdown side by side in
// each iteration, rotating their order and collecting garbage before each
// run, and reports the median ratio of each to the bare agent.
func BenchmarkOverheadByConfig(b *testing.B) {
	ratios := ratiosToFirst(b, breakdown)
	for k, c := range breakdown[1:] {
		b.ReportMetric(median(ratios[k+1]), c.name)
	}
}

// ratiosToFirst runs agents side by side b.N times, rotating their order
// and collecting garbage before each run, and returns, for each agent,
// the ratios of its run time to the first agent's in the same iteration.
func ratiosToFirst(b *testing.B, agents []namedAgent) [][]float64 {
	ratios := make([][]float64, len(agents))
	took := make([]time.Duration, len(agents))
	b.ReportAllocs()
	for i := range b.N {
		for j := range agents {
			k := (i + j) % len(agents)
			took[k] = timedRun(b, agents[k].agent)
		}
		for k := range agents {
			ratios[k] = append(ratios[k], float64(took[k])/float64(took[0]))
		}
	}
	return ratios
}

// overheadLimits are the limits of BenchmarkMiddlewareOverhead's Lookout:
// enforced, and never reached.
var overheadLimits = budget.Limits{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40}

// configAgent is the agent of scriptedAgent with Lookout configured by
// cfg, the agent not wrapped by Middleware.Agent.
func configAgent(b *testing.B, cfg *lookout.Config) *subject {
	mw, err := lookoutadk.New(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return plain(scriptedAgent(b, mw))
}

// floor is the least a middleware like Lookout's does: it keeps a per-run
// state on the ctx, looks it up in every hook, and wraps the model and
// each tool call.
type floor struct {
	adk.BaseChatModelAgentMiddleware
}

type floorKey struct{}

type floorRun struct{ hooks int }

func floorRunOf(ctx context.Context) *floorRun {
	r, _ := ctx.Value(floorKey{}).(*floorRun)
	return r
}

func (*floor) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	return context.WithValue(ctx, floorKey{}, &floorRun{}), rc, nil
}

func (*floor) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	floorRunOf(ctx).hooks++
	return ctx, state, nil
}

func (*floor) WrapModel(ctx context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return &floorModel{inner: inner, run: floorRunOf(ctx)}, nil
}

func (*floor) WrapInvokableToolCall(ctx context.Context, next adk.InvokableToolCallEndpoint, _ *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	r := floorRunOf(ctx)
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		r.hooks++
		return next(ctx, args, opts...)
	}, nil
}

type floorModel struct {
	inner model.BaseChatModel
	run   *floorRun
}

func (m *floorModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.run.hooks++
	return m.inner.Generate(ctx, input, opts...)
}

func (m *floorModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m.run.hooks++
	return m.inner.Stream(ctx, input, opts...)
}
