package engine

import (
	"context"
	"time"

	"github.com/lookout-go/lookout/budget"
)

// WithDeadline returns a copy of parent that is done at d, like
// context.WithDeadlineCause with cause as the cause, except for its Err:
// once d has passed, Err returns the budget error rather than
// context.DeadlineExceeded. The error still satisfies
// errors.Is(err, context.DeadlineExceeded).
//
// Eino checks the run's ctx between the nodes of its graph and ends the
// run with an error wrapping ctx.Err(). With this ctx, a deadline that
// passes while a tool runs, or between two hooks, ends the run with an
// error that satisfies errors.Is(err, budget.ErrExceeded) and errors.As
// to *budget.ExceededError, as a deadline noticed by Lookout's own hooks
// does. Values derived with context.WithValue share this Err, and so do
// contexts derived after the deadline. A context with a cancellation of
// its own (WithCancel, WithTimeout) made before the deadline reports
// context.DeadlineExceeded, with the budget error as its context.Cause;
// the tool wrappers turn such an error from a tool into the budget error. Giving those contexts this Err too would take a
// callback registration for each, which Eino makes several of per model
// and tool call.
func WithDeadline(parent context.Context, d time.Time, cause *budget.ExceededError) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithDeadlineCause(parent, d, cause)
	return &deadlineCtx{Context: inner, cause: cause}, cancel
}

// deadlineCtx is the ctx of WithDeadline: inner with its Err changed.
type deadlineCtx struct {
	context.Context // inner: the deadline, and parent's cancellation
	cause           *budget.ExceededError
}

// Err returns the budget error if the deadline ended c, and otherwise
// inner's error.
func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == error(c.cause) {
		return deadlineError{c.cause}
	}
	return err
}

// deadlineError is a budget error that is also a deadline: errors.Is
// reports true for both budget.ErrExceeded and context.DeadlineExceeded.
type deadlineError struct{ *budget.ExceededError }

func (e deadlineError) Unwrap() error { return e.ExceededError }

func (deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// Timeout reports true, as context.DeadlineExceeded's method does.
func (deadlineError) Timeout() bool { return true }

// Temporary reports true, as context.DeadlineExceeded's method does.
func (deadlineError) Temporary() bool { return true }
