package simtarget

import (
	"context"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/simulate"
)

// React adapts a react agent (flow/agent/react). Each Respond calls Generate
// on the whole history with react.WithMessageFuture added to opts, and
// returns every message the run produced: each model reply (tool-call
// messages and the final answer) and each tool result, in the order the
// agent emitted them. With parallel tool calls, results arrive in
// completion order.
//
// The target is safe for concurrent use when the agent is.
func React(a *react.Agent, opts ...agent.AgentOption) simulate.Target {
	return &reactTarget{a: a, opts: opts}
}

type reactTarget struct {
	a    *react.Agent
	opts []agent.AgentOption
}

func (t *reactTarget) Respond(ctx context.Context, history []*schema.Message) ([]*schema.Message, error) {
	if t.a == nil {
		return nil, ErrNilAgent
	}
	futOpt, future := react.WithMessageFuture()
	opts := append(append(make([]agent.AgentOption, 0, len(t.opts)+1), t.opts...), futOpt)
	final, err := t.a.Generate(ctx, history, opts...)
	if err != nil {
		// The future may never have started; reading it could block.
		return nil, err
	}
	var out []*schema.Message
	iter := future.GetMessages()
	for {
		msg, ok, err := iter.Next()
		if err != nil {
			return out, err
		}
		if !ok {
			break
		}
		if msg != nil {
			out = append(out, msg)
		}
	}
	if len(out) == 0 && final != nil {
		out = append(out, final)
	}
	return out, nil
}

// Runnable adapts a compiled compose graph or chain that maps the history
// to one reply. Only that reply is returned: the graph's intermediate tool
// messages are not visible from outside it, so prefer React (or an ADK
// agent) when goals need the agent's tool calls.
//
// The target is safe for concurrent use when the runnable is.
func Runnable(r compose.Runnable[[]*schema.Message, *schema.Message], opts ...compose.Option) simulate.Target {
	return simulate.TargetFunc(func(ctx context.Context, history []*schema.Message) ([]*schema.Message, error) {
		if r == nil {
			return nil, ErrNilAgent
		}
		msg, err := r.Invoke(ctx, history, opts...)
		if err != nil {
			return nil, err
		}
		if msg == nil {
			return nil, nil
		}
		return []*schema.Message{msg}, nil
	})
}
