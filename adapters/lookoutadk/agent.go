package lookoutadk

import (
	"context"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/adk"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// Agent returns a, wrapped so that each query the Runner runs on it is
// one Lookout run: Run and Resume start it, the ChatModelAgents inside
// run as it or as its children, and its end, errors included, is
// recorded before the iterator reports the last event or the error:
//
//	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)})
//
// A program that closes its Recorder right after reading the events to
// their end loses nothing. A run an interrupt pauses is not ended: its
// Resume goes on with the same recording, from the checkpoint. The
// returned agent is resumable when a is.
func (m *Middleware) Agent(a adk.Agent) adk.Agent {
	w := &agent{inner: a, m: m}
	if r, ok := a.(adk.ResumableAgent); ok {
		return &resumable{agent: w, inner: r}
	}
	return w
}

// agent is the wrapper Middleware.Agent returns.
type agent struct {
	inner adk.Agent
	m     *Middleware
}

func (a *agent) Name(ctx context.Context) string        { return a.inner.Name(ctx) }
func (a *agent) Description(ctx context.Context) string { return a.inner.Description(ctx) }

// Run starts the query's run, runs the agent under it and ends it when
// the agent's events end.
func (a *agent) Run(ctx context.Context, input *adk.AgentInput, opts ...adk.AgentRunOption) *adk.AsyncIterator[*adk.AgentEvent] {
	return a.start(ctx, input, func(ctx context.Context) *adk.AsyncIterator[*adk.AgentEvent] {
		return a.inner.Run(ctx, input, opts...)
	})
}

// start starts the run of a query with input, or of a resume when input
// is nil, calls run under it and forwards its events.
func (a *agent) start(ctx context.Context, input *adk.AgentInput, run func(context.Context) *adk.AsyncIterator[*adk.AgentEvent]) *adk.AsyncIterator[*adk.AgentEvent] {
	resumed := input == nil
	ctx, r, err := a.m.l.Start(ctx, lookout.StartOptions{
		AgentName: a.inner.Name(ctx),
		CallID:    engine.ToolCallFrom(ctx),
		// The recording begins at the first hook inside the agent, where
		// the checkpoint can be read and the run registered for the
		// checkpoints to come.
		Deferred: true,
		Resumed:  resumed,
	})
	if err != nil {
		it, gen := adk.NewAsyncIteratorPair[*adk.AgentEvent]()
		gen.Send(&adk.AgentEvent{AgentName: a.inner.Name(ctx), Err: err})
		gen.Close()
		return it
	}
	if r == nil {
		return run(ctx)
	}
	c := &claim{run: r}
	if _, c.single = a.inner.(*adk.ChatModelAgent); !c.single && input != nil {
		// The segments of an agent other than a ChatModelAgent (a
		// supervisor, a workflow) run as the run's children; the query's
		// messages are the root's. A ChatModelAgent runs as the run
		// itself, and records the input it is given.
		r.RecordInput(ctx, input.Messages)
	}
	ctx = context.WithValue(ctx, claimKey{}, c)
	return forward(ctx, r, c, run(ctx))
}

// forward passes the events of in on, ending run r before the event that
// carries an error and before the end of the events, so that the caller
// sees neither before run_ended is queued for the recording.
func forward(ctx context.Context, r *lookout.Run, c *claim, in *adk.AsyncIterator[*adk.AgentEvent]) *adk.AsyncIterator[*adk.AgentEvent] {
	out, gen := adk.NewAsyncIteratorPair[*adk.AgentEvent]()
	rl := &relay{run: r, claim: c, ctx: context.WithoutCancel(ctx)}
	go func() {
		defer gen.Close()
		for {
			ev, ok := in.Next()
			if !ok {
				break
			}
			if rl.pass(ev) {
				gen.Send(ev)
			}
		}
		rl.finish()
	}()
	return out
}

// relay is the state of forward's goroutine.
type relay struct {
	run   *lookout.Run
	claim *claim
	ctx   context.Context // the run's, without its cancellation
	// last is the error the run ended with; interrupted says an
	// interrupt paused the run.
	last        error
	interrupted bool
}

// pass notes what event ev says of the run, ending the run before an
// error event, and reports whether ev is passed on: the run ends with the
// first error, and Eino may report it again as the agents above the one
// that failed unwind (a transfer back that finds the run over).
func (rl *relay) pass(ev *adk.AgentEvent) bool {
	if ev == nil {
		return true
	}
	if ev.Action != nil && ev.Action.Interrupted != nil {
		rl.interrupted = true
	}
	if rl.claim.unobserved(ev.AgentName) {
		rl.run.OnError(rl.ctx, fmt.Errorf("%w: %q", ErrUnobservedAgent, ev.AgentName))
	}
	if ev.Err == nil {
		return true
	}
	if rl.last != nil {
		return false
	}
	rl.last = ev.Err
	rl.run.End(rl.ctx, ev.Err)
	return true
}

// finish ends the run once its events are over, unless an interrupt
// paused it: the resume goes on with the recording.
func (rl *relay) finish() {
	if rl.interrupted && rl.last == nil {
		rl.run.Release()
		return
	}
	rl.run.End(rl.ctx, rl.last)
}

// resumable is the wrapper of an agent that can resume.
type resumable struct {
	*agent
	inner adk.ResumableAgent
}

// Resume starts the run again from a checkpoint: its recording goes on
// where it stopped, once the agent reads the checkpoint.
func (a *resumable) Resume(ctx context.Context, info *adk.ResumeInfo, opts ...adk.AgentRunOption) *adk.AsyncIterator[*adk.AgentEvent] {
	return a.start(ctx, nil, func(ctx context.Context) *adk.AsyncIterator[*adk.AgentEvent] {
		return a.inner.Resume(ctx, info, opts...)
	})
}

// ErrUnobservedAgent is reported to Config.OnError, once per agent and
// query, when an agent sends events in a query run through
// [Middleware.Agent] without having started a run: it has no Lookout
// middleware in its Handlers (or is not a ChatModelAgent), so its model
// and tool calls are neither charged nor recorded.
var ErrUnobservedAgent = errors.New("lookoutadk: an agent in the query runs without the Lookout middleware")
