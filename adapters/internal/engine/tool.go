package engine

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/compose"

	"github.com/lookout-go/lookout"
)

// EndCall ends tool call c with the tool's result and error, as
// Call.End does, except that an interrupt is control flow, not an
// outcome: the call is paused (Eino runs it again when the run resumes)
// and result and err pass through.
func EndCall(ctx context.Context, c *lookout.Call, result string, err error) (string, error) {
	if IsInterrupt(err) {
		c.Pause(ctx)
		return result, err
	}
	return c.End(ctx, result, err)
}

// EndStream ends a streamed tool call as Call.EndStream does, pausing
// it on an interrupt.
func EndStream(ctx context.Context, c *lookout.Call, result string, err error) error {
	if IsInterrupt(err) {
		c.Pause(ctx)
		return err
	}
	return c.EndStream(ctx, result, err)
}

// IsInterrupt reports whether err is an Eino interrupt, which pauses a run
// rather than ends it.
func IsInterrupt(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := compose.IsInterruptRerunError(err); ok {
		return true
	}
	_, ok := compose.ExtractInterruptInfo(err)
	return ok
}

// Ended records the end of run r when a tool call ends it with err, and
// returns err. The end is recorded once the calls made beside it are.
// Interrupts pause the run rather than end it.
func Ended(ctx context.Context, r *lookout.Run, err error) error {
	if err != nil && !IsInterrupt(err) {
		r.EndAfterCalls(ctx, err)
	}
	return err
}

// Guarded runs the tool with run and returns what it returns. Should run
// panic, the call is recorded as failed (see Call.EndPanicked) and the
// panic goes on.
func Guarded[O any](ctx context.Context, c *lookout.Call, run func() (O, error)) (O, error) {
	done := false
	defer func() {
		if !done {
			c.EndPanicked(ctx)
		}
	}()
	out, err := run()
	done = true
	return out, err
}

type toolCallKey struct{}

// ToolCallMark stands for one tool call. Models number their calls within
// a turn, so two calls, at different depths of nested agents, may share an
// id; their marks differ.
type ToolCallMark struct{ id, name string }

// WithToolCall returns a copy of ctx that says it runs inside tool call id
// of tool name, so a sub-agent started by the call can name both.
func WithToolCall(ctx context.Context, id, name string) context.Context {
	return context.WithValue(ctx, toolCallKey{}, &ToolCallMark{id: id, name: name})
}

// ToolNameFrom returns the name of the tool whose call ctx runs inside,
// when WithToolCall marked it: an agent used as a tool has the agent's
// name.
func ToolNameFrom(ctx context.Context) string {
	if m := ToolCallMarkFrom(ctx); m != nil && m.id == ToolCallFrom(ctx) {
		return m.name
	}
	return ""
}

// ToolCallFrom returns the tool call ctx runs inside, if any: the one
// Eino's tool node marked, which is the innermost, or else the one
// WithToolCall marked.
func ToolCallFrom(ctx context.Context) string {
	if id := compose.GetToolCallID(ctx); id != "" {
		return id
	}
	if m := ToolCallMarkFrom(ctx); m != nil {
		return m.id
	}
	return ""
}

// ToolCallMarkFrom returns the mark of the tool call ctx runs inside, or
// nil.
func ToolCallMarkFrom(ctx context.Context) *ToolCallMark {
	m, _ := ctx.Value(toolCallKey{}).(*ToolCallMark)
	return m
}

// panicError describes a panic in Lookout's own work.
func panicError(what string, p any) error {
	return fmt.Errorf("lookout: %s panicked: %v", what, p)
}

// AgentNameFrom returns the name of the innermost ADK agent ctx runs in,
// from the address Eino's flow gives each agent it runs, or "".
func AgentNameFrom(ctx context.Context) string {
	addr := compose.GetCurrentAddress(ctx)
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i].Type == "agent" {
			return addr[i].ID
		}
	}
	return ""
}
