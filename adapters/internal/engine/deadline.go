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
// does. Contexts derived from it, by Eino or by a tool, inherit that Err.
func WithDeadline(parent context.Context, d time.Time, cause *budget.ExceededError) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithDeadlineCause(parent, d, cause)
	c := &deadlineCtx{Context: inner, done: make(chan struct{}), cause: cause}
	context.AfterFunc(inner, func() { close(c.done) })
	return c, cancel
}

// deadlineCtx is the ctx of WithDeadline. Its Done channel is its own,
// closed once inner is done, so that the context package does not take
// inner for it: contexts derived from it are cancelled through AfterFunc
// with its Err, not with inner's.
type deadlineCtx struct {
	context.Context // inner: the deadline, and parent's cancellation
	done            chan struct{}
	cause           *budget.ExceededError
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

// Err returns nil until c is done; then the budget error if the deadline
// ended it, or inner's error if parent's cancellation did.
func (c *deadlineCtx) Err() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	if context.Cause(c.Context) == error(c.cause) {
		return deadlineError{c.cause}
	}
	return c.Context.Err()
}

// AfterFunc arranges for f to run once c is done. The context package
// uses it to cancel the contexts derived from c.
func (c *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	return context.AfterFunc(c.Context, func() {
		<-c.done
		f()
	})
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
