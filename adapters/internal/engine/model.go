package engine

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
)

// ChargingModel charges the run's budget for every call, streaming ones
// included. Usage comes from the reply's ResponseMeta.Usage; for a stream,
// from the last chunk that carries it, charged when the stream ends.
type ChargingModel struct {
	Inner model.BaseChatModel
	Run   *Run
	// ForbidToolsOnWrapUp adds model.WithToolChoice(schema.ToolChoiceForbidden)
	// to the call's options once the run has been given a wrap-up turn.
	ForbidToolsOnWrapUp bool
	// Tools are the tools bound to Inner with WithTools, which the
	// recording lists when a call's options name none.
	Tools []*schema.ToolInfo
}

// options returns opts, with the tool choice forbidden on a wrap-up turn
// when c forbids tools then. opts itself is never written to.
func (c *ChargingModel) options(opts []model.Option) []model.Option {
	if !c.ForbidToolsOnWrapUp || !c.Run.WrappingUp() {
		return opts
	}
	return append(opts[:len(opts):len(opts)], model.WithToolChoice(schema.ToolChoiceForbidden))
}

// Generate calls the inner model and charges its usage. Should Lookout's
// own work before or after the call panic, the panic goes to Cfg.OnError
// and the call, or its reply, goes on. One guard covers both; a panic in
// the inner model is the model's and goes on.
func (c *ChargingModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (out *schema.Message, err error) {
	stage := stageBefore
	defer func() {
		if stage == stageRunning {
			return
		}
		p := recover()
		if p == nil {
			return
		}
		if stage == stageBefore {
			c.Run.fault(ctx, "preparing a model call", p)
			stage = stageRunning
			out, err = c.Inner.Generate(ctx, input, opts...)
			return
		}
		c.Run.fault(ctx, "charging a model call", p)
		err = nil
	}()
	opts = c.options(opts)
	start, err := c.prepare(ctx, input, opts)
	if err != nil {
		return nil, err
	}
	stage = stageRunning
	out, err = c.Inner.Generate(ctx, input, opts...)
	if err != nil {
		return out, budgetDeadline(ctx, err)
	}
	stage = stageAfter
	toolCalls := -1
	if out != nil {
		toolCalls = len(out.ToolCalls)
	}
	return out, c.charge(ctx, out, UsageOf(out), toolCalls, start)
}

// Stream calls the inner model and charges its usage at the end of the
// stream. Faults in Lookout's own work are handled as in Generate.
func (c *ChargingModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	opts = c.options(opts)
	start, err := c.before(ctx, input, opts)
	if err != nil {
		return nil, err
	}
	sr, err := c.Inner.Stream(ctx, input, opts...)
	if err != nil {
		return sr, budgetDeadline(ctx, err)
	}
	var last *budget.Usage
	var calls toolCallCount
	var chunks []*schema.Message // kept only for the recording
	recording := c.Run.trace.rec != nil
	return schema.StreamReaderWithConvert(sr,
		func(chunk *schema.Message) (*schema.Message, error) {
			if u := UsageOf(chunk); u != nil {
				last = mergeUsage(last, u)
			}
			calls.add(chunk)
			if recording {
				chunks = append(chunks, chunk)
			}
			return chunk, nil
		},
		schema.WithOnEOF(func() (any, error) {
			var msg *schema.Message
			if recording {
				msg = c.reply(ctx, chunks)
			}
			if err := c.after(ctx, msg, last, calls.n(), start); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}),
		// An error in mid-stream made from a ctx of the model's own, after
		// the budget deadline passed, is the budget's.
		schema.WithErrWrapper(func(err error) error { return budgetDeadline(ctx, err) }),
	), nil
}

// reply concatenates a streamed reply's chunks for the recording.
func (c *ChargingModel) reply(ctx context.Context, chunks []*schema.Message) *schema.Message {
	defer func() {
		if p := recover(); p != nil {
			c.Run.fault(ctx, "recording a model reply", p)
		}
	}()
	msg, err := schema.ConcatMessages(chunks)
	if err != nil {
		c.Run.Cfg.OnError(ctx, err)
	}
	return msg
}

// before readies a model call: it returns the run's failure, if any, and
// records the request. It returns the start of the call for its latency.
// Should Lookout's own work panic, the panic goes to Cfg.OnError and the
// call goes ahead.
func (c *ChargingModel) before(ctx context.Context, input []*schema.Message, opts []model.Option) (start time.Time, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.Run.fault(ctx, "preparing a model call", p)
			start, err = time.Time{}, nil
		}
	}()
	return c.prepare(ctx, input, opts)
}

