package budget_test

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

var t0 = time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTracker(t *testing.T, l budget.Limits) (*budget.Tracker, *clock) {
	t.Helper()
	c := &clock{t: t0}
	tr, err := budget.NewTracker(session.New(&session.StoreOptions{Now: c.Now}), l, nil)
	require.NoError(t, err)
	return tr, c
}

func TestZeroLimitsAreUnlimited(t *testing.T) {
	tr, c := newTracker(t, budget.Limits{})
	for range 1000 {
		require.NoError(t, tr.ReserveToolCall())
		tr.ChargeModelCall(&budget.Usage{PromptTokens: 1e6})
	}
	c.Advance(1000 * time.Hour)
	assert.NoError(t, tr.Check())
	r := tr.Remaining()
	assert.False(t, r.HasTime || r.HasTokens || r.HasToolCalls)
}

func TestLimitsValidate(t *testing.T) {
	for name, l := range map[string]budget.Limits{
		"a negative timeout":        {Timeout: -time.Second},
		"negative max tokens":       {MaxTokens: -1},
		"negative max tool calls":   {MaxToolCalls: -1},
		"a deadline past year 9999": {Deadline: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run("it rejects "+name, func(t *testing.T) {
			_, err := budget.NewTracker(session.New(nil), l, nil)
			assert.ErrorIs(t, err, budget.ErrInvalidLimits)
		})
	}
	assert.NoError(t, budget.Limits{Deadline: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}.Validate())
	t.Run("valid limits allocate nothing", func(t *testing.T) {
		// Every run's tracker checks its limits.
		l := budget.Limits{Timeout: time.Hour, MaxTokens: 1 << 40, MaxToolCalls: 1000, MaxModelCalls: 300, MaxCostUSD: 2.5}
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = l.Validate() }))
	})
}

func TestDeadlineIsTheEarlierOfTimeoutAndDeadline(t *testing.T) {
	l := budget.Limits{Timeout: time.Hour, Deadline: t0.Add(30 * time.Minute)}
	assert.Equal(t, t0.Add(30*time.Minute), l.DeadlineFrom(t0))
	l.Deadline = t0.Add(2 * time.Hour)
	assert.Equal(t, t0.Add(time.Hour), l.DeadlineFrom(t0))
	assert.True(t, budget.Limits{}.DeadlineFrom(t0).IsZero())
}

func TestChargeModelCallTellsAbsentUsageFromZero(t *testing.T) {
	tr, _ := newTracker(t, budget.Limits{MaxTokens: 100})
	tr.ChargeModelCall(&budget.Usage{PromptTokens: 30, CompletionTokens: 10})
	tr.ChargeModelCall(&budget.Usage{})
	tr.ChargeModelCall(nil)
	tr.ChargeModelCall(&budget.Usage{PromptTokens: 5, CompletionTokens: 5, TotalTokens: 12})
	b := tr.Budget()
	assert.Equal(t, int64(4), b.ModelCalls)
	assert.Equal(t, int64(1), b.ModelCallsWithoutUsage)
	assert.Equal(t, int64(35), b.PromptTokens)
	assert.Equal(t, int64(15), b.CompletionTokens)
	assert.Equal(t, int64(52), b.TokensUsed, "a provider total larger than the sum wins")
}

