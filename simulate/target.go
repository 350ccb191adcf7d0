package simulate

import (
	"context"

	"github.com/cloudwego/eino/schema"
)

// Target is the agent under test. Respond gets the whole conversation so
// far, ending with the simulated user's newest message, and returns what the
// agent produced in this turn: its assistant and tool messages, in order.
//
// Respond must not modify history or the messages in it. Adapters for Eino
// agents (adk.Runner, react agents, compose runnables) live in the
// adapters/simtarget package. A Target used by a batch with concurrency
// above one must be safe for concurrent use.
type Target interface {
	Respond(ctx context.Context, history []*schema.Message) ([]*schema.Message, error)
}

// TargetFunc adapts a plain function to Target. It is as safe for
// concurrent use as the function is.
type TargetFunc func(ctx context.Context, history []*schema.Message) ([]*schema.Message, error)

// Respond calls f.
func (f TargetFunc) Respond(ctx context.Context, history []*schema.Message) ([]*schema.Message, error) {
	return f(ctx, history)
}
