package resource

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/detect"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// Resource defaults.
const (
	DefaultCautionAt    = 0.30
	DefaultWarningAt    = 0.10
	DefaultMinPaceCalls = 3
)

// Observer reports the remaining time, tokens, cost and calls in plain
// language, so the model knows its runway. Its severity is caution when a
// resource has CautionAt or less of its share left, and warning at
// WarningAt or less or when one is exhausted. When the pace so far would
// exhaust a resource before the deadline or another limit, it says so and
// raises the severity one level.
//
// The zero value uses the defaults. An Observer is safe for concurrent use
// as long as its fields are not changed while it runs.
type Observer struct {
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

// New returns a Resource observer with the default thresholds.
func New() *Observer { return &Observer{} }

// Name returns "Resources".
func (r *Observer) Name() string { return "Resources" }

// Validate reports a CautionAt or WarningAt that is not a number from 0 to
// 1, as a [*ConfigError]. [NewPipeline] calls it.
func (r *Observer) Validate() error {
	if err := detect.NotFraction(r.Name(), "CautionAt", r.CautionAt); err != nil {
		return err
	}
	return detect.NotFraction(r.Name(), "WarningAt", r.WarningAt)
}

// ShouldRun reports whether the session's budget sets a limit: with none
// there is nothing to report. Otherwise the trigger decides how often it
// speaks.
func (r *Observer) ShouldRun(_ context.Context, oc *observer.Context) bool {
	b, _ := oc.Budget()
	return limited(b)
}

// limited reports whether b sets a deadline or a cap, on cost too.
func limited(b budget.Budget) bool {
	return !b.Deadline.IsZero() || b.MaxTokens > 0 || b.MaxToolCalls > 0 || b.MaxModelCalls > 0 || b.MaxCostUSD > 0
}

// Observe describes the budget at oc.Now.
func (r *Observer) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	b, _ := oc.Budget()
	return r.assess(&b, oc.Now), nil
}

// Assess describes b at now. It is what Observe does, without a session.
func (r *Observer) Assess(b budget.Budget, now time.Time) observer.Assessment {
	return r.assess(&b, now)
}

// assess is Assess for a budget passed by reference, which Observe does
// not copy again.
func (r *Observer) assess(b *budget.Budget, now time.Time) observer.Assessment {
	g := r.grader()
	w := writers.Get().(*writer)
	w.StartShared(resourceTextSize)
	sev := observer.Info
	sev = g.timeStatement(w, b, now, sev)
	sev = g.tokenStatement(w, b, sev)
	sev = g.costStatement(w, b, sev)
	sev = g.callStatement(w, sev, &w.toolCalls, b.ToolCalls, b.MaxToolCalls, "tool")
	sev = g.callStatement(w, sev, &w.modelCalls, b.ModelCalls, b.MaxModelCalls, "model")
	sev = r.paceStatements(w, b, now, sev)
	summary := w.End().In(w.String())
	writers.Put(w)
	if summary == "" {
		summary = "No resource constraints configured."
	} else {
		summary = summary[len(" "):]
	}
	return observer.Assessment{Observer: r.Name(), Summary: summary, Severity: sev, Timestamp: now, Suggestions: resourceSuggestions(sev)}
}

// writer writes a summary into its texts, which the summaries written after
// it share while they have room. It keeps the texts it last wrote around
// each limit and the time left, which stay the same from one call of a run
// to the next: a pool hands it from call to call, and on a thread that
// serves one run it is the same writer each time.
type writer struct {
	scan.Texts
	tokens                limitText // " of 50,000 tokens ("
	toolCalls, modelCalls limitText // " of 100 allowed tool calls. "
	// timeLeft is the time statement last written, for the whole seconds
	// (positive) or whole minutes (negative) it said were left.
	timeLeft     int64
	timeSentence []byte
}

var writers = sync.Pool{New: func() any { return new(writer) }}

// limitText is the text a statement writes around a limit, written once
// for each value of the limit.
type limitText struct {
	limit int64
	text  []byte
	left  scan.Leading // the leading digits of what is left, last written
}

// of returns the text for limit, written by write when the limit is not the
// one the text was last written for.
func (t *limitText) of(limit int64, write func(dst []byte, limit int64) []byte) []byte {
	if limit != t.limit || len(t.text) == 0 {
		t.limit, t.text = limit, write(t.text[:0], limit)
	}
	return t.text
}

// resourceSuggestions returns new suggestions for an assessment of
// severity sev.
func resourceSuggestions(sev observer.Severity) []string {
	switch sev {
	case observer.Warning:
		return []string{
			"Prioritize completing the most critical remaining work.",
			"Consider wrapping up with a summary of progress and remaining tasks.",
		}
	case observer.Caution:
		return []string{"Be mindful of remaining resources when planning next steps."}
	}
	return nil
}