// prepare is before without the guard against panics.
func (c *ChargingModel) prepare(ctx context.Context, input []*schema.Message, opts []model.Option) (start time.Time, err error) {
	if err := c.Run.Failure(); err != nil {
		return time.Time{}, err
	}
	c.Run.recordRequest(ctx, input, opts, c.Tools)
	return c.Run.startLatency(), nil
}

// after charges a model call's usage u, records its reply msg and tells
// the observers how many tool calls the reply made; a negative count means
// there was no reply to tell of. It returns the run's failure, which a
// spent budget sets. Should Lookout's own work panic, the panic goes to
// Cfg.OnError and the reply goes on.
func (c *ChargingModel) after(ctx context.Context, msg *schema.Message, u *budget.Usage, toolCalls int, start time.Time) (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.Run.fault(ctx, "charging a model call", p)
			err = nil
		}
	}()
	return c.charge(ctx, msg, u, toolCalls, start)
}

// charge is after without the guard against panics.
func (c *ChargingModel) charge(ctx context.Context, msg *schema.Message, u *budget.Usage, toolCalls int, start time.Time) error {
	c.Run.Tracker.ChargeModelCall(u)
	c.Run.recordResponse(ctx, msg, u, c.Run.latencySince(start))
	if toolCalls >= 0 {
		c.Run.Pipeline.ModelResponded(ctx, toolCalls)
	}
	return c.Run.Failure()
}

// toolCallCount counts the tool calls of a streamed reply from its
// chunks, without concatenating them: a call's chunks share its Index, or,
// from providers that send no index, only its first chunk has an ID.
type toolCallCount struct {
	maxIndex int
	ids      int
}

func (t *toolCallCount) add(chunk *schema.Message) {
	if chunk == nil {
		return
	}
	for _, tc := range chunk.ToolCalls {
		switch {
		case tc.Index != nil:
			t.maxIndex = max(t.maxIndex, *tc.Index+1)
		case tc.ID != "":
			t.ids++
		}
	}
}

func (t *toolCallCount) n() int { return max(t.maxIndex, t.ids) }

// mergeUsage combines the usage reported by two chunks of one streamed
// reply, field by field, keeping the larger value, as
// schema.ConcatMessages does: some providers report the prompt tokens in
// the first chunk and the completion tokens in the last.
func mergeUsage(a, b *budget.Usage) *budget.Usage {
	if a == nil {
		return b
	}
	return &budget.Usage{
		PromptTokens:     max(a.PromptTokens, b.PromptTokens),
		CompletionTokens: max(a.CompletionTokens, b.CompletionTokens),
		TotalTokens:      max(a.TotalTokens, b.TotalTokens),
	}
}

// budgetDeadline returns err, or the budget error when the run's budget
// deadline has passed and err is what the call made of it: a model or tool
// that derives its own ctx reports plain context.DeadlineExceeded.
func budgetDeadline(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	var ex *budget.ExceededError
	if errors.As(err, &ex) {
		return err
	}
	if errors.As(context.Cause(ctx), &ex) {
		return deadlineError{ex}
	}
	return err
}

// UsageOf converts a reply's usage; nil means the provider reported none.
func UsageOf(msg *schema.Message) *budget.Usage {
	if msg == nil || msg.ResponseMeta == nil || msg.ResponseMeta.Usage == nil {
		return nil
	}
	u := msg.ResponseMeta.Usage
	return &budget.Usage{
		PromptTokens:     int64(u.PromptTokens),
		CompletionTokens: int64(u.CompletionTokens),
		TotalTokens:      int64(u.TotalTokens),
	}
}
