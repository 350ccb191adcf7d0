package observer

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout/budget"
)

// Resource defaults.
const (
	DefaultCautionAt    = 0.30
	DefaultWarningAt    = 0.10
	DefaultMinPaceCalls = 3
)

// Resource reports the remaining time, tokens and tool calls in plain
// language, so the model knows its runway. Its severity is caution when a
// resource has CautionAt or less of its share left, and warning at
// WarningAt or less or when one is exhausted. When the pace so far would
// exhaust a resource before the deadline or another limit, it says so and
// raises the severity one level.
//
// The zero value uses the defaults. A Resource is safe for concurrent use
// as long as its fields are not changed while it runs.
type Resource struct {
	// CautionAt is the fraction remaining at or below which the severity is
	// at least caution. Zero means [DefaultCautionAt].
	CautionAt float64
	// WarningAt is the fraction remaining at or below which the severity is
	// warning. Zero means [DefaultWarningAt].
	WarningAt float64
	// MinPaceCalls is how many tool calls must have run before pace is
	// projected. Zero means [DefaultMinPaceCalls]; negative turns pace off.
	MinPaceCalls int
}

// NewResource returns a Resource observer with the default thresholds.
func NewResource() *Resource { return &Resource{} }

// Name returns "Resources".
func (r *Resource) Name() string { return "Resources" }

// ShouldRun always reports true: the trigger decides how often it speaks.
func (r *Resource) ShouldRun(context.Context, *Context) bool { return true }

// Observe describes the budget at oc.Now.
func (r *Resource) Observe(_ context.Context, oc *Context) (Assessment, error) {
	b, _ := oc.Budget()
	return r.Assess(b, oc.Now), nil
}

// Assess describes b at now. It is what Observe does, without a session.
func (r *Resource) Assess(b budget.Budget, now time.Time) Assessment {
	caution, warning := r.CautionAt, r.WarningAt
	if caution == 0 {
		caution = DefaultCautionAt
	}
	if warning == 0 {
		warning = DefaultWarningAt
	}
	grade := func(sev Severity, remaining float64) Severity {
		switch {
		case remaining <= warning:
			return Warning
		case remaining <= caution:
			return max(sev, Caution)
		}
		return sev
	}

	var statements []string
	sev := Info

	if left, ok := b.TimeRemaining(now); ok {
		if left <= 0 {
			statements = append(statements, "You have reached the time deadline.")
			sev = Warning
		} else {
			statements = append(statements, "You have "+FormatDuration(left)+" remaining before the deadline.")
			f, _ := b.FractionRemaining(budget.Time, now)
			sev = grade(sev, f)
		}
	}
	if left, ok := b.TokensRemaining(); ok {
		if left <= 0 {
			statements = append(statements, "You have exhausted your token budget.")
			sev = Warning
		} else {
			used := float64(b.TokensUsed) / float64(b.MaxTokens)
			statements = append(statements, "You have used "+formatInt(b.TokensUsed)+" of "+formatInt(b.MaxTokens)+
				" tokens ("+strconv.FormatFloat(used*100, 'f', 0, 64)+"% of budget). "+formatInt(left)+" tokens remaining.")
			f, _ := b.FractionRemaining(budget.Tokens, now)
			sev = grade(sev, f)
		}
	}
	if left, ok := b.ToolCallsRemaining(); ok {
		if left <= 0 {
			statements = append(statements, "You have exhausted your tool call budget.")
			sev = Warning
		} else {
			statements = append(statements, "You have made "+strconv.FormatInt(b.ToolCalls, 10)+" of "+
				strconv.FormatInt(b.MaxToolCalls, 10)+" allowed tool calls. "+plural(left, "call", "calls")+" remaining.")
			f, _ := b.FractionRemaining(budget.ToolCalls, now)
			sev = grade(sev, f)
		}
	}

	minCalls := r.MinPaceCalls
	if minCalls == 0 {
		minCalls = DefaultMinPaceCalls
	}
	if minCalls > 0 && b.ToolCalls >= int64(minCalls) {
		shortfalls := budget.Project(b, now).Shortfalls()
		for _, s := range shortfalls {
			statements = append(statements, paceStatement(s))
		}
		if len(shortfalls) > 0 {
			sev = sev.raise()
		}
	}

	a := Assessment{Observer: r.Name(), Severity: sev, Timestamp: now}
	switch sev {
	case Warning:
		a.Suggestions = []string{
			"Prioritize completing the most critical remaining work.",
			"Consider wrapping up with a summary of progress and remaining tasks.",
		}
	case Caution:
		a.Suggestions = []string{"Be mindful of remaining resources when planning next steps."}
	}
	if len(statements) == 0 {
		a.Summary = "No resource constraints configured."
	} else {
		a.Summary = strings.Join(statements, " ")
	}
	return a
}

func paceStatement(s budget.Shortfall) string {
	what := "tokens"
	if s.Resource == budget.ToolCalls {
		what = "tool calls"
	}
	var when string
	switch {
	case s.Resource == budget.Tokens && s.Calls == 0:
		when = "less than one call"
		if s.Before == budget.Time {
			when += " (about " + FormatDuration(s.In) + ")"
		}
	case s.Resource == budget.Tokens && s.Calls > 0:
		when = "about " + plural(s.Calls, "call", "calls")
		if s.Before == budget.Time {
			when += " (about " + FormatDuration(s.In) + ")"
		}
	default:
		when = "about " + FormatDuration(s.In)
	}
	before := "the deadline"
	if s.Before == budget.ToolCalls {
		before = "the tool-call limit"
	}
	return "At this pace " + what + " run out in " + when + ", before " + before + "."
}

// FormatDuration renders d for the model: whole seconds under a minute,
// whole minutes under an hour, then hours and days to one decimal.
func FormatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 60:
		return plural(int64(s), "second", "seconds")
	case s < 3600:
		return plural(int64(s/60), "minute", "minutes")
	case s < 86400:
		return strconv.FormatFloat(s/3600, 'f', 1, 64) + " hours"
	}
	return strconv.FormatFloat(s/86400, 'f', 1, 64) + " days"
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// formatInt renders n with thousands separators: 50000 → "50,000".
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
