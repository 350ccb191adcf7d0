package lookoutreact

import (
	"context"

	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// MessageModifier returns a react.MessageModifier that runs next, if not
// nil, and then [Lookout.Inject]s the current assessment and, on a wrap-up
// turn, the wrap-up reminder. Set it as react.AgentConfig.MessageModifier;
// pass the agent's own modifier as next to keep it.
//
// react applies the modifier to a copy of the history before each model
// call and does not keep what it returns, so the injected block never
// piles up in the history.
func (l *Lookout) MessageModifier(next react.MessageModifier) react.MessageModifier {
	l.config()
	return func(ctx context.Context, input []*schema.Message) []*schema.Message {
		if next != nil {
			input = next(ctx, input)
		}
		return l.Inject(ctx, input)
	}
}

// Inject returns the model input for the next call: msgs without any
// message Lookout injected before, followed by the current assessment if
// it is not stale and the wrap-up reminder if tokens or time are nearly
// spent. The model input thus holds at most one assessment block.
//
// msgs is never modified; when there is nothing to add or remove it is
// returned as is, otherwise the result is a new slice. In a compose graph,
// call Inject on the model node's input (for example in its state
// pre-handler) and do not store the result in the graph's state.
func (l *Lookout) Inject(ctx context.Context, msgs []*schema.Message) []*schema.Message {
	r := l.run(ctx, "inject")
	if r == nil {
		return msgs
	}
	add := r.NextTurn().Messages
	stale := 0
	for _, m := range msgs {
		if _, ok := engine.Injected(m); ok {
			stale++
		}
	}
	if stale == 0 && len(add) == 0 {
		return msgs
	}
	out := make([]*schema.Message, 0, len(msgs)-stale+len(add))
	for _, m := range msgs {
		if _, ok := engine.Injected(m); !ok {
			out = append(out, m)
		}
	}
	return append(out, add...)
}
