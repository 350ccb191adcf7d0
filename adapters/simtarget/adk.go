package simtarget

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/simulate"
)

// Runner adapts an ADK runner. Each Respond runs the agent afresh on the
// whole history (adk.Runner keeps nothing between runs), drains the event
// iterator, and returns the assistant and tool messages of the events in
// order; streamed messages are concatenated. The options are passed to every
// run.
//
// An event error ends the turn with that error, after the messages seen
// before it. The target is safe for concurrent use when the agent is.
func Runner(r *adk.Runner, opts ...adk.AgentRunOption) simulate.Target {
	return &runnerTarget{r: r, opts: opts}
}

// Agent adapts an ADK agent through a non-streaming adk.Runner without a
// checkpoint store. Use Runner to configure the runner yourself.
func Agent(ctx context.Context, a adk.Agent, opts ...adk.AgentRunOption) simulate.Target {
	if a == nil {
		return &runnerTarget{}
	}
	return Runner(adk.NewRunner(ctx, adk.RunnerConfig{Agent: a}), opts...)
}

type runnerTarget struct {
	r    *adk.Runner
	opts []adk.AgentRunOption
}

func (t *runnerTarget) Respond(ctx context.Context, history []*schema.Message) ([]*schema.Message, error) {
	if t.r == nil {
		return nil, ErrNilAgent
	}
	iter := t.r.Run(ctx, history, t.opts...)
	var out []*schema.Message
	var runErr error
	// Drain every event, even after an error, so the run's goroutines end.
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		if runErr != nil {
			continue
		}
		if ev.Err != nil {
			runErr = ev.Err
			continue
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			mv := ev.Output.MessageOutput
			msg, err := mv.GetMessage()
			if err != nil {
				runErr = fmt.Errorf("simtarget: reading %s message stream: %w", mv.Role, err)
				continue
			}
			if msg != nil && (msg.Role == schema.Assistant || msg.Role == schema.Tool) {
				out = append(out, msg)
			}
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			runErr = ErrInterrupted
		}
	}
	return out, runErr
}
