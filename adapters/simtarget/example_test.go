package simtarget_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/adapters/simtarget"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
	"github.com/lookout-go/lookout/simulate"
)

func ExampleAgent() {
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "greeter", Description: "greets", Instruction: "Be brief.",
		Model: scripted.New(scripted.Reply("Hello!"), scripted.Reply("Goodbye!")),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	user := scripted.New(scripted.Reply("Hi there"), scripted.Reply("Bye"))
	res, err := (&simulate.Runner{UserModel: user}).Run(ctx,
		&simulate.Scenario{Goal: "say hello and goodbye", MaxTurns: 2}, simtarget.Agent(ctx, agent))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Conversation() {
		fmt.Printf("%s: %s\n", m.Role, m.Content)
	}
	fmt.Println(res.End.Reason)
	// Output:
	// user: Hi there
	// assistant: Hello!
	// user: Bye
	// assistant: Goodbye!
	// max-turns
}

// An ADK agent observed by Lookout: the middleware goes in the agent's
// Handlers, and the target gets the agent wrapped with mw.Agent, so each
// turn is one Lookout run. One session on the ctx gives the whole
// conversation one budget.
func ExampleAgent_lookout() {
	ctx := context.Background()
	mw, err := lookoutadk.New(ctx, &lookout.Config{Limits: budget.Limits{MaxToolCalls: 10}})
	if err != nil {
		fmt.Println(err)
		return
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "travel", Description: "plans trips",
		Model:       scripted.New(scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Reply("TP123 at 09:00."), scripted.Reply("Bye!")),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{flights{}}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	store := session.New(nil)
	ctx = session.NewContext(ctx, store)
	user := scripted.New(scripted.Reply("Flights to Lisbon?"), scripted.Reply("Thanks"))
	res, err := (&simulate.Runner{UserModel: user}).Run(ctx,
		&simulate.Scenario{Goal: "find a flight", MaxTurns: 2}, simtarget.Agent(ctx, mw.Agent(agent)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("turns:", len(res.Traces))
	b, _ := lookout.BudgetOf(store)
	fmt.Printf("tool calls: %d of %d\n", b.ToolCalls, b.MaxToolCalls)
	// Output:
	// turns: 2
	// tool calls: 1 of 10
}

// A react agent observed by Lookout: the wrapped model and the tool
// middleware go in the agent, and the target gets the agent run through
// l.Agent, so each turn is one Lookout run.
func ExampleReact() {
	ctx := context.Background()
	l, err := lookoutreact.New(ctx, &lookout.Config{Limits: budget.Limits{MaxToolCalls: 10}})
	if err != nil {
		fmt.Println(err)
		return
	}
	chatModel := scripted.New(scripted.Call("search_flights", `{"to":"LIS"}`), scripted.Reply("TP123 at 09:00."))
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: l.WrapModel(chatModel),
		ToolsConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{flights{}},
			ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	store := session.New(nil)
	user := scripted.New(scripted.Reply("Flights to Lisbon?"))
	res, err := (&simulate.Runner{UserModel: user}).Run(session.NewContext(ctx, store),
		&simulate.Scenario{Goal: "find a flight", MaxTurns: 1}, simtarget.React(l.Agent(agent)))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Traces[0].Agent {
		if len(m.ToolCalls) > 0 {
			fmt.Printf("%s: calls %s\n", m.Role, m.ToolCalls[0].Function.Name)
		} else {
			fmt.Printf("%s: %s\n", m.Role, m.Content)
		}
	}
	b, _ := lookout.BudgetOf(store)
	fmt.Printf("tool calls: %d of %d\n", b.ToolCalls, b.MaxToolCalls)
	// Output:
	// assistant: calls search_flights
	// tool: TP123 09:00
	// assistant: TP123 at 09:00.
	// tool calls: 1 of 10
}

// flights is a flight search that always finds TP123.
type flights struct{}

func (flights) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "search_flights", Desc: "searches flights"}, nil
}

func (flights) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "TP123 09:00", nil
}
