package stall

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/detect"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// Stall defaults.
const (
	// DefaultWindow is how many recent calls Stall compares.
	DefaultWindow = 20
	// DefaultRepeats is how many identical successful calls make a stall.
	DefaultRepeats = 4
	// DefaultFailedRepeats is how many identical failing calls make one.
	DefaultFailedRepeats = 3
	// DefaultOscillation is how many calls of A-B-A-B alternation make one.
	DefaultOscillation = 6
	// DefaultWriteBack is how many alternating reads and writes of one
	// target make one.
	DefaultWriteBack = 4
	// DefaultSameResults is how many times a call may return the same
	// result, with other calls between, and how many calls in a row may
	// have no effect, before it is reported.
	DefaultSameResults = 3
	// DefaultPollingCap is how many identical calls to a polling tool,
	// each with the same result, make a repeat of no progress.
	DefaultPollingCap = 10
	// DefaultSameCalls is how many calls with the same tool and arguments
	// make a repeat whatever their results.
	DefaultSameCalls = 10
	// MaxWindow is the largest Window, and the largest Repeats,
	// FailedRepeats, Oscillation, WriteBack, PollingCap, SameCalls and SameResults,
	// that [Detector.Validate] accepts: a pattern longer than the window
	// could never be seen. Stall keeps a slot of 392 bytes (on 64-bit
	// platforms) for each call of the window, allocated when a session is
	// first checked, so a window of 1,000 calls takes about 383 KiB per
	// session; the slots' strings are
	// the call records' own. Each call is also compared with the window's
	// earlier calls, which this bound keeps quick.
	MaxWindow = 1_000
)

// defaultStallEscalation is Stall's escalation when none is configured.
var defaultStallEscalation = observer.Escalation{CautionAfter: 2, WarningAfter: 6}

