package lookoutadk

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// BeforeModelRewriteState enforces the budget, injects the current
// assessment, and gives the wrap-up turn. Eino persists the state returned
// here, so earlier injected messages are removed before new ones are
// added: the model input never holds more than one assessment block.
func (m *Middleware) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil || state == nil {
		return ctx, state, nil
	}
	ensure(ctx, r)
	turn, err := r.BeforeModel(ctx, state.Messages, state.ToolInfos)
	if err != nil {
		return ctx, nil, err
	}
	// On a wrap-up turn the tools stay described, and WrapModel's model
	// forbids calling them through the tool choice: some providers reject
	// a history of tool calls sent without tool definitions.
	msgs := r.Reinject(state.Messages, turn.Messages)
	if sameSlice(msgs, state.Messages) {
		// The usual case: the block moved to the end in place, or nothing
		// was injected. The state already says what a copy would.
		return ctx, state, nil
	}
	ns := *state
	ns.Messages = msgs
	return ctx, &ns, nil
}

// AfterModelRewriteState notes how many of the reply's tool calls name
// tools the agent offers: each of them passes through the tool wrappers,
// and a tool call that ends the run records the end after all of them.
func (m *Middleware) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if !m.l.Recording() || state == nil || len(state.Messages) == 0 {
		return ctx, state, nil // only the recording needs to know
	}
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return ctx, state, nil
	}
	if reply := state.Messages[len(state.Messages)-1]; reply != nil && len(reply.ToolCalls) > 0 {
		r.ExpectCalls(offered(reply.ToolCalls, state.ToolInfos))
	}
	return ctx, state, nil
}

// offered returns how many of calls name one of tools. A call to a tool
// the agent does not offer goes to Eino's unknown-tools handler, past the
// tool wrappers.
func offered(calls []schema.ToolCall, tools []*schema.ToolInfo) int {
	n := 0
	for _, c := range calls {
		for _, t := range tools {
			if t != nil && t.Name == c.Function.Name {
				n++
				break
			}
		}
	}
	return n
}

// sameSlice reports whether a and b are the same slice: the same array,
// length and capacity.
func sameSlice[T any](a, b []T) bool {
	if len(a) != len(b) || cap(a) != cap(b) {
		return false
	}
	return cap(a) == 0 || &a[:1][0] == &b[:1][0]
}

// WrapModel charges the budget for every model call attempt, streaming
// ones included: retries pass through it one attempt at a time. On a
// wrap-up turn it forbids tool calls through the tool choice.
func (m *Middleware) WrapModel(ctx context.Context, inner model.BaseChatModel, mc *adk.ModelContext) (model.BaseChatModel, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return inner, nil
	}
	cm := &engine.ChargingModel{Inner: inner, Run: r, ForbidToolsOnWrapUp: true}
	if m.unwrapped.Load() && ctx.Value(unwrappedKey{}) == r && !mayTryAgain(mc) {
		return &endingModel{ChargingModel: cm}, nil
	}
	return cm, nil
}

// mayTryAgain reports whether the agent may make another attempt after a
// model call fails: it retries or fails over.
func mayTryAgain(mc *adk.ModelContext) bool {
	return mc != nil && (mc.ModelRetryConfig != nil && mc.ModelRetryConfig.MaxRetries > 0 || mc.ModelFailoverConfig != nil)
}

// endingModel is the model of a root run started without
// Middleware.Agent, whose end no wrapper records, for an agent that
// neither retries nor fails over: a call that fails ends the run with
// its error, as it ends the agent.
type endingModel struct {
	*engine.ChargingModel
}

func (m *endingModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	out, err := m.ChargingModel.Generate(ctx, input, opts...)
	if err != nil {
		m.Run.End(ctx, err)
	}
	return out, err
}

func (m *endingModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := m.ChargingModel.Stream(ctx, input, opts...)
	if err != nil {
		m.Run.End(ctx, err)
	}
	return out, err
}
