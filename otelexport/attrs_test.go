package otelexport_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
)

// requestID is a named string type, as eino-ext's OpenAI client keeps a
// completion's id in a reply's Extra in memory.
type requestID string

// oneCall records a run of agent "worker", configured with model
// "gpt-4o", that makes one model call with req and resp, then a tool
// call with started, and returns its spans.
func oneCall(t *testing.T, req recorder.ModelRequest, resp recorder.ModelResponse, started recorder.ToolStarted) map[string]sdktrace.ReadOnlySpan {
	t.Helper()
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: ticking()})
	run, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "run-1", AgentName: "worker", AgentVersion: "1.4.0", AgentModel: "gpt-4o"})
	require.NoError(t, err)
	require.NoError(t, run.ModelRequest(ctx, req))
	require.NoError(t, run.ModelResponse(ctx, resp))
	require.NoError(t, run.ToolStarted(ctx, started))
	require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{CallID: started.CallID, Name: started.Name, Result: "ok"}))
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, rec.Close(ctx))
	spans, err := otelexport.Spans(sink.Records(), nil)
	require.NoError(t, err)
	return byName(spans)
}

func TestChatSpansCarryCacheAndReasoningTokensCostAndTheResponseID(t *testing.T) {
	s := oneCall(t, recorder.ModelRequest{MessageCount: 1}, recorder.ModelResponse{
		Message: &schema.Message{Role: schema.Assistant, Content: "done", Extra: map[string]any{"openai-request-id": requestID("chatcmpl-42")}},
		Usage: recorder.TokenUsage{PromptTokens: 900, CompletionTokens: 300, TotalTokens: 1200,
			CachedTokens: 512, CacheWriteTokens: 64, ReasoningTokens: 128},
		UsageReported: true, CostUSD: 0.0125, Provider: "Claude",
	}, recorder.ToolStarted{CallID: "c1", Name: "ls"})
	require.Contains(t, s, "chat gpt-4o", "named after the agent's configured model, the request naming none")
	chat := attrs(s["chat gpt-4o"].Attributes())
	assert.Equal(t, "gpt-4o", chat["gen_ai.request.model"].AsString())
	assert.Equal(t, "anthropic", chat["gen_ai.provider.name"].AsString(), "Eino's Claude is the conventions' anthropic")
	assert.Equal(t, "chatcmpl-42", chat["gen_ai.response.id"].AsString())
	assert.Equal(t, int64(900), chat["gen_ai.usage.input_tokens"].AsInt64())
	assert.Equal(t, int64(512), chat["gen_ai.usage.cache_read.input_tokens"].AsInt64())
	assert.Equal(t, int64(64), chat["gen_ai.usage.cache_creation.input_tokens"].AsInt64())
	assert.Equal(t, int64(128), chat["gen_ai.usage.reasoning.output_tokens"].AsInt64())
	assert.InDelta(t, 0.0125, chat["lookout.cost.usd"].AsFloat64(), 1e-12)

	run := attrs(s["invoke_agent worker"].Attributes())
	assert.Equal(t, "1.4.0", run["gen_ai.agent.version"].AsString())
	assert.Equal(t, "anthropic", run["gen_ai.provider.name"].AsString())
	assert.Equal(t, "gpt-4o", run["gen_ai.request.model"].AsString())
	assert.Equal(t, int64(512), run["gen_ai.usage.cache_read.input_tokens"].AsInt64())
	assert.Equal(t, int64(128), run["gen_ai.usage.reasoning.output_tokens"].AsInt64())
	assert.InDelta(t, 0.0125, run["lookout.cost.usd"].AsFloat64(), 1e-12)
}

func TestCountsThatAreZeroAndAnUnknownProviderAreSaidAsTheConventionsSay(t *testing.T) {
	s := oneCall(t, recorder.ModelRequest{Model: "local-7b"}, recorder.ModelResponse{
		Message: schema.AssistantMessage("done", nil), Usage: recorder.TokenUsage{PromptTokens: 10, CompletionTokens: 2}, UsageReported: true,
	}, recorder.ToolStarted{CallID: "c1", Name: "ls"})
	chat := attrs(s["chat local-7b"].Attributes())
	assert.Equal(t, "local-7b", chat["gen_ai.request.model"].AsString(), "the request's model wins over the agent's")
	assert.Equal(t, "_OTHER", chat["gen_ai.provider.name"].AsString(), "required, and not recorded")
	for _, k := range []attribute.Key{"gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens",
		"gen_ai.usage.reasoning.output_tokens", "lookout.cost.usd", "gen_ai.response.id"} {
		assert.NotContains(t, chat, k)
	}
	assert.Equal(t, "_OTHER", attrs(s["invoke_agent worker"].Attributes())["gen_ai.provider.name"].AsString())
}

