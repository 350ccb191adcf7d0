package budget

import (
	"fmt"
	"math"
	"time"
)

// Resource names a limited resource.
type Resource string

// The resources a budget limits.
const (
	Time       Resource = "time"
	Tokens     Resource = "tokens"
	ToolCalls  Resource = "tool_calls"
	ModelCalls Resource = "model_calls"
	// CostUSD is money, in US dollars, priced from the tokens with a
	// [Prices] table. In an [ExceededError] its Limit and Used are in
	// millionths of a dollar.
	CostUSD Resource = "cost_usd"
)

// Limits says how much a run may spend. Each zero field means unlimited, so
// the zero value is an unlimited run.
type Limits struct {
	// Timeout is the time allowed from the run's start.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Deadline is an absolute deadline. With Timeout also set, the earlier
	// of the two applies.
	Deadline time.Time `json:"deadline,omitzero"`
	// MaxTokens caps prompt plus completion tokens over all model calls.
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// MaxToolCalls caps the number of tool calls that run.
	MaxToolCalls int64 `json:"max_tool_calls,omitempty"`
	// MaxModelCalls caps the number of model calls made, failed attempts
	// included. Set it below an agent runtime's own iteration cap (Eino's
	// MaxIterations) and the run ends on a wrap-up answer rather than on
	// the runtime's error.
	MaxModelCalls int64 `json:"max_model_calls,omitempty"`
	// MaxCostUSD caps the cost of all model calls, in US dollars. The
	// cost is known only for models with a price (see [Prices]); calls to
	// other models cost nothing against it.
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
}

// Validate reports limits that cannot be enforced.
func (l Limits) Validate() error {
	// The checks come before any value is boxed for the message: a valid
	// Limits, checked for every run, allocates nothing.
	switch {
	case l.Timeout < 0:
		return invalidLimits("Timeout %v is negative", l.Timeout)
	case l.MaxTokens < 0:
		return invalidLimits("MaxTokens %d is negative", l.MaxTokens)
	case l.MaxToolCalls < 0:
		return invalidLimits("MaxToolCalls %d is negative", l.MaxToolCalls)
	case !validCost(l.MaxCostUSD):
		return invalidLimits("MaxCostUSD %v is not a non-negative number", l.MaxCostUSD)
	case l.MaxModelCalls < 0:
		return invalidLimits("MaxModelCalls %d is negative", l.MaxModelCalls)
	case !savableDeadline(l.Deadline):
		return invalidLimits("Deadline %v is outside the years 0 to 9999", l.Deadline)
	}
	return nil
}

// invalidLimits is the error of Validate for a field that fails.
func invalidLimits(format string, value any) error {
	return fmt.Errorf("%w: "+format, ErrInvalidLimits, value)
}

// validCost reports whether usd is a non-negative number.
func validCost(usd float64) bool {
	return usd >= 0 && !math.IsNaN(usd) && !math.IsInf(usd, 0)
}

// savableDeadline reports whether d is zero or falls in the years 0 to
// 9999: outside them a time has no RFC 3339 form, so the budget could not
// be saved in a session snapshot or a trajectory.
func savableDeadline(d time.Time) bool {
	return d.IsZero() || d.Year() >= 0 && d.Year() <= 9999
}

// IsZero reports whether the limits are unlimited.
func (l Limits) IsZero() bool { return l == Limits{} }

// DeadlineFrom returns the deadline for a run that starts at start, or the
// zero time when there is none.
func (l Limits) DeadlineFrom(start time.Time) time.Time {
	d := l.Deadline
	if l.Timeout > 0 {
		t := start.Add(l.Timeout)
		if d.IsZero() || t.Before(d) {
			d = t
		}
	}
	return d
}
