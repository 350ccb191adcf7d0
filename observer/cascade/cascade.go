package cascade

import (
	"context"
	"fmt"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/detect"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// Detector defaults.
const (
	// DefaultConsecutive is how many failures in a row make a
	// cascade.
	DefaultConsecutive = 3
	// DefaultWindow is how many recent calls the error rate is
	// measured over.
	DefaultWindow = 10
	// DefaultRate is the share of failures in the window that makes a
	// cascade.
	DefaultRate = 0.6
	// DefaultWarningAfter is how many failures in a row raise the
	// severity to warning.
	DefaultWarningAfter = 6
	// MaxWindow is the largest Window, Consecutive and WarningAfter
	// that [Detector.Validate] accepts. Detector keeps a slot of
	// 168 bytes (on 64-bit platforms) for each call of the window,
	// allocated when a session is first checked, and groups up to the
	// window's failures in 40 bytes each, so a window of 5,000 calls takes
	// about 1 MB per session; the slots' strings are the call records'
	// own.
	MaxWindow = 5_000
)

// DefaultRules returns the rules [Detector] applies to error messages so
// that messages with one cause group together: [observer.MessageRules].
// So "open /var/data/users.db: permission denied" and "open
// /var/data/orders.db: permission denied" both read "open <path>:
// permission denied". The slice is new on each call: append to it to
// extend the defaults.
func DefaultRules() []observer.Rule { return observer.MessageRules() }

// Detector notices failures piling up. It reports when the latest
// call failed and either the last Consecutive calls all failed, or at
// least Rate of the last Window calls did (once Window calls have been
// made). Two shorter patterns count as a streak: the latest call retried
// the one before it unchanged (same tool, same arguments) and failed the
// same way; or Consecutive of the last Consecutive+1 calls failed, the
// latest with the same tool and error as the failure before it. It groups the failures by their error message with numbers,
// paths, ids and the like normalized by the Rules, so that it can name a
// common cause: "7 of the last 10 calls failed with `permission denied:
// <path>`". It suggests reassessing the approach.
//
// The error message of a call is its ErrorMessage, or its Result when that
// is empty; for a Python traceback it is the exception on its last line,
// and line breaks with the indentation after them read as one space. The
// severity is caution, and warning once WarningAfter calls in a row have
// failed. Configure it with [Trigger]{OnEveryCall: true}.
//
// The zero value uses the defaults; a negative Consecutive or Rate turns
// that condition off. An Detector is safe for concurrent use as long
// as its fields are not changed once it is in use.
type Detector struct {
	// Consecutive is how many failures in a row make a cascade, or how
	// many of one more calls when the latest repeats the failure before
	// it; two do when the latest is an unchanged retry. Zero means
	// [DefaultConsecutive].
	Consecutive int
	// Window is how many recent calls the error rate is measured over.
	// Zero means [DefaultWindow]; at most [MaxWindow].
	Window int
	// Rate is the share of failed calls in the window, from 0 to 1, at or
	// above which it reports. Zero means [DefaultRate].
	Rate float64
	// WarningAfter is how many failures in a row raise the severity to
	// warning. Zero means [DefaultWarningAfter].
	WarningAfter int
	// Rules normalize error messages for grouping. Nil means
	// [DefaultRules].
	Rules []observer.Rule
}

// New returns an Detector with the default thresholds.
func New() *Detector { return &Detector{} }

// Name returns "Errors".
func (e *Detector) Name() string { return "Errors" }

// Validate reports a rate above 1 or not a number, a window or streak
// too small to mean anything, or a window or count above
// [MaxWindow], as a [*ConfigError]. A negative Rate is accepted: it
// turns the rate condition off. [NewPipeline] calls it.
func (e *Detector) Validate() error {
	const name = "Errors"
	if err := detect.AnyTooLarge(name, MaxWindow, "cascade.MaxWindow",
		detect.Setting{Field: "Window", Value: e.Window},
		detect.Setting{Field: "Consecutive", Value: e.Consecutive},
		detect.Setting{Field: "WarningAfter", Value: e.WarningAfter}); err != nil {
		return err
	}
	switch {
	case !(e.Rate <= 1):
		return &observer.ConfigError{Observer: name, Field: "Rate", Problem: fmt.Sprintf("%v is not a number of at most 1", e.Rate)}
	case e.Window < 0 || e.Window == 1:
		return &observer.ConfigError{Observer: name, Field: "Window", Problem: fmt.Sprintf("%d is less than 2", e.Window)}
	case e.Consecutive == 1:
		return &observer.ConfigError{Observer: name, Field: "Consecutive", Problem: "1 would report every failure; use 2 or more"}
	}
	return nil
}

// ShouldRun reports whether failures are piling up and the latest call is
// one of them.
func (e *Detector) ShouldRun(_ context.Context, oc *observer.Context) bool {
	_, found := e.state(oc).check(oc)
	return found
}

// Holds reports whether the latest call still continues the pattern last
// reported: when it does not, the pipeline withdraws the section.
func (e *Detector) Holds(ctx context.Context, oc *observer.Context) bool {
	return e.ShouldRun(ctx, oc)
}

// Observe describes the failures and their common cause, or says there is
// no cascade.
func (e *Detector) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	st := e.state(oc)
	f, found := st.check(oc)
	if !found {
		return observer.Assessment{Summary: "Failures are not piling up.", Severity: observer.Info, Timestamp: oc.Now}, nil
	}
	a := st.assess(f)
	a.Timestamp = oc.Now
	return a, nil
}

