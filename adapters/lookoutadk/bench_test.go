package lookoutadk_test

import (
	"context"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
)

// BenchmarkMiddlewareOverhead runs the same agent, a scripted model making
// 1,000 sequential tool calls, three ways side by side in each iteration so
// all see the same machine: bare, with a middleware that does nothing (the
// cost of Eino's handler machinery, which any middleware pays), and with
// the whole Lookout middleware. It reports Lookout's wall time over the
// bare agent's ("ratio") and over the do-nothing middleware's
// ("ratio-vs-noop").
func BenchmarkMiddlewareOverhead(b *testing.B) {
	const calls = 1000
	cfg := &lookoutadk.Config{
		Limits: budget.Limits{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		Observers: []observer.Config{{
			Observer: observer.NewResource(),
			Trigger:  observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3},
		}},
	}
	const (
		bareAgent = iota
		noopAgent
		lookoutAgent
	)
	agentFor := func(kind int) adk.Agent {
		m := scripted.New(scripted.Repeat(calls, scripted.Call("noop", "{}")), scripted.Reply("done")).WithCapture(false)
		spec := agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, cfg: cfg, bare: kind != lookoutAgent, maxIter: calls + 1}
		if kind == noopAgent {
			spec.handlers = []adk.ChatModelAgentMiddleware{&adk.BaseChatModelAgentMiddleware{}}
		}
		return newAgent(b, spec)
	}
	once := func(kind int) time.Duration {
		agent := agentFor(kind)
		ctx := context.Background()
		start := time.Now()
		o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go"))
		elapsed := time.Since(start)
		if o.err != nil {
			b.Fatal(o.err)
		}
		return elapsed
	}
	var total [3]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Rotate the order so none always runs on a warmer heap.
		for j := range 3 {
			kind := (i + j) % 3
			total[kind] += once(kind)
		}
	}
	b.ReportMetric(float64(total[bareAgent].Milliseconds())/float64(b.N), "bare-ms/run")
	b.ReportMetric(float64(total[noopAgent].Milliseconds())/float64(b.N), "noop-ms/run")
	b.ReportMetric(float64(total[lookoutAgent].Milliseconds())/float64(b.N), "lookout-ms/run")
	b.ReportMetric(float64(total[lookoutAgent])/float64(total[bareAgent]), "ratio")
	b.ReportMetric(float64(total[lookoutAgent])/float64(total[noopAgent]), "ratio-vs-noop")
}
