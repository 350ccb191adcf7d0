package resource_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/session"
)

var start = time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)

func ExampleObserver_info() {
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxTokens: 50_000}, start)
	b.TokensUsed, b.ToolCalls = 12_000, 10
	fmt.Println(resource.New().Assess(b, start.Add(35*time.Minute)).Render())
	// Output:
	// ### Resources [info]
	//
	// You have 25 minutes remaining before the deadline. You have used 12,000 of 50,000 tokens (24% of budget). 38,000 tokens remaining.
}

func ExampleObserver_caution() {
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { return now }})
	tracker, _ := budget.NewTracker(store, budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100}, nil)
	pipeline, _ := observer.NewPipeline(store, []observer.Spec{{
		Observer: resource.New(),
		Trigger:  observer.Trigger{EveryNCalls: 47},
	}}, nil)

	ctx := context.Background()
	tracker.ChargeModelCall(&budget.Usage{PromptTokens: 30_000, CompletionTokens: 5_000})
	for i := 1; i <= 47; i++ {
		now = start.Add(time.Duration(i) * 28 * time.Second) // call 47 ends 22 minutes in
		_ = tracker.ReserveToolCall()
		pipeline.AfterToolCall(ctx, observer.ToolCallRecord{ToolName: "read_file", Success: true})
	}
	fmt.Print(observer.BuildContext(store, observer.DefaultMaxAgeCalls))
	// Output:
	// ## Trajectory Assessment
	//
	// _Generated after tool call #47_
	//
	// ### Resources [caution]
	//
	// You have 8 minutes remaining before the deadline. You have used 35,000 of 50,000 tokens (70% of budget). 15,000 tokens remaining. You have made 47 of 100 allowed tool calls. 53 calls remaining.
	//
	// **Suggestions**:
	// - Be mindful of remaining resources when planning next steps.
}

func ExampleObserver_warning() {
	b := budget.New(budget.Limits{Timeout: 2 * time.Hour, MaxTokens: 50_000}, start)
	b.TokensUsed, b.ToolCalls = 48_500, 90
	fmt.Println(resource.New().Assess(b, start.Add(118*time.Minute)).Render())
	// Output:
	// ### Resources [warning]
	//
	// You have 2 minutes remaining before the deadline. You have used 48,500 of 50,000 tokens (97% of budget). 1,500 tokens remaining.
	//
	// **Suggestions**:
	// - Prioritize completing the most critical remaining work.
	// - Consider wrapping up with a summary of progress and remaining tasks.
}

func ExampleObserver_pace() {
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxTokens: 50_000}, start)
	b.TokensUsed, b.ToolCalls = 20_000, 20
	fmt.Println(resource.New().Assess(b, start.Add(10*time.Minute)).Render())
	// Output:
	// ### Resources [caution]
	//
	// You have 50 minutes remaining before the deadline. You have used 20,000 of 50,000 tokens (40% of budget). 30,000 tokens remaining. At this pace tokens run out in about 30 calls (about 15 minutes), before the deadline.
	//
	// **Suggestions**:
	// - Be mindful of remaining resources when planning next steps.
}

func ExampleObserver_toolCallPace() {
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxToolCalls: 100}, start)
	b.ToolCalls = 40
	fmt.Println(resource.New().Assess(b, start.Add(10*time.Minute)).Render())
	// Output:
	// ### Resources [caution]
	//
	// You have 50 minutes remaining before the deadline. You have made 40 of 100 allowed tool calls. 60 calls remaining. At this pace tool calls run out in about 15 minutes, before the deadline.
	//
	// **Suggestions**:
	// - Be mindful of remaining resources when planning next steps.
}

// With no limit set there is nothing to report: the observer declines to
// run, and nothing is injected.
func ExampleObserver_unconstrained() {
	store := session.New(nil)
	p, err := observer.NewPipeline(store, []observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}}}, nil)
	if err != nil {
		panic(err)
	}
	p.AfterToolCall(context.Background(), observer.ToolCallRecord{ToolName: "read_file", Success: true})
	fmt.Printf("%q\n", observer.BuildContext(store, 0))
	// Output: ""
}
