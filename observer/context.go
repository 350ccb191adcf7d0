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

	calls   *session.Log[ToolCallRecord]
	history *session.Log[PastAssessment]
	// budget is the session's budget value, opened once by the pipeline.
	budget *session.Value[budget.Budget]
	// state is the observer's working state, when it is Incremental.
	state CallState
}

// context returns observer i's Context for a run at now after the call
// at callIndex, with the run-wide counters tally. It is the member's,
// reused under p.mu: its session slices, which an observer cannot change,
// are set once (see [Pipeline.name]), and each of its exported fields is
// set on every call.
func (p *Pipeline) context(i int, now time.Time, callIndex int64, tally Tally) *Context {
	m := &p.members[i]
	oc := &m.ctx
	// One field at a time: a tuple assignment copies the values twice.
	oc.Now = now
	oc.CallIndex = callIndex
	oc.State = m.state
	oc.Tally = tally
	oc.Store = p.store
	oc.state = nil
	return oc
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
	if c.budget != nil {
		return c.budget.Latest()
	}
	return session.ValueOf[budget.Budget](c.Store).Latest()
}

// Pace projects the budget's consumption at Now.
func (c *Context) Pace() budget.Pace {
	b, _ := c.Budget()
	return budget.Project(b, c.Now)
}

// History returns up to n of the most recent past assessments, oldest
// first. They are the assessments produced before this call; the one this
// run contributes to is not among them.
func (c *Context) History(n int) []PastAssessment {
	if c.history == nil {
		return nil
	}
	return c.history.Last(n)
}

// Trend compares the severity of the named observer's latest past
// assessment with the one before it: [Escalating] when it rose, [Easing]
// when it fell, [Steady] when it held or when the history holds fewer than
// two of its assessments.
func (c *Context) Trend(observer string) Trend {
	return c.trend(func(p PastAssessment) (Severity, bool) { return p.severityOf(observer) })
}

// OverallTrend compares the highest severity of the latest past
// assessment with that of the one before it, as [Context.Trend] does for
// one observer.
func (c *Context) OverallTrend() Trend {
	return c.trend(func(p PastAssessment) (Severity, bool) { return p.Severity(), true })
}

func (c *Context) trend(severity func(PastAssessment) (Severity, bool)) Trend {
	if c.history == nil {
		return Steady
	}
	var latest Severity
	seen := 0
	for _, p := range c.history.Backward() {
		s, ok := severity(p)
		if !ok {
			continue
		}
		if seen == 1 {
			return trendOf(latest, s)
		}
		latest, seen = s, 1
	}
	return Steady
}

// Efficacy returns how the agent reacted, so far, to the named observer's
// assessments; see [Efficacy].
func (c *Context) Efficacy(observer string) EfficacyCounts {
	if c.Store == nil {
		return EfficacyCounts{}
	}
	var counts EfficacyCounts
	session.ValueOf[Efficacy](c.Store).Read(func(e Efficacy, _ bool) { counts = e.ByObserver[observer] })
	return counts
}
