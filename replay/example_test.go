package replay_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/replay"
)

// ask runs a one-tool ADK agent with Lookout once and returns its answer.
func ask(chat model.ToolCallingChatModel, weather tool.BaseTool, prompt string, rec *recorder.Recorder, now func() time.Time) (string, error) {
	ctx := context.Background()
	mw, err := lookoutadk.New(ctx, &lookout.Config{Recorder: rec, Now: now})
	if err != nil {
		return "", err
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "forecaster", Description: "forecasts", Instruction: prompt, Model: chat,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{weather}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		return "", err
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)}).Query(ctx, "Will it rain in Lyon?")
	var answer string
	var runErr error
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		if ev.Err != nil {
			runErr = ev.Err
		} else if msg, err := ev.Output.MessageOutput.GetMessage(); err == nil && msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
			answer = msg.Content
		}
	}
	return answer, runErr
}

// A run is recorded once on a live model, then replayed without it. A
// changed system prompt makes the replay fail at the first model call,
// with a diff of the first differing message.
func Example() {
	weather := fnTool{name: "weather", fn: func(context.Context, string) (string, error) { return "rain, 12°C", nil }}
	live := scripted.New(scripted.Call("weather", `{"city":"Lyon"}`), scripted.Reply("Yes: rain, 12°C."))

	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	if _, err := ask(live, weather, "You forecast the weather.", rec, nil); err != nil {
		fmt.Println(err)
		return
	}
	_ = rec.Close(context.Background())

	c, err := replay.FromRecords(sink.Records(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	answer, err := ask(c.Model(), c.Tool(weather), "You forecast the weather.", nil, c.Now)
	fmt.Printf("replayed: %q, %v, %d calls left\n", answer, err, c.Remaining())

	c, _ = replay.FromRecords(sink.Records(), nil)
	_, err = ask(c.Model(), c.Tool(weather), "You forecast the weather briefly.", nil, c.Now)
	var d *replay.DivergenceError
	if errors.As(err, &d) {
		fmt.Printf("model call %d: %s\n%s", d.ModelCall, d.Reason, d.Diff)
	}
	// Output:
	// replayed: "Yes: rain, 12°C.", <nil>, 0 calls left
	// model call 1: input message 1 (system) differs
	// --- recorded
	// +++ live
	//   role: system
	// - You forecast the weather.
	// + You forecast the weather briefly.
}
