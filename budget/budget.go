package budget

import "time"

// Budget is the session slice holding a run's limits and its usage. A zero
// limit field means unlimited. Budget is a plain value; store and replace it
// through a [Tracker] or a session.Value.
type Budget struct {
	// StartedAt is when the run started; elapsed time is measured from it.
	StartedAt time.Time `json:"started_at"`
	// Deadline is when time runs out; zero means no deadline.
	Deadline time.Time `json:"deadline,omitzero"`

	// MaxTokens caps TokensUsed; zero means unlimited.
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// TokensUsed is the total charged: prompt plus completion tokens, or a
	// provider's own total when it reports more.
	TokensUsed       int64 `json:"tokens_used"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`

	// MaxToolCalls caps ToolCalls; zero means unlimited.
	MaxToolCalls int64 `json:"max_tool_calls,omitempty"`
	// ToolCalls counts tool calls that were allowed to run.
	ToolCalls int64 `json:"tool_calls"`

	// MaxModelCalls caps ModelCalls; zero means unlimited.
	MaxModelCalls int64 `json:"max_model_calls,omitempty"`
	// ModelCalls counts every model call attempt charged, failed ones
	// included.
	ModelCalls int64 `json:"model_calls"`
	// ModelCallsWithoutUsage counts attempts whose provider reported no
	// usage. When it is non-zero the token figures are a lower bound.
	ModelCallsWithoutUsage int64 `json:"model_calls_without_usage"`

	// MaxCostUSD caps CostUSD; zero means unlimited.
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
	// CostUSD is the cost of the model calls charged, in US dollars, as
	// their usage priced it (see [Usage.CostUSD]).
	CostUSD float64 `json:"cost_usd,omitempty"`
	// CachedTokens and ReasoningTokens count the prompt tokens read
	// from the provider's cache and the completion tokens spent
	// reasoning, as providers report them; both are already inside
	// PromptTokens and CompletionTokens.
	CachedTokens    int64 `json:"cached_tokens,omitempty"`
	ReasoningTokens int64 `json:"reasoning_tokens,omitempty"`
}

// New returns the budget of a run that starts at start under limits.
func New(limits Limits, start time.Time) Budget {
	return Budget{
		StartedAt:     start,
		Deadline:      limits.DeadlineFrom(start),
		MaxTokens:     limits.MaxTokens,
		MaxToolCalls:  limits.MaxToolCalls,
		MaxModelCalls: limits.MaxModelCalls,
		MaxCostUSD:    limits.MaxCostUSD,
	}
}

// CostRemaining returns the dollars left, negative after an overrun, and
// whether cost is limited.
func (b Budget) CostRemaining() (float64, bool) {
	if b.MaxCostUSD <= 0 {
		return 0, false
	}
	return b.MaxCostUSD - b.CostUSD, true
}

// Elapsed returns the time since the run started.
func (b Budget) Elapsed(now time.Time) time.Duration {
	if b.StartedAt.IsZero() {
		return 0
	}
	return now.Sub(b.StartedAt)
}

// TimeRemaining returns the time left before the deadline, which is
// negative once it has passed, and whether there is a deadline.
func (b Budget) TimeRemaining(now time.Time) (time.Duration, bool) {
	if b.Deadline.IsZero() {
		return 0, false
	}
	return b.Deadline.Sub(now), true
}

// TokensRemaining returns the tokens left, negative after an overrun, and
// whether tokens are limited.
func (b Budget) TokensRemaining() (int64, bool) {
	if b.MaxTokens <= 0 {
		return 0, false
	}
	return b.MaxTokens - b.TokensUsed, true
}

// ToolCallsRemaining returns the tool calls left and whether they are
// limited.
func (b Budget) ToolCallsRemaining() (int64, bool) {
	if b.MaxToolCalls <= 0 {
		return 0, false
	}
	return b.MaxToolCalls - b.ToolCalls, true
}

