package observer

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is returned by [NewPipeline] for a configuration that
// cannot work: a nil observer, an empty or duplicate name, or a trigger
// that never fires or has negative values.
var ErrInvalidConfig = errors.New("observer: invalid config")

// ErrPanicked is wrapped by the error reported when an observer panics.
var ErrPanicked = errors.New("observer panicked")

// Error reports a failure of one observer. The pipeline hands it to its
// error handler and turns it into an observation with category
// [CategoryObserverError]; the run goes on. It unwraps to the observer's
// error, or to [ErrPanicked].
type Error struct {
	Observer string
	// Phase is "should_run" or "observe".
	Phase string
	Err   error
}

func (e *Error) Error() string {
	return fmt.Sprintf("observer %q: %s: %v", e.Observer, e.Phase, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
