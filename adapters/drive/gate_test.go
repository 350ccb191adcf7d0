package drive

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// gateBudgets are budgets at the edges of the gate's checks: each limit
// untouched, near, at and past its end, for a run started start.
func gateBudgets(start time.Time) []budget.Budget {
	base := budget.Budget{StartedAt: start}
	var out []budget.Budget
	add := func(f func(b *budget.Budget)) {
		b := base
		f(&b)
		out = append(out, b)
	}
	add(func(*budget.Budget) {})
	for _, used := range []int64{0, 5, 9, 10, 11} {
		add(func(b *budget.Budget) { b.MaxTokens, b.TokensUsed = 10, used })
		add(func(b *budget.Budget) { b.MaxToolCalls, b.ToolCalls = 10, used })
		add(func(b *budget.Budget) { b.MaxModelCalls, b.ModelCalls = 10, used })
		add(func(b *budget.Budget) { b.MaxCostUSD, b.CostUSD = 1, float64(used)/10 })
	}
	for _, d := range []time.Duration{-time.Hour, -time.Second, 0, time.Second, 5 * time.Second, time.Hour} {
		add(func(b *budget.Budget) { b.Deadline = start.Add(10*time.Second + d) })
		add(func(b *budget.Budget) { b.Deadline, b.StartedAt = start.Add(d), time.Time{} })
	}
	add(func(b *budget.Budget) {
		b.MaxTokens, b.TokensUsed, b.MaxToolCalls, b.ToolCalls = 100, 100, 3, 3
		b.Deadline = start.Add(-time.Second)
	})
	return out
}

// TestAnySpentIsExceeded checks the gate's quick test against the
// budget's own: it is true exactly when some resource is exhausted, so
// that the gate never skips an Exceeded that would refuse the call.
func TestAnySpentIsExceeded(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(10 * time.Second)
	for _, b := range gateBudgets(start) {
		require.Equal(t, b.Exceeded(now) != nil, anySpent(&b, now), "%+v", b)
	}
}

// TestReserveModelCallAsTheTrackerDoes checks that the gate's
// reservation, which reads the budget under its lock, counts, refuses
// and judges the budget calm as the tracker's ReserveModelCall and calm
// on its copy do.
func TestReserveModelCallAsTheTrackerDoes(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(10 * time.Second)
	clock := func() time.Time { return now }
	for _, advisory := range [][]budget.Resource{nil, {budget.Time, budget.Tokens, budget.CostUSD, budget.ToolCalls, budget.ModelCalls}} {
		for _, wrapUpAt := range []float64{0, 0.5, -1} {
			cfg := &lookout.Config{Now: clock, Advisory: advisory, WrapUpAt: wrapUpAt}
			for _, seeded := range gateBudgets(start) {
				viaGate, viaTracker := session.New(nil), session.New(nil)
				session.ValueOf[budget.Budget](viaGate).Seed(seeded)
				session.ValueOf[budget.Budget](viaTracker).Seed(seeded)
				r := newTestRun(t, cfg, viaGate)
				tr := newTestRun(t, cfg, viaTracker)

				var got budget.Budget
				ex, calm := r.reserveModelCall(now, &got)
				want, wantEx := tr.tracker.ReserveModelCall(now, tr.l.beforeModel...)
				require.Equal(t, wantEx, ex, "%+v", seeded)
				require.Equal(t, want, r.tracker.Budget(), "the count, %+v", seeded)
				if ex != nil {
					continue
				}
				require.Equal(t, tr.calm(&want, now), calm, "%+v", seeded)
				if !calm {
					require.Equal(t, want, got, "the budget given for the reminder, %+v", seeded)
				}
			}
		}
	}
}

// TestNearTimeAsTheFormula checks the kept instant of nearTime against
// the fraction of the budget's time left, worked out afresh, at and
// around its edge, as one nearTime sees deadlines and starts change (a
// resume moves them). A budget without a start is left out: its span,
// centuries long, is past what a float64 holds to the nanosecond.
func TestNearTimeAsTheFormula(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	near := func(b *budget.Budget, now time.Time, w float64) bool {
		return !b.Deadline.IsZero() && float64(b.Deadline.Sub(now)) <= w*float64(b.Deadline.Sub(b.StartedAt))
	}
	var n nearTime
	for _, w := range []float64{0, 0.1, 0.2, 1.0 / 3, 0.5, 0.999} {
		for _, b := range gateBudgets(start) {
			if b.StartedAt.IsZero() {
				continue
			}
			for _, moved := range []time.Duration{0, -time.Second, 7 * time.Nanosecond} {
				if !b.Deadline.IsZero() {
					b.Deadline = b.Deadline.Add(moved)
				}
				for _, off := range []time.Duration{-time.Hour, -3 * time.Second, -time.Nanosecond, 0, time.Nanosecond, time.Second} {
					edge := b.Deadline
					if !b.Deadline.IsZero() {
						edge = b.Deadline.Add(-time.Duration(w * float64(b.Deadline.Sub(b.StartedAt))))
					}
					for _, now := range []time.Time{start.Add(off), start.Add(10 * time.Second).Add(off), edge.Add(off)} {
						require.Equal(t, near(&b, now, w), n.reached(&b, w, now), "w %v, %+v at %v", w, b, now)
					}
				}
			}
		}
	}
}
