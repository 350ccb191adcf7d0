package lookoutadk_test

import (
	"context"
	"runtime"
	"slices"
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
// the whole Lookout middleware. Each run starts after a garbage collection,
// so none pays for the garbage of the one before; the order rotates so none
// always runs first.
//
// It reports the median wall time of each and the medians of the
// per-iteration ratios: Lookout over bare ("ratio") and Lookout over the
// do-nothing middleware ("ratio-vs-noop"). Pairing the runs of one
// iteration cancels most of the drift of a shared machine.
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
		b.StopTimer()
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
	var runs [3][]float64
	var ratio, ratioNoop []float64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		var took [3]time.Duration
		for j := range 3 {
			kind := (i + j) % 3
			took[kind] = once(kind)
			runs[kind] = append(runs[kind], float64(took[kind].Microseconds())/1e3)
		}
		ratio = append(ratio, float64(took[lookoutAgent])/float64(took[bareAgent]))
		ratioNoop = append(ratioNoop, float64(took[lookoutAgent])/float64(took[noopAgent]))
	}
	b.ReportMetric(median(runs[bareAgent]), "bare-ms/run")
	b.ReportMetric(median(runs[noopAgent]), "noop-ms/run")
	b.ReportMetric(median(runs[lookoutAgent]), "lookout-ms/run")
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(median(ratioNoop), "ratio-vs-noop")
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
