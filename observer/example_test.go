package observer_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

var start = time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)

// A run with an hour's deadline 35 minutes in, a quarter of its tokens
// spent: plenty of runway.
func ExampleResource_info() {
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxTokens: 50_000}, start)
	b.TokensUsed, b.ToolCalls = 12_000, 10
	fmt.Println(observer.NewResource().Assess(b, start.Add(35*time.Minute)).Render())
	// Output:
	// ### Resources [info]
	//
	// You have 25 minutes remaining before the deadline. You have used 12,000 of 50,000 tokens (24% of budget). 38,000 tokens remaining.
}

// The full pipeline: a 30-minute run with limits on tokens and tool calls,
// assessed after its 47th call, 22 minutes in.
func ExampleResource_caution() {
	now := start
	store := session.New(&session.StoreOptions{Now: func() time.Time { return now }})
	tracker, _ := budget.NewTracker(store, budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100}, nil)
	pipeline, _ := observer.NewPipeline(store, []observer.Spec{{
		Observer: observer.NewResource(),
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

// Two minutes left of two hours, 97% of the tokens spent.
func ExampleResource_warning() {
	b := budget.New(budget.Limits{Timeout: 2 * time.Hour, MaxTokens: 50_000}, start)
	b.TokensUsed, b.ToolCalls = 48_500, 90
	fmt.Println(observer.NewResource().Assess(b, start.Add(118*time.Minute)).Render())
	// Output:
	// ### Resources [warning]
	//
	// You have 2 minutes remaining before the deadline. You have used 48,500 of 50,000 tokens (97% of budget). 1,500 tokens remaining.
	//
	// **Suggestions**:
	// - Prioritize completing the most critical remaining work.
	// - Consider wrapping up with a summary of progress and remaining tasks.
}

// When the pace so far would spend the tokens before the deadline, the
// observer says so and raises its severity.
func ExampleResource_pace() {
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxTokens: 50_000}, start)
	b.TokensUsed, b.ToolCalls = 20_000, 20
	fmt.Println(observer.NewResource().Assess(b, start.Add(10*time.Minute)).Render())
	// Output:
	// ### Resources [caution]
	//
	// You have 50 minutes remaining before the deadline. You have used 20,000 of 50,000 tokens (40% of budget). 30,000 tokens remaining. At this pace tokens run out in about 30 calls (about 15 minutes), before the deadline.
	//
	// **Suggestions**:
	// - Be mindful of remaining resources when planning next steps.
}

// Tool calls are being spent faster than the deadline allows.
func ExampleResource_toolCallPace() {
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxToolCalls: 100}, start)
	b.ToolCalls = 40
	fmt.Println(observer.NewResource().Assess(b, start.Add(10*time.Minute)).Render())
	// Output:
	// ### Resources [caution]
	//
	// You have 50 minutes remaining before the deadline. You have made 40 of 100 allowed tool calls. 60 calls remaining. At this pace tool calls run out in about 15 minutes, before the deadline.
	//
	// **Suggestions**:
	// - Be mindful of remaining resources when planning next steps.
}

func ExampleResource_unconstrained() {
	fmt.Println(observer.NewResource().Assess(budget.Budget{}, start).Render())
	// Output:
	// ### Resources [info]
	//
	// No resource constraints configured.
}

func ExampleAssessment_Render() {
	a := observer.Assessment{
		Observer: "Stall",
		Summary:  "The same call keeps coming back with the same answer.",
		Severity: observer.Caution,
		Observations: []observer.Observation{{
			Category:    "loop",
			Description: "read_file was called 4 times with the same path.",
			Evidence:    "#12 read_file path=go.mod\n#13 read_file path=go.mod",
		}},
		Suggestions: []string{"Use what you already read."},
	}
	fmt.Println(a.Render())
	// Output:
	// ### Stall [caution]
	//
	// The same call keeps coming back with the same answer.
	//
	// **loop**: read_file was called 4 times with the same path.
	// ```
	// #12 read_file path=go.mod
	// #13 read_file path=go.mod
	// ```
	//
	// **Suggestions**:
	// - Use what you already read.
}

func ExampleFormatCount() {
	fmt.Println("You have used " + observer.FormatCount(48050) + " of " + observer.FormatCount(50000) + " tokens.")
	// Output: You have used 48,050 of 50,000 tokens.
}
