package observer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/session"
)

type named struct {
	observer.Observer
	name string
}

func (n named) Name() string { return n.name }

// BenchmarkAfterToolCallQuiet measures the after-tool-call pipeline with
// three observers whose triggers do not fire, at two history sizes, with
// the log retaining 10,000 calls (the adapters' default) and with no bound.
// The per-call work must not grow with the history; without a bound, the
// garbage collector's cost grows with the live heap.
func BenchmarkAfterToolCallQuiet(b *testing.B) {
	for _, bench := range []struct{ history, retention int }{{100, 10_000}, {100_000, 10_000}, {100, 0}, {100_000, 0}} {
		b.Run(fmt.Sprintf("history=%d/retention=%d", bench.history, bench.retention), func(b *testing.B) {
			history := bench.history
			now := start
			store := session.New(&session.StoreOptions{Now: func() time.Time { return now }, Retention: bench.retention})
			quiet := observer.Trigger{EveryNCalls: observer.MaxTriggerCalls, AfterConsecutiveErrors: 3, EveryInterval: time.Hour}
			p, err := observer.NewPipeline(store, []observer.Spec{
				{Observer: named{resource.New(), "a"}, Trigger: quiet},
				{Observer: named{resource.New(), "b"}, Trigger: quiet},
				{Observer: named{resource.New(), "c"}, Trigger: quiet},
			}, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			rec := observer.ToolCallRecord{ToolName: "read_file", ParamsSummary: "path=go.mod", Success: true}
			for range history {
				p.AfterToolCall(ctx, rec)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_, current := p.AfterToolCall(ctx, rec)
				if current != nil {
					b.Fatal("an observer fired")
				}
			}
		})
	}
}

// BenchmarkResourceFiring measures the Resource observer running and its
// block being rendered, as happens when its trigger fires. Like
// [BenchmarkDetector], it reports cpu-ns/op besides ns/op.
func BenchmarkResourceFiring(b *testing.B) {
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { return now }})
	tracker, _ := budget.NewTracker(store, budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 1 << 40}, nil)
	// Nearly spent: the assessment is a warning, with suggestions to follow.
	tracker.ChargeModelCall(&budget.Usage{PromptTokens: 45_000, CompletionTokens: 1_000})
	p, err := observer.NewPipeline(store, []observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rec := observer.ToolCallRecord{ToolName: "read_file", Success: true}
	for range 10 {
		_ = tracker.ReserveToolCall()
		p.AfterToolCall(ctx, rec)
	}
	now = start.Add(10 * time.Minute)
	var cpu threadCPU
	b.ReportAllocs()
	b.ResetTimer()
	cpu.start()
	for range b.N {
		_, current := p.AfterToolCall(ctx, rec)
		if current == nil || current.Render() == "" {
			b.Fatal("no block")
		}
	}
	cpu.stop(b)
}

// BenchmarkEfficacyCycle measures feedback efficacy over one assessment's
// cycle, as an adapter drives it: the model is shown the assessment, it
// answers with one tool call, and the call settles the reaction. The
// Resource observer runs after every call, so each cycle counts a new
// assessment as shown and classifies the reaction to it.
func BenchmarkEfficacyCycle(b *testing.B) {
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { return now }})
	tracker, _ := budget.NewTracker(store, budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000}, nil)
	// Nearly spent: the assessment is a warning, with suggestions to follow.
	tracker.ChargeModelCall(&budget.Usage{PromptTokens: 45_000, CompletionTokens: 1_000})
	p, err := observer.NewPipeline(store, []observer.Spec{
		{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		{Observer: named{resource.New(), "b"}, Trigger: observer.Trigger{EveryNCalls: observer.MaxTriggerCalls}},
		{Observer: named{resource.New(), "c"}, Trigger: observer.Trigger{EveryNCalls: observer.MaxTriggerCalls}},
	}, &observer.PipelineOptions{OnEfficacy: func(context.Context, observer.EfficacyEvent) {}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rec := observer.ToolCallRecord{ToolName: "read_file", Arguments: `{"path":"go.mod"}`, Success: true}
	_, current := p.AfterToolCall(ctx, rec)
	var cpu threadCPU
	b.ReportAllocs()
	b.ResetTimer()
	cpu.start()
	for range b.N {
		p.Injected(ctx, *current)
		p.ModelResponded(ctx, 1)
		_, current = p.AfterToolCall(ctx, rec)
	}
	cpu.stop(b)
	b.StopTimer()
	if shown := p.Efficacy().ByObserver["Resources"].Shown; shown != int64(b.N) {
		b.Fatalf("%d assessments counted as shown, want %d", shown, b.N)
	}
}
