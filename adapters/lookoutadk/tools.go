package lookoutadk

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// WrapInvokableToolCall admits the call by the budget, records it, and
// runs the observers after it.
func (m *Middleware) WrapInvokableToolCall(ctx context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return next, nil
	}
	// Eino calls the endpoint with the ctx it passes here, so r is the
	// call's run; looking it up once saves a walk up the ctx per call.
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		ensure(ctx, r)
		c, refusal, err := r.Admit(ctx, tc.Name, tc.CallID, args)
		if err != nil {
			return "", engine.Ended(ctx, r, err)
		}
		if refusal != "" {
			return refusal, nil
		}
		// engine.Guarded, written out: on the path of every call, the
		// tool is called here rather than through a closure.
		ran := false
		defer func() {
			if !ran {
				c.EndPanicked(ctx)
			}
		}()
		out, err := next(ctx, args, opts...)
		ran = true
		out, err = engine.EndCall(ctx, &c, out, err)
		return out, engine.Ended(ctx, r, err)
	}, nil
}

// WrapStreamableToolCall does what WrapInvokableToolCall does for a
// streaming tool; the call ends when its stream does.
func (m *Middleware) WrapStreamableToolCall(ctx context.Context, next adk.StreamableToolCallEndpoint, tc *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return next, nil
	}
	return func(ctx context.Context, args string, opts ...tool.Option) (*schema.StreamReader[string], error) {
		ensure(ctx, r)
		c, refusal, err := r.Admit(ctx, tc.Name, tc.CallID, args)
		if err != nil {
			return nil, engine.Ended(ctx, r, err)
		}
		if refusal != "" {
			return schema.StreamReaderFromArray([]string{refusal}), nil
		}
		sr, err := engine.Guarded(ctx, &c, func() (*schema.StreamReader[string], error) {
			return next(ctx, args, opts...)
		})
		if err != nil {
			msg, err := engine.EndCall(ctx, &c, "", err)
			if err != nil {
				return nil, engine.Ended(ctx, r, err)
			}
			return schema.StreamReaderFromArray([]string{msg}), nil
		}
		c.HandOff(ctx)
		return engine.PassStream(&c, sr, func(s string) string { return s }, recordStream(ctx, &c)), nil
	}, nil
}

// WrapEnhancedInvokableToolCall does what WrapInvokableToolCall does for a
// tool with multimodal results; the text parts are what observers see.
func (m *Middleware) WrapEnhancedInvokableToolCall(ctx context.Context, next adk.EnhancedInvokableToolCallEndpoint, tc *adk.ToolContext) (adk.EnhancedInvokableToolCallEndpoint, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return next, nil
	}
	return func(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.ToolResult, error) {
		ensure(ctx, r)
		c, refusal, err := r.Admit(ctx, tc.Name, tc.CallID, argText(arg))
		if err != nil {
			return nil, engine.Ended(ctx, r, err)
		}
		if refusal != "" {
			return engine.TextResult(refusal), nil
		}
		res, err := engine.Guarded(ctx, &c, func() (*schema.ToolResult, error) {
			return next(ctx, arg, opts...)
		})
		msg, err := engine.EndResult(ctx, &c, res, err)
		if err != nil {
			return res, engine.Ended(ctx, r, err)
		}
		if res == nil || msg != engine.ResultText(res) {
			return engine.TextResult(msg), nil
		}
		return res, nil
	}, nil
}

// WrapEnhancedStreamableToolCall does what WrapStreamableToolCall does for
// a streaming tool with multimodal results.
func (m *Middleware) WrapEnhancedStreamableToolCall(ctx context.Context, next adk.EnhancedStreamableToolCallEndpoint, tc *adk.ToolContext) (adk.EnhancedStreamableToolCallEndpoint, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return next, nil
	}
	return func(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
		ensure(ctx, r)
		c, refusal, err := r.Admit(ctx, tc.Name, tc.CallID, argText(arg))
		if err != nil {
			return nil, engine.Ended(ctx, r, err)
		}
		if refusal != "" {
			return schema.StreamReaderFromArray([]*schema.ToolResult{engine.TextResult(refusal)}), nil
		}
		sr, err := engine.Guarded(ctx, &c, func() (*schema.StreamReader[*schema.ToolResult], error) {
			return next(ctx, arg, opts...)
		})
		if err != nil {
			msg, err := engine.EndCall(ctx, &c, "", err)
			if err != nil {
				return nil, engine.Ended(ctx, r, err)
			}
			return schema.StreamReaderFromArray([]*schema.ToolResult{engine.TextResult(msg)}), nil
		}
		c.HandOff(ctx)
		return engine.PassResultStream(&c, sr, recordStream(ctx, &c)), nil
	}, nil
}

func argText(a *schema.ToolArgument) string {
	if a == nil {
		return ""
	}
	return a.Text
}

// recordStream records the end of a streamed call.
func recordStream(ctx context.Context, c *drive.Call) func(result string, err error) error {
	return func(result string, err error) error {
		return engine.EndStream(ctx, c, result, err)
	}
}
