package lookoutadk_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// An ADK agent on the eino-ext OpenAI client, run with the middleware's
// callbacks: each response records the client's configured model, the
// provider, and the cost its price gives.
func TestADKRecordsTheConfiguredModelAndItsCost(t *testing.T) {
	ctx := context.Background()
	srv := scripted.NewOpenAIServer(scripted.New(scripted.Call("search", `{}`).WithUsage(1000, 100), scripted.Reply("done").WithUsage(2000, 50)))
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	chat, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
		BaseURL: srv.BaseURL(), APIKey: "test-key", Model: "gpt-4o-mini-2024-07-18", HTTPClient: &http.Client{Transport: tr},
	})
	require.NoError(t, err)
	sink := recorder.NewMemorySink()
	mw, err := lookoutadk.New(ctx, &lookout.Config{
		Recorder: recorder.New(sink, nil),
		Prices:   budget.Prices{"gpt-4o-mini": {InputPerMTok: 0.15, OutputPerMTok: 0.60}},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = mw.Lookout().Config().Recorder.Close(ctx) })
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "worker", Description: "works", Model: chat,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	o := runAgent(t, mw.Agent(agent), session.New(nil), false, adk.WithCallbacks(mw.Callbacks()))
	require.NoError(t, o.err)
	require.NoError(t, mw.Lookout().Config().Recorder.Flush(ctx))

	var costs []float64
	for _, r := range sink.Records() {
		if p, ok := r.Payload.(*recorder.ModelResponse); ok {
			assert.Equal(t, "gpt-4o-mini-2024-07-18", p.Model)
			assert.Equal(t, "OpenAI", p.Provider)
			costs = append(costs, p.CostUSD)
		}
	}
	require.Len(t, costs, 2)
	assert.InDelta(t, (1000*0.15+100*0.60)/1e6, costs[0], 1e-12)
	assert.InDelta(t, (2000*0.15+50*0.60)/1e6, costs[1], 1e-12)
}
