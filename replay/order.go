package replay

import (
	"context"
	"slices"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
)

// Middleware returns an ADK middleware that runs the tool calls of one
// reply one at a time, in the order their results were recorded. Lookout
// numbers a call when it ends, so the calls then take the indices they
// had in the recording, and assessments come after the same calls.
// Register it in each agent's Handlers before Lookout's middleware (the
// first registered is the outermost). In record mode it does nothing.
//
// Without it, parallel calls still get their recorded results, but take
// indices in the order they end, which goroutines decide.
func (c *Cassette) Middleware() adk.ChatModelAgentMiddleware {
	return &ordering{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, c: c}
}

// ToolMiddleware is [Cassette.Middleware] for react agents and compose
// graphs: put it in ToolsNodeConfig.ToolCallMiddlewares before Lookout's.
func (c *Cassette) ToolMiddleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
			defer c.inTurn(ctx, in.Name, in.CallID)()
			return next(ctx, in)
		}
	}}
}

type ordering struct {
	*adk.BaseChatModelAgentMiddleware
	c *Cassette
}

func (o *ordering) WrapInvokableToolCall(_ context.Context, next adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		defer o.c.inTurn(ctx, tc.Name, tc.CallID)()
		return next(ctx, args, opts...)
	}, nil
}

// turnWait bounds how long a call waits for a call recorded before it
// that does not come, as when the run left the recording.
const turnWait = 5 * time.Second

// inTurn waits until the calls of the same reply recorded as ending
// before call callID have ended, and returns the function that says this
// one has.
func (c *Cassette) inTurn(ctx context.Context, name, callID string) func() {
	if c.recording != nil || callID == "" {
		return func() {}
	}
	c.mu.Lock()
	rt := c.findTool(ctx, name, callID)
	if rt == nil || rt.call == nil || rt.ended == nil {
		c.mu.Unlock()
		return func() {}
	}
	before := rt.endedBefore()
	c.mu.Unlock()
	slices.SortFunc(before, func(a, b *recTool) int { return a.ended.CallIndex - b.ended.CallIndex })
	waitTurns(ctx, before)
	return rt.endTurn
}

// findTool is the recorded call of tool name with callID in the run of
// ctx, or nil. c.mu is held.
func (c *Cassette) findTool(ctx context.Context, name, callID string) *recTool {
	r := c.runFor(ctx)
	if r == nil {
		return nil
	}
	for _, t := range r.tools {
		if t.started.CallID == callID && t.started.Name == name {
			return t
		}
	}
	return nil
}

// endedBefore is the calls of the same reply as t recorded as ending
// before it, in no order.
func (t *recTool) endedBefore() []*recTool {
	var before []*recTool
	for _, o := range t.call.tools {
		if o != t && o.ended != nil && o.ended.CallIndex < t.ended.CallIndex {
			before = append(before, o)
		}
	}
	return before
}

// waitTurns waits until each of calls has ended, one after another, for
// turnWait in all at most, or until ctx is done.
func waitTurns(ctx context.Context, calls []*recTool) {
	timeout := time.NewTimer(turnWait)
	defer timeout.Stop()
	for _, t := range calls {
		select {
		case <-t.turn():
		case <-ctx.Done():
			return
		case <-timeout.C:
			return
		}
	}
}

// turn returns the channel closed once the call has ended.
func (t *recTool) turn() <-chan struct{} {
	t.once.Do(t.init)
	return t.over
}

func (t *recTool) endTurn() {
	t.once.Do(t.init)
	t.closeOnce.Do(func() { close(t.over) })
}

func (t *recTool) init() { t.over = make(chan struct{}) }
