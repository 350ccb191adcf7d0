package lookoutreact_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// TestOpenAIClientThroughReact runs a react agent on the real eino-ext
// OpenAI client against a loopback OpenAI-compatible server. The usage the
// client reports is charged, with and without streaming, and the wrap-up
// turn reaches the wire as tool_choice "none" with the tools still
// described.
func TestOpenAIClientThroughReact(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "generate"
		if streaming {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			backend := scripted.New(
				scripted.Call("search", `{"q":"lookout"}`).WithUsage(850, 60),
				scripted.Reply("Found it.").WithUsage(180, 25),
			)
			srv := scripted.NewOpenAIServer(backend)
			defer srv.Close()
			chat, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
				BaseURL: srv.BaseURL(), APIKey: "test-key", Model: "gpt-test",
			})
			require.NoError(t, err)

			store := session.New(nil)
			o := newAgent(t, agentSpec{model: chat, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutreact.Config{
				Limits: budget.Limits{MaxTokens: 1000},
			}}).run(t, store, streaming)
			require.NoError(t, o.err)
			assert.Equal(t, "Found it.", o.out.Content)

			b, _ := session.ValueOf[budget.Budget](store).Latest()
			assert.Equal(t, int64(2), b.ModelCalls)
			assert.Zero(t, b.ModelCallsWithoutUsage)
			assert.Equal(t, int64(850+180), b.PromptTokens)
			assert.Equal(t, int64(60+25), b.CompletionTokens)
			assert.Equal(t, int64(1115), b.TokensUsed)

			reqs := backend.Requests()
			require.Len(t, reqs, 2)
			assert.Equal(t, 1, reqs[1].CountContaining("search ok"), "the tool result reached the server")
			assert.Equal(t, []string{"search"}, reqs[1].ToolNames(), "the tools stay described")
			require.NotNil(t, reqs[1].ToolChoice)
			assert.Equal(t, schema.ToolChoiceForbidden, *reqs[1].ToolChoice)
			assert.Equal(t, 1, reqs[1].CountContaining("Budget nearly spent"))
		})
	}
}
