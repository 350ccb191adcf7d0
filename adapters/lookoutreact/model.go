package lookoutreact

import (
	"context"
	"reflect"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// WrapModel returns m with the budget around every call:
//
//   - before the call, once tokens or time are spent, the call is not made
//     and returns the *budget.ExceededError that ends the run;
//   - when tokens or time are nearly spent (Config.WrapUpAt), the call is a
//     wrap-up turn: it gets model.WithToolChoice(schema.ToolChoiceForbidden),
//     so the model answers instead of calling tools;
//   - after the call, its token usage is charged: Generate's at once, a
//     stream's when the stream ends. A reply without usage is counted as a
//     call without usage, apart from one that reported zero.
//
// The wrapped model binds tools through m's WithTools, and reports m's type
// and whether m fires its own callbacks, so Eino's callbacks see the same
// model as without Lookout. A nil m returns nil.
func (l *Lookout) WrapModel(m model.ToolCallingChatModel) model.ToolCallingChatModel {
	if m == nil {
		return nil
	}
	l.config()
	return &chatModel{l: l, inner: m}
}

// chatModel is the model.ToolCallingChatModel returned by WrapModel. It is
// safe for concurrent use when the inner model is.
type chatModel struct {
	l     *Lookout
	inner model.ToolCallingChatModel
}

var (
	_ model.ToolCallingChatModel = (*chatModel)(nil)
	_ components.Checker         = (*chatModel)(nil)
	_ components.Typer           = (*chatModel)(nil)
)

func (m *chatModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	r := m.l.run(ctx, "model")
	if r == nil {
		return m.inner.Generate(ctx, input, opts...)
	}
	opts, err := admit(ctx, r, input, opts)
	if err != nil {
		return nil, err
	}
	c := engine.ChargingModel{Inner: m.inner, Run: r}
	return c.Generate(ctx, input, opts...)
}

func (m *chatModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	r := m.l.run(ctx, "model")
	if r == nil {
		return m.inner.Stream(ctx, input, opts...)
	}
	opts, err := admit(ctx, r, input, opts)
	if err != nil {
		return nil, err
	}
	c := engine.ChargingModel{Inner: m.inner, Run: r}
	return c.Stream(ctx, input, opts...)
}

// admit records the run's input on its first model call, enforces the
// budget before each, and, on a wrap-up turn, adds the option that forbids
// tool calls. The caller's options slice is
// never written to.
//
// Whether a turn wraps up is asked again here rather than passed on from
// the injection, which cannot reach the model's options: tokens used only
// grow and time only passes, so the answer given to the injection a moment
// before still holds.
func admit(ctx context.Context, r *engine.Run, input []*schema.Message, opts []model.Option) ([]model.Option, error) {
	r.RecordInput(ctx, input)
	if err := r.Exceeded(ctx); err != nil {
		r.RecordExceeded(ctx, err)
		return nil, err
	}
	if r.NearlySpent() == "" {
		return opts, nil
	}
	out := make([]model.Option, len(opts), len(opts)+1)
	copy(out, opts)
	return append(out, model.WithToolChoice(schema.ToolChoiceForbidden)), nil
}

// WithTools binds tools to the inner model and wraps the result.
func (m *chatModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &chatModel{l: m.l, inner: inner}, nil
}

// IsCallbacksEnabled reports whether the inner model fires its own
// callbacks. When it does not, Eino fires them around this wrapper.
func (m *chatModel) IsCallbacksEnabled() bool { return components.IsCallbacksEnabled(m.inner) }

// GetType returns the inner model's type, the name Eino shows in RunInfo.
func (m *chatModel) GetType() string {
	if t, ok := components.GetType(m.inner); ok {
		return t
	}
	t := reflect.TypeOf(m.inner)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