// NewCallState returns the working state of one session, which the
// pipeline keeps up to date.
func (e *Detector) NewCallState() observer.CallState { return e.newState() }

// state returns the session's working state, or an empty one outside a
// pipeline.
func (e *Detector) state(oc *observer.Context) *cascadeState {
	if st, ok := oc.CallState().(*cascadeState); ok {
		return st
	}
	return e.newState()
}

func (e *Detector) newState() *cascadeState {
	rate := e.Rate
	if rate == 0 {
		rate = DefaultRate
	}
	window := max(scan.Pick(e.Window, DefaultWindow), 2)
	return &cascadeState{
		consecutive:  scan.AtLeast(scan.Pick(e.Consecutive, DefaultConsecutive), 2),
		window:       window,
		rate:         rate,
		warningAfter: scan.Pick(e.WarningAfter, DefaultWarningAfter),
		rules:        detect.MessageCanon(e.Rules),
		calls:        scan.NewRing[cascadeCall](window),
	}
}

// cascadeCall is what Detector keeps of one call.
type cascadeCall struct {
	index               int64
	tool, summary, args string
	success             bool
	errMsg, result      string
	// template is the error message normalized and cut for showing;
	// cause, normalized and cut much later, tells causes apart.
	template, cause string
	templateDone    bool
	label           scan.Label
}

// cascadeState is one session's working state for an Detector.
type cascadeState struct {
	consecutive, window, warningAfter int
	rate                              float64
	rules                             *scan.Canon
	buf                               []byte
	grouped                           []errorGroup // scratch for groups
	out                               scan.Texts   // the texts of the latest assessment
	parts                             detect.Parts // the observations and suggestions of the assessments

	calls scan.Ring[cascadeCall]

	checked int64
	found   bool
	finding cascadeFinding
}

type cascadeFinding struct {
	consecutive   int64 // failures in a row, run-wide
	failed, total int   // failures among the calls kept, and their number
	byStreak      bool  // reported for the streak rather than the rate
	severity      observer.Severity
}

// CatchUp is the window: older calls do not count.
func (st *cascadeState) CatchUp() int { return st.window }

// Reset forgets every call.
func (st *cascadeState) Reset(*observer.Context) { st.calls.Clear(); st.checked = 0 }

