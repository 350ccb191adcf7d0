package engine

import (
	"context"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/budget"
)

// ChargingModel charges the run's budget for every call, streaming ones
// included, and records it. Usage comes from the reply's
// ResponseMeta.Usage; for a stream, from its chunks, charged when the
// stream ends.
type ChargingModel struct {
	Inner model.BaseChatModel
	Run   *drive.Run
	// ForbidToolsOnWrapUp adds model.WithToolChoice(schema.ToolChoiceForbidden)
	// to the call's options once the run has been given a wrap-up turn.
	ForbidToolsOnWrapUp bool
	// Tools are the tools bound to Inner with WithTools, which the
	// recording lists when a call's options name none.
	Tools []*schema.ToolInfo

	// scratch receives the options request reads, in the allocation of
	// the ChargingModel rather than one of its own per call.
	scratch model.Options
}

// options returns opts, with the tool choice forbidden on a wrap-up turn
// when c forbids tools then. opts itself is never written to.
func (c *ChargingModel) options(opts []model.Option) []model.Option {
	if !c.ForbidToolsOnWrapUp || !c.Run.WrappingUp() {
		return opts
	}
	return append(opts[:len(opts):len(opts)], WrapUpChoice(c.Run, opts, c.Tools))
}

// WrapUpChoice is the tool choice of a wrap-up turn made with opts, on a
// model bound to tools: no tool calls, except to the control tools
// offered (see lookout.Config.ControlTools), so that an agent can still
// hand back or finish. The tools stay described either way: providers
// reject a history of tool calls sent without their definitions.
func WrapUpChoice(r *drive.Run, opts []model.Option, bound []*schema.ToolInfo) model.Option {
	offered := model.GetCommonOptions(&model.Options{}, opts...).Tools
	if len(offered) == 0 {
		offered = bound
	}
	var control []string
	for _, t := range offered {
		if t != nil && r.Control(t.Name) {
			control = append(control, t.Name)
		}
	}
	if len(control) == 0 {
		return model.WithToolChoice(schema.ToolChoiceForbidden)
	}
	return model.WithToolChoice(schema.ToolChoiceAllowed, control...)
}

// request describes a call with opts, streamed or not, for the
// recording.
func (c *ChargingModel) request(opts []model.Option, stream bool) drive.ModelOptions {
	c.scratch = model.Options{}
	o := model.GetCommonOptions(&c.scratch, opts...)
	req := drive.ModelOptions{Tools: o.Tools, Stream: stream}
	req.Provider, _ = components.GetType(c.Inner)
	if len(req.Tools) == 0 {
		req.Tools = c.Tools // bound with WithTools rather than passed per call
	}
	if o.Model != nil {
		req.Model = *o.Model
	}
	req.ToolChoiceForbidden = o.ToolChoice != nil && *o.ToolChoice == schema.ToolChoiceForbidden
	return req
}

// Generate calls the inner model and charges its usage.
func (c *ChargingModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	opts = c.options(opts)
	call, err := c.Run.StartModel(ctx, input, func() drive.ModelOptions { return c.request(opts, false) })
	if err != nil {
		return nil, err
	}
	out, err := c.Inner.Generate(c.asked(ctx, call), input, opts...)
	return out, call.End(ctx, out, err)
}

// Stream calls the inner model and charges its usage at the end of the
// stream.
func (c *ChargingModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	opts = c.options(opts)
	call, err := c.Run.StartModel(ctx, input, func() drive.ModelOptions { return c.request(opts, true) })
	if err != nil {
		return nil, err
	}
	sr, err := c.Inner.Stream(c.asked(ctx, call), input, opts...)
	if err != nil {
		return sr, call.End(ctx, nil, err)
	}
	return c.pass(ctx, call.Streamed(), sr), nil
}

// asked returns the ctx to call the inner model with: one that asks it
// for its model and provider (see asking) when call should ask.
func (c *ChargingModel) asked(ctx context.Context, call drive.ModelCall) context.Context {
	if call.AskModel() {
		return asking(ctx, c.Run)
	}
	return ctx
}

// streamBuffer is how many chunks of a streamed reply may wait for its
// reader.
const streamBuffer = 16

// pass hands a streamed reply on, read to its end by Relay. The attempt
// is charged and recorded at the end of the reply, or at its first error,
// even when the reader closed its end before then: a runtime may stop
// reading a reply once it has seen enough of it (react's tool-call check,
// a step limit), and the reply still cost its tokens. An error in
// mid-stream made from a ctx of the model's own, after the budget deadline
// passed, is the budget's.
func (c *ChargingModel) pass(ctx context.Context, call drive.ModelCall, sr *schema.StreamReader[*schema.Message]) *schema.StreamReader[*schema.Message] {
	var last *budget.Usage
	var calls toolCallCount
	var chunks []*schema.Message // kept only for the recording
	recording := call.Recorded()
	each := func(chunk *schema.Message) {
		if u := drive.UsageOf(chunk); u != nil {
			last = mergeUsage(last, u)
		}
		calls.add(chunk)
		if recording {
			chunks = append(chunks, chunk)
		}
	}
	end := func(err error, _ bool) error {
		if err != nil {
			return call.EndStream(ctx, nil, nil, -1, err)
		}
		var msg *schema.Message
		if recording {
			msg = c.reply(ctx, chunks)
		}
		return call.EndStream(ctx, msg, last, calls.n(), nil)
	}
	return Relay(sr, streamBuffer, each, end)
}

// reply concatenates a streamed reply's chunks for the recording.
func (c *ChargingModel) reply(ctx context.Context, chunks []*schema.Message) *schema.Message {
	defer func() {
		if p := recover(); p != nil {
			c.Run.OnError(ctx, panicError("recording a model reply", p))
		}
	}()
	msg, err := schema.ConcatMessages(chunks)
	if err != nil {
		c.Run.OnError(ctx, err)
	}
	return msg
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
		CachedTokens:     max(a.CachedTokens, b.CachedTokens),
		CacheWriteTokens: max(a.CacheWriteTokens, b.CacheWriteTokens),
		ReasoningTokens:  max(a.ReasoningTokens, b.ReasoningTokens),
	}
}
