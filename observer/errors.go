package observer

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is returned by [NewPipeline] for a configuration that
// cannot work: a nil observer, an empty or duplicate name, a trigger that
// never fires or has negative values, or an observer setting out of its
// range (see [ConfigError]).
var ErrInvalidConfig = errors.New("observer: invalid config")

// ConfigError reports an observer setting out of its range: a window or
// count above its maximum, or below what it can mean, or a threshold that
// is negative or not a number. The built-in observers' Validate methods
// return it, and [NewPipeline] and [Validate] pass it on. It unwraps to
// [ErrInvalidConfig].
type ConfigError struct {
	// Observer is the observer's name, as [Observer.Name] returns it.
	Observer string
	// Field is the setting, such as "Window" or "Trigger.EveryNCalls".
	Field string
	// Problem says what is wrong with its value: "268435456 is more than
	// MaxStallWindow (1000)".
	Problem string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%v: observer %q: %s %s", ErrInvalidConfig, e.Observer, e.Field, e.Problem)
}

func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// ErrPanicked is wrapped by the error reported when an observer panics.
var ErrPanicked = errors.New("observer panicked")

// Error reports a failure of one observer. The pipeline hands it to its
// error handler and turns it into an observation with category
// [CategoryObserverError]; the run goes on. It unwraps to the observer's
// error, or to [ErrPanicked].
type Error struct {
	Observer string
	// Phase is "should_run", "observe", "holds", "refuse" or "judge".
	Phase string
	Err   error
}

func (e *Error) Error() string {
	return fmt.Sprintf("observer %q: %s: %v", e.Observer, e.Phase, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