func TestAProviderTheConventionsDoNotNameIsLowerCased(t *testing.T) {
	s := oneCall(t, recorder.ModelRequest{}, recorder.ModelResponse{Message: schema.AssistantMessage("done", nil), Provider: "Ollama"},
		recorder.ToolStarted{CallID: "c1", Name: "ls"})
	assert.Equal(t, "ollama", attrs(s["chat gpt-4o"].Attributes())["gen_ai.provider.name"].AsString())
}

func TestAToolCallAnMCPServerServedCarriesTheMCPAttributes(t *testing.T) {
	s := oneCall(t, recorder.ModelRequest{}, recorder.ModelResponse{Message: schema.AssistantMessage("done", nil)},
		recorder.ToolStarted{CallID: "c1", Name: "fs_read", MCPServer: "files", MCPTool: "read"})
	tool := attrs(s["execute_tool fs_read"].Attributes())
	assert.Equal(t, "tools/call", tool["mcp.method.name"].AsString())
	assert.Equal(t, "fs_read", tool["gen_ai.tool.name"].AsString(), "the name the model called")
	assert.Equal(t, "files", tool["lookout.mcp.server"].AsString())
	assert.Equal(t, "read", tool["lookout.mcp.tool"].AsString())

	s = oneCall(t, recorder.ModelRequest{}, recorder.ModelResponse{Message: schema.AssistantMessage("done", nil)},
		recorder.ToolStarted{CallID: "c1", Name: "ls"})
	assert.NotContains(t, attrs(s["execute_tool ls"].Attributes()), attribute.Key("mcp.method.name"), "a local tool")
}

func TestAFailedModelCallHasAnErrorType(t *testing.T) {
	s := oneCall(t, recorder.ModelRequest{}, recorder.ModelResponse{Error: "HTTP 500", Provider: "OpenAI"},
		recorder.ToolStarted{CallID: "c1", Name: "ls"})
	assert.Equal(t, "_OTHER", attrs(s["chat gpt-4o"].Attributes())["error.type"].AsString())
}

// A run that calls no model itself, as a workflow agent, takes the
// provider of its first child that named one.
func TestARunWithoutModelCallsHasItsChildsProvider(t *testing.T) {
	ctx := context.Background()
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, &recorder.Options{Clock: ticking()})
	flow, err := rec.StartRun(ctx, recorder.RunInfo{RunID: "flow", AgentName: "pipeline"})
	require.NoError(t, err)
	step, err := flow.StartChild(ctx, recorder.RunInfo{RunID: "step", AgentName: "first"})
	require.NoError(t, err)
	require.NoError(t, step.ModelRequest(ctx, recorder.ModelRequest{Model: "deepseek-chat"}))
	require.NoError(t, step.ModelResponse(ctx, recorder.ModelResponse{Message: schema.AssistantMessage("ok", nil), Provider: "DeepSeek"}))
	require.NoError(t, step.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, flow.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	require.NoError(t, rec.Close(ctx))
	spans, err := otelexport.Spans(sink.Records(), nil)
	require.NoError(t, err)
	pipeline := attrs(byName(spans)["invoke_agent pipeline"].Attributes())
	assert.Equal(t, "deepseek", pipeline["gen_ai.provider.name"].AsString())
	assert.NotContains(t, pipeline, attribute.Key("gen_ai.request.model"), "it asks no model itself")
}

func TestAStreamedCallSaysSoAndNoOtherDoes(t *testing.T) {
	s := oneCall(t, recorder.ModelRequest{Stream: true}, recorder.ModelResponse{Message: schema.AssistantMessage("done", nil)},
		recorder.ToolStarted{CallID: "c1", Name: "ls"})
	assert.True(t, attrs(s["chat gpt-4o"].Attributes())["gen_ai.request.stream"].AsBool())

	s = oneCall(t, recorder.ModelRequest{}, recorder.ModelResponse{Message: schema.AssistantMessage("done", nil)},
		recorder.ToolStarted{CallID: "c1", Name: "ls"})
	assert.NotContains(t, attrs(s["chat gpt-4o"].Attributes()), attribute.Key("gen_ai.request.stream"), "unset is not streamed")
}
