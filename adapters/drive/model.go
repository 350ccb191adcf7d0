package drive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/recorder"
)

// ModelOptions describe a model call attempt for the recording: the
// options it is made with.
type ModelOptions struct {
	// Model names the model when the call's options say (a per-call
	// override, which wins over what the model's callbacks report).
	Model string
	// Provider names the model's implementation when the adapter knows
	// it, such as Eino's component type ("OpenAI"); what the model's
	// callbacks report wins over it.
	Provider string
	// Tools are the tools offered to the model.
	Tools []*schema.ToolInfo
	// ToolChoiceForbidden says the call forbids tool calls.
	ToolChoiceForbidden bool
	// Stream says the call asks for a streamed reply.
	Stream bool
}

// ModelCall is one attempt at a model call, from [Run.StartModel] to its
// end. Every attempt is charged, retries included. The zero ModelCall
// records and charges nothing.
type ModelCall struct {
	run   *Run
	start time.Time
	// streamed says the attempt is counted in its run's open streams.
	streamed bool
	// model and provider are what the call's options say; see
	// ModelOptions.
	model, provider string
}

// Streamed returns c marked as a streamed reply, whose end may come after
// the runtime has stopped reading it: the run's end waits for it (a
// second at most), so that its charge and record come before run_ended.
func (c ModelCall) Streamed() ModelCall {
	if c.run == nil || c.streamed {
		return c
	}
	c.run.streams.add()
	c.streamed = true
	return c
}

// StartModel begins a model call attempt with input: it records the
// request, which req describes; req is called only when the run is
// recorded. It returns the recording failure that must end the run, if
// any; the call must not be made then. Should Lookout's own work panic,
// the panic goes to Config.OnError and the attempt goes ahead unobserved.
func (r *Run) StartModel(ctx context.Context, input []*schema.Message, req func() ModelOptions) (ModelCall, error) {
	if r.cfg.Recorder == nil && len(r.cfg.Prices) == 0 {
		// Nothing to record, price or fail: no work that could panic.
		r.family.attempts.add()
		return ModelCall{run: r}, nil
	}
	return r.startModel(ctx, input, req)
}

// startModel is StartModel for a run that may be recorded or priced.
func (r *Run) startModel(ctx context.Context, input []*schema.Message, req func() ModelOptions) (c ModelCall, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.fault(ctx, "preparing a model call", p)
			c, err = ModelCall{}, nil
		}
	}()
	if err := r.Failure(); err != nil {
		return ModelCall{}, err
	}
	c.run = r
	switch {
	case r.trace.rec != nil:
		o := req()
		c.model, c.provider = o.Model, o.Provider
		r.writeRequest(ctx, input, o)
		c.start = r.cfg.Now()
	case len(r.cfg.Prices) > 0:
		o := req()
		c.model, c.provider = o.Model, o.Provider
	}
	r.family.attempts.add()
	return c, nil
}

// modelID is a model and its provider, as a model's callbacks report
// them.
type modelID struct{ model, provider string }

// IdentifyModel says which model and provider the run's current model
// call uses, as the model's own callbacks report them (Eino's callback
// input config and run info). Adapters call it from a callback handler;
// the call's record and its cost use it unless the call's options named
// a model. Empty values say nothing.
func (r *Run) IdentifyModel(model, provider string) {
	if r == nil || model == "" && provider == "" {
		return
	}
	if cur := r.seenModel.Load(); cur != nil && cur.model == model && cur.provider == provider {
		return
	}
	r.seenModel.Store(&modelID{model, provider})
}

// AskModel reports whether call c should learn its model and provider
// from the model's own callbacks, which the program need not have passed
// the run a handler for (see Run.IdentifyModel): the call is recorded or
// priced, its options name no model, and no call of the run has been
// asked before nor has told the run its model. A run asks once, so that
// its later calls pay nothing for it; a model that reports nothing is
// asked no more.
func (c ModelCall) AskModel() bool {
	return c.run != nil && c.model == "" && (c.run.trace.rec != nil || len(c.run.cfg.Prices) > 0) &&
		c.run.seenModel.Load() == nil && !c.run.asked.Load() && c.run.asked.CompareAndSwap(false, true)
}

// identify returns the model and provider of call c: the call's options
// first, then the model's callbacks, then the configured agent model.
func (c ModelCall) identify() (model, provider string) {
	model, provider = c.model, c.provider
	if seen := c.run.seenModel.Load(); seen != nil {
		if model == "" {
			model = seen.model
		}
		if seen.provider != "" {
			provider = seen.provider
		}
	}
	if model == "" {
		model = c.run.cfg.Agent.Model
	}
	return model, provider
}

// Recorded reports whether the attempt is recorded, so that its reply is
// worth collecting.
func (c ModelCall) Recorded() bool { return c.run != nil && c.run.trace.rec != nil }

