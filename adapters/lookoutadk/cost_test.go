package lookoutadk_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/lookoutadk"
	"github.com/lookout-go/lookout/adapters/scripted"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// costRun is a run of the README's set-up on the eino-ext OpenAI client,
// without the middleware's callbacks.
type costRun struct {
	err     error
	calls   int
	records []recorder.Record
	errs    []error
	budget  budget.Budget
}

// runCostQuery runs a query of two model calls, the first of 1,000 prompt
// and 100 completion tokens, on the OpenAI client configured for model,
// with cfg completed by a Recorder, the Resource observer after every
// call and an OnError that collects.
func runCostQuery(t *testing.T, model string, cfg lookout.Config, streaming bool, opts ...adk.AgentRunOption) costRun {
	t.Helper()
	ctx := context.Background()
	backend := scripted.New(scripted.Call("search", `{}`).WithUsage(1000, 100), scripted.Reply("done").WithUsage(2000, 50))
	srv := scripted.NewOpenAIServer(backend)
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	chat, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
		BaseURL: srv.BaseURL(), APIKey: "test-key", Model: model, HTTPClient: &http.Client{Transport: tr},
	})
	require.NoError(t, err)
	sink := recorder.NewMemorySink()
	rec := recorder.New(sink, nil)
	t.Cleanup(func() { _ = rec.Close(ctx) })
	var mu sync.Mutex
	var out costRun
	cfg.Recorder = rec
	cfg.Observers = []observer.Spec{{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 1}}}
	cfg.OnError = func(_ context.Context, err error) {
		mu.Lock()
		defer mu.Unlock()
		out.errs = append(out.errs, err)
	}
	mw, err := lookoutadk.New(ctx, &cfg)
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "auditor", Description: "Audits services.", Instruction: "Audit the services.", Model: chat,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo("search")}}},
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	store := session.New(nil)
	o := runAgent(t, mw.Agent(agent), store, streaming, opts...)
	require.NoError(t, rec.Flush(ctx))
	out.err, out.calls, out.records = o.err, backend.Calls(), sink.Records()
	out.budget, _ = lookout.BudgetOf(store)
	mu.Lock()
	defer mu.Unlock()
	return out
}

// With only a cost limit and a price for the model, the README's set-up
// stops the query once the first call has spent the limit: the client's
// model is known without the middleware's callbacks, and the Resource
// observer tells the model what the first call cost.
func TestACostLimitStopsTheOpenAIClient(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "Generate", true: "Stream"}[streaming], func(t *testing.T) {
			out := runCostQuery(t, "gpt-4o-mini-2024-07-18", lookout.Config{
				Limits: budget.Limits{MaxCostUSD: 0.0001},
				Prices: budget.Prices{"gpt-4o-mini": {InputPerMTok: 0.15, OutputPerMTok: 0.60}},
			}, streaming)
			var ex *budget.ExceededError
			require.ErrorAs(t, out.err, &ex)
			assert.Equal(t, budget.CostUSD, ex.Resource)
			assert.Equal(t, 1, out.calls, "the second call is not made")
			assert.InDelta(t, (1000*0.15+100*0.60)/1e6, out.budget.CostUSD, 1e-12)
			assert.Empty(t, out.errs)
			var models, providers []string
			var assessments []string
			for _, r := range out.records {
				switch p := r.Payload.(type) {
				case *recorder.ModelResponse:
					models, providers = append(models, p.Model), append(providers, p.Provider)
				case *recorder.AssessmentRecord:
					assessments = append(assessments, p.Markdown)
				}
			}
			assert.Equal(t, []string{"gpt-4o-mini-2024-07-18"}, models)
			assert.Equal(t, []string{"OpenAI"}, providers)
			require.NotEmpty(t, assessments)
			assert.Contains(t, assessments[0], "You have exhausted your cost budget.")
		})
	}
}

// countingHandler counts the chat model callbacks it gets.
type countingHandler struct {
	mu                  sync.Mutex
	starts, ends, infos int
}

func (h *countingHandler) handler() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			h.mu.Lock()
			defer h.mu.Unlock()
			if info != nil && info.Component == components.ComponentOfChatModel {
				h.starts++
				if info.Type == "OpenAI" {
					h.infos++
				}
			}
			return context.WithValue(ctx, countingKey{}, true)
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
			h.mu.Lock()
			defer h.mu.Unlock()
			if info != nil && info.Component == components.ComponentOfChatModel && ctx.Value(countingKey{}) == true {
				h.ends++
			}
			return ctx
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, info *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			out.Close()
			h.mu.Lock()
			defer h.mu.Unlock()
			if info != nil && info.Component == components.ComponentOfChatModel && ctx.Value(countingKey{}) == true {
				h.ends++
			}
			return ctx
		}).Build()
}

type countingKey struct{}

// The program's own callbacks still see each model call once, start and
// end, with the ctx their start returned, while the run learns the model.
func TestTheProgramsCallbacksSeeEachModelCallOnce(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "Generate", true: "Stream"}[streaming], func(t *testing.T) {
			h := &countingHandler{}
			out := runCostQuery(t, "gpt-4o-mini", lookout.Config{}, streaming, adk.WithCallbacks(h.handler()))
			require.NoError(t, out.err)
			require.Equal(t, 2, out.calls)
			assert.Equal(t, 2, h.starts)
			assert.Equal(t, 2, h.infos, "the run info the model gives")
			assert.Equal(t, 2, h.ends)
			for _, r := range out.records {
				if p, ok := r.Payload.(*recorder.ModelResponse); ok {
					assert.Equal(t, "gpt-4o-mini", p.Model)
				}
			}
		})
	}
}

// A cost limit with no price for the model is told, once, to OnError and
// in a budget record, and the run goes on.
func TestAnUnpricedCallUnderACostLimitIsTold(t *testing.T) {
	out := runCostQuery(t, "my-own-model", lookout.Config{
		Limits: budget.Limits{MaxCostUSD: 0.0001},
		Prices: budget.Prices{"gpt-4o-mini": {InputPerMTok: 0.15, OutputPerMTok: 0.60}},
	}, false)
	require.NoError(t, out.err)
	assert.Equal(t, 2, out.calls)
	require.Len(t, out.errs, 1)
	assert.ErrorIs(t, out.errs[0], budget.ErrUnpriced)
	assert.Contains(t, out.errs[0].Error(), `"my-own-model"`)
	var unpriced int
	for _, r := range out.records {
		if p, ok := r.Payload.(*recorder.BudgetRecord); ok && p.Event == recorder.BudgetUnpriced {
			unpriced++
			assert.Equal(t, string(budget.CostUSD), p.Resource)
		}
	}
	assert.Equal(t, 1, unpriced)
}
