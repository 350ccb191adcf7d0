package budget_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

func ExampleTracker() {
	now := time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store := session.New(&session.StoreOptions{Now: clock})
	tracker, _ := budget.NewTracker(store, budget.Limits{MaxTokens: 1000, MaxToolCalls: 2}, nil)

	tracker.ChargeModelCall(&budget.Usage{PromptTokens: 600, CompletionTokens: 150})
	tracker.ChargeModelCall(nil) // the provider reported nothing
	fmt.Println(tracker.ReserveToolCall(), tracker.ReserveToolCall())
	fmt.Println(tracker.ReserveToolCall())

	r := tracker.Remaining()
	fmt.Println("tokens left:", r.Tokens, "tool calls left:", r.ToolCalls)

	tracker.ChargeModelCall(&budget.Usage{PromptTokens: 300})
	err := tracker.Check(budget.Tokens)
	var exceeded *budget.ExceededError
	fmt.Println(errors.Is(err, budget.ErrExceeded), errors.As(err, &exceeded), exceeded.Used)
	// Output:
	// <nil> <nil>
	// budget exceeded: tool_calls: 2 of 2 used
	// tokens left: 250 tool calls left: 0
	// true true 1050
}

func ExampleProject() {
	start := time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)
	b := budget.New(budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000}, start)
	b.TokensUsed, b.ToolCalls = 20_000, 10

	pace := budget.Project(b, start.Add(10*time.Minute))
	fmt.Printf("%.0f tokens/min, %.0f tokens/call\n", pace.Tokens.PerMinute, pace.Tokens.PerToolCall)
	for _, s := range pace.Shortfalls() {
		fmt.Printf("%s run out in %v (about %d calls), before %s\n", s.Resource, s.In, s.Calls, s.Before)
	}
	// Output:
	// 2000 tokens/min, 2000 tokens/call
	// tokens run out in 15m0s (about 15 calls), before time
}