// Add takes in the next call.
func (st *cascadeState) Add(_ *observer.Context, rec *observer.ToolCallRecord) {
	slot := st.calls.Push()
	*slot = cascadeCall{
		index: rec.CallIndex, tool: rec.ToolName, summary: rec.ParamsSummary, args: rec.Arguments,
		success: rec.Success, errMsg: rec.ErrorMessage, result: rec.Result,
		label: slot.label.Reuse(),
	}
}

func (st *cascadeState) check(oc *observer.Context) (cascadeFinding, bool) {
	if st.checked == oc.CallIndex {
		return st.finding, st.found
	}
	st.checked = oc.CallIndex
	st.finding, st.found = st.detect(oc)
	return st.finding, st.found
}

func (st *cascadeState) detect(oc *observer.Context) (cascadeFinding, bool) {
	n := st.calls.Len()
	if !st.newestFailed(oc.CallIndex) {
		return cascadeFinding{}, false
	}
	failed, streak := st.failures()
	f := cascadeFinding{consecutive: max(oc.Tally.ConsecutiveErrors, int64(streak)), failed: failed, total: n}
	f.byStreak = st.consecutive > 0 && f.consecutive >= int64(st.consecutive)
	switch {
	case f.byStreak || st.overRate(failed, n):
	case st.consecutive > 0 && f.consecutive == 2 && st.retriedUnchanged():
		// An unchanged retry that failed the same way is a streak already.
		f.byStreak = true
	case st.consecutive > 0 && st.failedAmong(st.consecutive+1) >= st.consecutive && st.causeRepeats():
		// A streak broken by one success piles up when the failures
		// keep saying the same thing.
		f.failed, f.total = st.consecutive, st.consecutive+1
	default:
		return cascadeFinding{}, false
	}
	f.severity = st.severityOf(f.consecutive)
	return f, true
}

// retriedUnchanged reports whether the newest call repeats the one before
// it, the same tool with the same arguments, and failed with the same
// error.
func (st *cascadeState) retriedUnchanged() bool {
	if st.calls.Len() < 2 {
		return false
	}
	c, prev := st.calls.Back(0), st.calls.Back(1)
	return !prev.success && c.tool == prev.tool && c.args == prev.args && st.causeKey(c) == st.causeKey(prev)
}

// causeRepeats reports whether the newest call failed with the same tool
// and error as the failure before it.
func (st *cascadeState) causeRepeats() bool {
	c := st.calls.Back(0)
	for i := 1; i < st.calls.Len(); i++ {
		if prev := st.calls.Back(i); !prev.success {
			return c.tool == prev.tool && st.causeKey(c) == st.causeKey(prev)
		}
	}
	return false
}

// failedAmong counts the failures among the newest n kept calls, once n
// calls are kept.
func (st *cascadeState) failedAmong(n int) int {
	if st.calls.Len() < n {
		return 0
	}
	failed := 0
	for i := range n {
		if !st.calls.Back(i).success {
			failed++
		}
	}
	return failed
}

// newestFailed reports whether the newest kept call is the call at index,
// and failed.
func (st *cascadeState) newestFailed(index int64) bool {
	if st.calls.Len() == 0 {
		return false
	}
	newest := st.calls.Back(0)
	return newest.index == index && !newest.success
}

// failures counts the failures among the kept calls, and those in a row
// among the newest.
func (st *cascadeState) failures() (failed, streak int) {
	for i := range st.calls.Len() {
		if st.calls.Back(i).success {
			continue
		}
		failed++
		if streak == i {
			streak++
		}
	}
	return failed, streak
}

// overRate reports whether failed of n kept calls reach the rate, once
// the window is full.
func (st *cascadeState) overRate(failed, n int) bool {
	return st.rate > 0 && n >= st.window && float64(failed) >= st.rate*float64(n)
}

