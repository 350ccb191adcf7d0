package lookoutreact_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutreact"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// Every reply of the loopback server reports this usage.
const (
	maxStepsPrompt     = 120
	maxStepsCompletion = 15
)

var errBackendDown = errors.New("backend down")

// openAIReact is a react agent whose model is the eino-ext OpenAI client
// talking to a loopback OpenAI-compatible server that plays backend,
// with Lookout's hooks inside it and a recorder on its Lookout.
type openAIReact struct {
	hooks *lookoutreact.Hooks
	agent *lookoutreact.Agent
	rec   *recorder.Recorder
	sink  *recorder.MemorySink
}

func newOpenAIReact(t *testing.T, backend *scripted.Model, maxStep int) openAIReact {
	return newOpenAIReactWith(t, backend, maxStep, "gpt-test", lookout.Config{})
}

// newOpenAIReactWith is newOpenAIReact with the client configured with
// model and Lookout with cfg, given the agent's recorder.
func newOpenAIReactWith(t *testing.T, backend *scripted.Model, maxStep int, model string, cfg lookout.Config) openAIReact {
	t.Helper()
	ctx := context.Background()
	srv := scripted.NewOpenAIServer(backend)
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	chat, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
		BaseURL: srv.BaseURL(), APIKey: "test-key", Model: model,
		HTTPClient: &http.Client{Transport: tr},
	})
	require.NoError(t, err)

	rec, sink := newRecorder(t)
	cfg.Recorder = rec
	h, err := lookoutreact.New(ctx, &cfg)
	require.NoError(t, err)
	ra, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: h.WrapModel(chat),
		ToolsConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{echo("search")},
			ToolCallMiddlewares: []compose.ToolMiddleware{h.ToolMiddleware()},
		},
		MaxStep: maxStep,
	})
	require.NoError(t, err)
	return openAIReact{hooks: h, agent: h.Agent(ra), rec: rec, sink: sink}
}

// run runs the agent once, through Stream read to its end or Generate,
// with store on the ctx.
func (a openAIReact) run(store *session.Store, streaming bool) outcome {
	ctx := session.NewContext(context.Background(), store)
	input := []*schema.Message{schema.UserMessage("do the task")}
	if !streaming {
		out, err := a.agent.Generate(ctx, input)
		return outcome{out: out, err: err}
	}
	sr, err := a.agent.Stream(ctx, input)
	if err != nil {
		return outcome{err: err}
	}
	out, err := concat(sr)
	return outcome{out: out, err: err}
}

func countKind(records []recorder.Record, k recorder.Kind) int {
	n := 0
	for _, r := range records {
		if r.Kind() == k {
			n++
		}
	}
	return n
}

// A react agent whose model keeps calling a tool ends on react's "exceeds
// max steps" error. Every reply the server sent is charged, exactly once:
// the tokens Lookout charged are the tokens the server reported over all
// its requests, each request has its model_request and model_response,
// and run_ended records the error.
func TestAReactAgentThatExceedsMaxStepsIsChargedForEveryReply(t *testing.T) {
	for _, mode := range []struct {
		name      string
		streaming bool
	}{{"Generate", false}, {"Stream", true}} {
		t.Run(mode.name, func(t *testing.T) {
			backend := scripted.New(scripted.Forever(
				scripted.Call("search", `{"q":"more"}`).WithUsage(maxStepsPrompt, maxStepsCompletion)))
			a := newOpenAIReact(t, backend, 5)
			store := session.New(nil)

			o := a.run(store, mode.streaming)
			require.Error(t, o.err)
			require.ErrorIs(t, o.err, compose.ErrExceedMaxSteps)

			calls := backend.Calls()
			require.Positive(t, calls)
			b, ok := lookout.BudgetOf(store)
			require.True(t, ok)
			assert.Equal(t, int64(calls), b.ModelCalls, "every request the server answered is one model call")
			assert.Zero(t, b.ModelCallsWithoutUsage, "every reply reported its usage")
			assert.Equal(t, int64(calls*maxStepsPrompt), b.PromptTokens)
			assert.Equal(t, int64(calls*maxStepsCompletion), b.CompletionTokens)
			assert.Equal(t, int64(calls*(maxStepsPrompt+maxStepsCompletion)), b.TokensUsed,
				"Lookout charged exactly what the server reported over its %d requests", calls)

			records := flushed(t, a.rec, a.sink)
			assert.Equal(t, calls, countKind(records, recorder.KindModelRequest), "one model_request per request")
			assert.Equal(t, calls, countKind(records, recorder.KindModelResponse), "one model_response per request")
			var reported int64
			for _, r := range records {
				if resp, ok := r.Payload.(*recorder.ModelResponse); ok {
					assert.True(t, resp.UsageReported)
					reported += resp.Usage.TotalTokens
				}
			}
			assert.Equal(t, b.TokensUsed, reported, "the responses recorded add up to the tokens charged")
			end := records[len(records)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, recorder.OutcomeError, end.Outcome)
			assert.Contains(t, end.Error, "exceeds max steps")
			assert.Equal(t, b.TokensUsed, end.Usage.TotalTokens, "run_ended's usage is the budget's")
		})
	}
}

// A request the server fails with a 500 ends the react agent with the
// error, and the failed attempt is counted: a model call, and one without
// usage.
func TestAReactAgentsFailedOpenAIAttemptIsCounted(t *testing.T) {
	for _, mode := range []struct {
		name      string
		streaming bool
	}{{"Generate", false}, {"Stream", true}} {
		t.Run(mode.name, func(t *testing.T) {
			backend := scripted.New(
				scripted.Call("search", `{"q":"one"}`).WithUsage(maxStepsPrompt, maxStepsCompletion),
				scripted.Fail(errBackendDown),
				scripted.Reply("never reached").WithUsage(1, 1),
			)
			a := newOpenAIReact(t, backend, 20)
			store := session.New(nil)

			o := a.run(store, mode.streaming)
			require.Error(t, o.err)
			assert.Contains(t, o.err.Error(), "500")
			assert.Equal(t, 2, backend.Calls(), "the client made no retry")

			b, ok := lookout.BudgetOf(store)
			require.True(t, ok)
			assert.Equal(t, int64(2), b.ModelCalls, "the failed attempt is a model call")
			assert.Equal(t, int64(1), b.ModelCallsWithoutUsage, "and one without usage")
			assert.Equal(t, int64(maxStepsPrompt+maxStepsCompletion), b.TokensUsed, "only the reply that came is charged")

			records := flushed(t, a.rec, a.sink)
			assert.Equal(t, 2, countKind(records, recorder.KindModelRequest))
			end := records[len(records)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, recorder.OutcomeError, end.Outcome)
			assert.Contains(t, end.Error, "500")
		})
	}
}