// resourceGrader grades the share of a resource remaining against the
// observer's thresholds.
type resourceGrader struct{ caution, warning float64 }

func (r *Observer) grader() resourceGrader {
	caution, warning := r.Thresholds()
	return resourceGrader{caution: caution, warning: warning}
}

// Thresholds returns the CautionAt and WarningAt the observer grades
// with: its fields, or their defaults where they are zero.
func (r *Observer) Thresholds() (cautionAt, warningAt float64) {
	cautionAt, warningAt = r.CautionAt, r.WarningAt
	if cautionAt == 0 {
		cautionAt = DefaultCautionAt
	}
	if warningAt == 0 {
		warningAt = DefaultWarningAt
	}
	return cautionAt, warningAt
}

// grade returns sev raised to what remaining, a share of a resource,
// calls for.
func (g resourceGrader) grade(sev observer.Severity, remaining float64) observer.Severity {
	switch {
	case remaining <= g.warning:
		return observer.Warning
	case remaining <= g.caution:
		return max(sev, observer.Caution)
	}
	return sev
}

// share returns the share of a limit that left is, left being more than
// nothing: what [budget.Budget.FractionRemaining] returns for it.
func share[T int64 | time.Duration](left, limit T) float64 {
	if limit <= 0 {
		return 0
	}
	return min(float64(left)/float64(limit), 1)
}

// Each statement starts with a space, which separates it from the one
// before; the space before the first is left out of the summary.

// timeStatement writes the time left before the deadline, if there is
// one, and returns sev graded by it.
func (g resourceGrader) timeStatement(w *writer, b *budget.Budget, now time.Time, sev observer.Severity) observer.Severity {
	if b.Deadline.IsZero() {
		return sev
	}
	left := b.Deadline.Sub(now)
	if left <= 0 {
		w.WriteString(" You have reached the time deadline.")
		return observer.Warning
	}
	w.writeTimeLeft(left)
	if b.StartedAt.IsZero() {
		// The time allowed is unknown: the share is graded as whole.
		return g.grade(sev, 1)
	}
	return g.grade(sev, share(left, b.Deadline.Sub(b.StartedAt)))
}

// writeTimeLeft writes the sentence saying that left, more than nothing,
// is left before the deadline. Under an hour, it says whole seconds or
// minutes, and the sentence is written anew only when they change.
func (w *writer) writeTimeLeft(left time.Duration) {
	s := left.Seconds()
	var key int64
	switch {
	case s < 1:
		w.WriteString(" You have " + underASecond + " remaining before the deadline.")
		return
	case s < 60:
		key = int64(s)
	case s < 3600:
		key = -int64(s / 60)
	}
	if key != 0 && key == w.timeLeft {
		w.Write(w.timeSentence)
		return
	}
	from := w.Len()
	w.WriteString(" You have ")
	scan.WriteDuration(&w.Builder, left)
	w.WriteString(" remaining before the deadline.")
	if key != 0 {
		w.timeLeft, w.timeSentence = key, append(w.timeSentence[:0], w.String()[from:]...)
	}
}

// tokenStatement writes the tokens used and left, if they are limited,
// and returns sev graded by them.
func (g resourceGrader) tokenStatement(w *writer, b *budget.Budget, sev observer.Severity) observer.Severity {
	if b.MaxTokens <= 0 {
		return sev
	}
	left := b.MaxTokens - b.TokensUsed
	if left <= 0 {
		w.WriteString(" You have exhausted your token budget.")
		return observer.Warning
	}
	// Tokens are left: a share of 99.5% or more, rounded, would read as
	// all used, and is written as 99%.
	used := min(float64(b.TokensUsed)/float64(b.MaxTokens)*100, 99)
	w.WriteString(" You have used ")
	scan.WriteThousands(&w.Builder, b.TokensUsed)
	w.Write(w.tokens.of(b.MaxTokens, appendTokensOf))
	writePercent(&w.Builder, used)
	w.WriteString("% of budget). ")
	w.tokens.left.WriteThousands(&w.Builder, left)
	w.WriteString(" tokens remaining.")
	return g.grade(sev, share(left, b.MaxTokens))
}

// appendTokensOf appends the text around the token limit.
func appendTokensOf(dst []byte, limit int64) []byte {
	dst = scan.AppendThousands(append(dst, " of "...), limit)
	return append(dst, " tokens ("...)
}

