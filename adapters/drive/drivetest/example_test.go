package drivetest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive/drivetest"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
)

// An adapter's tests describe how they build and run an agent; the kit
// calls Run for every behaviour, in both modes. Here the react adapter's
// description runs once by hand, as the kit runs it; a test passes the
// Adapter to drivetest.Run instead.
func ExampleAdapter() {
	a := drivetest.Adapter{
		Run: func(t testing.TB, in drivetest.Input) drivetest.Outcome {
			l, err := lookoutreact.New(context.Background(), in.Config)
			if err != nil {
				return drivetest.Outcome{Err: err}
			}
			agent, err := react.NewAgent(context.Background(), &react.AgentConfig{
				ToolCallingModel: l.WrapModel(in.Model),
				ToolsConfig:      compose.ToolsNodeConfig{Tools: in.Tools, ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()}},
			})
			if err != nil {
				return drivetest.Outcome{Err: err}
			}
			final, err := l.Agent(agent).Generate(in.Ctx, []*schema.Message{schema.UserMessage(in.Query)})
			return drivetest.Outcome{Final: final, Err: err}
		},
		New:                  func(cfg *lookout.Config) error { _, err := lookoutreact.New(context.Background(), cfg); return err },
		Session:              lookoutreact.Session,
		AgentName:            "ReActAgent",
		InputMessages:        1,
		WrapUpDescribesTools: true,
	}
	search := utils.NewTool(&schema.ToolInfo{Name: "search", Desc: "Searches."}, func(_ context.Context, in map[string]any) (string, error) {
		return fmt.Sprint("results for ", in["q"]), nil
	})
	out := a.Run(nil, drivetest.Input{
		Model: scripted.New(scripted.Call("search", `{"q":"go"}`), scripted.Reply("Found it.")),
		Tools: []tool.BaseTool{search},
		Ctx:   context.Background(), Query: "find go",
	})
	fmt.Println(out.Final.Content, out.Err)
	// Output:
	// Found it. <nil>
}
