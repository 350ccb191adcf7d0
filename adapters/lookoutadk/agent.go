package lookoutadk

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/cloudwego/eino/adk"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/stack"
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
	w := &agent{inner: a, m: m, workflow: isWorkflow(a)}
	if r, ok := a.(adk.ResumableAgent); ok {
		return &resumable{agent: w, inner: r}
	}
	return w
}

// agent is the wrapper Middleware.Agent returns. workflow says inner is
// a workflow (sequential, loop, parallel, and plan-execute, which is one),
// whose events the wrapper gives the run path they have without it.
type agent struct {
	inner    adk.Agent
	m        *Middleware
	workflow bool
}

// isWorkflow reports whether a is one of Eino's workflow agents. The
// Runner wraps every agent it is given that is not one of Eino's own
// flow agents in a flow agent of its own, which starts the run path with
// the agent's name; a workflow agent is a flow agent that adds its name
// again, so that, wrapped, its events' run paths would start with its
// name twice. Eino's types are unexported: the check reads their names.
func isWorkflow(a adk.Agent) bool {
	v := reflect.ValueOf(a)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().String() != "*adk.flowAgent" {
		return false
	}
	inner := v.Elem().FieldByName("Agent")
	return inner.IsValid() && inner.Kind() == reflect.Interface && !inner.IsNil() &&
		inner.Elem().Type().String() == "*adk.workflowAgent"
}

