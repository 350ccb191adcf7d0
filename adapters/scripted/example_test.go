package scripted_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// A two-turn script: the model calls a tool, then answers.
func Example() {
	ctx := context.Background()
	m := scripted.New(
		scripted.Call("weather", `{"city":"Oslo"}`),
		scripted.Reply("It is 4°C in Oslo.").WithUsage(120, 9),
	)

	history := []*schema.Message{schema.UserMessage("Weather in Oslo?")}
	first, _ := m.Generate(ctx, history)
	call := first.ToolCalls[0]
	fmt.Println(first.ResponseMeta.FinishReason, call.ID, call.Function.Name, call.Function.Arguments)

	history = append(history, first, schema.ToolMessage("4°C, cloudy", call.ID))
	second, _ := m.Generate(ctx, history)
	fmt.Println(second.ResponseMeta.FinishReason, second.Content, second.ResponseMeta.Usage.TotalTokens)

	r, _ := m.Request(1)
	fmt.Println("second request saw the tool result:", r.Contains("cloudy"))

	_, err := m.Generate(ctx, history)
	fmt.Println(errors.Is(err, scripted.ErrScriptExhausted), err)
	// Output:
	// tool_calls call_1 weather {"city":"Oslo"}
	// stop It is 4°C in Oslo. 129
	// second request saw the tool result: true
	// true scripted: script exhausted: call 3 came after all 2 scripted replies
}

// Parallel tool calls, usage that is absent rather than zero, and a failed
// attempt.
func Example_turns() {
	ctx := context.Background()
	m := scripted.New(
		scripted.Reply("Searching both.").Call("search", `{"q":"a"}`).Call("search", `{"q":"b"}`),
		scripted.Reply("no usage").WithoutUsage(),
		scripted.Fail(errors.New("503 overloaded")),
	)
	in := []*schema.Message{schema.UserMessage("go")}

	msg, _ := m.Generate(ctx, in)
	for _, c := range msg.ToolCalls {
		fmt.Println(*c.Index, c.ID, c.Function.Arguments)
	}
	msg, _ = m.Generate(ctx, in)
	fmt.Println("usage:", msg.ResponseMeta.Usage)
	_, err := m.Generate(ctx, in)
	fmt.Println("error:", err)
	// Output:
	// 0 call_1 {"q":"a"}
	// 1 call_2 {"q":"b"}
	// usage: <nil>
	// error: 503 overloaded
}

// A Func turn answers from the request; Forever keeps answering.
func ExampleFunc() {
	ctx := context.Background()
	echo := scripted.Func(func(_ context.Context, in []*schema.Message, _ *model.Options) (*schema.Message, error) {
		return schema.AssistantMessage("echo: "+in[len(in)-1].Content, nil), nil
	})
	m := scripted.New(scripted.Forever(echo))
	for _, q := range []string{"one", "two"} {
		msg, _ := m.Generate(ctx, []*schema.Message{schema.UserMessage(q)})
		fmt.Println(msg.Content)
	}
	fmt.Println("remaining:", m.Remaining())
	// Output:
	// echo: one
	// echo: two
	// remaining: -1
}

// Stream sends the reply in chunks, with the usage on the last one.
func ExampleModel_Stream() {
	ctx := context.Background()
	m := scripted.New(scripted.Reply("Hello there, world").WithUsage(5, 3))
	sr, _ := m.Stream(ctx, []*schema.Message{schema.UserMessage("hi")})
	chunks, _ := drainAll(sr)
	for _, c := range chunks {
		fmt.Printf("%q usage=%v\n", c.Content, c.ResponseMeta != nil && c.ResponseMeta.Usage != nil)
	}
	whole, _ := schema.ConcatMessages(chunks)
	fmt.Println(whole.Content, whole.ResponseMeta.Usage.TotalTokens)
	// Output:
	// "Hello " usage=false
	// "there, " usage=false
	// "world" usage=false
	// "" usage=true
	// Hello there, world 8
}

func drainAll(sr *schema.StreamReader[*schema.Message]) ([]*schema.Message, error) {
	defer sr.Close()
	var out []*schema.Message
	for {
		c, err := sr.Recv()
		if err != nil {
			return out, nil
		}
		out = append(out, c)
	}
}

type clock struct{}

func (clock) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "clock", Desc: "tells the time"}, nil
}

func (clock) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "09:30", nil
}

// The model drives an Eino ADK agent; the captured requests show what the
// agent sent.
func Example_agent() {
	ctx := context.Background()
	m := scripted.New(scripted.Call("clock", `{}`), scripted.Reply("It is 09:30."))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "assistant", Description: "tells the time", Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{clock{}}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "What time is it?")
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		if ev.Err != nil {
			fmt.Println("error:", ev.Err)
			return
		}
		msg, _ := ev.Output.MessageOutput.GetMessage()
		fmt.Printf("%s: %q %d tool calls\n", msg.Role, msg.Content, len(msg.ToolCalls))
	}
	r, _ := m.Request(0)
	fmt.Println("tools offered:", r.ToolNames())
	// Output:
	// assistant: "" 1 tool calls
	// tool: "09:30" 0 tool calls
	// assistant: "It is 09:30." 0 tool calls
	// tools offered: [clock]
}

// A real OpenAI client talks to the scripted model over loopback HTTP.
func ExampleNewOpenAIServer() {
	ctx := context.Background()
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Reply("Hi from the script.").WithUsage(11, 5)))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()

	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
		BaseURL: srv.BaseURL(), APIKey: "test", Model: "scripted",
		HTTPClient: &http.Client{Transport: tr},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, err := cm.Generate(ctx, []*schema.Message{schema.UserMessage("hello")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.Content, msg.ResponseMeta.Usage.PromptTokens, msg.ResponseMeta.Usage.CompletionTokens)
	// Output:
	// Hi from the script. 11 5
}
