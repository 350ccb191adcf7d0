package drive

import (
	"math"
	"time"

	"github.com/lookout-go/lookout/budget"
)

// reserveModelCall is the tracker's ReserveModelCall for the gate: it
// counts one model call at now unless one of the resources the gate
// enforces is spent, checked and counted atomically (and without a
// deferred unlock: nothing here can panic), and reports whether
// the budget after the count is calm (see calm). The budget is looked at
// where it is kept, under its lock, rather than copied out: only when it
// is not calm is it copied into b, for the wrap-up reminder.
func (r *Run) reserveModelCall(now time.Time, b *budget.Budget) (ex *budget.ExceededError, calm bool) {
	enforce := r.l.beforeModel
	r.budgetCell.Change(func(cur *budget.Budget) {
		if len(enforce) > 0 && anySpent(cur, now) {
			if ex = cur.Exceeded(now, enforce...); ex != nil {
				return
			}
		}
		cur.ModelCalls++
		if calm = r.calm(cur, now); !calm {
			*b = *cur
		}
	})
	return ex, calm
}

// anySpent reports whether any limited resource of b is exhausted at
// now, as budget's own quick test does: Exceeded, which copies the
// budget and walks the resources it is given, is called only when it is
// true.
func anySpent(b *budget.Budget, now time.Time) bool {
	return spent(b.MaxTokens, b.TokensUsed) || b.MaxCostUSD > 0 && b.CostUSD >= b.MaxCostUSD ||
		spent(b.MaxToolCalls, b.ToolCalls) || spent(b.MaxModelCalls, b.ModelCalls) ||
		!b.Deadline.IsZero() && !now.Before(b.Deadline)
}

// spent reports whether a count's limit is set and reached.
func spent(limit, used int64) bool { return limit > 0 && used >= limit }

// calm reports whether b at now, which counts the call about to be made,
// is clear of every limit that gives a wrap-up turn: neither tokens,
// cost nor time is within WrapUpAt of its limit, and the call is not the
// last the model-call limit allows. It is the usual case.
func (r *Run) calm(b *budget.Budget, now time.Time) bool {
	if r.lastModelCall(b) {
		return false
	}
	w := max(r.cfg.WrapUpAt, 0)
	return !nearLimit(float64(b.MaxTokens), float64(b.TokensUsed), w) &&
		!nearLimit(b.MaxCostUSD, b.CostUSD, w) &&
		!r.near.reached(b, w, now)
}

// nearLimit reports whether a limit is set and used leaves a fraction w or
// less of it.
func nearLimit(limit, used, w float64) bool {
	return limit > 0 && limit-used <= w*limit
}

// nearTime is when a fraction w of a budget's time is left, for the
// budget's deadline and start, kept from one call of the gate to the
// next, which uses it under the budget's lock: a budget's deadline and
// start change only when a resume moves them.
type nearTime struct {
	deadline, started, at time.Time
}

// reached reports whether b has a deadline and a fraction w or less of
// its time is left at now.
func (n *nearTime) reached(b *budget.Budget, w float64, now time.Time) bool {
	if b.Deadline.IsZero() {
		return false
	}
	if n.deadline != b.Deadline || n.started != b.StartedAt {
		// Deadline-now <= w*span holds, in whole nanoseconds, from the
		// deadline less w*span rounded down (for spans under 104 days,
		// which a float64 holds to the nanosecond).
		cut := time.Duration(math.Floor(w * float64(b.Deadline.Sub(b.StartedAt))))
		*n = nearTime{deadline: b.Deadline, started: b.StartedAt, at: b.Deadline.Add(-cut)}
	}
	return !now.Before(n.at)
}
