package lookoutadk_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// This is the README's example: one middleware added to an existing
// agent, and the agent wrapped for the Runner.
func Example() {
	ctx := context.Background()
	chatModel := scripted.New( // any Eino ToolCallingChatModel
		scripted.Call("search", `{"q":"billing"}`).Call("search", `{"q":"payments"}`).WithUsage(900, 40),
		scripted.Reply("Both services use the new API.").WithUsage(1_000, 60),
	)
	tools := adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}}
	trajectory := recorder.NewMemorySink() // or a recorder.NewFileSink("run.jsonl", nil)
	rec := recorder.New(trajectory, nil)
	defer rec.Close(ctx) // delivers what is queued, then closes the sink

	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Limits: budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100},
		Observers: []observer.Spec{
			{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 2, AfterConsecutiveErrors: 3}},
		},
		Recorder: rec,
	})
	if err != nil {
		panic(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "auditor", Description: "Audits services.", Instruction: "Audit the services.",
		Model: chatModel, ToolsConfig: tools,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, // added line 1
	})
	if err != nil {
		panic(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}) // added line 2

	store := session.New(nil) // optional: hold the session to read the budget afterwards
	ctx = session.NewContext(ctx, store)
	iter := runner.Query(ctx, "audit billing and payments")
	for {
		event, ok := iter.Next()
		if !ok {
			break
		}
		if errors.Is(event.Err, budget.ErrExceeded) {
			fmt.Println("stopped by the budget:", event.Err)
		}
	}

	if err := rec.Flush(ctx); err != nil {
		panic(err)
	}
	b, _ := lookout.BudgetOf(store)
	fmt.Printf("%d tokens, %d model calls, %d tool calls, %d records\n", b.TokensUsed, b.ModelCalls, b.ToolCalls, trajectory.Len())
	// Output:
	// 2000 tokens, 2 model calls, 2 tool calls, 15 records
}

// QueryError finds the query's error among the Runner's events: here a
// supervisor's worker ran out of model calls, and Eino handed back to
// the supervisor, which answered.
func ExampleQueryError() {
	events := []*adk.AgentEvent{
		{AgentName: "worker", Err: &budget.ExceededError{Resource: budget.ModelCalls, Limit: 6, Used: 6}},
		{AgentName: "worker"}, // the transfer back
		{AgentName: "lead"},   // the supervisor's answer
	}
	err := lookoutadk.QueryError(events)
	fmt.Println(errors.Is(err, budget.ErrExceeded), err)
	// Output: true budget exceeded: model_calls: 6 of 6 used
}
