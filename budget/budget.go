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
	left, total, ok := b.share(r, now)
	if !ok {
		return 1, false
	}
	if total <= 0 || left <= 0 {
		return 0, true
	}
	return min(left/total, 1), true
}

// share returns what is left of resource r at now and what was allowed,
// and whether r has a share to report (see [Budget.FractionRemaining]).
func (b *Budget) share(r Resource, now time.Time) (left, total float64, ok bool) {
	switch r {
	case Time:
		return b.timeShare(now)
	case CostUSD:
		return b.MaxCostUSD - b.CostUSD, b.MaxCostUSD, b.MaxCostUSD > 0
	}
	limit, used, ok := b.counted(r)
	return float64(limit - used), float64(limit), ok && limit > 0
}

// timeShare returns the time left at now and the time allowed, and whether
// they are known: there is a deadline, and either it has passed (nothing
// is left) or the budget has a start.
func (b *Budget) timeShare(now time.Time) (left, total float64, ok bool) {
	switch {
	case b.Deadline.IsZero():
		return 0, 0, false
	case !now.Before(b.Deadline):
		return 0, 0, true
	case b.StartedAt.IsZero():
		return 0, 0, false
	}
	return float64(b.Deadline.Sub(now)), float64(b.Deadline.Sub(b.StartedAt)), true
}

// counted returns the limit and the use of a resource counted in whole
// units (tokens, tool calls, model calls), and false for any other.
func (b *Budget) counted(r Resource) (limit, used int64, ok bool) {
	switch r {
	case Tokens:
		return b.MaxTokens, b.TokensUsed, true
	case ToolCalls:
		return b.MaxToolCalls, b.ToolCalls, true
	case ModelCalls:
		return b.MaxModelCalls, b.ModelCalls, true
	}
	return 0, 0, false
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
		if e := b.exceeded(r, now); e != nil {
			return e
		}
	}
	return nil
}

// exceeded returns an [*ExceededError] when resource r is exhausted at now,
// or nil.
func (b *Budget) exceeded(r Resource, now time.Time) *ExceededError {
	switch r {
	case Time:
		if b.deadlinePassed(now) {
			return b.timeExceeded(now)
		}
	case CostUSD:
		if b.costSpent() {
			return &ExceededError{Resource: CostUSD, Limit: MicroUSD(b.MaxCostUSD), Used: MicroUSD(b.CostUSD)}
		}
	default:
		return b.countExceeded(r)
	}
	return nil
}

// countExceeded returns an [*ExceededError] when the counted resource r
// (see [Budget.counted]) has reached its limit, or nil.
func (b *Budget) countExceeded(r Resource) *ExceededError {
	limit, used, ok := b.counted(r)
	if !ok || !spent(limit, used) {
		return nil
	}
	return &ExceededError{Resource: r, Limit: limit, Used: used}
}

var allResources = []Resource{Time, Tokens, CostUSD, ToolCalls, ModelCalls}

// spent reports whether a count's limit is set and reached.
func spent(limit, used int64) bool { return limit > 0 && used >= limit }

// deadlinePassed reports whether b has a deadline and it has come at now.
func (b *Budget) deadlinePassed(now time.Time) bool {
	return !b.Deadline.IsZero() && !now.Before(b.Deadline)
}

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
	return spent(b.MaxTokens, b.TokensUsed) || b.costSpent() ||
		spent(b.MaxToolCalls, b.ToolCalls) || spent(b.MaxModelCalls, b.ModelCalls) ||
		b.deadlinePassed(now)
}
