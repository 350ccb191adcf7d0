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
// 1,000 sequential tool calls, bare and with the whole middleware, side by
// side in each iteration so both see the same machine. It reports the
// ratio of the middleware's wall time to the bare agent's.
func BenchmarkMiddlewareOverhead(b *testing.B) {
	const calls = 1000
	cfg := &lookoutadk.Config{
		Limits: budget.Limits{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		Observers: []observer.Config{{
			Observer: observer.NewResource(),
			Trigger:  observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3},
		}},
	}
	agentFor := func(withLookout bool) adk.Agent {
		m := scripted.New(scripted.Repeat(calls, scripted.Call("noop", "{}")), scripted.Reply("done")).WithCapture(false)
		return newAgent(b, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, cfg: cfg, bare: !withLookout, maxIter: calls + 1})
	}
	once := func(withLookout bool) time.Duration {
		agent := agentFor(withLookout)
		ctx := context.Background()
		start := time.Now()
		o := drain(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go"))
		elapsed := time.Since(start)
		if o.err != nil {
			b.Fatal(o.err)
		}
		return elapsed
	}
	var bare, lookout time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Alternate the order so neither always runs on a warmer heap.
		if i%2 == 0 {
			bare += once(false)
			lookout += once(true)
		} else {
			lookout += once(true)
			bare += once(false)
		}
	}
	b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "bare-ms/run")
	b.ReportMetric(float64(lookout.Milliseconds())/float64(b.N), "lookout-ms/run")
	b.ReportMetric(float64(lookout)/float64(bare), "ratio")
}
