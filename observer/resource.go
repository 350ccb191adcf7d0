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

// ResourceObserver reports the remaining time, tokens, cost and calls in plain
// language, so the model knows its runway. Its severity is caution when a
// resource has CautionAt or less of its share left, and warning at
// WarningAt or less or when one is exhausted. When the pace so far would
// exhaust a resource before the deadline or another limit, it says so and
// raises the severity one level.
//
// The zero value uses the defaults. A ResourceObserver is safe for concurrent use
// as long as its fields are not changed while it runs.
type ResourceObserver struct {
	// CautionAt is the fraction remaining, from 0 to 1, at or below which
	// the severity is at least caution. Zero means [DefaultCautionAt].
	CautionAt float64
	// WarningAt is the fraction remaining, from 0 to 1, at or below which
	// the severity is warning. Zero means [DefaultWarningAt].
	WarningAt float64
	// MinPaceCalls is how many tool calls must have run before pace is
	// projected. Zero means [DefaultMinPaceCalls]; negative turns pace off.
	MinPaceCalls int
}

// NewResource returns a Resource observer with the default thresholds.
func NewResource() *ResourceObserver { return &ResourceObserver{} }

// Name returns "Resources".
func (r *ResourceObserver) Name() string { return "Resources" }

// Validate reports a CautionAt or WarningAt that is not a number from 0 to
// 1, as a [*ConfigError]. [NewPipeline] calls it.
func (r *ResourceObserver) Validate() error {
	if err := notFraction(r.Name(), "CautionAt", r.CautionAt); err != nil {
		return err
	}
	return notFraction(r.Name(), "WarningAt", r.WarningAt)
}

// ShouldRun always reports true: the trigger decides how often it speaks.
func (r *ResourceObserver) ShouldRun(context.Context, *Context) bool { return true }

// Observe describes the budget at oc.Now.
func (r *ResourceObserver) Observe(_ context.Context, oc *Context) (Assessment, error) {
	b, _ := oc.Budget()
	return r.Assess(b, oc.Now), nil
}

// Assess describes b at now. It is what Observe does, without a session.
func (r *ResourceObserver) Assess(b budget.Budget, now time.Time) Assessment {
	g := r.grader()
	var text strings.Builder
	text.Grow(resourceTextSize)
	sev := g.timeStatement(&text, &b, now, Info)
	sev = g.tokenStatement(&text, &b, now, sev)
	sev = g.costStatement(&text, &b, now, sev)
	sev = g.toolCallStatement(&text, &b, now, sev)
	sev = g.modelCallStatement(&text, &b, now, sev)
	sev = r.paceStatements(&text, &b, now, sev)

	a := Assessment{Observer: r.Name(), Severity: sev, Timestamp: now, Suggestions: resourceSuggestions(sev)}
	a.Summary = "No resource constraints configured."
	if text.Len() > 0 {
		a.Summary = text.String()
	}
	return a
}

// resourceSuggestions returns new suggestions for an assessment of
// severity sev.
func resourceSuggestions(sev Severity) []string {
	switch sev {
	case Warning:
		return []string{
			"Prioritize completing the most critical remaining work.",
			"Consider wrapping up with a summary of progress and remaining tasks.",
		}
	case Caution:
		return []string{"Be mindful of remaining resources when planning next steps."}
	}
	return nil
}

// resourceGrader grades the share of a resource remaining against the
// observer's thresholds.
type resourceGrader struct{ caution, warning float64 }

func (r *ResourceObserver) grader() resourceGrader {
	g := resourceGrader{caution: r.CautionAt, warning: r.WarningAt}
	if g.caution == 0 {
		g.caution = DefaultCautionAt
	}
	if g.warning == 0 {
		g.warning = DefaultWarningAt
	}
	return g
}

// grade returns sev raised to what remaining, a share of a resource,
// calls for.
func (g resourceGrader) grade(sev Severity, remaining float64) Severity {
	switch {
	case remaining <= g.warning:
		return Warning
	case remaining <= g.caution:
		return max(sev, Caution)
	}
	return sev
}

// startSentence separates a new sentence of text from the previous one.
func startSentence(text *strings.Builder) {
	if text.Len() > 0 {
		text.WriteByte(' ')
	}
}