func TestCheckReturnsATypedErrorPerResource(t *testing.T) {
	t.Run("tokens", func(t *testing.T) {
		tr, _ := newTracker(t, budget.Limits{MaxTokens: 100})
		tr.ChargeModelCall(&budget.Usage{PromptTokens: 99})
		require.NoError(t, tr.Check())
		tr.ChargeModelCall(&budget.Usage{CompletionTokens: 5})
		err := tr.Check()
		require.ErrorIs(t, err, budget.ErrExceeded)
		var ex *budget.ExceededError
		require.ErrorAs(t, err, &ex)
		assert.Equal(t, budget.ExceededError{Resource: budget.Tokens, Limit: 100, Used: 104}, *ex)
		assert.Equal(t, "budget exceeded: tokens: 104 of 100 used", err.Error())
	})
	t.Run("time", func(t *testing.T) {
		tr, c := newTracker(t, budget.Limits{Timeout: time.Minute})
		c.Advance(59 * time.Second)
		require.NoError(t, tr.Check())
		c.Advance(2 * time.Second)
		var ex *budget.ExceededError
		require.ErrorAs(t, tr.Check(), &ex)
		assert.Equal(t, budget.Time, ex.Resource)
		assert.Equal(t, "budget exceeded: time: 1m0s allowed, 1m1s used", ex.Error())
	})
	t.Run("a deadline already past at the start", func(t *testing.T) {
		tr, _ := newTracker(t, budget.Limits{Deadline: t0.Add(-time.Hour)})
		var ex *budget.ExceededError
		require.ErrorAs(t, tr.Check(), &ex)
		assert.Equal(t, budget.ExceededError{Resource: budget.Time}, *ex, "no time allowed, none used")
		assert.Equal(t, "budget exceeded: time: the deadline has passed", ex.Error())
	})
	t.Run("only the resources asked for", func(t *testing.T) {
		tr, _ := newTracker(t, budget.Limits{MaxToolCalls: 1, MaxTokens: 10})
		require.NoError(t, tr.ReserveToolCall())
		assert.NoError(t, tr.Check(budget.Tokens, budget.Time))
		assert.ErrorIs(t, tr.Check(budget.ToolCalls), budget.ErrExceeded)
	})
}

func TestReserveToolCallRefusesPastTheLimitUnderConcurrency(t *testing.T) {
	tr, _ := newTracker(t, budget.Limits{MaxToolCalls: 100})
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed, refused := 0, 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				err := tr.ReserveToolCall()
				mu.Lock()
				if err == nil {
					allowed++
				} else {
					refused++
					var ex *budget.ExceededError
					if !errors.As(err, &ex) || ex.Resource != budget.ToolCalls {
						t.Errorf("unexpected error %v", err)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 100, allowed)
	assert.Equal(t, 220, refused)
	assert.Equal(t, int64(100), tr.Budget().ToolCalls)
}

func TestTrackersOnOneStoreShareTheBudget(t *testing.T) {
	store := session.New(nil)
	parent, err := budget.NewTracker(store, budget.Limits{MaxTokens: 100}, nil)
	require.NoError(t, err)
	child, err := budget.NewTracker(store, budget.Limits{MaxTokens: 5}, nil)
	require.NoError(t, err)
	child.ChargeModelCall(&budget.Usage{PromptTokens: 60})
	assert.Equal(t, int64(60), parent.Budget().TokensUsed)
	assert.Equal(t, int64(100), child.Budget().MaxTokens, "the existing budget is kept")
}

func TestFractionRemaining(t *testing.T) {
	b := budget.New(budget.Limits{Timeout: 10 * time.Minute, MaxTokens: 1000, MaxToolCalls: 10}, t0)
	b.TokensUsed, b.ToolCalls = 700, 11
	f, ok := b.FractionRemaining(budget.Time, t0.Add(9*time.Minute))
	assert.True(t, ok)
	assert.InDelta(t, 0.1, f, 1e-9)
	f, _ = b.FractionRemaining(budget.Tokens, t0)
	assert.InDelta(t, 0.3, f, 1e-9)
	f, _ = b.FractionRemaining(budget.ToolCalls, t0)
	assert.Equal(t, 0.0, f, "an overrun is never negative")
	_, ok = budget.Budget{}.FractionRemaining(budget.Tokens, t0)
	assert.False(t, ok)
}

func TestPaceProjectsExhaustion(t *testing.T) {
	b := budget.New(budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100}, t0)
	b.TokensUsed, b.ToolCalls = 20_000, 10
	p := budget.Project(b, t0.Add(10*time.Minute))

	assert.InDelta(t, 2000, p.Tokens.PerMinute, 1e-9)
	assert.InDelta(t, 2000, p.Tokens.PerToolCall, 1e-9)
	assert.True(t, p.Tokens.Projected)
	assert.Equal(t, 15*time.Minute, p.Tokens.RunsOutIn)
	assert.Equal(t, int64(15), p.Tokens.CallsLeft)
	assert.Equal(t, int64(25), p.Tokens.RunsOutAtCall)
	assert.Equal(t, 90*time.Minute, p.ToolCalls.RunsOutIn)

	assert.Equal(t, []budget.Shortfall{{Resource: budget.Tokens, Before: budget.Time, In: 15 * time.Minute, Calls: 15}}, p.Shortfalls())
}