// severityOf returns the severity of a cascade with consecutive failures
// in a row.
func (st *cascadeState) severityOf(consecutive int64) observer.Severity {
	if st.warningAfter > 0 && consecutive >= int64(st.warningAfter) {
		return observer.Warning
	}
	return observer.Caution
}

// maxTemplateLen bounds a normalized error message.
const maxTemplateLen = 100

// templateOf returns a failed call's error message, normalized and cut
// for showing.
func (st *cascadeState) templateOf(c *cascadeCall) string {
	st.normalize(c)
	return c.template
}

// causeKey returns a failed call's error message, normalized: messages
// that start alike may name different causes further on.
func (st *cascadeState) causeKey(c *cascadeCall) string {
	st.normalize(c)
	return c.cause
}

// normalize sets a failed call's template and cause, once.
func (st *cascadeState) normalize(c *cascadeCall) {
	if !c.templateDone {
		msg := c.errMsg
		if strings.TrimSpace(msg) == "" {
			msg = c.result
		}
		msg = strings.TrimSpace(scan.PrefixOf(causeOf(msg), 4*maxTemplateLen))
		if msg == "" {
			c.template, c.cause = "no error message", "no error message"
		} else {
			st.buf = squeezeSpace(st.rules.Text(st.buf[:0], msg))
			c.template, c.cause = st.intern(st.buf)
		}
		c.templateDone = true
	}
}

// pythonTraceback heads a Python traceback, which names its cause on its
// last line.
const pythonTraceback = "Traceback (most recent call last):"

// maxCauseSearch bounds how far from its end a traceback is searched for
// the line naming its cause.
const maxCauseSearch = 4096

// causeOf returns the part of an error message that names its cause: the
// message, or the exception line of a Python traceback, whose header and
// stack lines are much the same whatever the cause. A traceback cut
// before its exception line is returned whole.
func causeOf(msg string) string {
	if !strings.Contains(msg, pythonTraceback) {
		return msg
	}
	if line, ok := exceptionLine(msg); ok {
		return line
	}
	return msg
}

// exceptionLine returns the last line of a traceback that is not
// indented, searched for up to maxCauseSearch bytes from its end, unless
// that is the traceback's header.
func exceptionLine(msg string) (string, bool) {
	whole := len(msg) <= maxCauseSearch
	tail := strings.TrimRight(msg[max(len(msg)-maxCauseSearch, 0):], " \t\r\n")
	for tail != "" {
		nl := strings.LastIndexByte(tail, '\n')
		if nl < 0 && !whole {
			break // the first line of the tail may be cut
		}
		if line := strings.TrimRight(tail[nl+1:], "\r"); isUnindented(line) {
			return line, line != pythonTraceback
		}
		if nl < 0 {
			break
		}
		tail = tail[:nl]
	}
	return "", false
}

// isUnindented reports a line that starts with neither a space nor a tab.
func isUnindented(line string) bool {
	return line != "" && line[0] != ' ' && line[0] != '\t'
}