// timeStatement writes the time left before the deadline, if there is
// one, and returns sev graded by it.
func (g resourceGrader) timeStatement(text *strings.Builder, b *budget.Budget, now time.Time, sev Severity) Severity {
	left, ok := b.TimeRemaining(now)
	if !ok {
		return sev
	}
	startSentence(text)
	if left <= 0 {
		text.WriteString("You have reached the time deadline.")
		return Warning
	}
	text.WriteString("You have ")
	if left < time.Second {
		text.WriteString(underASecond)
	} else {
		writeDuration(text, left)
	}
	text.WriteString(" remaining before the deadline.")
	f, _ := b.FractionRemaining(budget.Time, now)
	return g.grade(sev, f)
}

// tokenStatement writes the tokens used and left, if they are limited,
// and returns sev graded by them.
func (g resourceGrader) tokenStatement(text *strings.Builder, b *budget.Budget, now time.Time, sev Severity) Severity {
	left, ok := b.TokensRemaining()
	if !ok {
		return sev
	}
	startSentence(text)
	if left <= 0 {
		text.WriteString("You have exhausted your token budget.")
		return Warning
	}
	// Tokens are left: a share of 99.5% or more, rounded, would read as
	// all used, and is written as 99%.
	used := min(float64(b.TokensUsed)/float64(b.MaxTokens)*100, 99)
	var num [32]byte
	text.WriteString("You have used ")
	writeThousands(text, b.TokensUsed)
	text.WriteString(" of ")
	writeThousands(text, b.MaxTokens)
	text.WriteString(" tokens (")
	text.Write(strconv.AppendFloat(num[:0], used, 'f', 0, 64))
	text.WriteString("% of budget). ")
	writeThousands(text, left)
	text.WriteString(" tokens remaining.")
	f, _ := b.FractionRemaining(budget.Tokens, now)
	return g.grade(sev, f)
}

// costStatement writes the dollars spent and left, if cost is limited,
// and returns sev graded by them.
func (g resourceGrader) costStatement(text *strings.Builder, b *budget.Budget, now time.Time, sev Severity) Severity {
	left, ok := b.CostRemaining()
	if !ok {
		return sev
	}
	startSentence(text)
	if left <= 0 {
		text.WriteString("You have exhausted your cost budget.")
		return Warning
	}
	used := min(b.CostUSD/b.MaxCostUSD*100, 99)
	var num [32]byte
	text.WriteString("You have spent $")
	text.Write(strconv.AppendFloat(num[:0], b.CostUSD, 'f', 2, 64))
	text.WriteString(" of $")
	text.Write(strconv.AppendFloat(num[:0], b.MaxCostUSD, 'f', 2, 64))
	text.WriteString(" (")
	text.Write(strconv.AppendFloat(num[:0], used, 'f', 0, 64))
	text.WriteString("% of budget).")
	f, _ := b.FractionRemaining(budget.CostUSD, now)
	return g.grade(sev, f)
}

// toolCallStatement writes the tool calls made and left, if they are
// limited, and returns sev graded by them.
func (g resourceGrader) toolCallStatement(text *strings.Builder, b *budget.Budget, now time.Time, sev Severity) Severity {
	return g.callStatement(text, b, now, sev, budget.ToolCalls, b.ToolCalls, b.MaxToolCalls, "tool")
}

// modelCallStatement writes the model calls made and left, if they are
// limited, and returns sev graded by them.
func (g resourceGrader) modelCallStatement(text *strings.Builder, b *budget.Budget, now time.Time, sev Severity) Severity {
	return g.callStatement(text, b, now, sev, budget.ModelCalls, b.ModelCalls, b.MaxModelCalls, "model")
}

// callStatement writes the calls of a kind made and left (resource r,
// made of limit), if they are limited, and returns sev graded by them.
func (g resourceGrader) callStatement(text *strings.Builder, b *budget.Budget, now time.Time, sev Severity, r budget.Resource, made, limit int64, kind string) Severity {
	if limit <= 0 {
		return sev
	}
	left := limit - made
	startSentence(text)
	if left <= 0 {
		text.WriteString("You have exhausted your ")
		text.WriteString(kind)
		text.WriteString(" call budget.")
		return Warning
	}
	text.WriteString("You have made ")
	writeInt(text, made)
	text.WriteString(" of ")
	writeInt(text, limit)
	text.WriteString(" allowed ")
	text.WriteString(kind)
	text.WriteString(" calls. ")
	writePlural(text, left, "call", "calls")
	text.WriteString(" remaining.")
	f, _ := b.FractionRemaining(r, now)
	return g.grade(sev, f)
}

