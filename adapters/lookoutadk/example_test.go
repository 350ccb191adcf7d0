package lookoutadk_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// This is the README's example: one middleware added to an existing agent.
func Example() {
	ctx := context.Background()
	chatModel := scripted.New( // any Eino ToolCallingChatModel
		scripted.Call("search", `{"q":"billing"}`).Call("search", `{"q":"payments"}`).WithUsage(900, 40),
		scripted.Reply("Both services use the new API.").WithUsage(1_000, 60),
	)
	tools := adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}}
	trajectory := recorder.NewMemorySink() // or recorder.NewFileSink("run.jsonl", nil), which also returns an error and must be closed

	mw, err := lookoutadk.New(ctx, &lookoutadk.Config{
		Limits: budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100},
		Observers: []observer.Spec{
			{Observer: observer.NewResource(), Trigger: observer.Trigger{EveryNCalls: 2, AfterConsecutiveErrors: 3}},
		},
		Sink: trajectory,
	})
	if err != nil {
		panic(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "auditor", Description: "Audits services.", Instruction: "Audit the services.",
		Model: chatModel, ToolsConfig: tools,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, // the one added line
	})
	if err != nil {
		panic(err)
	}

	store := session.New(nil) // optional: hold the session to read the budget afterwards
	ctx = session.NewContext(ctx, store)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "audit billing and payments", lookoutadk.RunOption())
	for {
		event, ok := iter.Next()
		if !ok {
			break
		}
		if errors.Is(event.Err, budget.ErrExceeded) {
			fmt.Println("stopped by the budget:", event.Err)
		}
	}

	b, _ := session.ValueOf[budget.Budget](store).Latest()
	fmt.Printf("%d tokens, %d model calls, %d tool calls, %d records\n", b.TokensUsed, b.ModelCalls, b.ToolCalls, trajectory.Len())
	// Output:
	// 2000 tokens, 2 model calls, 2 tool calls, 16 records
}
