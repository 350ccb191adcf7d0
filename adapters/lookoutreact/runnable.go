package lookoutreact

import (
	"context"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// Runnable returns r, a compiled compose graph, chain or workflow, run
// through l: each Invoke, Stream, Collect or Transform is one run, named
// name in the recording, as [Hooks.Agent] makes each Generate or Stream
// of an agent. Put l's hooks in the graph: [Hooks.WrapModel] around its
// chat model and [Hooks.ToolMiddleware] in its tools node.
func Runnable[I, O any](l *Hooks, name string, r compose.Runnable[I, O]) compose.Runnable[I, O] {
	return &runnable[I, O]{l: l, name: name, inner: r}
}

type runnable[I, O any] struct {
	l     *Hooks
	name  string
	inner compose.Runnable[I, O]
}

func (r *runnable[I, O]) Invoke(ctx context.Context, input I, opts ...compose.Option) (O, error) {
	ctx, run, err := r.l.start(ctx, r.name)
	if err != nil {
		var zero O
		return zero, err
	}
	out, err := r.inner.Invoke(ctx, input, opts...)
	finish(ctx, run, err)
	return out, err
}

func (r *runnable[I, O]) Stream(ctx context.Context, input I, opts ...compose.Option) (*schema.StreamReader[O], error) {
	ctx, run, err := r.l.start(ctx, r.name)
	if err != nil {
		return nil, err
	}
	sr, err := r.inner.Stream(ctx, input, opts...)
	if err != nil {
		finish(ctx, run, err)
		return nil, err
	}
	return endWith(ctx, run, sr), nil
}

func (r *runnable[I, O]) Collect(ctx context.Context, input *schema.StreamReader[I], opts ...compose.Option) (O, error) {
	ctx, run, err := r.l.start(ctx, r.name)
	if err != nil {
		var zero O
		return zero, err
	}
	out, err := r.inner.Collect(ctx, input, opts...)
	finish(ctx, run, err)
	return out, err
}

func (r *runnable[I, O]) Transform(ctx context.Context, input *schema.StreamReader[I], opts ...compose.Option) (*schema.StreamReader[O], error) {
	ctx, run, err := r.l.start(ctx, r.name)
	if err != nil {
		return nil, err
	}
	sr, err := r.inner.Transform(ctx, input, opts...)
	if err != nil {
		finish(ctx, run, err)
		return nil, err
	}
	return endWith(ctx, run, sr), nil
}
