package budget

import (
	"errors"
	"fmt"
	"time"
)

// ErrExceeded is the sentinel every budget stop unwraps to.
var ErrExceeded = errors.New("budget exceeded")

// ErrInvalidLimits is returned for limits that cannot be enforced, such as
// negative values.
var ErrInvalidLimits = errors.New("budget: invalid limits")

// ExceededError reports which resource ran out. It unwraps to [ErrExceeded].
//
// For [Time], Limit and Used are in milliseconds: the time allowed from the
// run's start to its deadline, and the time elapsed.
type ExceededError struct {
	Resource Resource
	Limit    int64
	Used     int64
}

func (e *ExceededError) Error() string {
	if e.Resource == Time {
		return fmt.Sprintf("budget exceeded: time: %v allowed, %v used",
			time.Duration(e.Limit)*time.Millisecond, time.Duration(e.Used)*time.Millisecond)
	}
	return fmt.Sprintf("budget exceeded: %s: %d of %d used", e.Resource, e.Used, e.Limit)
}

func (e *ExceededError) Unwrap() error { return ErrExceeded }
