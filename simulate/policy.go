package simulate

import "context"

// Verdict is a policy's decision after a turn. The zero Verdict continues the
// run. To stop, set Stop and a Reason; Note, if set, is added to the run's
// summary (say which rule was broken). Stop with no Reason means
// StopPolicyViolation. Reason StopError ends the run as a simulator failure:
// Run returns a *RunError (Op "policy") whose cause wraps ErrPolicyStop and
// carries the Note. StopGoalReached only marks the run completed when the
// scenario's own criteria agree (see End).
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Verdict struct {
	Stop   bool
	Reason StopReason
	Note   string
}

// Policy decides after every turn whether the run goes on. Whatever the
// policy says, the runner never plays more than the scenario's MaxTurns.
// Implementations must be safe for concurrent use when the Runner is shared.
type Policy interface {
	Evaluate(ctx context.Context, s Progress) (Verdict, error)
}

// PolicyFunc adapts a function to Policy.
//
// It is as safe for concurrent use as the function is.
type PolicyFunc func(ctx context.Context, s Progress) (Verdict, error)

// Evaluate calls f.
func (f PolicyFunc) Evaluate(ctx context.Context, s Progress) (Verdict, error) { return f(ctx, s) }

// DefaultPolicy stops with StopGoalReached when Progress.GoalReached reports
// true, and with StopMaxTurns once the scenario's MaxTurns turns have been
// played. It is stateless and safe for concurrent use. Wrap it in a
// PolicyFunc to add rules of your own.
type DefaultPolicy struct{}

// Evaluate applies the default rules.
func (DefaultPolicy) Evaluate(_ context.Context, s Progress) (Verdict, error) {
	if s.GoalReached() {
		return Verdict{Stop: true, Reason: StopGoalReached}, nil
	}
	if s.Scenario != nil && len(s.Traces) >= s.Scenario.maxTurns() {
		return Verdict{Stop: true, Reason: StopMaxTurns}, nil
	}
	return Verdict{}, nil
}
