package scripted_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/scripted"
)

func history(n int) []*schema.Message {
	msgs := make([]*schema.Message, n)
	for i := range msgs {
		msgs[i] = schema.UserMessage("a message of moderate length, like a tool result")
	}
	return msgs
}

func BenchmarkGenerate(b *testing.B) {
	cases := []struct {
		name    string
		turn    scripted.Turn
		history int
		capture bool
	}{
		{"reply/history=10", scripted.Reply("The answer is 42."), 10, true},
		{"tool-call/history=10", scripted.Call("search", `{"q":"x"}`), 10, true},
		{"reply/history=10/no-capture", scripted.Reply("The answer is 42."), 10, false},
		{"reply/history=1000", scripted.Reply("The answer is 42."), 1000, true},
		{"reply/history=1000/no-capture", scripted.Reply("The answer is 42."), 1000, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m := scripted.New(scripted.Forever(c.turn)).WithCapture(c.capture)
			in := history(c.history)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Generate(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkStream(b *testing.B) {
	m := scripted.New(scripted.Forever(scripted.Reply("Let me look that up for you.").Call("search", `{"q":"x"}`))).WithCapture(false)
	in := history(10)
	b.ReportAllocs()
	for b.Loop() {
		sr, err := m.Stream(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := schema.ConcatMessageStream(sr); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpenAIServer(b *testing.B) {
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Forever(scripted.Reply("The answer is 42."))).WithCapture(false))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
		BaseURL: srv.BaseURL(), APIKey: "k", Model: "scripted", HTTPClient: &http.Client{Transport: tr},
	})
	if err != nil {
		b.Fatal(err)
	}
	in := history(10)
	b.Run("generate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cm.Generate(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sr, err := cm.Stream(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := schema.ConcatMessageStream(sr); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type noop struct{}

func (noop) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "noop", Desc: "does nothing"}, nil
}
func (noop) InvokableRun(context.Context, string, ...tool.Option) (string, error) { return "ok", nil }

// BenchmarkAgent1000ToolCalls is a bare ADK agent making 1,000 sequential
// tool calls on a scripted model: the baseline that middleware overhead is
// measured against.
func BenchmarkAgent1000ToolCalls(b *testing.B) {
	const calls = 1000
	b.ReportAllocs()
	for b.Loop() {
		m := scripted.New(scripted.Repeat(calls, scripted.Call("noop", `{}`)), scripted.Reply("done")).WithCapture(false)
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
			Name: "bench", Description: "bench", Model: m, MaxIterations: calls + 1,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{noop{}}}},
		})
		if err != nil {
			b.Fatal(err)
		}
		iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
		for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
			if ev.Err != nil {
				b.Fatal(ev.Err)
			}
		}
		if m.Calls() != calls+1 {
			b.Fatalf("model calls = %d, want %d", m.Calls(), calls+1)
		}
	}
}