func TestPaceShortfalls(t *testing.T) {
	tests := []struct {
		name   string
		limits budget.Limits
		tokens int64
		calls  int64
		want   []budget.Shortfall
	}{
		{"nothing when the pace fits", budget.Limits{Timeout: time.Hour, MaxTokens: 100_000, MaxToolCalls: 1000}, 1000, 10, nil},
		{"tokens before the tool-call limit without a deadline", budget.Limits{MaxTokens: 10_000, MaxToolCalls: 100}, 5000, 10, []budget.Shortfall{{Resource: budget.Tokens, Before: budget.ToolCalls, In: 10 * time.Minute, Calls: 10}}},
		{"tool calls before the deadline", budget.Limits{Timeout: time.Hour, MaxToolCalls: 20}, 0, 10, []budget.Shortfall{{Resource: budget.ToolCalls, Before: budget.Time, In: 10 * time.Minute, Calls: 10}}},
		{"nothing without consumption", budget.Limits{Timeout: time.Hour, MaxTokens: 10}, 0, 0, nil},
		{"nothing once exhausted", budget.Limits{Timeout: time.Hour, MaxTokens: 10}, 10, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := budget.New(tt.limits, t0)
			b.TokensUsed, b.ToolCalls = tt.tokens, tt.calls
			assert.Equal(t, tt.want, budget.Project(b, t0.Add(10*time.Minute)).Shortfalls())
		})
	}
}

func TestPaceWithoutElapsedTimeProjectsNothing(t *testing.T) {
	b := budget.New(budget.Limits{MaxTokens: 10}, t0)
	b.TokensUsed = 5
	p := budget.Project(b, t0)
	assert.False(t, p.Tokens.Projected)
	assert.False(t, p.ToolCalls.Limited)
}

func TestTokensThatOutlastTheDeadlineAreNoShortfall(t *testing.T) {
	b := budget.New(budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100}, t0)
	b.TokensUsed, b.ToolCalls = 35_000, 47
	// Tokens would last 9.4 more minutes and 20 more calls, but the
	// deadline comes in 8: it binds first, whatever the tool-call limit.
	assert.Empty(t, budget.Project(b, t0.Add(22*time.Minute)).Shortfalls())
}

func TestPaceNearTheLargestLimitsDoesNotOverflow(t *testing.T) {
	b := budget.New(budget.Limits{MaxToolCalls: math.MaxInt64, MaxTokens: math.MaxInt64}, t0)
	b.ToolCalls, b.TokensUsed = 5, 1000
	p := budget.Project(b, t0.Add(10*time.Minute))
	for _, rp := range []budget.ResourcePace{p.ToolCalls, p.Tokens} {
		assert.GreaterOrEqual(t, rp.CallsLeft, int64(-1), "%s", rp.Resource)
		assert.GreaterOrEqual(t, rp.RunsOutAtCall, int64(-1), "%s", rp.Resource)
	}
}

func TestPaceNeedsAMinuteOfHistory(t *testing.T) {
	b := budget.New(budget.Limits{Timeout: time.Hour, MaxTokens: 10_000}, t0)
	b.TokensUsed, b.ToolCalls = 5_000, 5
	assert.False(t, budget.Project(b, t0.Add(59*time.Second)).Tokens.Projected)
	assert.True(t, budget.Project(b, t0.Add(time.Minute)).Tokens.Projected)
}

