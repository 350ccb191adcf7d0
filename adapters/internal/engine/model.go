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
	out, err := c.Inner.Generate(ctx, input, opts...)
	if err != nil {
		return out, err
	}
	c.Run.Tracker.ChargeModelCall(UsageOf(out))
	return out, nil
}

// Stream calls the inner model and charges its usage at the end of the
// stream.
func (c *ChargingModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	sr, err := c.Inner.Stream(ctx, input, opts...)
	if err != nil {
		return sr, err
	}
	var last *budget.Usage
	return schema.StreamReaderWithConvert(sr,
		func(chunk *schema.Message) (*schema.Message, error) {
			if u := UsageOf(chunk); u != nil {
				last = u
			}
			return chunk, nil
		},
		schema.WithOnEOF(func() (any, error) {
			c.Run.Tracker.ChargeModelCall(last)
			return nil, io.EOF
		}),
	), nil
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