// paceStatements writes the shortfalls the pace so far projects, once
// enough calls have been made to judge it, and raises sev one level if
// there are any.
func (r *ResourceObserver) paceStatements(text *strings.Builder, b *budget.Budget, now time.Time, sev Severity) Severity {
	minCalls := pick(r.MinPaceCalls, DefaultMinPaceCalls)
	if minCalls <= 0 || b.ToolCalls < int64(minCalls) {
		return sev
	}
	shortfalls := budget.Project(*b, now).Shortfalls()
	for _, s := range shortfalls {
		startSentence(text)
		writePace(text, s)
	}
	if len(shortfalls) > 0 {
		return sev.raise()
	}
	return sev
}

// resourceTextSize is room for the summary of a budget with every limit
// set and a pace statement, so that it is written in one allocation.
const resourceTextSize = 384

// writePace writes the statement of a projected shortfall.
func writePace(b *strings.Builder, s budget.Shortfall) {
	b.WriteString("At this pace ")
	if s.Resource == budget.ToolCalls {
		b.WriteString("tool calls")
	} else {
		b.WriteString("tokens")
	}
	b.WriteString(" run out in ")
	if s.Resource == budget.Tokens && s.Calls >= 0 {
		writeCallsLeft(b, s)
	} else {
		writeAbout(b, s.In)
	}
	if s.Before == budget.ToolCalls {
		b.WriteString(", before the tool-call limit.")
	} else {
		b.WriteString(", before the deadline.")
	}
}

// writeCallsLeft writes in how many calls tokens run out, and in how much
// time when the deadline comes next.
func writeCallsLeft(b *strings.Builder, s budget.Shortfall) {
	if s.Calls == 0 {
		b.WriteString("less than one call")
	} else {
		b.WriteString("about ")
		writePlural(b, s.Calls, "call", "calls")
	}
	if s.Before == budget.Time {
		b.WriteString(" (")
		writeAbout(b, s.In)
		b.WriteByte(')')
	}
}

// underASecond is what the Resource observer says of a time left that
// whole seconds would round to nothing.
const underASecond = "less than a second"

// writeAbout writes an estimated duration: "about 5 minutes", or "less
// than a second".
func writeAbout(b *strings.Builder, d time.Duration) {
	if d < time.Second {
		b.WriteString(underASecond)
		return
	}
	b.WriteString("about ")
	writeDuration(b, d)
}

// FormatDuration renders d for the model: whole seconds under a minute,
// whole minutes under an hour, then hours and days to one decimal.
func FormatDuration(d time.Duration) string {
	var b strings.Builder
	b.Grow(24)
	writeDuration(&b, d)
	return b.String()
}

// writeDuration writes what [FormatDuration] returns.
func writeDuration(b *strings.Builder, d time.Duration) {
	var num [32]byte
	s := d.Seconds()
	switch {
	case s < 60:
		writePlural(b, int64(s), "second", "seconds")
	case s < 3600:
		writePlural(b, int64(s/60), "minute", "minutes")
	case s < 86400:
		b.Write(strconv.AppendFloat(num[:0], s/3600, 'f', 1, 64))
		b.WriteString(" hours")
	default:
		b.Write(strconv.AppendFloat(num[:0], s/86400, 'f', 1, 64))
		b.WriteString(" days")
	}
}

// FormatCount renders n for the model with a comma between each group of
// three digits, as the Resource observer writes token counts: 50000 is
// "50,000".
func FormatCount(n int64) string {
	var num [32]byte
	return string(appendThousands(num[:0], n))
}

// writeThousands writes n with thousands separators: 50000 → "50,000".
func writeThousands(b *strings.Builder, n int64) {
	var num [32]byte
	b.Write(appendThousands(num[:0], n))
}

// appendThousands appends n in decimal with a comma between each group
// of three digits.
func appendThousands(dst []byte, n int64) []byte {
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], n, 10)
	if s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}
