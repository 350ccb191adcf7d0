package lookoutadk_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// TestOpenAIClientUsageIsCharged runs the real eino-ext OpenAI client
// against a loopback OpenAI-compatible server and checks that the usage it
// reports is charged, with and without streaming.
func TestOpenAIClientUsageIsCharged(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "generate"
		if streaming {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			backend := scripted.New(
				scripted.Call("search", `{"q":"lookout"}`).WithUsage(120, 15),
				scripted.Reply("Found it.").WithUsage(180, 25),
			)
			srv := scripted.NewOpenAIServer(backend)
			defer srv.Close()
			chat, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
				BaseURL: srv.BaseURL(), APIKey: "test-key", Model: "gpt-test",
			})
			require.NoError(t, err)

			store := session.New(nil)
			o := runAgent(t, newAgent(t, agentSpec{model: chat, tools: []tool.BaseTool{echo("search")}, cfg: &lookoutadk.Config{
				Limits: budget.Limits{MaxTokens: 10_000},
			}}), store, streaming)
			require.NoError(t, o.err)

			b, _ := session.ValueOf[budget.Budget](store).Latest()
			assert.Equal(t, int64(2), b.ModelCalls)
			assert.Zero(t, b.ModelCallsWithoutUsage)
			assert.Equal(t, int64(120+180), b.PromptTokens)
			assert.Equal(t, int64(15+25), b.CompletionTokens)
			assert.Equal(t, int64(340), b.TokensUsed)
			assert.Equal(t, 1, backend.Requests()[1].CountContaining("search ok"), "the tool result reached the server")
		})
	}
}