func TestReserveToolCallAt(t *testing.T) {
	t.Run("refuses on the first enforced resource spent, counting nothing", func(t *testing.T) {
		tr, c := newTracker(t, budget.Limits{Timeout: time.Minute, MaxToolCalls: 1})
		require.NoError(t, tr.ReserveToolCallAt(c.Now(), budget.Time, budget.ToolCalls))
		err := tr.ReserveToolCallAt(c.Now(), budget.Time, budget.ToolCalls)
		var ex *budget.ExceededError
		require.ErrorAs(t, err, &ex)
		assert.Equal(t, budget.ToolCalls, ex.Resource)
		assert.Equal(t, int64(1), tr.Budget().ToolCalls)

		err = tr.ReserveToolCallAt(c.Now().Add(time.Minute), budget.Time, budget.ToolCalls)
		require.ErrorAs(t, err, &ex)
		assert.Equal(t, budget.Time, ex.Resource, "time is checked at the instant given, before tool calls")
		assert.Equal(t, int64(1), tr.Budget().ToolCalls)
	})
	t.Run("counts calls past an advisory limit", func(t *testing.T) {
		tr, c := newTracker(t, budget.Limits{Timeout: time.Minute, MaxToolCalls: 1})
		for range 3 {
			require.NoError(t, tr.ReserveToolCallAt(c.Now().Add(time.Hour), budget.Tokens))
		}
		assert.Equal(t, int64(3), tr.Budget().ToolCalls)
		assert.ErrorIs(t, tr.Check(budget.ToolCalls), budget.ErrExceeded)
	})
	t.Run("never overruns the limit under concurrency", func(t *testing.T) {
		tr, c := newTracker(t, budget.Limits{MaxToolCalls: 50})
		var wg sync.WaitGroup
		var allowed atomic.Int64
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					if tr.ReserveToolCallAt(c.Now(), budget.ToolCalls) == nil {
						allowed.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, int64(50), allowed.Load())
		assert.Equal(t, int64(50), tr.Budget().ToolCalls)
	})
}

// A Budget seeded by hand has a deadline but
// no start: the time allowed is unknown, so there is no share of it to
// report until the deadline comes.
func TestABudgetWithoutAStartHasNoTimeShare(t *testing.T) {
	b := budget.Budget{Deadline: t0.Add(30 * time.Minute)}
	f, ok := b.FractionRemaining(budget.Time, t0)
	assert.False(t, ok, "no start, no share")
	assert.Equal(t, 1.0, f, "an unknown share reads as nothing used, so it raises no severity")
	left, ok := b.TimeRemaining(t0)
	assert.True(t, ok, "the deadline still counts")
	assert.Equal(t, 30*time.Minute, left)

	f, ok = b.FractionRemaining(budget.Time, t0.Add(30*time.Minute))
	assert.True(t, ok, "at the deadline nothing is left, start or not")
	assert.Equal(t, 0.0, f)

	_, ok = budget.Budget{}.FractionRemaining(budget.Tokens, t0)
	assert.False(t, ok)
}

func TestExceededWithoutAStartSaysTheDeadlinePassed(t *testing.T) {
	b := budget.Budget{Deadline: t0.Add(30 * time.Minute)}
	ex := b.Exceeded(t0.Add(31 * time.Minute))
	require.NotNil(t, ex)
	assert.Equal(t, budget.ExceededError{Resource: budget.Time}, *ex, "neither the time allowed nor the time used is known")
	assert.Equal(t, "budget exceeded: time: the deadline has passed", ex.Error())
}

func TestNewTrackerStartsAHandSeededBudgetNow(t *testing.T) {
	c := &clock{t: t0}
	store := session.New(&session.StoreOptions{Now: c.Now})
	session.ValueOf[budget.Budget](store).Seed(budget.Budget{Deadline: t0.Add(30 * time.Minute), MaxTokens: 1000, TokensUsed: 10})
	tr, err := budget.NewTracker(store, budget.Limits{}, nil)
	require.NoError(t, err)
	b := tr.Budget()
	assert.Equal(t, budget.Budget{StartedAt: t0, Deadline: t0.Add(30 * time.Minute), MaxTokens: 1000, TokensUsed: 10}, b,
		"the run starts with its tracker; everything else is kept")

	c.Advance(27 * time.Minute)
	f, ok := tr.Budget().FractionRemaining(budget.Time, c.Now())
	assert.True(t, ok)
	assert.InDelta(t, 0.1, f, 1e-9)
	var ex *budget.ExceededError
	c.Advance(4 * time.Minute)
	require.ErrorAs(t, tr.Check(budget.Time), &ex)
	assert.Equal(t, "budget exceeded: time: 30m0s allowed, 31m0s used", ex.Error())
}

