package observer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/cascade"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/observer/stall"
	"github.com/lookout-go/lookout/session"
)

// benchResult is a 1 KiB tool output, the size the adapters keep.
var benchResult = strings.Repeat("func Round(x float64) float64 { return math.Round(x*100) / 100 }\n", 16)[:1024]

// benchTraces returns, for one detector, a trace on which it stays quiet
// and one on which it fires on every call, 1,024 calls each, replayed in a
// loop.
func benchTraces(name string) (quiet, firing []observer.ToolCallRecord) {
	for i := range 1024 {
		path := fmt.Sprintf("services/billing/pkg%d/file%d.go", i%7, i)
		switch name {
		case "Stall":
			quiet = append(quiet, succeeded("read_file", `{"path":"`+path+`","offset":0,"limit":4000}`, benchResult[:1000]+fmt.Sprint(i)))
			firing = append(firing, succeeded("read_file", `{"path":"services/billing/invoice.go","offset":0,"limit":4000}`, benchResult))
		case "Errors":
			rec := succeeded("read_file", `{"path":"`+path+`"}`, benchResult)
			if i%4 == 0 {
				rec = failed("run_tests", `{"package":"./services/billing"}`, fmt.Sprintf("--- FAIL: TestRound (0.0%ds): got 2.4%d", i%9, i%10))
			}
			quiet = append(quiet, rec)
			firing = append(firing, failed("write_file", `{"path":"/etc/billing/`+fmt.Sprint(i)+`.conf","content":"x"}`,
				fmt.Sprintf("open /etc/billing/%d.conf: permission denied", i)))
		case "Drift":
			quiet = append(quiet, succeeded("read_file", `{"path":"`+path+`"}`, benchResult))
			firing = append(firing, succeeded("read_file", fmt.Sprintf(`{"path":"web/marketing/page%d.tsx"}`, i), benchResult))
		}
	}
	return quiet, firing
}

func benchDetector(name string) observer.Observer {
	switch name {
	case "Stall":
		return &stall.Detector{Window: 20}
	case "Errors":
		return &cascade.Detector{Window: 20}
	}
	return &drift.Detector{Window: 20, InitialCalls: -1}
}

// BenchmarkDetector measures one detector, run on every call with a
// window of 20 calls, per tool call through the pipeline: on a trace where
// it stays quiet, and on one where it fires and renders on every call.
// Besides ns/op it reports cpu-ns/op, the CPU time of the benchmark's
// thread per call (on Linux), which a busy machine does not inflate.
func BenchmarkDetector(b *testing.B) {
	for _, name := range []string{"Stall", "Errors", "Drift"} {
		quiet, firing := benchTraces(name)
		for _, trace := range []struct {
			kind  string
			calls []observer.ToolCallRecord
		}{{"quiet", quiet}, {"firing", firing}} {
			b.Run(name+"/"+trace.kind, func(b *testing.B) {
				now := start
				store := session.New(&session.StoreOptions{Now: func() time.Time { return now }, Retention: 10_000})
				session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: "Fix the rounding in services/billing."})
				p, err := observer.NewPipeline(store, []observer.Spec{{Observer: benchDetector(name), Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				for _, rec := range trace.calls[:100] {
					p.AfterToolCall(ctx, rec)
				}
				wantFiring := trace.kind == "firing"
				var cpu threadCPU
				b.ReportAllocs()
				b.ResetTimer()
				cpu.start()
				for i := range b.N {
					_, current := p.AfterToolCall(ctx, trace.calls[(100+i)%len(trace.calls)])
					if (current != nil) != wantFiring {
						b.Fatalf("call %d: fired %v, want %v", i, current != nil, wantFiring)
					}
				}
				cpu.stop(b)
			})
		}
	}
}

// BenchmarkAllDetectorsQuiet measures the pipeline with the Resource
// observer every 10 calls and the three detectors on every call, on a
// trace of progress where none of them fires, per tool call.
func BenchmarkAllDetectorsQuiet(b *testing.B) {
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { return now }, Retention: 10_000})
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: "Fix the rounding in services/billing."})
	every := observer.Trigger{OnEveryCall: true}
	p, err := observer.NewPipeline(store, []observer.Spec{
		{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: observer.MaxTriggerCalls}},
		{Observer: stall.New(), Trigger: every},
		{Observer: cascade.New(), Trigger: every},
		{Observer: drift.New(), Trigger: every},
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	quiet, _ := benchTraces("Drift")
	ctx := context.Background()
	for _, rec := range quiet[:100] {
		p.AfterToolCall(ctx, rec)
	}
	var cpu threadCPU
	b.ReportAllocs()
	b.ResetTimer()
	cpu.start()
	for i := range b.N {
		if _, current := p.AfterToolCall(ctx, quiet[(100+i)%len(quiet)]); current != nil {
			b.Fatalf("call %d: a detector fired:\n%s", i, current.Render())
		}
	}
	cpu.stop(b)
}

