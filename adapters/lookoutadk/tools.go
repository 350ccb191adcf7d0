package lookoutadk

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
)

// call is one tool call in flight.
type call struct {
	run     *run
	tc      *adk.ToolContext
	args    string
	started time.Time
}

// begin admits a tool call. It returns a refusal for the model when the
// budget does not allow the call; the call must then not run.
func (r *run) begin(ctx context.Context, tc *adk.ToolContext, args string) (*call, string) {
	r.ensure(ctx)
	if r.cfg.enforced(budget.Time) {
		if err := r.tracker.Check(budget.Time); err != nil {
			return nil, refusal(err)
		}
	}
	if err := r.tracker.ReserveToolCall(); err != nil && r.cfg.enforced(budget.ToolCalls) {
		return nil, refusal(err)
	}
	return &call{run: r, tc: tc, args: args, started: r.cfg.Now()}, ""
}

func refusal(err error) string {
	var ex *budget.ExceededError
	if errors.As(err, &ex) && ex.Resource == budget.ToolCalls {
		return "Tool call refused: the tool-call budget is spent (" + err.Error() + "). " +
			"Do not call more tools; finish with what you have."
	}
	return "Tool call refused: " + err.Error() + ". Finish with what you have."
}

// end records the call's outcome and runs the observers. It returns the
// error to hand back to Eino: nil when a tool error becomes a message.
func (c *call) end(ctx context.Context, result string, err error) (string, error) {
	recorded, err := c.record(ctx, result, err)
	if err == nil {
		return result, nil
	}
	var ex *budget.ExceededError
	if !recorded || c.run.cfg.ToolErrors == ToolErrorsAbort || errors.As(err, &ex) {
		return result, err
	}
	return "Error: " + err.Error(), nil
}

// record writes the call to the session and runs the observers. It returns
// the call's error, replaced by the run's budget error when the deadline
// cut the call short, and whether the call was recorded: an interrupt is
// control flow, not an outcome, and is not.
func (c *call) record(ctx context.Context, result string, err error) (bool, error) {
	r := c.run
	if err != nil {
		if _, interrupt := compose.IsInterruptRerunError(err); interrupt {
			return false, err
		}
		var ex *budget.ExceededError
		if ctx.Err() != nil && errors.As(context.Cause(ctx), &ex) {
			err = context.Cause(ctx)
		}
	}
	rec := observer.ToolCallRecord{
		CallID:        c.tc.CallID,
		ToolName:      c.tc.Name,
		ParamsSummary: summarize(c.args, 120),
		Arguments:     truncate(c.args, r.cfg.MaxRecordBytes),
		Result:        truncate(result, r.cfg.MaxRecordBytes),
		Success:       err == nil,
		Duration:      r.cfg.Now().Sub(c.started),
	}
	if err != nil {
		rec.ErrorMessage = truncate(err.Error(), r.cfg.MaxRecordBytes)
	}
	r.pipeline.AfterToolCall(ctx, rec)
	return true, err
}

// WrapInvokableToolCall records the call, runs the observers after it, and
// enforces the tool-call budget.
func (m *middleware) WrapInvokableToolCall(ctx context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	if runFrom(ctx) == nil {
		return next, nil
	}
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		r := runFrom(ctx)
		if r == nil {
			return next(ctx, args, opts...)
		}
		c, refused := r.begin(ctx, tc, args)
		if c == nil {
			return refused, nil
		}
		out, err := next(ctx, args, opts...)
		return c.end(ctx, out, err)
	}, nil
}

