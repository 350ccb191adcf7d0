package lookoutadk

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
)

// Tag is the key Lookout sets in the Extra of every message it injects.
// Its value says what the message is: [TagAssessment] or [TagWrapUp].
const Tag = "lookout"

// The values of [Tag].
const (
	TagAssessment = "assessment"
	TagWrapUp     = "wrap_up"
)

// Injected reports whether msg was injected by Lookout, and what it is.
func Injected(msg *schema.Message) (kind string, ok bool) {
	if msg == nil || msg.Extra == nil {
		return "", false
	}
	kind, ok = msg.Extra[Tag].(string)
	return kind, ok
}

// BeforeModelRewriteState enforces the budget, injects the current
// assessment, and gives the wrap-up turn. Eino persists the state returned
// here, so earlier injected messages are removed before new ones are
// added: the model input never holds more than one assessment block.
func (m *middleware) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	r := runFrom(ctx)
	if r == nil || state == nil {
		return ctx, state, nil
	}
	r.ensure(ctx)

	if err := r.exceeded(ctx); err != nil {
		return ctx, nil, err
	}

	ns := *state
	var add []*schema.Message
	if block := observer.BuildContext(r.store, r.cfg.MaxAgeCalls); block != "" {
		add = append(add, r.message(block, TagAssessment))
	}
	if reason := r.nearlySpent(); reason != "" {
		r.wrapUp.Store(true)
		add = append(add, r.message(wrapUpText(reason), TagWrapUp))
		ns.ToolInfos = nil
		ns.DeferredToolInfos = nil
	}
	ns.Messages = r.reinject(state.Messages, add)
	return ctx, &ns, nil
}

// reinject returns a copy of msgs without the messages this run injected
// before, followed by add. The messages it injected are remembered by
// pointer, so the common case costs one pass of pointer comparisons; the
// first call of a run, or one after a resume, also drops tagged messages
// it does not know.
func (r *run) reinject(msgs, add []*schema.Message) []*schema.Message {
	r.mu.Lock()
	old, first := r.injected, !r.scanned
	r.injected, r.scanned = add, true
	r.mu.Unlock()

	// Copy the history in runs between the messages to drop: one memmove
	// per run rather than a test and an append per message.
	out := make([]*schema.Message, 0, len(msgs)+len(add))
	found, from := 0, 0
	for i, msg := range msgs {
		if len(old) > 0 && slices.Contains(old, msg) {
			out = append(out, msgs[from:i]...)
			from = i + 1
			found++
		}
	}
	out = append(out, msgs[from:]...)
	if first || found < len(old) {
		out = slices.DeleteFunc(out, func(msg *schema.Message) bool {
			_, ok := Injected(msg)
			return ok
		})
	}
	return append(out, add...)
}

func (r *run) message(content, kind string) *schema.Message {
	msg := &schema.Message{Role: r.cfg.InjectAs, Content: content, Extra: map[string]any{Tag: kind}}
	return msg
}

// exceeded returns the error that ends the run before a model call: the
// ctx's deadline cause, or an enforced resource already spent.
func (r *run) exceeded(ctx context.Context) error {
	if ctx.Err() != nil {
		var ex *budget.ExceededError
		if cause := context.Cause(ctx); errors.As(cause, &ex) {
			return cause
		}
		return ctx.Err()
	}
	var check []budget.Resource
	for _, res := range []budget.Resource{budget.Time, budget.Tokens} {
		if r.cfg.enforced(res) {
			check = append(check, res)
		}
	}
	if len(check) == 0 {
		return nil
	}
	return r.tracker.Check(check...)
}

// nearlySpent says which of time and tokens has WrapUpAt or less left, or
// "" when neither has.
func (r *run) nearlySpent() string {
	if r.cfg.WrapUpAt <= 0 {
		return ""
	}
	b, now := r.tracker.Budget(), r.tracker.Now()
	if f, ok := b.FractionRemaining(budget.Tokens, now); ok && f <= r.cfg.WrapUpAt {
		return "tokens: " + strconv.FormatInt(b.TokensUsed, 10) + " of " + strconv.FormatInt(b.MaxTokens, 10) + " used"
	}
	if left, ok := b.TimeRemaining(now); ok {
		if f, _ := b.FractionRemaining(budget.Time, now); f <= r.cfg.WrapUpAt {
			return "time: " + observer.FormatDuration(max(left, 0)) + " left before the deadline"
		}
	}
	return ""
}

func wrapUpText(reason string) string {
	return "## Budget nearly spent\n\n" +
		"Your budget is nearly spent (" + reason + "). Tools are withheld from this turn. " +
		"Write your final answer now: summarise what you have done, what you found, and what remains to be done."
}

// WrapModel charges the budget for every model call attempt, streaming
// ones included. Usage comes from the reply's ResponseMeta.Usage; for a
// stream, from the last chunk that carries it.
func (m *middleware) WrapModel(ctx context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	r := runFrom(ctx)
	if r == nil {
		return inner, nil
	}
	return &chargingModel{inner: inner, run: r}, nil
}

type chargingModel struct {
	inner model.BaseChatModel
	run   *run
}

func (c *chargingModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	out, err := c.inner.Generate(ctx, input, opts...)
	if err != nil {
		return out, err
	}
	c.run.tracker.ChargeModelCall(usageOf(out))
	return out, nil
}

func (c *chargingModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	sr, err := c.inner.Stream(ctx, input, opts...)
	if err != nil {
		return sr, err
	}
	var last *budget.Usage
	return schema.StreamReaderWithConvert(sr,
		func(chunk *schema.Message) (*schema.Message, error) {
			if u := usageOf(chunk); u != nil {
				last = u
			}
			return chunk, nil
		},
		schema.WithOnEOF(func() (any, error) {
			c.run.tracker.ChargeModelCall(last)
			return nil, io.EOF
		}),
	), nil
}

// usageOf converts a reply's usage; nil means the provider reported none.
func usageOf(msg *schema.Message) *budget.Usage {
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
