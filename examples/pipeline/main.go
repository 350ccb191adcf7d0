package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/session"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	// A simulated clock: each tool call takes 40 seconds of the run.
	now := time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	store := session.New(&session.StoreOptions{Now: clock, Retention: 10_000})
	tracker, pipeline, err := watch(store)
	if err != nil {
		return err
	}

	ctx := context.Background()
	for call := 1; call <= 30; call++ {
		// Each turn: the model spends tokens, then calls a tool. The budget
		// is the backstop: once tokens are spent, the run stops.
		tracker.ChargeModelCall(&budget.Usage{PromptTokens: 1_200 + 40*int64(call), CompletionTokens: 150})
		if err := tracker.Check(budget.Time, budget.Tokens); err != nil {
			fmt.Fprintln(w, "stopped:", err)
			break
		}
		if err := tracker.ReserveToolCall(); err != nil {
			fmt.Fprintln(w, "refused:", err)
			continue
		}
		now = now.Add(40 * time.Second)
		if _, current := pipeline.AfterToolCall(ctx, toolCall(call)); current != nil {
			fmt.Fprintln(w, observer.BuildContext(store, observer.DefaultMaxAgeCalls))
		}
	}
	b := tracker.Budget()
	fmt.Fprintf(w, "used %d tokens in %d model calls and %d tool calls\n", b.TokensUsed, b.ModelCalls, b.ToolCalls)
	return nil
}

// watch sets up the run's budget tracker and its pipeline with the
// resource observer, both on store.
func watch(store *session.Store) (*budget.Tracker, *observer.Pipeline, error) {
	tracker, err := budget.NewTracker(store, budget.Limits{
		Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 40,
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	pipeline, err := observer.NewPipeline(store, []observer.Spec{{
		Observer: resource.New(),
		Trigger:  observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3},
	}}, nil)
	if err != nil {
		return nil, nil, err
	}
	return tracker, pipeline, nil
}

// toolCall is the record of the run's call: reading a file, but for
// calls 14 to 16, failed test runs.
func toolCall(call int) observer.ToolCallRecord {
	if call >= 14 && call <= 16 {
		return observer.ToolCallRecord{ToolName: "run_tests", ErrorMessage: "exit status 1", Success: false}
	}
	return observer.ToolCallRecord{ToolName: "read_file", ParamsSummary: fmt.Sprintf("path=src/%d.go", call), Success: true}
}
