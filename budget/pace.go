package budget

import (
	"math"
	"time"
)

// Pace is a projection of when each limited resource runs out if the run
// keeps consuming at its average rate so far.
type Pace struct {
	Now     time.Time
	Elapsed time.Duration
	// Deadline is the budget's deadline; zero when there is none.
	Deadline  time.Time
	Tokens    ResourcePace
	ToolCalls ResourcePace
}

// ResourcePace is the projection for one resource.
type ResourcePace struct {
	Resource Resource
	// Limited is false when the resource has no limit; nothing is projected.
	Limited   bool
	Used      int64
	Limit     int64
	Remaining int64

	// PerMinute is the average consumption per minute of elapsed time.
	PerMinute float64
	// PerToolCall is the average consumption per tool call (1 for tool
	// calls themselves).
	PerToolCall float64

	// Projected is true when there was enough consumption to project from:
	// at least [MinProjectionElapsed] has elapsed and some of the resource
	// was used.
	Projected bool
	// RunsOutIn is the projected time until the resource is exhausted.
	RunsOutIn time.Duration
	// RunsOutAt is Now plus RunsOutIn.
	RunsOutAt time.Time
	// CallsLeft is the projected number of further tool calls before the
	// resource is exhausted; -1 when unknown (no tool calls made yet).
	CallsLeft int64
	// RunsOutAtCall is the projected index of the tool call at which the
	// resource is exhausted: tool calls so far plus CallsLeft; -1 when
	// unknown.
	RunsOutAtCall int64
}

// MinProjectionElapsed is the least run time a projection is made from.
// Rates measured over a few seconds swing too much to say when anything
// runs out.
const MinProjectionElapsed = time.Minute

// Project returns the pace of b at now. It is a pure function of its
// arguments.
func Project(b Budget, now time.Time) Pace {
	p := Pace{Now: now, Elapsed: b.Elapsed(now), Deadline: b.Deadline}
	p.Tokens = project(Tokens, b.MaxTokens, b.TokensUsed, b.ToolCalls, p.Elapsed, now)
	p.ToolCalls = project(ToolCalls, b.MaxToolCalls, b.ToolCalls, b.ToolCalls, p.Elapsed, now)
	return p
}

func project(r Resource, limit, used, calls int64, elapsed time.Duration, now time.Time) ResourcePace {
	rp := ResourcePace{Resource: r, Used: used, Limit: limit, CallsLeft: -1, RunsOutAtCall: -1}
	if limit <= 0 {
		return rp
	}
	rp.Limited = true
	rp.Remaining = limit - used
	if elapsed > 0 {
		rp.PerMinute = float64(used) / elapsed.Minutes()
	}
	if calls > 0 {
		rp.PerToolCall = float64(used) / float64(calls)
	}
	if elapsed < MinProjectionElapsed || used <= 0 {
		return rp
	}
	rp.extrapolate(calls, now)
	return rp
}

// extrapolate projects, at the rates so far, when and at which tool call
// the resource runs out; calls is the number of tool calls made.
func (rp *ResourcePace) extrapolate(calls int64, now time.Time) {
	rp.Projected = true
	if rp.Remaining <= 0 {
		rp.RunsOutAt = now
		rp.CallsLeft, rp.RunsOutAtCall = 0, calls
		return
	}
	minutes := float64(rp.Remaining) / rp.PerMinute
	rp.RunsOutIn = durationOfMinutes(minutes)
	rp.RunsOutAt = now.Add(rp.RunsOutIn)
	if rp.PerToolCall > 0 {
		// Near math.MaxInt64 the float quotient can round past what an
		// int64 holds; such a projection says no more than "unknown".
		left := math.Floor(float64(rp.Remaining) / rp.PerToolCall)
		if left < float64(math.MaxInt64-calls) {
			rp.CallsLeft = int64(left)
			rp.RunsOutAtCall = calls + rp.CallsLeft
		}
	}
}

// durationOfMinutes converts without overflowing for tiny rates.
func durationOfMinutes(m float64) time.Duration {
	const maxMinutes = float64(math.MaxInt64 / int64(time.Minute))
	if m >= maxMinutes {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(m * float64(time.Minute))
}

// Shortfall is a projected exhaustion of one resource before another limit
// is reached.
type Shortfall struct {
	// Resource is what runs out first.
	Resource Resource
	// Before is the limit it beats: Time (the deadline) or ToolCalls.
	Before Resource
	// In is the projected time until Resource runs out.
	In time.Duration
	// Calls is the projected number of tool calls until Resource runs out;
	// -1 when unknown.
	Calls int64
}

// Shortfalls lists the resources projected to run out before the limit
// that would otherwise end the run first. Tokens are compared with the
// deadline when there is one, and otherwise with the tool-call limit; tool
// calls are compared with the deadline. A resource that runs out only after
// the deadline is no shortfall: the deadline binds first.
func (p Pace) Shortfalls() []Shortfall {
	var out []Shortfall
	if s, ok := p.tokensShortfall(); ok {
		out = append(out, s)
	}
	if s, ok := p.toolCallsShortfall(); ok {
		out = append(out, s)
	}
	return out
}

// tokensShortfall reports tokens projected to run out before the deadline,
// or, without one, before the tool-call limit.
func (p *Pace) tokensShortfall() (Shortfall, bool) {
	t := p.Tokens
	if !t.Projected || t.Remaining <= 0 {
		return Shortfall{}, false
	}
	s := Shortfall{Resource: Tokens, Before: Time, In: t.RunsOutIn, Calls: t.CallsLeft}
	if !p.Deadline.IsZero() {
		return s, t.RunsOutAt.Before(p.Deadline)
	}
	s.Before = ToolCalls
	return s, p.ToolCalls.Limited && t.CallsLeft >= 0 && t.CallsLeft < p.ToolCalls.Remaining
}

// toolCallsShortfall reports tool calls projected to run out before the
// deadline.
func (p *Pace) toolCallsShortfall() (Shortfall, bool) {
	c := p.ToolCalls
	ok := c.Projected && c.Remaining > 0 && !p.Deadline.IsZero() && c.RunsOutAt.Before(p.Deadline)
	return Shortfall{Resource: ToolCalls, Before: Time, In: c.RunsOutIn, Calls: c.CallsLeft}, ok
}