// builtinsAgent is the four built-in observers on every call, driven as
// an adapter drives them: each iteration shows the current assessment to
// the model, which answers with one tool call; the call is admitted, made
// and recorded, and the new assessment rendered.
type builtinsAgent struct {
	clock   *clock
	tracker *budget.Tracker
	p       *observer.Pipeline
	current *session.Value[observer.CurrentAssessment]
	calls   []observer.ToolCallRecord
	next    int
	fired   int
}

func newBuiltinsAgent(tb testing.TB, calls []observer.ToolCallRecord) *builtinsAgent {
	a := &builtinsAgent{clock: &clock{t: start}, calls: calls}
	store := session.New(&session.StoreOptions{Now: a.clock.Now, Retention: 10_000})
	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: "Fix the rounding in services/billing."})
	var err error
	// Limits far from reached: Resources speaks at info.
	a.tracker, err = budget.NewTracker(store, budget.Limits{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1 << 40},
		&budget.TrackerOptions{Now: a.clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	every := observer.Trigger{OnEveryCall: true}
	a.p, err = observer.NewPipeline(store, []observer.Spec{
		{Observer: resource.New(), Trigger: every},
		{Observer: stall.New(), Trigger: every},
		{Observer: cascade.New(), Trigger: every},
		{Observer: drift.New(), Trigger: every},
	}, &observer.PipelineOptions{Now: a.clock.Now, OnEfficacy: func(context.Context, observer.EfficacyEvent) {}})
	if err != nil {
		tb.Fatal(err)
	}
	a.current = session.ValueOf[observer.CurrentAssessment](store)
	return a
}

// iterate runs one iteration: the current assessment shown, the model's
// answer, and its call.
func (a *builtinsAgent) iterate(ctx context.Context) {
	if current, ok := a.current.Latest(); ok && len(current.Assessments) > 0 {
		a.p.Injected(ctx, current)
	}
	a.p.ModelResponded(ctx, 1)
	a.clock.Advance(time.Millisecond)
	rec := a.calls[a.next%len(a.calls)]
	a.next++
	if refusal, _ := a.p.Admit(ctx, rec.ToolName, rec.Arguments); refusal != "" {
		return
	}
	_ = a.tracker.ReserveToolCall()
	if _, current := a.p.AfterToolCall(ctx, rec); current != nil {
		a.fired++
	}
}

// BenchmarkBuiltinsOnEveryCall measures the four built-in observers on
// every call, per iteration of an agent as an adapter drives them (see
// builtinsAgent), the block rendered when it changes: on an agent that
// repeats one call, after which Stall and Resources speak every time,
// and on a trace of progress, after which Resources alone does.
func BenchmarkBuiltinsOnEveryCall(b *testing.B) {
	quiet, _ := benchTraces("Drift")
	for _, trace := range []struct {
		name  string
		calls []observer.ToolCallRecord
	}{
		{"repeating", []observer.ToolCallRecord{{ToolName: "noop", ParamsSummary: "{}", Arguments: "{}", Result: "noop ok {}", Success: true}}},
		{"progress", quiet},
	} {
		b.Run(trace.name, func(b *testing.B) {
			a := newBuiltinsAgent(b, trace.calls)
			ctx := context.Background()
			for range 100 {
				a.iterate(ctx)
			}
			var cpu threadCPU
			b.ReportAllocs()
			b.ResetTimer()
			cpu.start()
			for range b.N {
				a.iterate(ctx)
				if current, _ := a.current.Latest(); current.Render() == "" {
					b.Fatal("no block")
				}
			}
			cpu.stop(b)
		})
	}
}

// BenchmarkNewCallState measures what each detector's working state for
// a session costs to build, which the first call of a session pays.
func BenchmarkNewCallState(b *testing.B) {
	for _, d := range []observer.Incremental{stall.New(), cascade.New(), drift.New()} {
		b.Run(d.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				d.NewCallState()
			}
		})
	}
}
