package lookoutreact

import (
	"context"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
	"github.com/lookout-go/lookout/recorder"
)

// ToolMiddleware returns the tool middleware that admits, records and
// observes every tool call, for all four kinds of tool. Add it to
// compose.ToolsNodeConfig.ToolCallMiddlewares, in a react agent or in a
// ToolsNode of your own graph.
//
// For each call: the budget admits it or refuses it (a call over the
// tool-call limit, or after the deadline, is not run; the model gets a
// tool message saying why); the tool runs; the call is recorded with a
// dense, unique call index, even when calls run in parallel, and the
// observers run. A tool error becomes the tool message "Error: ..." unless
// Config.ToolErrors is ToolErrorsAbort. A streaming tool's call ends when
// its stream does. Should Lookout's own work around a call panic, the
// panic is reported to Config.OnError and the call goes on as it would
// without Lookout.
func (l *Hooks) ToolMiddleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable:          l.invokable,
		Streamable:         l.streamable,
		EnhancedInvokable:  l.enhancedInvokable,
		EnhancedStreamable: l.enhancedStreamable,
	}
}

func (l *Hooks) invokable(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
		return invoke(ctx, l, in, next,
			func(out *compose.ToolOutput) (string, bool) {
				if out == nil {
					return "", false
				}
				return out.Result, true
			},
			nil,
			func(msg string) *compose.ToolOutput { return &compose.ToolOutput{Result: msg} })
	}
}

func (l *Hooks) enhancedInvokable(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
		return invoke(ctx, l, in, next,
			func(out *compose.EnhancedInvokableToolOutput) (string, bool) {
				if out == nil || out.Result == nil {
					return engine.ResultText(nil), false
				}
				return engine.ResultText(out.Result), true
			},
			func(out *compose.EnhancedInvokableToolOutput) []recorder.Part {
				if out == nil {
					return nil
				}
				return engine.ResultParts(out.Result)
			},
			func(msg string) *compose.EnhancedInvokableToolOutput {
				return &compose.EnhancedInvokableToolOutput{Result: engine.TextResult(msg)}
			})
	}
}

func (l *Hooks) streamable(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
		return stream(ctx, l, in, next,
			func(out *compose.StreamToolOutput) *schema.StreamReader[string] {
				if out == nil {
					return nil
				}
				return out.Result
			},
			func(sr *schema.StreamReader[string]) *compose.StreamToolOutput {
				return &compose.StreamToolOutput{Result: sr}
			},
			identity,
			func(c *drive.Call, sr *schema.StreamReader[string], record func(string, error) error) *schema.StreamReader[string] {
				return engine.PassStream(c, sr, identity, record)
			})
	}
}

func (l *Hooks) enhancedStreamable(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedStreamableToolOutput, error) {
		return stream(ctx, l, in, next,
			func(out *compose.EnhancedStreamableToolOutput) *schema.StreamReader[*schema.ToolResult] {
				if out == nil {
					return nil
				}
				return out.Result
			},
			func(sr *schema.StreamReader[*schema.ToolResult]) *compose.EnhancedStreamableToolOutput {
				return &compose.EnhancedStreamableToolOutput{Result: sr}
			},
			engine.TextResult,
			engine.PassResultStream)
	}
}

// invoke runs one call of a tool that answers at once: admitted by the
// budget, run, recorded and observed. text returns an output's text and
// whether there is an output; parts, when not nil, an output's parts for
// the record, media included; answer makes an output of a message, for a
// refusal or a result Lookout replaced (a tool error turned into text).
func invoke[O any](ctx context.Context, l *Hooks, in *compose.ToolInput,
	next func(context.Context, *compose.ToolInput) (O, error),
	text func(O) (string, bool), parts func(O) []recorder.Part, answer func(string) O,
) (O, error) {
	return around(ctx, l, in, next, answer, func(c *drive.Call, out O, err error) (O, error) {
		result, ok := text(out)
		if parts != nil {
			c.SetResultMedia(parts(out))
		}
		msg, err := engine.EndCall(ctx, c, result, err)
		if err != nil {
			var zero O
			return zero, err
		}
		if !ok || msg != result {
			return answer(msg), nil
		}
		return out, nil
	})
}

// stream runs one call of a streaming tool as invoke does; the call ends,
// and is recorded, when its stream does. chunks returns an output's stream
// (nil when there is none), wrap makes an output of a stream, chunk makes
// a chunk of a message and pass passes a stream through, recording it
// when it ends (engine.PassStream, or engine.PassResultStream for a
// multimodal tool).
func stream[O, C any](ctx context.Context, l *Hooks, in *compose.ToolInput,
	next func(context.Context, *compose.ToolInput) (O, error),
	chunks func(O) *schema.StreamReader[C], wrap func(*schema.StreamReader[C]) O,
	chunk func(string) C, pass func(*drive.Call, *schema.StreamReader[C], func(string, error) error) *schema.StreamReader[C],
) (O, error) {
	answer := func(msg string) O { return wrap(schema.StreamReaderFromArray([]C{chunk(msg)})) }
	return around(ctx, l, in, next, answer, func(c *drive.Call, out O, err error) (O, error) {
		var sr *schema.StreamReader[C]
		if err == nil {
			sr = chunks(out)
		}
		if sr == nil {
			msg, err := engine.EndCall(ctx, c, "", err)
			if err != nil {
				var zero O
				return zero, err
			}
			return answer(msg), nil
		}
		c.HandOff(ctx)
		return wrap(pass(c, sr, func(result string, err error) error {
			return engine.EndStream(ctx, c, result, err)
		})), nil
	})
}

// around admits a tool call and runs it, handing its output to after. A
// refused call is answered with answer(refusal); a call that belongs to no
// run runs untouched, and so, through the zero drive.Call, does one that
// Lookout failed to admit because its own work panicked.
func around[O any](ctx context.Context, l *Hooks, in *compose.ToolInput,
	next func(context.Context, *compose.ToolInput) (O, error), answer func(string) O,
	after func(c *drive.Call, out O, err error) (O, error),
) (O, error) {
	r := l.toolRun(ctx, in)
	if r == nil {
		return next(ctx, in)
	}
	c, refusal, err := r.Admit(ctx, in.Name, in.CallID, in.Arguments)
	switch {
	case err != nil:
		var zero O
		return zero, err
	case refusal != "":
		return answer(refusal), nil
	}
	out, err := engine.Guarded(ctx, &c, func() (O, error) {
		return next(engine.WithToolCall(ctx, in.CallID, in.Name), in)
	})
	return after(&c, out, err)
}

// toolRun returns the run a tool call belongs to, or nil when the call is
// to pass through untouched.
func (l *Hooks) toolRun(ctx context.Context, in *compose.ToolInput) *drive.Run {
	if in == nil {
		return nil
	}
	return l.run(ctx)
}

func identity(s string) string { return s }
