// Package runctx holds what the root package, which users read runs
// with, and package drive, which adapters drive runs with, share: the
// handle a ctx carries a run under, and the session value of a
// conversation.
package runctx

import (
	"context"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// Reader is what a run shows to the components it runs.
type Reader interface {
	ID() string
	AgentName() string
	CallID() string
	Budget() budget.Budget
	Usage() recorder.RunUsage
	ToolCalls(n int) []observer.ToolCallRecord
	Assessment() (observer.CurrentAssessment, bool)
	WrappingUp() bool
}

// Handle is what a ctx carries of a run: the run, as read and as driven,
// and its parent's handle. A nil *Handle marks a run that goes on
// without Lookout.
type Handle struct {
	Reader Reader
	// Run is the run as its package drives it.
	Run    any
	Parent *Handle
}

type key struct{}

// NewContext returns a copy of ctx carrying h.
func NewContext(ctx context.Context, h *Handle) context.Context {
	return context.WithValue(ctx, key{}, h)
}

// FromContext returns the handle ctx carries; ok reports whether it
// carries one, nil included.
func FromContext(ctx context.Context) (h *Handle, ok bool) {
	h, ok = ctx.Value(key{}).(*Handle)
	return h, ok
}

// Conversation is what a session keeps of the conversation its runs
// form: its id and how many root runs have taken a turn in it.
type Conversation struct {
	ID    string `json:"id"`
	Turns int    `json:"turns"`
}
