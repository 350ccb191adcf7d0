package lookoutreact_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/session"
)

// A react agent with a tool-call budget of two, run through Hooks.Agent.
// After two searches the budget is spent: the model's next input gets an
// assessment of the run and a wrap-up message, and tool calls are
// forbidden on that turn.
func Example() {
	ctx := context.Background()
	l, err := lookoutreact.New(ctx, &lookout.Config{
		Limits: budget.Limits{MaxToolCalls: 2},
		Observers: []observer.Spec{
			{Observer: resource.New(), Trigger: observer.Trigger{OnEveryCall: true}},
		},
		Now: func() time.Time { return t0 }, // a fixed clock keeps the output stable
	})
	if err != nil {
		log.Fatal(err)
	}
	chatModel := scripted.New(
		scripted.Call("search", `{"q":"eino"}`),
		scripted.Call("search", `{"q":"react"}`),
		scripted.Reply("Eino's react agent loops a model and tools."),
	)
	reactAgent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: l.WrapModel(chatModel),
		ToolsConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{echo("search")},
			ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	agent := l.Agent(reactAgent) // each Generate or Stream is one run

	store := session.New(nil) // optional: to read the budget afterwards
	out, err := agent.Generate(session.NewContext(ctx, store),
		[]*schema.Message{schema.UserMessage("What is a react agent?")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Content)

	last, _ := chatModel.Request(2)
	for _, msg := range last.Messages {
		if _, injected := lookout.Injected(msg); injected {
			fmt.Println("injected:", strings.SplitN(msg.Content, "\n", 2)[0])
		} else if msg.Role == schema.Tool {
			fmt.Println("tool:", msg.Content)
		}
	}
	fmt.Println("tools forbidden:", last.ToolsWithheld())
	b, _ := lookout.BudgetOf(store)
	fmt.Printf("tool calls: %d of %d\n", b.ToolCalls, b.MaxToolCalls)
	// Output:
	// Eino's react agent loops a model and tools.
	// tool: search ok {"q":"eino"}
	// tool: search ok {"q":"react"}
	// injected: ## Trajectory Assessment
	// injected: ## Budget nearly spent
	// tools forbidden: true
	// tool calls: 2 of 2
}

// The same hooks in a compose graph: a ChatModel node and a ToolsNode in a
// loop, the compiled graph run through lookoutreact.Runnable. The model
// spends the token budget; on the wrap-up turn it gets no tools, and when
// it carries on the run ends with the budget's typed error.
func Example_compose() {
	ctx := context.Background()
	l, err := lookoutreact.New(ctx, &lookout.Config{Limits: budget.Limits{MaxTokens: 1000}})
	if err != nil {
		log.Fatal(err)
	}
	chatModel := scripted.New(
		scripted.Call("search", `{}`).WithUsage(950, 0),
		scripted.Call("search", `{}`).WithUsage(100, 0),
	)
	search := echo("search")
	info, _ := search.Info(ctx)
	model, err := l.WrapModel(chatModel).WithTools([]*schema.ToolInfo{info})
	if err != nil {
		log.Fatal(err)
	}
	tools, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{
		Tools:               []tool.BaseTool{search},
		ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
	})
	if err != nil {
		log.Fatal(err)
	}

	type state struct{ history []*schema.Message }
	g := compose.NewGraph[[]*schema.Message, *schema.Message](compose.WithGenLocalState(func(context.Context) *state { return &state{} }))
	_ = g.AddChatModelNode("model", model, compose.WithStatePreHandler(func(_ context.Context, in []*schema.Message, s *state) ([]*schema.Message, error) {
		s.history = append(s.history, in...)
		return s.history, nil
	}))
	_ = g.AddToolsNode("tools", tools, compose.WithStatePreHandler(func(_ context.Context, in *schema.Message, s *state) (*schema.Message, error) {
		s.history = append(s.history, in)
		return in, nil
	}))
	_ = g.AddEdge(compose.START, "model")
	_ = g.AddBranch("model", compose.NewGraphBranch(func(_ context.Context, msg *schema.Message) (string, error) {
		if len(msg.ToolCalls) > 0 {
			return "tools", nil
		}
		return compose.END, nil
	}, map[string]bool{"tools": true, compose.END: true}))
	_ = g.AddEdge("tools", "model")
	compiled, err := g.Compile(ctx)
	if err != nil {
		log.Fatal(err)
	}
	runnable := lookoutreact.Runnable(l, "search-loop", compiled) // each Invoke is one run

	_, err = runnable.Invoke(ctx, []*schema.Message{schema.UserMessage("search")})
	var ex *budget.ExceededError
	fmt.Println("budget exceeded:", errors.Is(err, budget.ErrExceeded), errors.As(err, &ex), ex.Resource)
	wrapUp, _ := chatModel.Request(1)
	fmt.Println("wrap-up turn offered tools:", !wrapUp.ToolsWithheld())
	fmt.Println("model calls made:", chatModel.Calls())
	// Output:
	// budget exceeded: true true tokens
	// wrap-up turn offered tools: false
	// model calls made: 2
}
