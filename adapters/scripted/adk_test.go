package scripted_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	ucb "github.com/cloudwego/eino/utils/callbacks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/scripted"
)

// lookup is a tool that answers with a fixed text.
type lookup struct{ name, answer string }

func (l lookup) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: l.name, Desc: "looks things up"}, nil
}

func (l lookup) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return l.answer, nil
}

// runAgent runs a ChatModelAgent with the lookup tool and returns the
// messages of its events.
func runAgent(t *testing.T, m model.ToolCallingChatModel, streaming bool, opts ...adk.AgentRunOption) []*schema.Message {
	t.Helper()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "assistant", Description: "answers questions", Instruction: "be brief",
		Model: m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools: []tool.BaseTool{lookup{name: "lookup", answer: "Paris"}},
		}},
	})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming}).
		Query(ctx, "capital of France?", opts...)
	var msgs []*schema.Message
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		require.NoError(t, ev.Err)
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		require.NoError(t, err)
		msgs = append(msgs, msg)
	}
	return msgs
}

func TestADKAgentRunsTheScript(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := map[bool]string{false: "generate", true: "stream"}[streaming]
		t.Run(name, func(t *testing.T) {
			m := scripted.New(scripted.Call("lookup", `{"q":"France"}`), scripted.Reply("It is Paris.").WithUsage(40, 4))
			msgs := runAgent(t, m, streaming)

			require.Len(t, msgs, 3)
			assert.Equal(t, "call_1", msgs[0].ToolCalls[0].ID)
			assert.Equal(t, schema.Tool, msgs[1].Role)
			assert.Equal(t, "Paris", msgs[1].Content)
			assert.Equal(t, "It is Paris.", msgs[2].Content)
			assert.Equal(t, 44, msgs[2].ResponseMeta.Usage.TotalTokens)

			scripted.AssertRequest(t, m, 0, func(r scripted.Request) error {
				assert.Equal(t, []string{"lookup"}, r.ToolNames())
				assert.Equal(t, streaming, r.Stream)
				assert.True(t, r.Contains("capital of France?"))
				return nil
			})
			scripted.AssertRequest(t, m, 1, func(r scripted.Request) error {
				tool := r.Last()
				assert.Equal(t, "call_1", tool.ToolCallID)
				assert.Equal(t, "Paris", tool.Content)
				return nil
			})
			assert.Equal(t, 0, m.Remaining())
		})
	}
}

// usageSeen records the TokenUsage of every model OnEnd callback.
type usageSeen struct {
	mu     sync.Mutex
	usages []*model.TokenUsage
}

func (u *usageSeen) handler() callbacks.Handler {
	return ucb.NewHandlerHelper().ChatModel(&ucb.ModelCallbackHandler{
		OnEnd: func(ctx context.Context, _ *callbacks.RunInfo, out *model.CallbackOutput) context.Context {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.usages = append(u.usages, out.TokenUsage)
			return ctx
		},
	}).Handler()
}

func TestADKCallbacksSeeTokenUsageOnlyWhenTheModelFiresThem(t *testing.T) {
	script := func() *scripted.Model {
		return scripted.New(scripted.Call("lookup", `{}`).WithUsage(10, 1), scripted.Reply("done").WithUsage(20, 2))
	}
	t.Run("by default the framework's callbacks carry no TokenUsage", func(t *testing.T) {
		seen := &usageSeen{}
		runAgent(t, script(), false, adk.WithCallbacks(seen.handler()))
		assert.Equal(t, []*model.TokenUsage{nil, nil}, seen.usages)
	})
	t.Run("WithCallbacks(true) reports TokenUsage like a provider", func(t *testing.T) {
		seen := &usageSeen{}
		runAgent(t, script().WithCallbacks(true), false, adk.WithCallbacks(seen.handler()))
		assert.Equal(t, []*model.TokenUsage{
			{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11},
			{PromptTokens: 20, CompletionTokens: 2, TotalTokens: 22},
		}, seen.usages)
	})
}