// FractionRemaining returns the share of resource r still available, from
// 1 (untouched) to 0 (exhausted; never negative), and whether there is a
// share to report: r is limited and, for [Time], the budget has a start to
// measure the time allowed from. When there is none it returns 1 and false,
// so a reader that grades by the share raises nothing.
//
// A Budget seeded by hand with a Deadline and no StartedAt has no time
// share before the deadline, since the time allowed is unknown; at the
// deadline the share is 0. [NewTracker] gives such a budget a start.
func (b Budget) FractionRemaining(r Resource, now time.Time) (float64, bool) {
	var left, total float64
	switch r {
	case Time:
		switch {
		case b.Deadline.IsZero():
			return 1, false
		case !now.Before(b.Deadline):
			return 0, true
		case b.StartedAt.IsZero():
			return 1, false
		}
		left, total = float64(b.Deadline.Sub(now)), float64(b.Deadline.Sub(b.StartedAt))
	case Tokens:
		if b.MaxTokens <= 0 {
			return 1, false
		}
		left, total = float64(b.MaxTokens-b.TokensUsed), float64(b.MaxTokens)
	case ToolCalls:
		if b.MaxToolCalls <= 0 {
			return 1, false
		}
		left, total = float64(b.MaxToolCalls-b.ToolCalls), float64(b.MaxToolCalls)
	case ModelCalls:
		if b.MaxModelCalls <= 0 {
			return 1, false
		}
		left, total = float64(b.MaxModelCalls-b.ModelCalls), float64(b.MaxModelCalls)
	case CostUSD:
		if b.MaxCostUSD <= 0 {
			return 1, false
		}
		left, total = b.MaxCostUSD-b.CostUSD, b.MaxCostUSD
	default:
		return 1, false
	}
	if total <= 0 || left <= 0 {
		return 0, true
	}
	return min(left/total, 1), true
}

// Exceeded returns an [*ExceededError] for the first of rs that is
// exhausted at now, in the order given, or nil. With no rs it checks time,
// tokens, cost, tool calls and model calls, in that order. A resource is exhausted when nothing
// of it is left: the deadline has come, or the count used has reached the
// limit.
func (b Budget) Exceeded(now time.Time, rs ...Resource) *ExceededError {
	if len(rs) == 0 {
		rs = allResources
	}
	for _, r := range rs {
		switch r {
		case Time:
			if !b.Deadline.IsZero() && !now.Before(b.Deadline) {
				return b.timeExceeded(now)
			}
		case Tokens:
			if b.MaxTokens > 0 && b.TokensUsed >= b.MaxTokens {
				return &ExceededError{Resource: Tokens, Limit: b.MaxTokens, Used: b.TokensUsed}
			}
		case CostUSD:
			if b.costSpent() {
				return &ExceededError{Resource: CostUSD, Limit: MicroUSD(b.MaxCostUSD), Used: MicroUSD(b.CostUSD)}
			}
		case ToolCalls:
			if b.MaxToolCalls > 0 && b.ToolCalls >= b.MaxToolCalls {
				return &ExceededError{Resource: ToolCalls, Limit: b.MaxToolCalls, Used: b.ToolCalls}
			}
		case ModelCalls:
			if b.MaxModelCalls > 0 && b.ModelCalls >= b.MaxModelCalls {
				return &ExceededError{Resource: ModelCalls, Limit: b.MaxModelCalls, Used: b.ModelCalls}
			}
		}
	}
	return nil
}

var allResources = []Resource{Time, Tokens, CostUSD, ToolCalls, ModelCalls}

// costSpent reports whether b's cost limit is set and reached.
func (b *Budget) costSpent() bool { return b.MaxCostUSD > 0 && b.CostUSD >= b.MaxCostUSD }

// timeExceeded reports the deadline passed at now. A deadline already past
// at the start allowed no time; a budget without a start knows neither the
// time allowed nor the time used, and reports both as zero.
func (b *Budget) timeExceeded(now time.Time) *ExceededError {
	e := &ExceededError{Resource: Time}
	if !b.StartedAt.IsZero() {
		e.Limit = max(b.Deadline.Sub(b.StartedAt).Milliseconds(), 0)
		e.Used = max(now.Sub(b.StartedAt).Milliseconds(), 0)
	}
	return e
}

// anySpent reports whether any limited resource is exhausted at now: a
// quick test for hot paths, which call Exceeded, for the resources they
// enforce and in their order, only when it is true.
func (b *Budget) anySpent(now time.Time) bool {
	return b.MaxTokens > 0 && b.TokensUsed >= b.MaxTokens || b.costSpent() ||
		b.MaxToolCalls > 0 && b.ToolCalls >= b.MaxToolCalls ||
		b.MaxModelCalls > 0 && b.ModelCalls >= b.MaxModelCalls ||
		!b.Deadline.IsZero() && !now.Before(b.Deadline)
}