// collapse gives ev the run path it has without the wrapper: the
// workflow's name once at its start.
func collapse(ev *adk.AgentEvent) {
	p := ev.RunPath
	if len(p) < 2 || !p[0].Equals(p[1]) {
		return
	}
	// A new slice: the old one is shared with the agent that made it.
	ev.RunPath = append([]adk.RunStep{p[0]}, p[2:]...)
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
	// The claim goes on the ctx under the run's own layers, which answer
	// the lookups of Eino's hooks from then on without one more layer to
	// pass for each; the run is filled in once started.
	rl := &relay{workflow: a.workflow}
	ctx, r, err := a.m.l.Start(context.WithValue(ctx, claimKey{}, &rl.claim), drive.StartOptions{
		AgentName: a.inner.Name(ctx),
		CallID:    engine.ToolCallFrom(ctx),
		// The recording begins at the first hook inside the agent, where
		// the checkpoint can be read and the run registered for the
		// checkpoints to come.
		Deferred: true,
		Resumed:  resumed,
		Held:     true,
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
	rl.run = r
	c := &rl.claim
	c.run = r
	if _, c.single = a.inner.(*adk.ChatModelAgent); !c.single && input != nil {
		// The segments of an agent other than a ChatModelAgent (a
		// supervisor, a workflow) run as the run's children; the query's
		// messages are the root's. A ChatModelAgent runs as the run
		// itself, and records the input it is given.
		r.RecordInput(ctx, input.Messages)
	}
	rl.ctx = ctx
	rl.in = run(ctx)
	return rl.forward()
}

// forward passes the events of rl.in on, unchanged and in order, ending
// the run before the caller can see the query's error or the end of its
// events. See relay.
func (rl *relay) forward() *adk.AsyncIterator[*adk.AgentEvent] {
	out, gen := adk.NewAsyncIteratorPair[*adk.AgentEvent]()
	rl.gen = gen
	// Ending the run takes 3 KiB of stack.
	stack.Go((*relay).loop, rl)
	return out
}

// loop is forward's goroutine.
func (rl *relay) loop() {
	defer rl.gen.Close()
	for ev, ok := rl.next(); ok; ev, ok = rl.next() {
		if !rl.plain(ev) {
			if rl.workflow && ev != nil {
				collapse(ev)
			}
			rl.pass(ev)
		}
		rl.gen.Send(ev)
	}
	rl.finish()
}

// plain reports whether ev is passed on as it is, with nothing to note:
// the usual event, of the agent of the event before, with no error and
// no action. An agent once found observed, or reported, stays so.
func (rl *relay) plain(ev *adk.AgentEvent) bool {
	return ev != nil && ev.Err == nil && ev.Action == nil && !rl.workflow && ev.AgentName == rl.seen
}

// lookahead bounds how long the first error event waits for the event
// after it, to learn whether it is the query's last.
const lookahead = 200 * time.Millisecond

// relay is the state of forward's goroutine. workflow says the agent is
// a workflow, whose events' run paths are collapsed.
type relay struct {
	run      *drive.Run
	claim    claim
	ctx      context.Context // the run's
	in       *adk.AsyncIterator[*adk.AgentEvent]
	gen      *adk.AsyncGenerator[*adk.AgentEvent]
	workflow bool
	// ahead carries the events of in once the relay looked ahead; see
	// last. peeked is the event read ahead and not yet passed on, and
	// done says in has no more.
	ahead  chan *adk.AgentEvent
	peeked *adk.AgentEvent
	done   bool
	// err is the first error among the events; interrupted says an
	// interrupt paused the run.
	err         error
	interrupted bool
	// seen names the agent of the last event passed on that was looked
	// at; see plain.
	seen string
}

// next returns the next event of in, false at their end.
func (rl *relay) next() (*adk.AgentEvent, bool) {
	switch {
	case rl.ahead == nil:
		return rl.in.Next()
	case rl.peeked != nil:
		ev := rl.peeked
		rl.peeked = nil
		return ev, true
	case rl.done:
		return nil, false
	}
	ev, ok := <-rl.ahead
	return ev, ok
}

// pass notes what event ev says of the query before it is passed on. An
// error event ends the runs of the agent that failed. The first also ends
// the query's run, so that a program that exits on it (log.Fatal, say)
// loses nothing: End waits, within Config.EndWait, for the model calls in
// flight and for the records to reach the sink. Eino may go on after an
// agent fails (a supervisor the agent hands back to may answer, other
// branches of a parallel workflow go on): then the run's sub-agents and
// its deadline are left to go on, and what they do is recorded after the
// run's end.
func (rl *relay) pass(ev *adk.AgentEvent) {
	if ev == nil {
		return
	}
	if ev.Action != nil && ev.Action.Interrupted != nil {
		rl.interrupted = true
	}
	if rl.claim.unobserved(ev.AgentName) {
		rl.run.OnError(rl.ctx, fmt.Errorf("%w: %q", ErrUnobservedAgent, ev.AgentName))
	}
	rl.seen = ev.AgentName
	if ev.Err == nil {
		return
	}
	rl.run.EndChildren(rl.ctx, ev.Err, ev.AgentName)
	if rl.err != nil {
		return
	}
	rl.err = ev.Err
	if rl.last() {
		rl.run.EndChildren(rl.ctx, rl.err)
	}
	rl.run.End(rl.ctx, rl.err)
}

// last reports whether the events end after the one being passed on,
// waiting up to lookahead for the next. The wait is on a goroutine that,
// once started, reads the rest of the events for next.
func (rl *relay) last() bool {
	rl.ahead = make(chan *adk.AgentEvent)
	go func() {
		defer close(rl.ahead)
		for ev, ok := rl.in.Next(); ok; ev, ok = rl.in.Next() {
			rl.ahead <- ev
		}
	}()
	t := time.NewTimer(lookahead)
	defer t.Stop()
	select {
	case ev, ok := <-rl.ahead:
		rl.peeked, rl.done = ev, !ok
		return !ok
	case <-t.C:
		return false
	}
}

// finish ends the run and its sub-agents' once the events are over,
// unless an interrupt paused the run: the resume goes on with the
// recording.
func (rl *relay) finish() {
	defer rl.run.Release()
	if rl.interrupted && rl.err == nil {
		return
	}
	rl.run.EndChildren(rl.ctx, rl.err)
	rl.run.End(rl.ctx, rl.err)
}

// QueryError returns the error a query's events end it with: the first
// of Lookout's deliberate stops among them (errors.Is(err,
// budget.ErrExceeded) or errors.Is(err, lookout.ErrRepeatRefused)), else
// the first error, or nil when none carries one. Eino may go on after an
// agent fails, so the error need not be the last event: a supervisor's
// agent that fails hands back to the supervisor, which may answer.
func QueryError(events []*adk.AgentEvent) error {
	var first error
	for _, ev := range events {
		switch {
		case ev == nil || ev.Err == nil:
		case errors.Is(ev.Err, budget.ErrExceeded), errors.Is(ev.Err, lookout.ErrRepeatRefused):
			return ev.Err
		case first == nil:
			first = ev.Err
		}
	}
	return first
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
