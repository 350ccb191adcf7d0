package lookoutreact_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
)

func benchConfig() *lookout.Config {
	return &lookout.Config{
		Limits: budget.Limits{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		Observers: []observer.Spec{{
			Observer: resource.New(),
			Trigger:  observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3},
		}},
	}
}

// BenchmarkAgentOverhead runs the same react agent, a scripted model making
// 100 or 1,000 sequential tool calls, bare and with Lookout, side by side
// in each iteration so both see the same machine. It reports the ratio of
// Lookout's wall time to the bare agent's. The scripted model costs
// nothing, so the ratio is the worst case: with a real model each call
// takes far longer than Lookout's work around it.
func BenchmarkAgentOverhead(b *testing.B) {
	for _, calls := range []int{100, 1000} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			benchmarkAgentOverhead(b, calls)
		})
	}
}

func benchmarkAgentOverhead(b *testing.B, calls int) {
	cfg := benchConfig()
	agentFor := func(withLookout bool) reactAgent {
		m := scripted.New(
			scripted.Repeat(calls, scripted.Call("noop", "{}").WithUsage(10, 1)),
			scripted.Reply("done").WithUsage(10, 1),
		).WithCapture(false)
		return newAgent(b, agentSpec{model: m, tools: []tool.BaseTool{echo("noop")}, cfg: cfg, bare: !withLookout, maxStep: 2*calls + 2})
	}
	once := func(withLookout bool) time.Duration {
		a := agentFor(withLookout)
		start := time.Now()
		o := a.runCtx(context.Background(), false)
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
	b.ReportMetric(float64(bare.Microseconds())/float64(b.N)/1000, "bare-ms/run")
	b.ReportMetric(float64(lookout.Microseconds())/float64(b.N)/1000, "lookout-ms/run")
	b.ReportMetric(float64(lookout)/float64(bare), "ratio")
}

// BenchmarkToolMiddleware measures one invokable tool call through the
// middleware: admission, the record, and the observer pipeline with a
// Resource observer that fires every 10 calls.
func BenchmarkToolMiddleware(b *testing.B) {
	l, err := lookoutreact.New(context.Background(), benchConfig())
	if err != nil {
		b.Fatal(err)
	}
	ctx := started(b, l)
	out := &compose.ToolOutput{Result: "ok"}
	call := l.ToolMiddleware().Invokable(func(context.Context, *compose.ToolInput) (*compose.ToolOutput, error) {
		return out, nil
	})
	in := &compose.ToolInput{Name: "noop", Arguments: `{"q":"x"}`, CallID: "call_1"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := call(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInjection measures one model call through the wrapper when an
// assessment is injected, with histories of 100 and 10,000 messages: the
// budget check, the copy of the history with the block, and the charge.
func BenchmarkInjection(b *testing.B) {
	reply := schema.AssistantMessage("hi", nil)
	reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11}}
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			l, err := lookoutreact.New(context.Background(), &lookout.Config{
				Observers: adaptertest.EveryCall(),
			})
			if err != nil {
				b.Fatal(err)
			}
			ctx := started(b, l)
			call := l.ToolMiddleware().Invokable(func(context.Context, *compose.ToolInput) (*compose.ToolOutput, error) {
				return &compose.ToolOutput{Result: "ok"}, nil
			})
			if _, err := call(ctx, &compose.ToolInput{Name: "noop", Arguments: "{}", CallID: "c"}); err != nil {
				b.Fatal(err)
			}
			history := make([]*schema.Message, n)
			for i := range history {
				history[i] = schema.UserMessage("message")
			}
			m := l.WrapModel(fixedModel{reply: reply})
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := m.Generate(ctx, history); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWrapModel measures what the wrapper adds to one Generate call of
// a model that answers at once, with nothing to inject: the budget check
// and the charge.
func BenchmarkWrapModel(b *testing.B) {
	reply := schema.AssistantMessage("hi", nil)
	reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11}}
	inner := fixedModel{reply: reply}
	l, err := lookoutreact.New(context.Background(), benchConfig())
	if err != nil {
		b.Fatal(err)
	}
	ctx := started(b, l)
	input := []*schema.Message{schema.UserMessage("hello")}
	for name, m := range map[string]model.ToolCallingChatModel{"bare": inner, "wrapped": l.WrapModel(inner)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := m.Generate(ctx, input); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fixedModel returns the same reply to every call.
type fixedModel struct{ reply *schema.Message }

func (f fixedModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return f.reply, nil
}

func (f fixedModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray([]*schema.Message{f.reply}), nil
}

func (f fixedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return f, nil }
