package engine

import (
	"context"
	"io"

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
}

// Generate calls the inner model and charges its usage.
func (c *ChargingModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if err := c.Run.Failure(); err != nil {
		return nil, err
	}
	c.Run.recordRequest(ctx, input, opts)
	start := c.Run.startLatency()
	out, err := c.Inner.Generate(ctx, input, opts...)
	if err != nil {
		return out, err
	}
	u := UsageOf(out)
	c.Run.Tracker.ChargeModelCall(u)
	c.Run.recordResponse(ctx, out, u, c.Run.latencySince(start))
	if out != nil {
		c.Run.Pipeline.ModelResponded(ctx, len(out.ToolCalls))
	}
	return out, c.Run.Failure()
}

// Stream calls the inner model and charges its usage at the end of the
// stream.
func (c *ChargingModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if err := c.Run.Failure(); err != nil {
		return nil, err
	}
	c.Run.recordRequest(ctx, input, opts)
	start := c.Run.startLatency()
	sr, err := c.Inner.Stream(ctx, input, opts...)
	if err != nil {
		return sr, err
	}
	var last *budget.Usage
	var calls toolCallCount
	var chunks []*schema.Message // kept only for the recording
	recording := c.Run.trace.rec != nil
	return schema.StreamReaderWithConvert(sr,
		func(chunk *schema.Message) (*schema.Message, error) {
			if u := UsageOf(chunk); u != nil {
				last = u
			}
			calls.add(chunk)
			if recording {
				chunks = append(chunks, chunk)
			}
			return chunk, nil
		},
		schema.WithOnEOF(func() (any, error) {
			c.Run.Tracker.ChargeModelCall(last)
			if recording {
				msg, err := schema.ConcatMessages(chunks)
				if err != nil {
					c.Run.Cfg.OnError(ctx, err)
				}
				c.Run.recordResponse(ctx, msg, last, c.Run.latencySince(start))
			}
			c.Run.Pipeline.ModelResponded(ctx, calls.n())
			if err := c.Run.Failure(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}),
	), nil
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
