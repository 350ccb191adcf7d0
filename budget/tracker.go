package budget

import (
	"math"
	"time"

	"github.com/lookout-go/lookout/internal/sessionhook"
	"github.com/lookout-go/lookout/session"
)

// Usage is what one model call reported. Total may exceed Prompt plus
// Completion when a provider counts more (reasoning, for example); zero
// Total means "Prompt plus Completion". A negative count, which no
// provider should report, counts as zero, so that it cannot refund a
// budget.
//
// CachedTokens (prompt tokens read from the provider's cache) and
// CacheWriteTokens (prompt tokens written to it) count inside
// PromptTokens, and ReasoningTokens inside CompletionTokens, as the
// OpenTelemetry GenAI conventions count them. CostUSD is the call's cost
// in US dollars, zero when unknown (see [Prices]).
type Usage struct {
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	TotalTokens      int64   `json:"total_tokens"`
	CachedTokens     int64   `json:"cached_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64   `json:"reasoning_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd,omitempty"`
}

// Total returns the tokens to charge for u: never negative, and
// math.MaxInt64 where the sum would overflow.
func (u Usage) Total() int64 {
	return max(u.TotalTokens, addCount(max(u.PromptTokens, 0), max(u.CompletionTokens, 0)))
}

// addCount adds n, which is not negative, to a count, saturating at
// math.MaxInt64: a wrapped count would read as a budget barely used.
func addCount(count, n int64) int64 {
	if count > math.MaxInt64-n {
		return math.MaxInt64
	}
	return count + n
}

// TrackerOptions configures a [Tracker]. A nil *TrackerOptions means the
// defaults.
type TrackerOptions struct {
	// Now is the clock. Nil means the store's clock.
	Now func() time.Time
}

// Tracker charges the [Budget] kept in a session store and reports what
// remains. It keeps no state of its own, so every tracker on one store
// shares one budget. A Tracker is safe for concurrent use.
type Tracker struct {
	v   *session.Value[Budget]
	now func() time.Time
	// cell changes v without Change's deferred unlock: the charges and
	// counts are arithmetic that cannot panic.
	cell sessionhook.Unguarded[Budget]
}

// NewTracker returns a tracker for the budget in store. When the store has
// no budget yet, it seeds one from limits with the run starting now; when it
// has one (a shared or restored session), it keeps it and ignores limits.
// A kept budget without a StartedAt, one seeded by hand, starts now, so
// that its time share and its pace have a start to measure from.
func NewTracker(store *session.Store, limits Limits, opts *TrackerOptions) (*Tracker, error) {
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	t := &Tracker{v: session.ValueOf[Budget](store), now: store.Now}
	t.cell = sessionhook.UnguardedOf[Budget](t.v)
	if opts != nil && opts.Now != nil {
		t.now = opts.Now
	}
	t.v.Update(func(b Budget, set bool) Budget {
		switch {
		case !set:
			return New(limits, t.now())
		case b.StartedAt.IsZero():
			b.StartedAt = t.now()
		}
		return b
	})
	return t, nil
}

// Now returns the tracker's clock reading.
func (t *Tracker) Now() time.Time { return t.now() }

// Budget returns the current budget.
func (t *Tracker) Budget() Budget {
	b, _ := t.v.Latest()
	return b
}

// ChargeModelCall charges one model call attempt and returns the budget
// after the charge. A nil u records a call whose provider reported no
// usage; a zero Usage records one that reported zero tokens.
func (t *Tracker) ChargeModelCall(u *Usage) Budget {
	var out Budget
	t.cell.Change(func(b *Budget) {
		b.ModelCalls++
		b.charge(u)
		out = *b
	})
	return out
}

// ChargeReserved charges the usage of a model call attempt that
// [Tracker.ReserveModelCall] already counted: the call is not counted
// again. A nil u records that its provider reported no usage. Unlike
// ChargeModelCall it returns nothing: a copy of the budget is most of
// its cost.
func (t *Tracker) ChargeReserved(u *Usage) {
	t.cell.Change(func(b *Budget) { b.charge(u) })
}

// charge adds u to b's usage.
func (b *Budget) charge(u *Usage) {
	if u == nil {
		b.ModelCallsWithoutUsage++
		return
	}
	b.PromptTokens = addCount(b.PromptTokens, max(u.PromptTokens, 0))
	b.CompletionTokens = addCount(b.CompletionTokens, max(u.CompletionTokens, 0))
	b.TokensUsed = addCount(b.TokensUsed, u.Total())
	b.CachedTokens = addCount(b.CachedTokens, max(u.CachedTokens, 0))
	b.ReasoningTokens = addCount(b.ReasoningTokens, max(u.ReasoningTokens, 0))
	if u.CostUSD > 0 && !math.IsInf(u.CostUSD, 0) {
		b.CostUSD += u.CostUSD
	}
}

// ReserveModelCall counts one model call at now, before it is made,
// unless one of enforce is spent at now: then it counts nothing and
// returns the budget with an [*ExceededError] for the first one spent.
// The check and the count happen atomically, so agents calling their
// models at the same time never take more calls than the limit allows.
// It returns the budget after the count. The call's usage is charged
// with [Tracker.ChargeReserved].
func (t *Tracker) ReserveModelCall(now time.Time, enforce ...Resource) (Budget, *ExceededError) {
	var out Budget
	var refused *ExceededError
	t.cell.Change(func(b *Budget) {
		if len(enforce) > 0 && b.anySpent(now) {
			if refused = b.Exceeded(now, enforce...); refused != nil {
				out = *b
				return
			}
		}
		b.ModelCalls++
		out = *b
	})
	return out, refused
}

// ReserveToolCall counts one tool call if the limit allows it. When the
// tool-call budget is spent it counts nothing and returns an
// [*ExceededError]; the call should not run.
func (t *Tracker) ReserveToolCall() error {
	return t.ReserveToolCallAt(t.now(), ToolCalls)
}

// ReserveToolCallAt counts one tool call at now, unless one of enforce is
// spent at now: then it counts nothing and returns an [*ExceededError] for
// the first one spent, and the call should not run. The check and the
// count happen atomically, so concurrent calls never overrun the
// tool-call limit. Resources not in enforce are advisory: a call past
// their limit is counted and allowed. With no enforce the call is always
// counted.
func (t *Tracker) ReserveToolCallAt(now time.Time, enforce ...Resource) error {
	var refused *ExceededError
	t.cell.Change(func(b *Budget) {
		if len(enforce) > 0 && b.anySpent(now) {
			if refused = b.Exceeded(now, enforce...); refused != nil {
				return
			}
		}
		b.ToolCalls++
	})
	if refused != nil {
		return refused
	}
	return nil
}

// Check returns an [*ExceededError] for the first of rs that is exhausted
// now, or nil. With no rs it checks time, tokens and tool calls.
func (t *Tracker) Check(rs ...Resource) error {
	if e := t.Budget().Exceeded(t.now(), rs...); e != nil {
		return e
	}
	return nil
}

// Remaining returns what is left of each limited resource now.
func (t *Tracker) Remaining() Remaining {
	b, now := t.Budget(), t.now()
	var r Remaining
	r.Time, r.HasTime = b.TimeRemaining(now)
	r.Tokens, r.HasTokens = b.TokensRemaining()
	r.ToolCalls, r.HasToolCalls = b.ToolCallsRemaining()
	return r
}

// Pace projects when each resource runs out at the rate seen so far.
func (t *Tracker) Pace() Pace { return Project(t.Budget(), t.now()) }

// Remaining is what is left of each resource. A Has field is false when the
// resource is unlimited.
type Remaining struct {
	Time         time.Duration
	HasTime      bool
	Tokens       int64
	HasTokens    bool
	ToolCalls    int64
	HasToolCalls bool
}
