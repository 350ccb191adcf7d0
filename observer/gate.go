package observer

import (
	"context"
	"fmt"
	"time"
)

// Gatekeeper is an optional interface for an observer that can refuse a
// tool call before it runs, such as the next call of a loop it has
// reported. The adapter asks [Pipeline.Admit] before each call; a refusal
// is the tool message the model gets instead of the call's result, as
// when the budget refuses a call.
//
// Refuse is called under the pipeline's lock, as ShouldRun is, with the
// observer's [Incremental] state up to date with every call so far. It
// should be quick, and refuse only what its assessments warned about.
type Gatekeeper interface {
	Observer
	// Refuse returns the message to give the model instead of running the
	// call to tool with args, or "" to let the call run.
	Refuse(ctx context.Context, oc *Context, tool, args string) string
}

// Admit asks each [Gatekeeper], in configuration order, whether a call to
// tool with args may run. It returns the first refusal and the name of the
// observer that made it, or "" and "" when the call may run. It never
// fails: a Gatekeeper that panics lets the call run, and its panic goes to
// the error handler.
func (p *Pipeline) Admit(ctx context.Context, tool, args string) (refusal, by string) {
	if !p.anyGatekeeper {
		return "", ""
	}
	return p.admit(ctx, tool, args)
}

// admit is Admit for a pipeline with a Gatekeeper. Admit, which is left
// small enough to be inlined, costs its caller next to nothing without
// one.
func (p *Pipeline) admit(ctx context.Context, tool, args string) (refusal, by string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var tally Tally
	p.tally.Read(func(t Tally, _ bool) { tally = t })
	now := p.clock()
	for i := range p.members {
		g := p.members[i].roles.gate
		if g == nil {
			continue
		}
		if r := p.askGate(ctx, i, g, tool, args, tally, now); r != "" {
			return r, p.members[i].name
		}
	}
	return "", ""
}

// askGate asks Gatekeeper i about a call, isolating a panic.
func (p *Pipeline) askGate(ctx context.Context, i int, g Gatekeeper, tool, args string, tally Tally, now time.Time) (refusal string) {
	defer func() {
		if r := recover(); r != nil {
			p.onError(ctx, &Error{Observer: p.members[i].name, Phase: "refuse", Err: fmt.Errorf("%w: %v", ErrPanicked, r)})
			refusal = ""
		}
	}()
	oc := p.context(i, now, p.calls.Total(), tally)
	oc.state = p.catchUp(i, oc)
	return g.Refuse(ctx, oc, tool, args)
}
