package lookoutreact

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/internal/engine"
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
func (l *Lookout) ToolMiddleware() compose.ToolMiddleware {
	l.config()
	return compose.ToolMiddleware{
		Invokable:          l.invokable,
		Streamable:         l.streamable,
		EnhancedInvokable:  l.enhancedInvokable,
		EnhancedStreamable: l.enhancedStreamable,
	}
}

func (l *Lookout) invokable(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
		r := l.toolRun(ctx, in)
		if r == nil {
			return next(ctx, in)
		}
		c, refused, err := admit(ctx, r, in)
		switch {
		case err != nil:
			return nil, err
		case refused != "":
			return &compose.ToolOutput{Result: refused}, nil
		case c == nil:
			return next(ctx, in)
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		var result string
		if out != nil {
			result = out.Result
		}
		msg, err := end(ctx, r, c, result, err)
		if err != nil {
			return nil, err
		}
		if out == nil || msg != result {
			return &compose.ToolOutput{Result: msg}, nil
		}
		return out, nil
	}
}

func (l *Lookout) streamable(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
		r := l.toolRun(ctx, in)
		if r == nil {
			return next(ctx, in)
		}
		c, refused, err := admit(ctx, r, in)
		switch {
		case err != nil:
			return nil, err
		case refused != "":
			return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{refused})}, nil
		case c == nil:
			return next(ctx, in)
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		if err != nil || out == nil || out.Result == nil {
			msg, err := end(ctx, r, c, "", err)
			if err != nil {
				return nil, err
			}
			return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{msg})}, nil
		}
		return &compose.StreamToolOutput{Result: engine.PassStream(c, out.Result, identity, func(result string, err error) error {
			return record(ctx, r, c, result, err)
		})}, nil
	}
}

func (l *Lookout) enhancedInvokable(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
		r := l.toolRun(ctx, in)
		if r == nil {
			return next(ctx, in)
		}
		c, refused, err := admit(ctx, r, in)
		switch {
		case err != nil:
			return nil, err
		case refused != "":
			return &compose.EnhancedInvokableToolOutput{Result: engine.TextResult(refused)}, nil
		case c == nil:
			return next(ctx, in)
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		var res *schema.ToolResult
		if out != nil {
			res = out.Result
		}
		text := engine.ResultText(res)
		msg, err := end(ctx, r, c, text, err)
		if err != nil {
			return nil, err
		}
		if res == nil || msg != text {
			return &compose.EnhancedInvokableToolOutput{Result: engine.TextResult(msg)}, nil
		}
		return out, nil
	}
}

func (l *Lookout) enhancedStreamable(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedStreamableToolOutput, error) {
		r := l.toolRun(ctx, in)
		if r == nil {
			return next(ctx, in)
		}
		c, refused, err := admit(ctx, r, in)
		switch {
		case err != nil:
			return nil, err
		case refused != "":
			return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{engine.TextResult(refused)})}, nil
		case c == nil:
			return next(ctx, in)
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		if err != nil || out == nil || out.Result == nil {
			msg, err := end(ctx, r, c, "", err)
			if err != nil {
				return nil, err
			}
			return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{engine.TextResult(msg)})}, nil
		}
		return &compose.EnhancedStreamableToolOutput{Result: engine.PassStream(c, out.Result, engine.ResultText, func(result string, err error) error {
			return record(ctx, r, c, result, err)
		})}, nil
	}
}

// toolRun returns the run a tool call belongs to, or nil when the call is
// to pass through untouched.
func (l *Lookout) toolRun(ctx context.Context, in *compose.ToolInput) *engine.Run {
	if in == nil {
		return nil
	}
	return l.run(ctx)
}

// admit asks the budget for a tool call. It returns the call to run, or a
// refusal for the model, or an error that ends the run; nothing at all
// when Lookout's own work panicked, and the call is to run unobserved.
func admit(ctx context.Context, r *engine.Run, in *compose.ToolInput) (c *engine.Call, refused string, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.Cfg.OnError(ctx, fmt.Errorf("lookoutreact: admitting tool call %s panicked: %v", in.CallID, p))
			c, refused, err = nil, "", nil
		}
	}()
	return r.Admit(ctx, in.Name, in.CallID, in.Arguments)
}

// end records a tool call's outcome and returns what the model gets (see
// engine.Call.End). When Lookout's own work panics, the tool's result and
// error go on unchanged.
func end(ctx context.Context, r *engine.Run, c *engine.Call, result string, err error) (msg string, out error) {
	defer func() {
		if p := recover(); p != nil {
			r.Cfg.OnError(ctx, fmt.Errorf("lookoutreact: recording a tool call panicked: %v", p))
			msg, out = result, err
		}
	}()
	return c.End(ctx, result, err)
}

// record records the end of a streamed tool call; see end.
func record(ctx context.Context, r *engine.Run, c *engine.Call, result string, err error) (out error) {
	defer func() {
		if p := recover(); p != nil {
			r.Cfg.OnError(ctx, fmt.Errorf("lookoutreact: recording a tool call panicked: %v", p))
			out = err
		}
	}()
	_, err = c.Record(ctx, result, err)
	return err
}

func identity(s string) string { return s }