func TestChargeModelCallNeverRefundsOrWraps(t *testing.T) {
	t.Run("negative counts charge nothing", func(t *testing.T) {
		tr, _ := newTracker(t, budget.Limits{MaxTokens: 100})
		tr.ChargeModelCall(&budget.Usage{PromptTokens: 100})
		b := tr.ChargeModelCall(&budget.Usage{PromptTokens: -1000, CompletionTokens: 5, TotalTokens: -1000})
		assert.Equal(t, int64(105), b.TokensUsed, "a bogus negative count does not refund the budget")
		assert.Equal(t, int64(100), b.PromptTokens)
		assert.Equal(t, int64(5), b.CompletionTokens)
		assert.ErrorIs(t, tr.Check(budget.Tokens), budget.ErrExceeded)
	})
	t.Run("huge counts saturate", func(t *testing.T) {
		tr, _ := newTracker(t, budget.Limits{MaxTokens: 100})
		u := &budget.Usage{PromptTokens: math.MaxInt64, CompletionTokens: math.MaxInt64}
		assert.Equal(t, int64(math.MaxInt64), u.Total())
		tr.ChargeModelCall(u)
		b := tr.ChargeModelCall(u)
		assert.Equal(t, int64(math.MaxInt64), b.TokensUsed)
		assert.Equal(t, int64(math.MaxInt64), b.PromptTokens)
		assert.Equal(t, int64(math.MaxInt64), b.CompletionTokens)
		assert.ErrorIs(t, tr.Check(budget.Tokens), budget.ErrExceeded, "the count never wraps below the limit")
	})
}

func TestExceededErrorPrintsHugeTimesWithoutOverflow(t *testing.T) {
	err := &budget.ExceededError{Resource: budget.Time, Limit: math.MaxInt64, Used: math.MaxInt64}
	assert.NotContains(t, err.Error(), "-")
	assert.Equal(t, "budget exceeded: time: 2562047h47m16.854775807s allowed, 2562047h47m16.854775807s used", err.Error())
}

// A model-call limit counts every attempt charged, failed ones included,
// and is exhausted once that many calls were made.
func TestModelCallLimit(t *testing.T) {
	require.ErrorIs(t, budget.Limits{MaxModelCalls: -1}.Validate(), budget.ErrInvalidLimits)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := budget.New(budget.Limits{MaxModelCalls: 4}, start)
	assert.Equal(t, int64(4), b.MaxModelCalls)
	b.ModelCalls = 3
	assert.Nil(t, b.Exceeded(start, budget.ModelCalls))
	f, limited := b.FractionRemaining(budget.ModelCalls, start)
	assert.True(t, limited)
	assert.InDelta(t, 0.25, f, 1e-9)
	b.ModelCalls = 4
	ex := b.Exceeded(start)
	require.NotNil(t, ex, "checked with the other resources")
	assert.Equal(t, budget.ModelCalls, ex.Resource)
	assert.Equal(t, int64(4), ex.Limit)
}