// costStatement writes the dollars spent and left, if cost is limited,
// and returns sev graded by them.
func (g resourceGrader) costStatement(w *writer, b *budget.Budget, sev observer.Severity) observer.Severity {
	if b.MaxCostUSD <= 0 {
		return sev
	}
	left := b.MaxCostUSD - b.CostUSD
	if left <= 0 {
		w.WriteString(" You have exhausted your cost budget.")
		return observer.Warning
	}
	used := min(b.CostUSD/b.MaxCostUSD*100, 99)
	var num [32]byte
	w.WriteString(" You have spent $")
	w.Write(strconv.AppendFloat(num[:0], b.CostUSD, 'f', 2, 64))
	w.WriteString(" of $")
	w.Write(strconv.AppendFloat(num[:0], b.MaxCostUSD, 'f', 2, 64))
	w.WriteString(" (")
	writePercent(&w.Builder, used)
	w.WriteString("% of budget).")
	return g.grade(sev, min(left/b.MaxCostUSD, 1))
}

// writePercent writes a percentage rounded to a whole number, as
// strconv.AppendFloat(dst, used, 'f', 0, 64) does: to the nearest, halves
// to even. Rounding the float directly costs a fraction of the decimal
// conversion AppendFloat makes; a negative share, which it writes as "-0"
// when it rounds to zero, is left to it.
func writePercent(text *strings.Builder, used float64) {
	if used >= 0 {
		scan.WriteInt(text, int64(math.RoundToEven(used)))
		return
	}
	var num [32]byte
	text.Write(strconv.AppendFloat(num[:0], used, 'f', 0, 64))
}

// callStatement writes the calls of a kind made and left (made of limit),
// if they are limited, and returns sev graded by them. t keeps the text
// around the limit.
func (g resourceGrader) callStatement(w *writer, sev observer.Severity, t *limitText, made, limit int64, kind string) observer.Severity {
	if limit <= 0 {
		return sev
	}
	left := limit - made
	if left <= 0 {
		w.WriteString(" You have exhausted your ")
		w.WriteString(kind)
		w.WriteString(" call budget.")
		return observer.Warning
	}
	w.WriteString(" You have made ")
	scan.WriteInt(&w.Builder, made)
	if kind == "tool" {
		w.Write(t.of(limit, appendToolCallsOf))
	} else {
		w.Write(t.of(limit, appendModelCallsOf))
	}
	t.left.WriteInt(&w.Builder, left)
	if left == 1 {
		w.WriteString(" call remaining.")
	} else {
		w.WriteString(" calls remaining.")
	}
	return g.grade(sev, share(left, limit))
}

// appendToolCallsOf and appendModelCallsOf append the text around a call
// limit.
func appendToolCallsOf(dst []byte, limit int64) []byte {
	return append(strconv.AppendInt(append(dst, " of "...), limit, 10), " allowed tool calls. "...)
}

func appendModelCallsOf(dst []byte, limit int64) []byte {
	return append(strconv.AppendInt(append(dst, " of "...), limit, 10), " allowed model calls. "...)
}

// paceStatements writes the shortfalls the pace so far projects, once
// enough calls have been made to judge it, and raises sev one level if
// there are any. Nothing is projected before [budget.MinProjectionElapsed]
// has passed, so the pace is not computed before then.
func (r *Observer) paceStatements(w *writer, b *budget.Budget, now time.Time, sev observer.Severity) observer.Severity {
	minCalls := scan.Pick(r.MinPaceCalls, DefaultMinPaceCalls)
	if minCalls <= 0 || b.ToolCalls < int64(minCalls) || b.Elapsed(now) < budget.MinProjectionElapsed {
		return sev
	}
	shortfalls := budget.Project(*b, now).Shortfalls()
	for _, s := range shortfalls {
		w.WriteByte(' ')
		writePace(&w.Builder, s)
	}
	if len(shortfalls) > 0 {
		return min(sev+1, observer.Warning)
	}
	return sev
}

// resourceTextSize is room for the summary of a budget with every limit
// set and a pace statement, so that it is written without growing its
// buffer.
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
		scan.WritePlural(b, s.Calls, "call", "calls")
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
	scan.WriteDuration(b, d)
}

// Judge says the agent followed a caution or warning when, over the calls
// judged, it spent fewer tokens a call than before it was shown; wrapping
// up counts as followed too, and is seen by the pipeline. An info
// assessment asks nothing, and is followed.
func (r *Observer) Judge(_ context.Context, oc *observer.Context, shown observer.Shown, final bool) (followed, decided bool) {
	if shown.Severity == observer.Info {
		return true, true
	}
	if !final {
		return false, false
	}
	b, _ := oc.Budget()
	if shown.Calls == 0 || shown.CallIndex <= 0 {
		return false, true
	}
	before := float64(shown.Budget.TokensUsed) / float64(shown.CallIndex)
	since := float64(b.TokensUsed-shown.Budget.TokensUsed) / float64(shown.Calls)
	return since < before, true
}
