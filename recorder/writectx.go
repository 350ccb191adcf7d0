package recorder

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// writeCtx is the context of every sink call. The goroutine reuses one for
// all its calls, so a write allocates nothing. It carries the values of
// the ctx the record was emitted with, ends after the write timeout, and
// ends for good when a Close gives up. Sinks must not keep it after the
// call returns (see Sink).
type writeCtx struct {
	timeout time.Duration

	mu     sync.Mutex
	timer  *time.Timer // runs expire; made by the first call
	values context.Context
	done   chan struct{} // made by the first call
	err    error
	base   time.Time     // the monotonic clock's origin for due
	due    time.Duration // since base: the deadline of the call in progress or the last one, 0 for none
	armed  bool          // the timer will fire, at or before due
	gaveUp atomic.Bool
	why    error // why Close gave up
	// after holds what AfterFunc registered for the current done.
	after []*afterFunc
}

// afterFunc is a function registered with writeCtx.AfterFunc.
type afterFunc struct{ f func() }

// AfterFunc arranges to call f once the current call's ctx is done, and
// returns a function that cancels that, reporting whether it did. The
// context package uses it for contexts a sink derives from the write ctx
// (context.WithTimeout, say), which then need no goroutine of their own
// to learn that it ended.
func (c *writeCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f() // as context.AfterFunc does for a ctx already done
		return func() bool { return false }
	}
	c.after = append(c.after, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.after {
			if x == a {
				c.after = append(c.after[:i], c.after[i+1:]...)
				return true
			}
		}
		return false
	}
}

// fire calls the functions registered for the ctx that just ended, once
// c.mu is released; c.mu is held.
func (c *writeCtx) fire() func() {
	after := c.after
	c.after = nil
	if len(after) == 0 {
		return func() {}
	}
	return func() {
		for _, a := range after {
			a.f()
		}
	}
}

func (c *writeCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.due == 0 {
		return time.Time{}, false
	}
	return c.base.Add(c.due), true
}

func (c *writeCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

func (c *writeCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *writeCtx) Value(key any) any {
	c.mu.Lock()
	values := c.values
	c.mu.Unlock()
	if values == nil {
		return nil
	}
	return values.Value(key)
}

func (c *writeCtx) String() string { return "recorder.writeCtx" }

// begin starts a sink call carrying the values of values. A call that
// timed out, or a timer that fired after its call ended, left the channel
// closed: this call gets a fresh one, unless Close gave up.
//
// The timer is set only when it is not already running: deadlines only
// move later, so a timer set for an earlier call fires at or before this
// one's deadline, and expire sets it again for what is left. Setting and
// stopping a timer for every write would cost more than the write.
func (c *writeCtx) begin(values context.Context) {
	due := time.Since(c.base) + c.timeout
	c.mu.Lock()
	c.values = values
	if c.done == nil || c.err != nil && !c.gaveUp.Load() {
		c.done = make(chan struct{})
		c.err = nil
	}
	c.due = due
	switch {
	case c.timer == nil:
		// Made at the first call: the sinks of this package make none.
		c.armed = true
		c.timer = time.AfterFunc(c.timeout, c.expire)
	case !c.armed:
		c.armed = true
		c.timer.Reset(c.timeout)
	}
	c.mu.Unlock()
}

// end finishes a sink call. The call's deadline stays set: a timer that
// fires past it ends a ctx no sink may hold any more, which the next
// begin replaces.
func (c *writeCtx) end() {
	c.mu.Lock()
	c.values = nil
	c.mu.Unlock()
}

// expire ends the current ctx if its deadline has passed, and otherwise
// sets the timer again for the deadline. Once it has ended the ctx the
// timer stays stopped until the next call begins.
func (c *writeCtx) expire() {
	c.mu.Lock()
	c.armed = false
	if c.err != nil || c.due == 0 {
		c.mu.Unlock()
		return
	}
	if left := c.due - time.Since(c.base); left > 0 {
		c.armed = true
		c.timer.Reset(left)
		c.mu.Unlock()
		return
	}
	c.err = context.DeadlineExceeded
	close(c.done)
	fire := c.fire()
	c.mu.Unlock()
	fire()
}

// stop stops the timer for good, once the goroutine makes no more calls.
func (c *writeCtx) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.due = 0 // an expire already running finds nothing to do
	if c.timer != nil {
		c.timer.Stop()
	}
}

// abort ends the call in progress and every later one, with cause.
func (c *writeCtx) abort(cause error) {
	c.mu.Lock()
	if c.gaveUp.Load() {
		c.mu.Unlock()
		return
	}
	c.why = cause
	c.gaveUp.Store(true)
	if c.done == nil {
		c.done = make(chan struct{})
	}
	if c.err == nil {
		close(c.done)
	}
	c.err = context.Canceled
	fire := c.fire()
	c.mu.Unlock()
	fire()
}

func (c *writeCtx) aborted() bool { return c.gaveUp.Load() }

func (c *writeCtx) cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}
