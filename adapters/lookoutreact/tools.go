package lookoutreact

import (
	"context"
	"io"
	"strings"

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
// its stream does.
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
		c, refused, err := r.Admit(ctx, in.Name, in.CallID, in.Arguments)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return &compose.ToolOutput{Result: refused}, nil
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		var result string
		if out != nil {
			result = out.Result
		}
		msg, err := c.End(ctx, result, err)
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
		c, refused, err := r.Admit(ctx, in.Name, in.CallID, in.Arguments)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{refused})}, nil
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		if err == nil && (out == nil || out.Result == nil) {
			msg, err := c.End(ctx, "", nil)
			return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{msg})}, err
		}
		if err != nil {
			msg, err := c.End(ctx, "", err)
			if err != nil {
				return nil, err
			}
			return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{msg})}, nil
		}
		return &compose.StreamToolOutput{Result: endWithStream(ctx, c, r.Cfg.MaxRecordBytes, out.Result, identity)}, nil
	}
}

func (l *Lookout) enhancedInvokable(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
	return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
		r := l.toolRun(ctx, in)
		if r == nil {
			return next(ctx, in)
		}
		c, refused, err := r.Admit(ctx, in.Name, in.CallID, in.Arguments)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return &compose.EnhancedInvokableToolOutput{Result: textResult(refused)}, nil
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		var res *schema.ToolResult
		if out != nil {
			res = out.Result
		}
		text := resultText(res)
		msg, err := c.End(ctx, text, err)
		if err != nil {
			return nil, err
		}
		if res == nil || msg != text {
			return &compose.EnhancedInvokableToolOutput{Result: textResult(msg)}, nil
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
		c, refused, err := r.Admit(ctx, in.Name, in.CallID, in.Arguments)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(refused)})}, nil
		}
		out, err := next(engine.WithToolCall(ctx, in.CallID), in)
		if err == nil && (out == nil || out.Result == nil) {
			msg, err := c.End(ctx, "", nil)
			return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(msg)})}, err
		}
		if err != nil {
			msg, err := c.End(ctx, "", err)
			if err != nil {
				return nil, err
			}
			return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{textResult(msg)})}, nil
		}
		return &compose.EnhancedStreamableToolOutput{Result: endWithStream(ctx, c, r.Cfg.MaxRecordBytes, out.Result, resultText)}, nil
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

// endWithStream passes a tool's stream through and ends the call when the
// stream does. An error in mid-stream is recorded as a failure and passed
// on: part of the output has already reached the model, so it cannot be
// turned into a message.
func endWithStream[T any](ctx context.Context, c *engine.Call, limit int, sr *schema.StreamReader[T], text func(T) string) *schema.StreamReader[T] {
	var head strings.Builder
	return schema.StreamReaderWithConvert(sr,
		func(chunk T) (T, error) {
			if head.Len() < limit {
				head.WriteString(text(chunk))
			}
			return chunk, nil
		},
		schema.WithOnEOF(func() (any, error) {
			c.Record(ctx, head.String(), nil)
			return nil, io.EOF
		}),
		schema.WithErrWrapper(func(err error) error {
			_, err = c.Record(ctx, head.String(), err)
			return err
		}),
	)
}

func identity(s string) string { return s }

func textResult(s string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: s}}}
}

func resultText(r *schema.ToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Parts {
		if p.Type == schema.ToolPartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
