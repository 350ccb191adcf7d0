package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// Model is a chat model that answers each call with the recorded
// response of the same run and model-call index, with the recorded
// usage, after checking that the input matches the recorded one. It
// implements model.ToolCallingChatModel; get one from [Cassette.Model].
//
// Calls are matched to recorded runs through the Lookout run on their
// ctx (see [Cassette] for how), so concurrent agents replay the same
// whatever order their calls arrive in. Without a Lookout run on ctx,
// calls take the recorded root runs' calls in order.
//
// A Model is safe for concurrent use.
type Model struct {
	c     *Cassette
	tools []*schema.ToolInfo
}

var (
	_ model.ToolCallingChatModel = (*Model)(nil)
	_ components.Typer           = (*Model)(nil)
)

// WithTools returns a copy of m bound to tools; it shares the cassette.
func (m *Model) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &Model{c: m.c, tools: slices.Clone(tools)}, nil
}

// GetType returns "Replay", the type name shown in callbacks' RunInfo.
func (m *Model) GetType() string { return "Replay" }

// Generate answers with the recorded response, or returns the
// divergence.
func (m *Model) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	return m.play(ctx, input, opts)
}

// Stream answers with the recorded response as a stream of one message,
// or returns the divergence.
func (m *Model) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.play(ctx, input, opts)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *Model) play(ctx context.Context, input []*schema.Message, opts []model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := model.GetCommonOptions(&model.Options{Tools: m.tools}, opts...)
	c := m.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	r := c.runFor(ctx)
	if r == nil {
		return nil, c.noRun(ctx, "a model call")
	}
	k := r.next
	if k >= len(r.calls) {
		return nil, c.diverge(oneMore(r, k))
	}
	call := r.calls[k]
	c.advance(call.at)
	if d := c.check(r, k, input, o.Tools); d != nil {
		d.RunID, d.Agent, d.ModelCall, d.Seq = r.id, r.agent, k+1, call.seq
		return nil, c.diverge(d)
	}
	r.next++
	c.givenLive(r)
	c.played(call)
	if e := call.response.Error; e != "" {
		return nil, errors.New(e) // the recorded attempt failed
	}
	return reply(call.response), nil
}

// oneMore reports model call k of run r (from 0), which comes after all
// its recorded ones.
func oneMore(r *recRun, k int) *DivergenceError {
	return &DivergenceError{
		RunID: r.id, Agent: r.agent, ModelCall: k + 1, Seq: r.lastSeq(),
		Reason:  fmt.Sprintf("the recording has %d model calls, the run makes one more", len(r.calls)),
		Message: -1, ToolCallIndex: -1,
	}
}

// played moves the clock past call, answered. The caller holds c.mu.
func (c *Cassette) played(call *recCall) {
	c.advance(call.done)
	if len(call.tools) == 0 {
		// No recorded tool call will move the clock on: the reply ended
		// the run, or its calls were refused, and the checks that
		// refused them saw the time of what the run did next.
		c.advance(call.next)
	}
}

// lastSeq is the seq of the run's last record.
func (r *recRun) lastSeq() uint64 {
	if len(r.records) == 0 {
		return 0
	}
	return r.records[len(r.records)-1].Seq
}

// reply is a fresh copy of the recorded reply, carrying the recorded
// usage and finish reason.
func reply(resp *recorder.ModelResponse) *schema.Message {
	msg := &schema.Message{Role: schema.Assistant}
	if resp.Message != nil {
		*msg = *resp.Message
		msg.ToolCalls = slices.Clone(resp.Message.ToolCalls)
	}
	meta := &schema.ResponseMeta{FinishReason: resp.FinishReason}
	if resp.Message != nil && resp.Message.ResponseMeta != nil {
		*meta = *resp.Message.ResponseMeta
		if resp.FinishReason != "" {
			meta.FinishReason = resp.FinishReason
		}
	}
	meta.Usage = nil
	if resp.UsageReported {
		u := resp.Usage
		meta.Usage = &schema.TokenUsage{
			PromptTokens:            int(u.PromptTokens),
			CompletionTokens:        int(u.CompletionTokens),
			TotalTokens:             int(u.TotalTokens),
			PromptTokenDetails:      schema.PromptTokenDetails{CachedTokens: int(u.CachedTokens)},
			CompletionTokensDetails: schema.CompletionTokensDetails{ReasoningTokens: int(u.ReasoningTokens)},
		}
	}
	msg.ResponseMeta = meta
	return msg
}
