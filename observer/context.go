package observer

import (
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// Context is what an observer sees when it runs. It is built per run of an
// observer and is valid only during that call.
type Context struct {
	// Now is the pipeline's clock reading for this tool call.
	Now time.Time
	// CallIndex is the index of the call that triggered the run.
	CallIndex int64
	// State is this observer's trigger state before this run.
	State ObserverState
	// Tally holds the run-wide counters after this call.
	Tally Tally
	// Store is the session, for observers that keep slices of their own.
	Store *session.Store

	calls *session.Log[ToolCallRecord]
}

// Calls returns the session's tool-call log, for iteration.
func (c *Context) Calls() *session.Log[ToolCallRecord] { return c.calls }

// RecentCalls returns up to n of the most recent calls, oldest first.
func (c *Context) RecentCalls(n int) []ToolCallRecord { return c.calls.Last(n) }

// CallsSince returns the calls recorded at or after t, oldest first.
func (c *Context) CallsSince(t time.Time) []ToolCallRecord { return c.calls.Since(t) }

// ErrorRate returns the share of failed calls among the last window calls,
// or 0 when there are none.
func (c *Context) ErrorRate(window int) float64 {
	if window <= 0 {
		return 0
	}
	n, failed := 0, 0
	for _, r := range c.calls.Backward() {
		if n == window {
			break
		}
		n++
		if !r.Success {
			failed++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(failed) / float64(n)
}

// ConsecutiveErrors returns how many of the latest calls failed in a row.
func (c *Context) ConsecutiveErrors() int64 { return c.Tally.ConsecutiveErrors }

// Budget returns the session's budget and whether one is set.
func (c *Context) Budget() (budget.Budget, bool) {
	return session.ValueOf[budget.Budget](c.Store).Latest()
}

// Pace projects the budget's consumption at Now.
func (c *Context) Pace() budget.Pace {
	b, _ := c.Budget()
	return budget.Project(b, c.Now)
}
