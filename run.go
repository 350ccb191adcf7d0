package lookout

import (
	"context"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/runctx"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/session"
)

// Run is a read-only view of a run of an agent, as the components it
// runs (tools, models, nested agents) find it on their ctx with
// [FromContext]: its ids, its budget and usage, the tool calls its
// session keeps and the assessment the model is shown. It can't change
// the run: the adapter that drives the run alone starts and ends it. The
// zero Run is no run, and its methods return zero values. A Run is a
// comparable value, safe for concurrent use.
type Run struct{ h *runctx.Handle }

// FromContext returns the run ctx carries, and false when it carries
// none or runs without Lookout.
func FromContext(ctx context.Context) (Run, bool) {
	h, _ := runctx.FromContext(ctx)
	if h == nil {
		return Run{}, false
	}
	return Run{h}, true
}

// ID returns the id the run is recorded under, or "" when it is not
// recorded.
func (r Run) ID() string {
	if r.h == nil {
		return ""
	}
	return r.h.Reader.ID()
}

// AgentName returns the name of the run's agent, if known.
func (r Run) AgentName() string {
	if r.h == nil {
		return ""
	}
	return r.h.Reader.AgentName()
}

// CallID returns the id of the parent's tool call that started the run,
// for an agent used as a tool, or "".
func (r Run) CallID() string {
	if r.h == nil {
		return ""
	}
	return r.h.Reader.CallID()
}

// Parent returns the run that started this one, and false for a root.
func (r Run) Parent() (Run, bool) {
	if r.h == nil || r.h.Parent == nil {
		return Run{}, false
	}
	return Run{r.h.Parent}, true
}

// Budget returns the budget the run charges, shared with its parent and
// children and with earlier runs on the same session.
func (r Run) Budget() budget.Budget {
	if r.h == nil {
		return budget.Budget{}
	}
	return r.h.Reader.Budget()
}

// Usage returns what the run's own model and tool calls have used so far,
// its children's not included. It is counted only while the run is
// recorded.
func (r Run) Usage() recorder.RunUsage {
	if r.h == nil {
		return recorder.RunUsage{}
	}
	return r.h.Reader.Usage()
}

// ToolCalls returns the last n tool calls the run's session keeps (all of
// them for n ≤ 0), oldest first; see [ToolCallsOf].
func (r Run) ToolCalls(n int) []observer.ToolCallRecord {
	if r.h == nil {
		return nil
	}
	return r.h.Reader.ToolCalls(n)
}

// Assessment returns the session's current assessment, the one the model
// is shown while it is fresh; see [AssessmentOf].
func (r Run) Assessment() (observer.CurrentAssessment, bool) {
	if r.h == nil {
		return observer.CurrentAssessment{}, false
	}
	return r.h.Reader.Assessment()
}

// WrappingUp reports whether the run has been given a wrap-up turn.
func (r Run) WrappingUp() bool { return r.h != nil && r.h.Reader.WrappingUp() }

// BudgetOf returns the budget of the runs on session s, and false when no
// run has used it.
func BudgetOf(s *session.Store) (budget.Budget, bool) {
	return session.ValueOf[budget.Budget](s).Latest()
}

// ToolCallsOf returns the last n tool calls session s keeps (all of them
// for n ≤ 0), oldest first. Retention bounds how many are kept; the
// budget's ToolCalls counts them all.
func ToolCallsOf(s *session.Store, n int) []observer.ToolCallRecord {
	calls := session.LogOf[observer.ToolCallRecord](s)
	if n <= 0 || int64(n) > calls.Total() {
		n = int(calls.Total())
	}
	return calls.Last(n)
}

// AssessmentOf returns the current assessment of session s: the observers'
// last merged output, and false when they have said nothing yet.
func AssessmentOf(s *session.Store) (observer.CurrentAssessment, bool) {
	return session.ValueOf[observer.CurrentAssessment](s).Latest()
}
