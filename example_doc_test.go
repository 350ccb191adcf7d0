package lookout_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
)

// A configuration that cannot work fails in New, with an error that
// names the field.
func ExampleNew() {
	_, err := lookout.New(&lookout.Config{WrapUpAt: 1.5})
	fmt.Println(err)
	fmt.Println(errors.Is(err, lookout.ErrInvalidConfig))
	// Output:
	// lookout: invalid config: WrapUpAt 1.5 must be a number below 1
	// true
}

// The core needs no agent runtime: this drives one run by hand, as an
// adapter does, with a model that calls a tool twice and then answers.
// The tool-call limit is two, so the third model call is a wrap-up turn.
func Example() {
	ctx := context.Background()
	l, err := lookout.New(&lookout.Config{
		Limits:    budget.Limits{MaxToolCalls: 2},
		Observers: []observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}}},
		Now:       func() time.Time { return time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) }, // a fixed clock keeps the output stable
	})
	if err != nil {
		panic(err)
	}
	ctx, run, err := l.Start(ctx, lookout.StartOptions{AgentName: "by-hand"})
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
		call, err := run.StartModel(ctx, input, func() lookout.ModelOptions { return lookout.ModelOptions{Model: "scripted"} })
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

// The README's snippet is the body of the ADK adapter's Example, which
// compiles and runs with the tests; this keeps the two identical.
func TestTheReadmeSnippetIsTheADKExample(t *testing.T) {
	src, err := os.ReadFile("adapters/lookoutadk/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "\nfunc Example() {\n")
	body, _, ok2 := strings.Cut(rest, "\n}\n")
	if !ok || !ok2 {
		t.Fatal("no func Example in adapters/lookoutadk/example_test.go")
	}
	var want strings.Builder
	for _, line := range strings.Split(body, "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+want.String()+"```\n") {
		t.Error("README.md's Go snippet differs from the body of Example in adapters/lookoutadk/example_test.go")
	}
}
