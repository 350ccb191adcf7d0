package drive_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
)

// A run needs no agent runtime: this drives one by hand, as an adapter
// does, with a model that calls a tool twice and then answers.
// The tool-call limit is two, so the third model call is a wrap-up turn.
func Example() {
	ctx := context.Background()
	l, err := drive.New(&lookout.Config{
		Limits:    budget.Limits{MaxToolCalls: 2},
		Observers: []observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}}},
		Now:       func() time.Time { return time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) }, // a fixed clock keeps the output stable
	})
	if err != nil {
		panic(err)
	}
	ctx, run, err := l.Start(ctx, drive.StartOptions{AgentName: "by-hand"})
	if err != nil {
		panic(err)
	}

	history := []*schema.Message{schema.UserMessage("How many files are there?")}
	replies := []*schema.Message{
		toolCall("call-1", "ls", `{"dir":"src"}`),
		toolCall("call-2", "ls", `{"dir":"docs"}`),
		schema.AssistantMessage("12 files.", nil),
	}
	for _, reply := range replies {
		turn, err := run.BeforeModel(ctx, history, nil) // the gate: stop, or what to inject
		if err != nil {
			panic(err)
		}
		for _, m := range turn.Messages {
			kind, _ := lookout.Injected(m)
			fmt.Printf("injected %s: %s\n", kind, strings.SplitN(m.Content, "\n", 2)[0])
		}
		fmt.Println("tools forbidden:", turn.WrapUp)

		input := slices.Concat(history, turn.Messages) // the injected messages go to this call only
		call, err := run.StartModel(ctx, input, func() drive.ModelOptions { return drive.ModelOptions{Model: "scripted"} })
		if err != nil {
			panic(err)
		}
		reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}}
		if err := call.End(ctx, reply, nil); err != nil { // charges the reply's usage
			panic(err)
		}
		history = append(history, reply)

		for _, tc := range reply.ToolCalls {
			c, refusal, err := run.Admit(ctx, tc.Function.Name, tc.ID, tc.Function.Arguments)
			if err != nil {
				panic(err)
			}
			result := refusal
			if refusal == "" {
				result, _ = c.End(ctx, "3 files", nil) // records the call and runs the observers
			}
			history = append(history, schema.ToolMessage(result, tc.ID))
		}
	}
	run.End(ctx, nil)

	b := run.Budget()
	fmt.Printf("%d tokens, %d model calls, %d of %d tool calls\n", b.TokensUsed, b.ModelCalls, b.ToolCalls, b.MaxToolCalls)
	// Output:
	// tools forbidden: false
	// injected assessment: ## Trajectory Assessment
	// tools forbidden: false
	// injected assessment: ## Trajectory Assessment
	// injected wrap_up: ## Budget nearly spent
	// tools forbidden: true
	// 330 tokens, 3 model calls, 2 of 2 tool calls
}

func toolCall(id, name, args string) *schema.Message {
	return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Function: schema.FunctionCall{Name: name, Arguments: args}}})
}
