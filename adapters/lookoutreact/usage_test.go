package lookoutreact_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/session"
)

// detailedUsage is a turn whose reply reports cached and reasoning
// tokens, as OpenAI's usage details do.
func detailedUsage(reply *schema.Message, prompt, cached, completion, reasoning int) scripted.Turn {
	return scripted.Func(func(context.Context, []*schema.Message, *model.Options) (*schema.Message, error) {
		m := *reply
		m.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{
			PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion,
			PromptTokenDetails:      schema.PromptTokenDetails{CachedTokens: cached},
			CompletionTokensDetails: schema.CompletionTokensDetails{ReasoningTokens: reasoning},
		}}
		return &m, nil
	})
}

var testPrices = budget.Prices{"gpt-4o-mini": {InputPerMTok: 0.15, CachedInputPerMTok: 0.075, OutputPerMTok: 0.60}}

// newPricedAgent is a react agent on the eino-ext OpenAI client,
// configured with model, talking to a loopback server that plays backend,
// with testPrices.
func newPricedAgent(t *testing.T, backend *scripted.Model, model string, cfg lookout.Config) openAIReact {
	cfg.Prices = testPrices
	return newOpenAIReactWith(t, backend, 12, model, cfg)
}

func responses(records []recorder.Record) []*recorder.ModelResponse {
	var out []*recorder.ModelResponse
	for _, r := range records {
		if p, ok := r.Payload.(*recorder.ModelResponse); ok {
			out = append(out, p)
		}
	}
	return out
}

// The model's configured name, the provider, the cached and reasoning
// tokens the server reported and the cost they come to reach the records,
// run_ended and the ATIF export, for Generate and Stream alike.
func TestTheOpenAIClientsModelTokensAndCostAreRecorded(t *testing.T) {
	const model = "gpt-4o-mini-2024-07-18"
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "Generate", true: "Stream"}[streaming], func(t *testing.T) {
			call := &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "search", Arguments: `{"q":"x"}`}}}}
			backend := scripted.New(
				detailedUsage(call, 1000, 512, 40, 20),
				detailedUsage(schema.AssistantMessage("done", nil), 1200, 768, 30, 5),
			)
			a := newPricedAgent(t, backend, model, lookout.Config{})
			ra, rec, sink, hooks := a.agent, a.rec, a.sink, a.hooks
			ctx := session.NewContext(context.Background(), session.New(nil))
			input := []*schema.Message{schema.UserMessage("do the task")}
			// The handler that reads the model's configured name.
			cb := agent.WithComposeOptions(compose.WithCallbacks(hooks.Callbacks()))
			if streaming {
				sr, err := ra.Stream(ctx, input, cb)
				require.NoError(t, err)
				_, err = concat(sr)
				require.NoError(t, err)
			} else {
				_, err := ra.Generate(ctx, input, cb)
				require.NoError(t, err)
			}
			records := flushed(t, rec, sink)

			resps := responses(records)
			require.Len(t, resps, 2)
			cost1 := (488*0.15 + 512*0.075 + 40*0.60) / 1e6
			cost2 := (432*0.15 + 768*0.075 + 30*0.60) / 1e6
			for i, want := range []struct {
				cached, reasoning int64
				cost              float64
			}{{512, 20, cost1}, {768, 5, cost2}} {
				assert.Equal(t, model, resps[i].Model)
				assert.Equal(t, "OpenAI", resps[i].Provider)
				assert.Equal(t, want.cached, resps[i].Usage.CachedTokens)
				assert.Equal(t, want.reasoning, resps[i].Usage.ReasoningTokens)
				assert.InDelta(t, want.cost, resps[i].CostUSD, 1e-12)
			}
			end := records[len(records)-1].Payload.(*recorder.RunEnded)
			assert.Equal(t, int64(1280), end.Usage.CachedTokens)
			assert.Equal(t, int64(25), end.Usage.ReasoningTokens)
			assert.InDelta(t, cost1+cost2, end.Usage.CostUSD, 1e-12)

			tr, err := atif.FromRecords(records, nil)
			require.NoError(t, err)
			assert.Equal(t, model, tr.Agent.ModelName)
			var agentSteps []atif.Step
			for _, s := range tr.Steps {
				if s.Source == atif.SourceAgent {
					agentSteps = append(agentSteps, s)
				}
			}
			require.Len(t, agentSteps, 2)
			assert.Equal(t, model, agentSteps[0].ModelName)
			require.NotNil(t, agentSteps[1].Metrics)
			assert.Equal(t, 768, *agentSteps[1].Metrics.CachedTokens)
			assert.InDelta(t, cost2, *agentSteps[1].Metrics.CostUSD, 1e-12)
			fm := tr.FinalMetrics
			assert.Equal(t, 2200, *fm.TotalPromptTokens)
			assert.Equal(t, 1280, *fm.TotalCachedTokens)
			assert.InDelta(t, cost1+cost2, *fm.TotalCostUSD, 1e-12)
			assert.Equal(t, int64(25), fm.Extra["total_reasoning_tokens"])
			data, err := atif.Encode(tr)
			require.NoError(t, err)
			assert.Empty(t, atif.Validate(data))
		})
	}
}

// A run over its cost limit is told so, gets a wrap-up turn without
// tools, and its next model call ends it with the typed error.
func TestMaxCostUSDStopsTheRunAfterAWrapUpTurn(t *testing.T) {
	search := func() *schema.Message {
		return &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{Type: "function", Function: schema.FunctionCall{Name: "search", Arguments: `{}`}}}}
	}
	// Each call costs $0.0006 (1000 input tokens at $0.15, 750 output
	// at $0.60, per million): after the second, less than 10% of a
	// $0.00125 limit is left, and the third spends it.
	turn := func(m *schema.Message) scripted.Turn { return detailedUsage(m, 1000, 0, 750, 0) }
	backend := scripted.New(turn(search()), turn(search()), scripted.Forever(turn(search())))
	// Without the callbacks, the configured agent model names the model.
	a := newPricedAgent(t, backend, "gpt-4o-mini", lookout.Config{
		Limits: budget.Limits{MaxCostUSD: 0.00125}, Agent: lookout.AgentInfo{Model: "gpt-4o-mini"},
	})
	ra, rec, sink := a.agent, a.rec, a.sink
	store := session.New(nil)
	_, err := ra.Generate(session.NewContext(context.Background(), store), []*schema.Message{schema.UserMessage("go")})

	var ex *budget.ExceededError
	require.True(t, errors.As(err, &ex), "err = %v", err)
	assert.Equal(t, budget.CostUSD, ex.Resource)
	assert.Equal(t, int64(1250), ex.Limit)
	assert.Equal(t, int64(1800), ex.Used)
	records := flushed(t, rec, sink)
	end := records[len(records)-1].Payload.(*recorder.RunEnded)
	assert.Equal(t, recorder.OutcomeBudgetExceeded, end.Outcome)

	// The model was called three times: the third was the wrap-up turn,
	// with the reminder and the tools withheld, and the fourth was never
	// made.
	require.Equal(t, 3, backend.Calls())
	last, ok := backend.Request(2)
	require.True(t, ok)
	wrap := last.Messages[len(last.Messages)-1]
	assert.Contains(t, wrap.Content, "cost: $")
	assert.Contains(t, wrap.Content, "Tools are withheld")
	var withheld bool
	for _, r := range records {
		if p, ok := r.Payload.(*recorder.ModelRequest); ok && p.ToolsWithheld {
			withheld = true
		}
	}
	assert.True(t, withheld, "the wrap-up request withheld the tools")
}
