package budget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrExceeded is the sentinel every budget stop unwraps to.
var ErrExceeded = errors.New("budget exceeded")

// ErrInvalidLimits is returned for limits that cannot be enforced, such as
// negative values.
var ErrInvalidLimits = errors.New("budget: invalid limits")

// ErrUnpriced is reported, to lookout.Config.OnError, for a model call
// under a cost limit that no price matched: the call cost nothing against
// the limit.
var ErrUnpriced = errors.New("budget: no price for the model")

// ExceededError reports which resource ran out. It unwraps to [ErrExceeded].
//
// For [CostUSD], Limit and Used are in millionths of a US dollar. For
// [Time], Limit and Used are in milliseconds: the time allowed from the
// run's start to its deadline, and the time elapsed. Both are zero when the
// budget has no start to measure them from; the message then says only that
// the deadline has passed.
type ExceededError struct {
	Resource Resource
	Limit    int64
	Used     int64
}

func (e *ExceededError) Error() string {
	if e.Resource == Time {
		if e.Limit == 0 && e.Used == 0 {
			return "budget exceeded: time: the deadline has passed"
		}
		return fmt.Sprintf("budget exceeded: time: %v allowed, %v used", millis(e.Limit), millis(e.Used))
	}
	if e.Resource == CostUSD {
		return fmt.Sprintf("budget exceeded: %s: $%s of $%s used", e.Resource, dollars(e.Used), dollars(e.Limit))
	}
	return fmt.Sprintf("budget exceeded: %s: %d of %d used", e.Resource, e.Used, e.Limit)
}

// MicroUSD converts dollars to whole millionths of a dollar, the unit of
// [CostUSD] in an [ExceededError], rounded and saturating.
func MicroUSD(usd float64) int64 {
	m := math.Round(usd * 1e6)
	if m >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(m)
}

// dollars writes millionths of a dollar as dollars, with at least two
// decimals and no trailing zeros beyond them.
func dollars(micro int64) string {
	s := strconv.FormatFloat(float64(micro)/1e6, 'f', -1, 64)
	switch i := strings.IndexByte(s, '.'); {
	case i < 0:
		return s + ".00"
	case len(s)-i == 2:
		return s + "0"
	}
	return s
}

func (e *ExceededError) Unwrap() error { return ErrExceeded }

// millis converts milliseconds to a Duration, saturating rather than
// overflowing.
func millis(ms int64) time.Duration {
	const limit = math.MaxInt64 / int64(time.Millisecond)
	switch {
	case ms > limit:
		return math.MaxInt64
	case ms < -limit:
		return math.MinInt64
	}
	return time.Duration(ms) * time.Millisecond
}
