package lookoutreact

import (
	"context"
	"reflect"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// WrapModel returns m with Lookout around every call:
//
//   - before the call, once tokens or time are spent, the call is not made
//     and returns the *budget.ExceededError that ends the run;
//   - the input gets the current assessment, when it is not stale, and,
//     when tokens or time are nearly spent (Config.WrapUpAt), the wrap-up
//     reminder; messages Lookout injected before are removed from it
//     first, so the model sees at most one assessment block. The caller's
//     slice is never written to;
//   - a wrap-up turn gets model.WithToolChoice(schema.ToolChoiceForbidden),
//     so the model answers instead of calling tools;
//   - after the call, its token usage is charged: Generate's at once, a
//     stream's when the stream ends. A reply without usage is counted as a
//     call without usage, apart from one that reported zero.
//
// The wrapped model binds tools through m's WithTools, and reports m's type
// and whether m fires its own callbacks, so Eino sees the same model as
// without Lookout. A nil m returns nil.
func (l *Hooks) WrapModel(m model.ToolCallingChatModel) model.ToolCallingChatModel {
	if m == nil {
		return nil
	}
	return &chatModel{l: l, inner: m}
}

// chatModel is the model.ToolCallingChatModel returned by WrapModel. It is
// safe for concurrent use when the inner model is.
type chatModel struct {
	l     *Hooks
	inner model.ToolCallingChatModel
	tools []*schema.ToolInfo // bound with WithTools, for the recording
}

var (
	_ model.ToolCallingChatModel = (*chatModel)(nil)
	_ components.Checker         = (*chatModel)(nil)
	_ components.Typer           = (*chatModel)(nil)
)

func (m *chatModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	r := m.l.run(ctx)
	if r == nil {
		return m.inner.Generate(ctx, input, opts...)
	}
	input, opts, err := prepare(ctx, r, input, opts, m.tools)
	if err != nil {
		return nil, err
	}
	c := engine.ChargingModel{Inner: m.inner, Run: r, Tools: m.tools}
	return c.Generate(ctx, input, opts...)
}

func (m *chatModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	r := m.l.run(ctx)
	if r == nil {
		return m.inner.Stream(ctx, input, opts...)
	}
	input, opts, err := prepare(ctx, r, input, opts, m.tools)
	if err != nil {
		return nil, err
	}
	c := engine.ChargingModel{Inner: m.inner, Run: r, Tools: m.tools}
	return c.Stream(ctx, input, opts...)
}

// prepare readies one model call through the run's gate (see
// drive.Run.BeforeModel): it injects the turn's messages and, on a
// wrap-up turn, adds the option that forbids tool calls. Neither the
// caller's input nor its options slice is written to.
func prepare(ctx context.Context, r *drive.Run, input []*schema.Message, opts []model.Option, bound []*schema.ToolInfo) ([]*schema.Message, []model.Option, error) {
	turn, err := r.BeforeModel(ctx, input, bound)
	if err != nil {
		return nil, nil, err
	}
	in := reinject(input, turn.Messages)
	o := opts
	if turn.WrapUp {
		o = make([]model.Option, len(opts), len(opts)+1)
		copy(o, opts)
		o = append(o, engine.WrapUpChoice(r, opts, bound))
	}
	return in, o, nil
}

// reinject returns msgs without the messages Lookout injected, followed by
// add. When there is nothing to remove or add, msgs itself is returned;
// otherwise a new slice, so msgs is never written to.
func reinject(msgs, add []*schema.Message) []*schema.Message {
	var out []*schema.Message
	from := 0
	for i, m := range msgs {
		if _, ok := lookout.Injected(m); !ok {
			continue
		}
		if out == nil {
			out = make([]*schema.Message, 0, len(msgs)+len(add))
		}
		out = append(out, msgs[from:i]...)
		from = i + 1
	}
	if out == nil {
		if len(add) == 0 {
			return msgs
		}
		out = make([]*schema.Message, 0, len(msgs)+len(add))
	}
	out = append(out, msgs[from:]...)
	return append(out, add...)
}

// WithTools binds tools to the inner model and wraps the result.
func (m *chatModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &chatModel{l: m.l, inner: inner, tools: tools}, nil
}

// IsCallbacksEnabled reports whether the inner model fires its own
// callbacks. When it does not, Eino fires them around this wrapper, and
// they see the input before Lookout's injection.
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
