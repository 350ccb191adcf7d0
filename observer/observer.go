package observer

import (
	"context"
	"fmt"
	"time"
)

// Observer looks at the trajectory and says what it sees. Implementations
// are called inline after tool calls, under the pipeline's lock, so they
// never run concurrently with themselves for one pipeline; they should be
// quick.
type Observer interface {
	// Name identifies the observer; it heads its section of the rendered
	// block and keys its trigger state. It must be unique in a pipeline.
	Name() string
	// ShouldRun lets an observer decline a run its trigger allowed, for
	// instance when it has nothing new to say.
	ShouldRun(ctx context.Context, oc *Context) bool
	// Observe analyses the trajectory and returns an assessment. An error
	// is isolated: it becomes an observer_error observation in the block.
	Observe(ctx context.Context, oc *Context) (Assessment, error)
}

// Trigger says when an observer is asked to run. Its conditions are OR'd:
// the observer runs when any one holds. Each observer keeps its own trigger
// state, so one observer running never delays another.
//
// The zero Trigger never fires and is rejected by [NewPipeline].
type Trigger struct {
	// EveryNCalls fires when N tool calls have completed since this
	// observer last ran (or since the start). At most [MaxTriggerCalls].
	EveryNCalls int
	// AfterConsecutiveErrors fires when the last N tool calls all failed
	// and at least N calls have completed since this observer last ran, so
	// a long failure streak fires it every N calls rather than every call.
	// At most [MaxTriggerCalls].
	AfterConsecutiveErrors int
	// EveryInterval fires when this much time has passed since this
	// observer last ran (or since the pipeline started). It is checked
	// after each tool call; no timer runs in between. A clock set back by
	// this much or more also fires it, so that the trigger does not wait
	// for the clock to catch up with a last run that now lies ahead.
	EveryInterval time.Duration
	// OnEveryCall fires after every tool call; the observer decides in
	// ShouldRun.
	OnEveryCall bool
}

// MaxTriggerCalls is the largest EveryNCalls and AfterConsecutiveErrors
// that [Trigger.Validate] accepts. A trigger keeps no memory for them,
// whatever their value; the bound catches a value no run could reach,
// such as a size passed for a count.
const MaxTriggerCalls = 1_000_000

// Validate reports a trigger with negative values, counts above
// [MaxTriggerCalls], or one that never fires.
func (t Trigger) Validate() error {
	if err := t.tooManyCalls(); err != nil {
		return err
	}
	if err := t.negative(); err != nil {
		return err
	}
	if t == (Trigger{}) {
		return fmt.Errorf("the trigger sets no condition, so it never fires")
	}
	return nil
}

// tooManyCalls reports a count of calls above [MaxTriggerCalls].
func (t Trigger) tooManyCalls() error {
	switch {
	case t.EveryNCalls > MaxTriggerCalls:
		return fmt.Errorf("EveryNCalls %d is more than MaxTriggerCalls (%d)", t.EveryNCalls, MaxTriggerCalls)
	case t.AfterConsecutiveErrors > MaxTriggerCalls:
		return fmt.Errorf("AfterConsecutiveErrors %d is more than MaxTriggerCalls (%d)", t.AfterConsecutiveErrors, MaxTriggerCalls)
	}
	return nil
}

// negative reports a negative count or interval.
func (t Trigger) negative() error {
	switch {
	case t.EveryNCalls < 0:
		return fmt.Errorf("EveryNCalls %d is negative", t.EveryNCalls)
	case t.AfterConsecutiveErrors < 0:
		return fmt.Errorf("AfterConsecutiveErrors %d is negative", t.AfterConsecutiveErrors)
	case t.EveryInterval < 0:
		return fmt.Errorf("EveryInterval %v is negative", t.EveryInterval)
	}
	return nil
}

// Fires reports whether t fires for an observer in state st, after the tool
// call with index callIndex, when the last consecutiveErrors calls failed,
// at time now. start is when the pipeline started, the reference for
// EveryInterval before the observer's first run. It is a pure function.
func (t Trigger) Fires(st ObserverState, callIndex, consecutiveErrors int64, now, start time.Time) bool {
	since := callIndex - st.LastAssessmentCallIndex
	return t.OnEveryCall || t.firesOnCalls(since) || t.firesOnErrors(since, consecutiveErrors) || t.firesOnTime(st, now, start)
}

// firesOnCalls reports whether EveryNCalls calls have been made since the
// observer last ran.
func (t Trigger) firesOnCalls(since int64) bool {
	return t.EveryNCalls > 0 && since >= int64(t.EveryNCalls)
}

// firesOnErrors reports whether the last AfterConsecutiveErrors calls
// failed, all of them since the observer last ran.
func (t Trigger) firesOnErrors(since, consecutiveErrors int64) bool {
	n := int64(t.AfterConsecutiveErrors)
	return n > 0 && consecutiveErrors >= n && since >= n
}

// firesOnTime reports whether EveryInterval has passed since the observer
// last ran, or since start if it has not; a clock set back by as much
// fires too.
func (t Trigger) firesOnTime(st ObserverState, now, start time.Time) bool {
	if t.EveryInterval <= 0 {
		return false
	}
	last := st.LastAssessmentTime
	if last.IsZero() {
		last = start
	}
	d := now.Sub(last)
	return d >= t.EveryInterval || d <= -t.EveryInterval
}

// Spec pairs an observer with its trigger.
type Spec struct {
	Observer Observer
	Trigger  Trigger
}
