package lookoutadk

import (
	"context"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// Model returns m with its calls charged to the query's budget and
// recorded, for a model that an agent of the query calls outside a
// ChatModelAgent with the middleware: the planner and replanner of
// adk/prebuilt/planexecute, whose configurations take no Handlers, or
// its executor's model. Each call is stopped with the budget's typed
// error once the budget is spent, and is charged and recorded on the run
// its ctx carries; nothing is injected into its input, and the agent
// counts as observed (see ErrUnobservedAgent). Outside a query, m is
// called as it is.
func (m *Middleware) Model(inner model.ToolCallingChatModel) model.ToolCallingChatModel {
	if inner == nil {
		return nil
	}
	return &observedModel{inner: inner}
}

// observedModel is the model.ToolCallingChatModel Middleware.Model
// returns. It is safe for concurrent use when the inner model is.
type observedModel struct {
	inner model.ToolCallingChatModel
	tools []*schema.ToolInfo // bound with WithTools, for the recording
}

// charging returns the model to call on ctx: inner alone outside a run,
// or inner charged to the run.
func (o *observedModel) charging(ctx context.Context) (model.BaseChatModel, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return o.inner, nil
	}
	if c, _ := ctx.Value(claimKey{}).(*claim); c != nil {
		c.observe(engine.AgentNameFrom(ctx))
	}
	if err := r.Check(ctx); err != nil {
		return nil, err
	}
	return &engine.ChargingModel{Inner: o.inner, Run: r, Tools: o.tools}, nil
}

func (o *observedModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m, err := o.charging(ctx)
	if err != nil {
		return nil, err
	}
	return m.Generate(ctx, input, opts...)
}

func (o *observedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m, err := o.charging(ctx)
	if err != nil {
		return nil, err
	}
	return m.Stream(ctx, input, opts...)
}

// WithTools binds tools to the inner model and wraps the result.
func (o *observedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := o.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &observedModel{inner: inner, tools: tools}, nil
}