func TestPricesCostCountsCachedInsideInputAndReasoningInsideOutput(t *testing.T) {
	prices := budget.Prices{
		"gpt-4o-mini": {InputPerMTok: 0.15, CachedInputPerMTok: 0.075, OutputPerMTok: 0.60},
		"gpt-4o":      {InputPerMTok: 2.5, CachedInputPerMTok: 1.25, OutputPerMTok: 10},
	}
	u := budget.Usage{PromptTokens: 1_000_000, CachedTokens: 400_000, CompletionTokens: 100_000, ReasoningTokens: 30_000}
	cost, ok := prices.Cost("gpt-4o-mini-2024-07-18", u)
	if !ok {
		t.Fatal("a dated snapshot is priced by its model's entry")
	}
	// 600k input at 0.15, 400k cached at 0.075, 100k output at 0.60.
	if want := 0.09 + 0.03 + 0.06; math.Abs(cost-want) > 1e-12 {
		t.Errorf("cost = %v, want %v", cost, want)
	}
	if _, ok := prices.Cost("claude", u); ok {
		t.Error("a model without a price has no cost")
	}
	if err := (budget.Prices{"x": {InputPerMTok: -1}}).Validate(); !errors.Is(err, budget.ErrInvalidLimits) {
		t.Errorf("negative price: %v", err)
	}
}

func TestCostLimitIsExceededInMicroDollars(t *testing.T) {
	tr, err := budget.NewTracker(session.New(nil), budget.Limits{MaxCostUSD: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.ChargeModelCall(&budget.Usage{PromptTokens: 10, CostUSD: 0.3})
	if err := tr.Check(budget.CostUSD); err != nil {
		t.Fatalf("under the limit: %v", err)
	}
	if f, ok := tr.Budget().FractionRemaining(budget.CostUSD, time.Now()); !ok || math.Abs(f-0.4) > 1e-9 {
		t.Errorf("fraction = %v %v", f, ok)
	}
	b := tr.ChargeModelCall(&budget.Usage{PromptTokens: 10, CachedTokens: 4, ReasoningTokens: 2, CostUSD: 0.25})
	if b.CachedTokens != 4 || b.ReasoningTokens != 2 {
		t.Errorf("cached %d reasoning %d", b.CachedTokens, b.ReasoningTokens)
	}
	var ex *budget.ExceededError
	if err := tr.Check(); !errors.As(err, &ex) || ex.Resource != budget.CostUSD || ex.Limit != 500_000 || ex.Used != 550_000 {
		t.Fatalf("Check = %v", err)
	}
	if got, want := ex.Error(), "budget exceeded: cost_usd: $0.55 of $0.50 used"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if err := (budget.Limits{MaxCostUSD: math.NaN()}).Validate(); !errors.Is(err, budget.ErrInvalidLimits) {
		t.Errorf("NaN limit: %v", err)
	}
}

// Model calls reserved at the same time never pass the limit, and a
// reserved call's usage is charged without counting the call again.
func TestReserveModelCallRefusesPastTheLimitUnderConcurrency(t *testing.T) {
	tr, _ := newTracker(t, budget.Limits{MaxModelCalls: 10})
	var wg sync.WaitGroup
	var allowed atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				if _, ex := tr.ReserveModelCall(time.Now(), budget.ModelCalls); ex == nil {
					allowed.Add(1)
					tr.ChargeReserved(&budget.Usage{PromptTokens: 3, CompletionTokens: 2})
				} else if ex.Resource != budget.ModelCalls {
					t.Errorf("unexpected error %v", ex)
				}
			}
		}()
	}
	wg.Wait()
	b := tr.Budget()
	assert.Equal(t, int64(10), allowed.Load())
	assert.Equal(t, int64(10), b.ModelCalls, "each call counted once")
	assert.Equal(t, int64(50), b.TokensUsed)

	after, ex := tr.ReserveModelCall(time.Now())
	assert.Nil(t, ex, "with nothing enforced the call is counted")
	assert.Equal(t, int64(11), after.ModelCalls)
}