// WrapStreamableToolCall does what WrapInvokableToolCall does for a
// streaming tool; the call ends when its stream does.
func (m *middleware) WrapStreamableToolCall(ctx context.Context, next adk.StreamableToolCallEndpoint, tc *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	if runFrom(ctx) == nil {
		return next, nil
	}
	return func(ctx context.Context, args string, opts ...tool.Option) (*schema.StreamReader[string], error) {
		r := runFrom(ctx)
		if r == nil {
			return next(ctx, args, opts...)
		}
		c, refused := r.begin(ctx, tc, args)
		if c == nil {
			return schema.StreamReaderFromArray([]string{refused}), nil
		}
		sr, err := next(ctx, args, opts...)
		if err != nil {
			msg, err := c.end(ctx, "", err)
			if err != nil {
				return nil, err
			}
			return schema.StreamReaderFromArray([]string{msg}), nil
		}
		return endWithStream(ctx, c, sr, func(s string) string { return s }), nil
	}, nil
}

// WrapEnhancedInvokableToolCall does what WrapInvokableToolCall does for a
// tool with multimodal results; the text parts are what observers see.
func (m *middleware) WrapEnhancedInvokableToolCall(ctx context.Context, next adk.EnhancedInvokableToolCallEndpoint, tc *adk.ToolContext) (adk.EnhancedInvokableToolCallEndpoint, error) {
	if runFrom(ctx) == nil {
		return next, nil
	}
	return func(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.ToolResult, error) {
		r := runFrom(ctx)
		if r == nil {
			return next(ctx, arg, opts...)
		}
		c, refused := r.begin(ctx, tc, argText(arg))
		if c == nil {
			return textResult(refused), nil
		}
		res, err := next(ctx, arg, opts...)
		msg, err := c.end(ctx, resultText(res), err)
		if err != nil {
			return res, err
		}
		if res == nil || msg != resultText(res) {
			return textResult(msg), nil
		}
		return res, nil
	}, nil
}

// WrapEnhancedStreamableToolCall does what WrapStreamableToolCall does for
// a streaming tool with multimodal results.
func (m *middleware) WrapEnhancedStreamableToolCall(ctx context.Context, next adk.EnhancedStreamableToolCallEndpoint, tc *adk.ToolContext) (adk.EnhancedStreamableToolCallEndpoint, error) {
	if runFrom(ctx) == nil {
		return next, nil
	}
	return func(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
		r := runFrom(ctx)
		if r == nil {
			return next(ctx, arg, opts...)
		}
		c, refused := r.begin(ctx, tc, argText(arg))
		if c == nil {
			return schema.StreamReaderFromArray([]*schema.ToolResult{textResult(refused)}), nil
		}
		sr, err := next(ctx, arg, opts...)
		if err != nil {
			msg, err := c.end(ctx, "", err)
			if err != nil {
				return nil, err
			}
			return schema.StreamReaderFromArray([]*schema.ToolResult{textResult(msg)}), nil
		}
		return endWithStream(ctx, c, sr, resultText), nil
	}, nil
}

// endWithStream passes a tool's stream through and ends the call when the
// stream does. An error in mid-stream is recorded as a failure and passed
// on: part of the output has already reached the model, so it cannot be
// turned into a message.
func endWithStream[T any](ctx context.Context, c *call, sr *schema.StreamReader[T], text func(T) string) *schema.StreamReader[T] {
	var head strings.Builder
	limit := c.run.cfg.MaxRecordBytes
	return schema.StreamReaderWithConvert(sr,
		func(chunk T) (T, error) {
			if head.Len() < limit {
				head.WriteString(text(chunk))
			}
			return chunk, nil
		},
		schema.WithOnEOF(func() (any, error) {
			c.record(ctx, head.String(), nil)
			return nil, io.EOF
		}),
		schema.WithErrWrapper(func(err error) error {
			_, err = c.record(ctx, head.String(), err)
			return err
		}),
	)
}

func argText(a *schema.ToolArgument) string {
	if a == nil {
		return ""
	}
	return a.Text
}

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

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// summarize abbreviates arguments for evidence lines: white space folded,
// cut to n bytes with an ellipsis.
func summarize(args string, n int) string {
	s := strings.Join(strings.Fields(args), " ")
	if len(s) <= n {
		return s
	}
	return truncate(s, n-3) + "..."
}