// Stall notices an agent going round in circles. After each call it asks
// whether that call continues one of three patterns:
//
//   - repeat: the same tool with the same normalized arguments got the
//     same result Repeats times (FailedRepeats times when it failed) within
//     the last Window calls, with nothing new in between: a call that had
//     not been made before in the window, or a polling call, restarts the
//     count, so running the same tests after each of several different
//     edits is not a repeat;
//   - oscillation: the last Oscillation calls alternated between two
//     calls, A-B-A-B, each getting the same result as the time before;
//   - write-back: the last WriteBack accesses to one target alternated
//     between reading and writing it, read→write→read→write, and the cycle
//     repeats itself: a write repeated an earlier write's arguments, or a
//     read returned what an earlier read did, either after the content
//     had changed in between (a toggle) or with no new successful write
//     since. A successful write not made before in the cycle ends the
//     repeating: a read that keeps only the start of a long file cannot
//     show an edit further on.
//
// Calls are compared by tool name and arguments canonicalized by the
// [Normalizer], and their results as text with the normalizer's rules
// applied, so timestamps, request ids and temporary paths do not make two
// calls differ. Progress does not fire it: a call whose result changed
// (a job's status moving on, a file growing) is not a repeat, and calls to
// the PollingTools are never part of a pattern.
//
// A pattern is reported at info the first time; its severity rises with
// the Escalation as the pattern goes on (by default caution 2 calls later
// and warning 6 calls later). When several patterns hold, the most severe
// is reported, preferring oscillation, then write-back, then repeat. The
// evidence cites the calls by index, tool and summarized arguments.
//
// Configure it with the trigger [Trigger]{OnEveryCall: true}: ShouldRun
// is cheap and declines unless the latest call continues a pattern. Its
// working state lives with the pipeline, one per session, so one Stall can
// serve many sessions at once.
//
// The zero value uses the defaults; a negative threshold turns its pattern
// off. A Detector is safe for concurrent use as long as its fields are not
// changed once it is in use.
type Detector struct {
	// Window is how many recent calls are compared. Zero means
	// [DefaultWindow]; at most [MaxWindow].
	Window int
	// Repeats is how many identical successful calls within the window
	// make a repeat. Zero means [DefaultRepeats].
	Repeats int
	// FailedRepeats is how many identical failing calls within the window
	// make a repeat. Zero means [DefaultFailedRepeats].
	FailedRepeats int
	// Oscillation is how many calls of A-B-A-B alternation make an
	// oscillation. Zero means [DefaultOscillation].
	Oscillation int
	// WriteBack is how many alternating reads and writes of one target
	// make a write-back cycle. Zero means [DefaultWriteBack].
	WriteBack int
	// Escalation raises the severity as a pattern goes on. The zero value
	// means caution after 2 more calls and warning after 6.
	Escalation observer.Escalation
	// PollingTools names tools that are expected to be called again and
	// again with the same arguments, such as a job-status check. Their
	// calls are part of no other pattern, and are reported only when
	// PollingCap of them in a row got the same result: no progress.
	PollingTools []string
	// PollingCap is how many identical calls to a polling tool, each with
	// the same result, make a repeat of no progress. Zero means
	// [DefaultPollingCap]; negative means never.
	PollingCap int
	// RefuseAfter, when positive, enforces what Stall says: once a call
	// has been repeated RefuseAfter times in a row with the same result,
	// the next identical call is refused before it runs, with a tool
	// message the model reads instead of the result (see
	// [observer.Gatekeeper]). Zero never refuses. The Lookout run gives
	// the model a wrap-up turn if it repeats a refused call, and ends with
	// lookout.ErrRepeatRefused if the model calls a tool on that turn.
	RefuseAfter int
	// SameCalls is how many calls with the same tool and arguments make a
	// repeat even when their results differ, with nothing new in between.
	// Zero means [DefaultSameCalls]; negative turns it off.
	SameCalls int
	// SameResults is how many times one call, the same tool with the same
	// arguments, may return the same result before it is reported, even
	// with other calls between: an edit, then the same check with the same
	// result, again and again. It is also how many calls in a row may have
	// no effect: a shell left waiting for the end of a command (a
	// heredoc, an open quote) only echoes each later command after its
	// ">" prompt. A call whose result shows counters that moved (epochs,
	// steps, line numbers, times) made progress; once a call has shown
	// progress it is taken as a poll, reported only after PollingCap
	// identical results. Zero means [DefaultSameResults]; negative turns
	// it off.
	SameResults int
	// ResultRules decide which differences between two calls' results and
	// error messages do not count. Nil means [observer.MessageRules]: ids,
	// numbers, times, paths and URLs; an empty, non-nil slice means none.
	// The results of PollingTools are compared with the Normalizer's
	// rules instead, which keep numbers: a poll's counters are its
	// progress.
	ResultRules []observer.Rule
	// ReadTools and WriteTools name the tools that read and write the
	// target named in their arguments, for write-back detection. Tools in
	// neither list are classified by the words of their name (split at
	// non-letters and case changes, each also taken without an -s, -r,
	// -er, -or or -ing ending): a tool is a writer if a word is one of
	// write, edit, update, put, save, patch, replace, create, set, apply,
	// modify, append, insert, delete, remove, rename, move, upload or
	// overwrite, and otherwise a reader if a word is one of read, get,
	// cat, view, open, load, fetch, show, head, tail, download, inspect,
	// stat, describe or list. The target is the first
	// of the arguments path, file_path, filepath, file, filename, target,
	// target_file, uri, url, key or resource.
	ReadTools, WriteTools []string
	// Normalizer decides which differences between calls do not count.
	// Nil means the zero Normalizer: [DefaultVolatileKeys] and
	// [DefaultRules].
	Normalizer *observer.Normalizer
}

// New returns a Detector with the default thresholds.
func New() *Detector { return &Detector{} }

// Name returns "Stall".
func (s *Detector) Name() string { return "Stall" }

