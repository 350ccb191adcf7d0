package lookout_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
)

// A tool reads the run it runs in: its agent and what is left of the
// budget. What it gets is a view; it can't end the run.
func ExampleFromContext() {
	ctx := context.Background()
	type in struct {
		Dir string `json:"dir"`
	}
	list := utils.NewTool(&schema.ToolInfo{Name: "list", Desc: "Lists a directory."}, func(ctx context.Context, _ in) (string, error) {
		run, ok := lookout.FromContext(ctx)
		if !ok {
			return "3 files", nil
		}
		b := run.Budget()
		return fmt.Sprintf("3 files (%s has %d of %d tool calls left)", run.AgentName(), b.MaxToolCalls-b.ToolCalls, b.MaxToolCalls), nil
	})
	model := scripted.New(scripted.Call("list", `{"dir":"src"}`), scripted.Reply("3 files."))
	mw, err := lookoutadk.New(ctx, &lookout.Config{Limits: budget.Limits{MaxToolCalls: 5}})
	if err != nil {
		panic(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "lister", Description: "Lists files.", Instruction: "List the files.", Model: model,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{list}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		panic(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, "how many files are in src?")
	for {
		event, ok := iter.Next()
		if !ok {
			break
		}
		if out := event.Output; out != nil && out.MessageOutput != nil && out.MessageOutput.Role == schema.Tool {
			fmt.Println(out.MessageOutput.Message.Content)
		}
	}
	// Output:
	// 3 files (lister has 4 of 5 tool calls left)
}