// End ends an attempt that answered with reply, or failed with err: the
// reply's usage is charged (a reply without usage is counted as a call
// without usage, apart from one that reported zero), the reply is
// recorded, and the observers learn how many tool calls it made. It
// returns err, replaced by the budget's error when the budget's deadline
// cut the call short, or else the recording failure that must end the
// run.
func (c ModelCall) End(ctx context.Context, reply *schema.Message, err error) error {
	toolCalls := -1
	if reply != nil {
		toolCalls = len(reply.ToolCalls)
	}
	return c.end(ctx, reply, UsageOf(reply), toolCalls, err)
}

// EndStream is End for a streamed reply, whose usage and tool calls the
// adapter collected from its chunks: usage nil means none was reported,
// and toolCalls is negative when there was no reply to count. reply may
// be nil when nothing is recorded.
func (c ModelCall) EndStream(ctx context.Context, reply *schema.Message, usage *budget.Usage, toolCalls int, err error) error {
	return c.end(ctx, reply, usage, toolCalls, err)
}

// end is End and EndStream, on the caller's copy of the call.
func (c *ModelCall) end(ctx context.Context, reply *schema.Message, usage *budget.Usage, toolCalls int, err error) (out error) {
	r := c.run
	if r == nil {
		if err != nil {
			return budgetDeadline(ctx, err)
		}
		return nil
	}
	// One deferred call, in the order of the three it stands for: a
	// panic in the charge is recovered once the call succeeded (guarded),
	// then the attempt leaves the run's open streams and the attempts in
	// flight.
	guarded := false
	defer func() {
		if guarded {
			if p := recover(); p != nil {
				r.fault(ctx, "charging a model call", p)
				out = nil
			}
		}
		if c.streamed {
			r.streams.done()
		}
		r.family.attempts.done()
	}()
	if err != nil {
		r.chargeCall(nil)
		if r.trace.rec != nil {
			model, provider := c.identify()
			r.writeFailed(ctx, err, r.cfg.Now().Sub(c.start), model, provider)
		}
		return budgetDeadline(ctx, err)
	}
	guarded = true
	var model, provider string
	if r.trace.rec != nil || len(r.cfg.Prices) > 0 {
		model, provider = c.identify()
		usage = r.priced(ctx, model, usage)
	}
	r.chargeCall(usage)
	if r.trace.rec != nil {
		r.writeResponse(ctx, reply, usage, r.cfg.Now().Sub(c.start), model, provider)
	}
	if toolCalls >= 0 {
		r.pipeline.ModelResponded(ctx, toolCalls)
	}
	return r.Failure()
}

// priced returns usage with its cost from Config.Prices for model, when
// the prices name the model; otherwise usage itself. Under a cost limit,
// the query's first call that no price matched is told to
// Config.OnError and recorded as an "unpriced" budget record: it costs
// nothing against the limit.
func (r *Run) priced(ctx context.Context, model string, usage *budget.Usage) *budget.Usage {
	if usage == nil || len(r.cfg.Prices) == 0 {
		return usage
	}
	cost, ok := r.cfg.Prices.Cost(model, *usage)
	if !ok {
		if r.cfg.Limits.MaxCostUSD > 0 && !r.family.unpriced.Load() && r.family.unpriced.CompareAndSwap(false, true) {
			r.unpriced(ctx, model)
		}
		return usage
	}
	priced := *usage
	priced.CostUSD = cost
	return &priced
}

// unpriced tells that a call to model, under a cost limit, had no price.
func (r *Run) unpriced(ctx context.Context, model string) {
	r.OnError(ctx, fmt.Errorf("lookout: %w %q: its calls cost nothing against Limits.MaxCostUSD; add it to Config.Prices", budget.ErrUnpriced, model))
	if r.trace.rec != nil {
		b := r.tracker.Budget()
		r.note(r.trace.rec.Budget(ctx, recorder.BudgetRecord{
			Event: recorder.BudgetUnpriced, Resource: string(budget.CostUSD),
			Used: budget.MicroUSD(b.CostUSD), Limit: budget.MicroUSD(b.MaxCostUSD),
		}))
	}
}

// chargeCall charges a model call attempt's usage to the budget, and to
// the lease of a run that has one. The first attempt of a call the gate
// counted is not counted again. A failed attempt is charged as a call
// without usage: it counts against a model-call limit, and the token
// figures are a lower bound. A nil r charges nothing.
func (r *Run) chargeCall(usage *budget.Usage) {
	if r == nil {
		return
	}
	if r.reserved.Load() && r.reserved.CompareAndSwap(true, false) {
		r.tracker.ChargeReserved(usage)
	} else {
		r.tracker.ChargeModelCall(usage)
	}
	if r.lease == nil {
		return
	}
	r.spent.modelCalls.Add(1)
	if usage != nil {
		r.spent.tokens.Add(usage.Total())
	}
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
		CachedTokens:     int64(u.PromptTokenDetails.CachedTokens),
		CacheWriteTokens: int64(u.PromptTokenDetails.CacheWriteTokens),
		ReasoningTokens:  int64(u.CompletionTokensDetails.ReasoningTokens),
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