// Validate reports thresholds too small to mean anything (a window under
// 2 calls, fewer than 2 repeats, or fewer than 3 calls of oscillation or
// write-back), a negative window, or a window or count above
// [MaxWindow], as a [*ConfigError]. [NewPipeline] calls it.
func (s *Detector) Validate() error {
	const name = "Stall"
	for _, c := range []struct {
		field        string
		value, least int
	}{
		{"Window", s.Window, 2},
		{"Repeats", s.Repeats, 2},
		{"FailedRepeats", s.FailedRepeats, 2},
		{"Oscillation", s.Oscillation, 3},
		{"WriteBack", s.WriteBack, 3},
		{"PollingCap", s.PollingCap, 2},
		{"SameCalls", s.SameCalls, 2},
		{"SameResults", s.SameResults, 2},
		{"RefuseAfter", s.RefuseAfter, 2},
	} {
		if err := detect.TooLarge(name, c.field, c.value, MaxWindow, "stall.MaxWindow"); err != nil {
			return err
		}
		if c.value > 0 && c.value < c.least {
			return &observer.ConfigError{Observer: name, Field: c.field, Problem: fmt.Sprintf("%d is less than %d", c.value, c.least)}
		}
	}
	return detect.AnyNegative(name,
		detect.Setting{Field: "Window", Value: s.Window},
		detect.Setting{Field: "RefuseAfter", Value: s.RefuseAfter})
}

// ShouldRun reports whether the latest call continues a stuck pattern.
func (s *Detector) ShouldRun(_ context.Context, oc *observer.Context) bool {
	_, found := s.state(oc).check(oc)
	return found
}

// Holds reports whether the latest call still continues the pattern last
// reported: when it does not, the pipeline withdraws the section.
func (s *Detector) Holds(ctx context.Context, oc *observer.Context) bool {
	return s.ShouldRun(ctx, oc)
}

// Observe describes the pattern the latest call continues, or says there
// is none.
func (s *Detector) Observe(_ context.Context, oc *observer.Context) (observer.Assessment, error) {
	st := s.state(oc)
	f, found := st.check(oc)
	if !found {
		return observer.Assessment{
			Summary:  "No repeated, alternating or write-back patterns in the last " + strconv.Itoa(st.window) + " calls.",
			Severity: observer.Info,
		}, nil
	}
	a := st.assess(f)
	a.Timestamp = oc.Now
	return a, nil
}

// Refuse refuses a call identical to the latest one when that one ended a
// chain of RefuseAfter or more identical calls with the same result; it
// lets every call run when RefuseAfter is zero.
func (s *Detector) Refuse(_ context.Context, oc *observer.Context, tool, args string) string {
	if s.RefuseAfter <= 0 {
		return ""
	}
	st, ok := oc.CallState().(*stallState)
	if !ok || st.calls.Len() == 0 {
		return ""
	}
	e := st.calls.Back(0)
	if !st.repeatedAfter(e, tool, args, s.RefuseAfter) {
		return ""
	}
	return refusal(tool, e)
}

// repeatedAfter reports whether e, the latest call, ends a chain of after
// or more identical calls and is the call of tool with args.
func (st *stallState) repeatedAfter(e *stallCall, tool, args string, after int) bool {
	return !e.exempt && e.tool == tool && e.repeatRun >= after && (e.args == args || e.sig == st.signature(tool, args))
}

// refusal is the message that refuses another call of tool like e.
func refusal(tool string, e *stallCall) string {
	var b strings.Builder
	b.WriteString("Tool call refused: ")
	scan.WriteQuoted(&b, tool)
	b.WriteString(" was called ")
	scan.WriteInt(&b, int64(e.repeatRun))
	if e.success {
		b.WriteString(" times in a row with these arguments and returned the same result each time; calling it again will not change it. Use the result you have, or change the call.")
	} else {
		b.WriteString(" times in a row with these arguments and failed the same way each time; calling it again will not help. Read the error, then change the call or try another approach.")
	}
	return b.String()
}

// Judge says the agent followed the assessment once a call broke the
// pattern it reported, and did not if the pattern still holds after the
// calls judged.
func (s *Detector) Judge(ctx context.Context, oc *observer.Context, shown observer.Shown, final bool) (followed, decided bool) {
	if shown.Calls > 0 && !s.ShouldRun(ctx, oc) {
		return true, true
	}
	return false, final
}