func TestDefaultPricesAreValidAndFresh(t *testing.T) {
	a, b := budget.DefaultPrices(), budget.DefaultPrices()
	require.NoError(t, a.Validate())
	assert.Len(t, a, 16, "no entry is named twice")
	for name, p := range a {
		assert.Positive(t, p.InputPerMTok, name)
		assert.Positive(t, p.CachedInputPerMTok, name)
		assert.LessOrEqual(t, p.CachedInputPerMTok, p.InputPerMTok, "%s: a cache hit costs no more than input", name)
		assert.Greater(t, p.OutputPerMTok, p.InputPerMTok, name)
		got, ok := a.Lookup(name + "-20260101")
		assert.True(t, ok, "%s: its dated snapshot is priced", name)
		assert.Equal(t, p, got, "%s: its dated snapshot is priced by its own entry", name)
	}
	a["gpt-6-sol"] = budget.Price{}
	assert.NotEqual(t, a["gpt-6-sol"], b["gpt-6-sol"], "each call returns a table of its own")
}

// A model that shares a prefix with an entry but is another model is not
// priced by that entry: claude-opus-4-5 costs a third of claude-opus-4.
func TestDefaultPricesPriceNoModelByAnother(t *testing.T) {
	prices := budget.DefaultPrices()
	for model, want := range map[string]budget.Price{
		"claude-opus-4-5-20251101": {InputPerMTok: 5, CachedInputPerMTok: 0.50, OutputPerMTok: 25},
		"claude-opus-5-5":          {InputPerMTok: 4, CachedInputPerMTok: 0.20, OutputPerMTok: 20},
		"gpt-6.2-sol":              {InputPerMTok: 2, CachedInputPerMTok: 0.10, OutputPerMTok: 10},
	} {
		got, ok := prices.Lookup(model)
		assert.True(t, ok, model)
		assert.Equal(t, want, got, model)
	}
	for _, model := range []string{"claude-opus-4", "claude-opus-4-1", "claude-sonnet-5-5", "claude-fable-5-2", "gpt-6", "gpt-6-sol-pro", "gpt-6.1-sol", "gpt-5.6-luna-mini", "o1", "o1-pro", "deepseek-chat", "gemini-4-neon", "qwen-plus"} {
		_, ok := prices.Lookup(model)
		assert.False(t, ok, "%s has no entry and is not priced by another model's", model)
	}
}

// Lookup prices a model's dated snapshots and aliases by its entry, and
// no other model whose name starts with it.
func TestLookupPricesSnapshotsButNotOtherModels(t *testing.T) {
	base := budget.Price{InputPerMTok: 1, CachedInputPerMTok: 0.1, OutputPerMTok: 4}
	mini := budget.Price{InputPerMTok: 0.2, CachedInputPerMTok: 0.02, OutputPerMTok: 0.8}
	prices := budget.Prices{"m": base, "m-mini": mini, "claude-x-4": base, "gemini-y": base}
	for _, model := range []string{
		"m", "m-2025-08-07", "m-20251101", "m@20250514", "m-latest", "gemini-y-preview-05-20",
		"claude-x-4-20250514", "claude-x-4@20250514",
	} {
		got, ok := prices.Lookup(model)
		assert.True(t, ok, "%s is priced", model)
		assert.Equal(t, base, got, model)
	}
	for _, model := range []string{"m-mini", "m-mini-2025-08-07", "m-mini-latest"} {
		got, ok := prices.Lookup(model)
		assert.True(t, ok, "%s is priced", model)
		assert.Equal(t, mini, got, "%s is priced by the longer entry", model)
	}
	for _, model := range []string{
		"m-pro", "m-5", "m.1", "mx", "m-nano-2025-08-07", "claude-x-4-5", "claude-x-4-5-20251101",
		"m-2025-13-01", "m-2025-08-32", "m-2025-8-7", "m-202511011", "m-2025110", "m#20251101",
		"m-preview", "m-preview-2025-05-20", "gemini-y-preview-05-2025", "m-latest-2025-08-07",
		"-latest", "-20251101", "", "M",
	} {
		got, ok := prices.Lookup(model)
		assert.False(t, ok, "%s is another model and has no price", model)
		assert.Equal(t, budget.Price{}, got, model)
	}
	if _, ok := (budget.Prices{"": base}).Lookup("-latest"); ok {
		t.Error("the empty name is no model's entry")
	}
	if _, ok := budget.Prices(nil).Lookup("m"); ok {
		t.Error("nil prices price nothing")
	}
}