// squeezeSpace replaces each run of spaces, tabs and line breaks in b with
// one space, in place: an indented multi-line message reads as one line.
func squeezeSpace(b []byte) []byte {
	out, space := b[:0], false
	for _, c := range b {
		if scan.ByteClasses[c]&scan.SpaceClass != 0 {
			if !space {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		out, space = append(out, c), false
	}
	return out
}

// intern returns the template and the cause of the normalized message
// msg, the strings a kept call already has when it is the same: failures
// piling up often share them.
func (st *cascadeState) intern(msg []byte) (template, cause string) {
	for i := range st.calls.Len() {
		if c := st.calls.Back(i); c.templateDone && c.cause == string(msg) {
			return c.template, c.cause
		}
	}
	cause = string(msg)
	if len(msg) > maxTemplateLen || scan.NeedsOneLine(msg) {
		return scan.ClipOneLine(cause, maxTemplateLen), cause
	}
	return cause, cause
}

// errorGroup is the failures sharing one normalized message.
type errorGroup struct {
	template string
	calls    []*cascadeCall
}

// groups sorts the failures among the newest n kept calls by message,
// largest group first, ties in order of first appearance.
// The groups and their slices are reused from call to call.
func (st *cascadeState) groups(n int) []errorGroup {
	gs := st.grouped[:0]
	for i := n - 1; i >= 0; i-- {
		c := st.calls.Back(i)
		if c.success {
			continue
		}
		var k int
		gs, k = groupOf(gs, st.templateOf(c))
		gs[k].calls = append(gs[k].calls, c)
	}
	st.grouped = gs
	sortGroups(gs)
	return gs
}

// groupOf returns the index of the group of template t in gs, added at
// the end when there is none; an added group reuses the calls slice left
// in its place by an earlier use of gs's array.
func groupOf(gs []errorGroup, t string) ([]errorGroup, int) {
	for k := range gs {
		if gs[k].template == t {
			return gs, k
		}
	}
	k := len(gs)
	if k == cap(gs) {
		return append(gs, errorGroup{template: t}), k
	}
	gs = gs[:k+1]
	gs[k].template, gs[k].calls = t, gs[k].calls[:0]
	return gs, k
}

// sortGroups sorts groups by size, largest first, keeping the order of
// groups of equal size: an insertion sort, as there are few.
func sortGroups(gs []errorGroup) {
	for a := 1; a < len(gs); a++ {
		for b := a; b > 0 && len(gs[b].calls) > len(gs[b-1].calls); b-- {
			gs[b], gs[b-1] = gs[b-1], gs[b]
		}
	}
}

// Limits of the grouped evidence.
const (
	maxGroupsShown     = 3
	maxGroupCallsShown = 3
)

// Suggestions of the Detector assessments.
const (
	reassessSuggestion = "Stop and reassess your approach before the next call."
	cascadeWarning     = "If the approach cannot work, stop and report what is blocking you."
)

// assess turns a finding into an assessment. Its texts are written one
// after the other into st.out, whose buffer they share.
func (st *cascadeState) assess(f cascadeFinding) observer.Assessment {
	gs := st.groups(f.considered())
	covered := 0
	for _, g := range gs {
		covered += len(g.calls)
	}
	common := len(gs[0].calls) >= 2
	t := &st.out
	t.Start(512)
	st.writeSummary(f, gs, covered, common)
	summary := t.End()
	st.writeDescription(gs, covered, common)
	description := t.End()
	st.writeEvidence(gs)
	evidence := t.End()
	var dealWith scan.Piece
	if common {
		t.WriteString("Deal with the cause (")
		scan.WriteQuoted(&t.Builder, gs[0].template)
		t.WriteString(") first, or find a way around it.")
		dealWith = t.End()
	}

	all := t.String()
	var room [3]string
	suggestions := append(room[:0], reassessSuggestion)
	if common {
		suggestions = append(suggestions, dealWith.In(all))
	}
	if f.severity == observer.Warning {
		suggestions = append(suggestions, cascadeWarning)
	}
	a := observer.Assessment{Summary: summary.In(all), Severity: f.severity}
	a.Observations, a.Suggestions = st.parts.ObservationWith(
		observer.Observation{Category: f.category(), Description: description.In(all), Evidence: evidence.In(all)},
		suggestions...)
	return a
}

// considered returns how many of the newest calls the assessment looks
// at: the streak, or every call kept.
func (f cascadeFinding) considered() int {
	if f.byStreak {
		return int(min(f.consecutive, int64(f.total)))
	}
	return f.total
}

// claimed returns how many failures the summary's first words count.
func (f cascadeFinding) claimed() int {
	if f.byStreak {
		return int(f.consecutive)
	}
	return f.failed
}

func (f cascadeFinding) category() string {
	if f.byStreak {
		return "error_cascade"
	}
	return "error_rate"
}

// writeSummary writes how many calls failed and what they have in common.
// covered is how many failures gs holds; common is whether the largest
// group has more than one.
func (st *cascadeState) writeSummary(f cascadeFinding, gs []errorGroup, covered int, common bool) {
	t := &st.out
	if f.byStreak {
		t.WriteString("The last ")
		scan.WriteInt(&t.Builder, f.consecutive)
		t.WriteString(" calls all failed")
	} else {
		scan.WriteInt(&t.Builder, int64(f.failed))
		t.WriteString(" of the last ")
		scan.WriteInt(&t.Builder, int64(f.total))
		t.WriteString(" calls failed")
	}
	if !common {
		t.WriteString(", each with a different error.")
		return
	}
	switch {
	case len(gs) == 1 && covered == f.claimed():
		t.WriteString(" with ")
	case len(gs) == 1:
		t.WriteString("; the last ")
		scan.WriteInt(&t.Builder, int64(covered))
		t.WriteString(" with ")
	default:
		t.WriteString("; ")
		scan.WriteInt(&t.Builder, int64(len(gs[0].calls)))
		t.WriteString(" of them with ")
	}
	scan.WriteQuoted(&t.Builder, gs[0].template)
	t.WriteString(".")
}

// writeDescription writes what the groups of failures say about their
// causes.
func (st *cascadeState) writeDescription(gs []errorGroup, covered int, common bool) {
	t := &st.out
	switch {
	case len(gs) == 1 && common:
		t.WriteString("The failures share one cause, so retrying the same way is unlikely to succeed.")
	case common:
		t.WriteString("The most common cause is ")
		scan.WriteQuoted(&t.Builder, gs[0].template)
		t.WriteString(" (")
		scan.WriteInt(&t.Builder, int64(len(gs[0].calls)))
		t.WriteString(" of ")
		scan.WriteInt(&t.Builder, int64(covered))
		t.WriteString(" failures); ")
		scan.WriteInt(&t.Builder, int64(len(gs)))
		t.WriteString(" different errors in all.")
	default:
		t.WriteString("The failures have ")
		scan.WriteInt(&t.Builder, int64(len(gs)))
		t.WriteString(" different causes: the approach itself may be wrong.")
	}
}

// writeEvidence writes the largest groups, each with its latest calls,
// and how many more there are.
func (st *cascadeState) writeEvidence(gs []errorGroup) {
	t := &st.out
	for k, g := range gs[:min(len(gs), maxGroupsShown)] {
		if k > 0 {
			t.WriteByte('\n')
		}
		writeGroup(&t.Builder, g)
	}
	if more := len(gs) - maxGroupsShown; more > 0 {
		t.WriteString("\n… and ")
		scan.WritePlural(&t.Builder, int64(more), "other error", "other errors")
	}
}

// writeGroup writes a group's message and count, and its latest calls.
func writeGroup(b *strings.Builder, g errorGroup) {
	b.WriteString(g.template)
	b.WriteString(" (")
	scan.WritePlural(b, int64(len(g.calls)), "call", "calls")
	b.WriteString(")")
	shown := g.calls[max(len(g.calls)-maxGroupCallsShown, 0):]
	if more := len(g.calls) - len(shown); more > 0 {
		b.WriteString("\n  … ")
		scan.WritePlural(b, int64(more), "earlier call", "earlier calls")
	}
	for _, c := range shown {
		b.WriteString("\n  ")
		scan.EvidenceLine(b, c.index, c.label.Of(c.tool, c.summary, c.args), true, "")
	}
}

// Judge says the agent followed the assessment unless its next call
// retried the failing call unchanged. Running the same call again after
// changing something (editing, then rerunning the tests) is following.
func (e *Detector) Judge(_ context.Context, _ *observer.Context, shown observer.Shown, final bool) (followed, decided bool) {
	if shown.Calls == 0 {
		return false, final
	}
	return !shown.Repeated, true
}
