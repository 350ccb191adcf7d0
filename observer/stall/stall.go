package stall

import (
	"context"
	"fmt"
	"hash/maphash"
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
	// DefaultPollingCap is how many identical calls to a polling tool,
	// each with the same result, make a repeat of no progress.
	DefaultPollingCap = 10
	// DefaultSameCalls is how many calls with the same tool and arguments
	// make a repeat whatever their results.
	DefaultSameCalls = 10
	// MaxWindow is the largest Window, and the largest Repeats,
	// FailedRepeats, Oscillation, WriteBack, PollingCap and SameCalls,
	// that [Detector.Validate] accepts: a pattern longer than the window
	// could never be seen. Stall keeps a slot of 360 bytes (on 64-bit
	// platforms) for each call of the window, allocated when a session is
	// first checked, so a window of 1,000 calls takes about 352 KiB per
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
	// the model a wrap-up turn if it repeats a refused call.
	RefuseAfter int
	// SameCalls is how many calls with the same tool and arguments make a
	// repeat even when their results differ, with nothing new in between.
	// Zero means [DefaultSameCalls]; negative turns it off.
	SameCalls int
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

// NewCallState returns the working state of one session, which the
// pipeline keeps up to date.
func (s *Detector) NewCallState() observer.CallState { return s.newState() }

// state returns the session's working state, or an empty one outside a
// pipeline.
func (s *Detector) state(oc *observer.Context) *stallState {
	if st, ok := oc.CallState().(*stallState); ok {
		return st
	}
	return s.newState()
}

func (s *Detector) newState() *stallState {
	st := &stallState{
		window:     max(scan.Pick(s.Window, DefaultWindow), 2),
		repeats:    scan.AtLeast(scan.Pick(s.Repeats, DefaultRepeats), 2),
		failed:     scan.AtLeast(scan.Pick(s.FailedRepeats, DefaultFailedRepeats), 2),
		oscillate:  scan.AtLeast(scan.Pick(s.Oscillation, DefaultOscillation), 3),
		writeBack:  scan.AtLeast(scan.Pick(s.WriteBack, DefaultWriteBack), 3),
		pollCap:    scan.AtLeast(scan.Pick(s.PollingCap, DefaultPollingCap), 2),
		sameCalls:  scan.AtLeast(scan.Pick(s.SameCalls, DefaultSameCalls), 2),
		escalation: s.Escalation.Or(defaultStallEscalation),
		canon:      s.Normalizer.Compile(),
		results:    resultNormalizer(s.ResultRules).Compile(),
		seed:       maphash.MakeSeed(),
		polling:    make(map[string]bool, len(s.PollingTools)),
		access:     make(map[string]scan.Access, len(s.ReadTools)+len(s.WriteTools)),
	}
	st.calls = scan.NewRing[stallCall](st.window)
	for _, t := range s.PollingTools {
		st.polling[t] = true
	}
	for _, t := range s.ReadTools {
		st.access[t] = scan.ReadAccess
	}
	for _, t := range s.WriteTools {
		st.access[t] = scan.WriteAccess
	}
	return st
}

// resultNormalizer returns the normalizer results are compared with.
func resultNormalizer(rules []observer.Rule) *observer.Normalizer {
	if rules == nil {
		rules = observer.MessageRules()
	}
	return &observer.Normalizer{VolatileKeys: []string{}, Rules: rules}
}

// primaryTarget returns the target a reading or writing tool's arguments
// name, normalized for comparison, and as the arguments spell it, or "".
func primaryTarget(args string) (target, text string) {
	best, rank := "", len(scan.TargetKeys)
	var buf [16]byte
	scan.EachMember(args, func(k, val string, isString bool) bool {
		if isString && val != "" && len(k) <= len(buf) {
			if r := targetRank(scan.FoldKey(buf[:0], k), rank); r < rank {
				best, rank = val, r
			}
		}
		return rank > 0
	})
	if target = scan.CleanTarget(best); target == "" {
		return "", ""
	}
	return target, strings.TrimSpace(best)
}

// targetRank returns the place of the folded key among the first rank
// scan.TargetKeys, or rank when it is not one of them.
func targetRank(key []byte, rank int) int {
	for r, tk := range scan.TargetKeys[:rank] {
		if string(key) == tk {
			return r
		}
	}
	return rank
}

// stallCall is what Stall keeps of one call.
type stallCall struct {
	index               int64
	tool, summary, args string
	result, errMsg      string
	success, exempt     bool
	access              scan.Access
	target              string // normalized, for comparison
	targetText          string // as the arguments spell it, for the model
	targetHash          uint64 // of target, compared before it
	raw                 uint64 // of tool, summary and raw arguments, compared before them
	sig                 uint64 // tool and normalized arguments
	obs                 uint64 // normalized result, once obsDone
	obsDone             bool
	seen                bool  // an identical call precedes it in the window
	repeatRun           int   // identical calls in the chain ending here
	repeatFirst         int64 // index of the chain's first call
	sigSeen             bool  // a call with its tool and arguments precedes it in the window
	sigRun              int   // calls with its tool and arguments in the chain ending here, whatever their results
	sigFirst            int64 // index of that chain's first call
	oscRun              int   // calls in the alternation ending here
	wbRun               int   // accesses in the read/write cycle ending here
	wbFirst             int64 // index of the cycle's first access
	wbHead              callText
	wbNew               int  // successful writes in the cycle so far that no earlier one had made
	wbStuck             bool // the cycle repeats itself
	wbSince             int  // wbRun when the cycle began to repeat itself, while wbStuck
	label               scan.Label
}

// callText is what an evidence line shows of a call. Its strings are the
// call record's own, so keeping one costs no copy.
type callText struct {
	tool, summary, args, errMsg string
	success                     bool
}

// stallCatchUp is how many calls a Detector reads back when it has not seen
// them: a first check costs at most this many calls' work.
const stallCatchUp = 1024

// stallState is one session's working state for a Detector.
type stallState struct {
	window, repeats, failed, oscillate, writeBack int
	pollCap, sameCalls                            int
	escalation                                    observer.Escalation

	calls   scan.Ring[stallCall]
	canon   *observer.Compiled
	results *observer.Compiled
	seed    maphash.Seed
	text    []byte
	polling map[string]bool
	access  map[string]scan.Access

	checked int64
	found   bool
	finding stallFinding
	picked  []*stallCall // scratch for evidence
	// kept is what one walk over the window found for the latest call;
	// picked holds its chain of repeats while kept.of is that call.
	kept  chainsKept
	out   scan.Texts   // the texts of the latest assessment
	parts detect.Parts // the observations and suggestions of the assessments
}

type stallKind uint8

const (
	repeatPattern stallKind = iota
	oscillationPattern
	writeBackPattern
	pollPattern     // identical polls past the cap
	sameCallPattern // the same call, whatever its results
)

type stallFinding struct {
	kind      stallKind
	length    int // calls in the pattern so far
	threshold int // calls at which it is first reported
	severity  observer.Severity
}

// CatchUp reads back up to stallCatchUp calls, so that a repeat is
// counted across windows with a sparse trigger too, and after a restore
// or in a new run on a long session.
func (st *stallState) CatchUp() int { return max(st.window, stallCatchUp) }

// Reset forgets every call.
func (st *stallState) Reset(*observer.Context) {
	st.calls.Clear()
	st.checked, st.kept = 0, chainsKept{}
}

// Add takes in the next call.
func (st *stallState) Add(_ *observer.Context, rec *observer.ToolCallRecord) { st.add(rec) }

// check reports the pattern
// the latest call continues.
func (st *stallState) check(oc *observer.Context) (stallFinding, bool) {
	if st.checked == oc.CallIndex {
		return st.finding, st.found
	}
	st.checked = oc.CallIndex
	st.finding, st.found = st.detect(oc.CallIndex)
	return st.finding, st.found
}

func (st *stallState) accessOf(tool string) scan.Access {
	if a, ok := st.access[tool]; ok {
		return a
	}
	a := scan.ClassifyTool(tool)
	if len(st.access) < 256 {
		st.access[tool] = a
	}
	return a
}

func (st *stallState) signature(tool, args string) uint64 {
	return maphash.String(st.seed, tool)*0x9E3779B97F4A7C15 ^ maphash.Bytes(st.seed, st.canon.Arguments(args))
}

// observation returns the hash of a call's normalized result and error.
func (st *stallState) observation(c *stallCall) uint64 {
	if !c.obsDone {
		// A polling tool's counters are its progress: its results are
		// compared with the arguments' rules, which keep numbers.
		norm := st.results
		if c.exempt {
			norm = st.canon
		}
		st.text = norm.AppendText(st.text[:0], c.result)
		st.text = append(st.text, 0)
		st.text = norm.AppendText(st.text, c.errMsg)
		c.obs, c.obsDone = maphash.Bytes(st.seed, st.text), true
	}
	return c.obs
}

// sameObservation reports whether two calls got the same result.
func (st *stallState) sameObservation(a, b *stallCall) bool {
	if a.success != b.success {
		return false
	}
	if a.result == b.result && a.errMsg == b.errMsg {
		return true
	}
	return st.observation(a) == st.observation(b)
}

// add records a call and extends the patterns it continues.
func (st *stallState) add(rec *observer.ToolCallRecord) {
	e := stallCall{
		index: rec.CallIndex, tool: rec.ToolName, summary: rec.ParamsSummary, args: rec.Arguments,
		result: rec.Result, errMsg: rec.ErrorMessage, success: rec.Success,
		exempt: st.polling[rec.ToolName],
	}
	n := st.calls.Len()
	e.raw = maphash.String(st.seed, rec.Arguments) ^ maphash.String(st.seed, rec.ToolName)*31 ^ maphash.String(st.seed, rec.ParamsSummary)*961
	same := st.sameCall(&e)
	if same != nil {
		// A stuck agent sends the very same call again: reuse what was
		// derived from it.
		e.sig, e.access, e.target, e.targetText, e.targetHash = same.sig, same.access, same.target, same.targetText, same.targetHash
	} else {
		st.derive(&e)
	}
	// The oldest kept call is about to be overwritten and is already
	// outside the window that ends with this call.
	prior := min(n, st.window-1)
	lastAccess := st.scanBack(&e, prior)
	if !e.exempt {
		e.oscRun = st.oscillationRun(&e, n)
	}
	if e.tracksTarget() {
		st.extendWriteBack(&e, lastAccess, prior)
	}
	// The slot's label buffer is kept; the label of an identical call is
	// copied into it (same may be the slot being replaced).
	slot := st.calls.Push()
	e.label = slot.label.Reuse()
	if same != nil && same.label.Done {
		e.label.Buf, e.label.Done = append(e.label.Buf, same.label.Buf...), true
	}
	*slot = e
}

// derive works out what a call not seen before in the window is compared
// by: its signature, and the target it reads or writes, if any.
func (st *stallState) derive(e *stallCall) {
	e.sig = st.signature(e.tool, e.args)
	if e.access = st.accessOf(e.tool); e.access != scan.NoAccess {
		e.target, e.targetText = primaryTarget(e.args)
		e.targetHash = maphash.String(st.seed, e.target)
	}
}

// tracksTarget reports whether c takes part in write-back cycles: it reads
// or writes a named target and is not a polling call.
func (c *stallCall) tracksTarget() bool {
	return c.access != scan.NoAccess && c.target != "" && !c.exempt
}

// accessed reports whether c is an access to e's target, one that took
// part in a read/write cycle. The hash is compared first: it is cheaper
// than the target's text.
func (c *stallCall) accessed(e *stallCall) bool {
	return c.wbRun > 0 && c.targetHash == e.targetHash && c.target == e.target
}

// scanBack makes one pass back over the prior calls of the window to
// find the identical predecessor that e's repeat continues, and returns
// the previous access to e's target, or nil. It stops as soon as it has
// found both, or as soon as e needs neither.
func (st *stallState) scanBack(e *stallCall, prior int) *stallCall {
	e.repeatRun, e.repeatFirst = 1, e.index
	e.sigRun, e.sigFirst = 1, e.index
	b := backSearch{repeat: !e.exempt, sig: !e.exempt, access: e.tracksTarget()}
	if e.exempt {
		st.continuePolls(e, prior)
	}
	for i := 0; i < prior && b.searching(); i++ {
		b.look(st, e, st.calls.Back(i))
	}
	return b.lastAccess
}

// backSearch is what scanBack still looks for (e's identical predecessor,
// the latest call with e's tool and arguments, the previous access to e's
// target), whether something new came between e and the calls passed,
// and the previous access once found.
type backSearch struct {
	repeat, sig, access bool
	novel, novelSig     bool
	lastAccess          *stallCall
}

// searching reports whether the search still looks for anything.
func (b *backSearch) searching() bool { return b.repeat || b.sig || b.access }

// look checks p, the next older call, for what the search still wants.
func (b *backSearch) look(st *stallState, e, p *stallCall) {
	if b.repeat {
		b.repeat, b.novel = st.continueRepeat(e, p, b.novel)
	}
	if b.sig {
		b.sig, b.novelSig = continueSameCall(e, p, b.novelSig)
	}
	if b.access && p.accessed(e) {
		b.lastAccess, b.access = p, false
	}
}

// continueSameCall looks at p, the next older call, for the latest call
// with e's tool and arguments, whatever its result. When p is that call,
// e continues its chain unless something new happened in between
// (novel): a call whose tool and arguments had not been used before in
// the window, or a polling call. It reports whether the search goes on,
// and whether p was new.
func continueSameCall(e, p *stallCall, novel bool) (searching, stillNovel bool) {
	if p.sig != e.sig || p.exempt {
		return true, novel || p.exempt || !p.sigSeen
	}
	e.sigSeen = true
	if !novel {
		e.sigRun, e.sigFirst = p.sigRun+1, p.sigFirst
	}
	return false, novel
}

// continuePolls continues the chain of identical polls that e, a polling
// call, extends: the latest earlier call to its tool with its arguments,
// if it got the same result and nothing new came in between (a call not
// made before in the window).
func (st *stallState) continuePolls(e *stallCall, prior int) {
	for i := range prior {
		p := st.calls.Back(i)
		if p.samePoll(e) {
			if st.sameObservation(p, e) {
				e.repeatRun, e.repeatFirst = p.repeatRun+1, p.repeatFirst
			}
			return
		}
		if !p.exempt && !p.sigSeen {
			return
		}
	}
}

// samePoll reports whether c is a polling call with e's tool and
// arguments.
func (c *stallCall) samePoll(e *stallCall) bool { return c.exempt && c.sig == e.sig }

// continueRepeat looks at p, the next older call, for e's identical
// predecessor. When p is that predecessor, e continues its chain unless
// something new happened in between (novel): a call not seen before in
// the window, or a polling call, whose result may have moved on. Running
// the same tests after each of several different edits is progress. It
// reports whether the search goes on, and whether p was new.
func (st *stallState) continueRepeat(e, p *stallCall, novel bool) (searching, stillNovel bool) {
	if !st.identical(p, e) {
		return true, novel || p.exempt || !p.seen
	}
	e.seen = true
	if !novel {
		e.repeatRun, e.repeatFirst = p.repeatRun+1, p.repeatFirst
	}
	return false, novel
}

// oscillationRun returns the length of the A-B-A-B alternation ending
// with e, given n kept calls before it: the call before e must differ from
// it, and the one before that be the same as e, with the same result.
func (st *stallState) oscillationRun(e *stallCall, n int) int {
	if n < 1 {
		return 1
	}
	p1 := st.calls.Back(0)
	if !p1.alternatesWith(e) {
		return 1
	}
	if n < 2 || p1.oscRun < 2 {
		return 2
	}
	if st.identical(st.calls.Back(1), e) {
		return p1.oscRun + 1
	}
	return 2
}

// alternatesWith reports whether c, the call before e, could be the other
// side of an alternation with e: a different call, and not a polling one.
func (c *stallCall) alternatesWith(e *stallCall) bool { return !c.exempt && c.sig != e.sig }

// identical reports whether p is the same call as e, with the same
// result, and not a polling call.
func (st *stallState) identical(p, e *stallCall) bool {
	return p.sig == e.sig && !p.exempt && st.sameObservation(p, e)
}

// extendWriteBack continues the read/write cycle on e's target that prev,
// the previous access to the target, belongs to, or starts a new one when
// there is none or it made the same kind of access.
func (st *stallState) extendWriteBack(e, prev *stallCall, prior int) {
	e.wbRun, e.wbFirst = 1, e.index
	e.wbHead = callText{tool: e.tool, summary: e.summary, args: e.args, errMsg: e.errMsg, success: e.success}
	if prev != nil && prev.access == e.access {
		prev = nil
	}
	if prev != nil {
		// The cycle's first access may leave the window before the
		// cycle ends: what its evidence line shows goes along.
		e.wbRun, e.wbFirst, e.wbHead, e.wbNew = prev.wbRun+1, prev.wbFirst, prev.wbHead, prev.wbNew
	}
	st.markStuck(e, prev, prior)
}

// markStuck decides whether e's cycle repeats itself, and since when:
// it does once an access repeats an earlier one of the cycle, stops
// when a successful write makes a change not made before in it, and
// otherwise stays as it was at prev.
func (st *stallState) markStuck(e, prev *stallCall, prior int) {
	switch {
	case prev != nil && st.cycleRepeats(e, prior):
		e.wbStuck = true
	case e.wroteOK():
		// A change not made before in the cycle is progress, even
		// if a read cannot show it (results are kept only in part).
		e.wbNew++
	case prev != nil:
		e.wbStuck = prev.wbStuck
	}
	if e.wbStuck {
		e.wbSince = stuckSince(e, prev)
	}
}

// wroteOK reports whether c is a successful write.
func (c *stallCall) wroteOK() bool { return c.access == scan.WriteAccess && c.success }

// stuckSince returns the length of e's cycle when it began to repeat
// itself: at e, unless it already did at prev.
func stuckSince(e, prev *stallCall) int {
	if prev.wbStuck {
		return prev.wbSince
	}
	return e.wbRun
}

// sameCall returns a kept call with exactly e's tool, arguments and
// summary, or nil.
func (st *stallState) sameCall(e *stallCall) *stallCall {
	for i := range st.calls.Len() {
		if c := st.calls.Back(i); c.raw == e.raw && c.args == e.args && c.tool == e.tool && c.summary == e.summary {
			return c
		}
	}
	return nil
}

// cycleRepeats reports whether e repeats an access of its read/write
// cycle: a write with the same arguments as an earlier one, or a read with
// the same result as an earlier one when the content changed and came
// back in between (a toggle), or when no write in between made a change
// not made before. A read cannot tell a file unchanged from one changed
// past the part of its result kept, so after a new successful write the
// same result is no repeat.
func (st *stallState) cycleRepeats(e *stallCall, prior int) bool {
	changed := false // a read between q and e got another result
	for i := range prior {
		q := st.calls.Back(i)
		if q.index < e.wbFirst {
			break
		}
		if !q.sameAccess(e) {
			continue
		}
		repeats, differs := st.repeatsAccess(q, e, changed)
		if repeats {
			return true
		}
		changed = changed || differs
	}
	return false
}

// sameAccess reports whether c is an access of e's cycle of the same kind
// as e.
func (c *stallCall) sameAccess(e *stallCall) bool { return c.accessed(e) && c.access == e.access }

// repeatsAccess compares e with q, an earlier access of e's cycle of the
// same kind. A write repeats q with the same arguments; a read, with the
// same result, when the content changed in between or no new write was
// made since q. differs reports a read that got another result than q.
func (st *stallState) repeatsAccess(q, e *stallCall, changed bool) (repeats, differs bool) {
	if e.access == scan.WriteAccess {
		return q.sig == e.sig, false
	}
	if !st.sameObservation(q, e) {
		return false, true
	}
	return changed || q.wbNew == e.wbNew, false
}

// detect reports the most severe pattern the call at index continues.
func (st *stallState) detect(index int64) (stallFinding, bool) {
	if st.calls.Len() == 0 {
		return stallFinding{}, false
	}
	e := st.calls.Back(0)
	if e.index != index {
		return stallFinding{}, false
	}
	if e.exempt {
		if st.repeating(e, st.pollCap) {
			return st.findingOf(pollPattern, e.repeatRun, st.pollCap), true
		}
		return stallFinding{}, false
	}
	return st.strongest(e)
}

// strongest returns the most severe pattern e continues. The patterns are
// considered in order of preference: a later one replaces an earlier one
// only when it is more severe.
func (st *stallState) strongest(e *stallCall) (stallFinding, bool) {
	var best mostSevere
	if st.oscillating(e) {
		best.consider(st.findingOf(oscillationPattern, e.oscRun, st.oscillate))
	}
	if st.writingBack(e) {
		// First reported once the cycle is long enough and repeats
		// itself, whichever comes later.
		best.consider(st.findingOf(writeBackPattern, e.wbRun, max(st.writeBack, e.wbSince)))
	}
	if threshold := st.repeatThreshold(e); st.repeating(e, threshold) {
		best.consider(st.findingOf(repeatPattern, e.repeatRun, threshold))
	}
	if st.sameCalling(e) {
		best.consider(st.findingOf(sameCallPattern, e.sigRun, st.sameCalls))
	}
	return best.f, best.found
}

// findingOf returns a pattern of length calls, first reported at threshold,
// with the severity the escalation gives it.
func (st *stallState) findingOf(kind stallKind, length, threshold int) stallFinding {
	return stallFinding{kind: kind, length: length, threshold: threshold,
		severity: st.escalation.Severity(length - threshold)}
}

// oscillating reports whether e ends an alternation long enough to report.
func (st *stallState) oscillating(e *stallCall) bool {
	return st.oscillate > 0 && e.oscRun >= st.oscillate
}

// writingBack reports whether e ends a read/write cycle long enough to
// report that repeats itself.
func (st *stallState) writingBack(e *stallCall) bool {
	return st.writeBack > 0 && e.wbRun >= st.writeBack && e.wbStuck
}

// sameCalling reports whether e ends a chain of SameCalls or more calls
// with its tool and arguments, that many of them still kept.
func (st *stallState) sameCalling(e *stallCall) bool {
	if st.sameCalls <= 0 || e.sigRun < st.sameCalls {
		return false
	}
	return st.keptOf(e).sameCalls >= st.sameCalls
}

// chainsKept counts the kept calls of the chains that a call, of index
// of, ends: its chain of repeats and its chain of same calls.
type chainsKept struct {
	of                 int64
	repeats, sameCalls int
}

// keptOf returns the kept calls of e's chains, e being the latest call.
// One walk over the window serves the checks of every pattern and the
// evidence of a repeat: it gathers e's chain of repeats, oldest first,
// into st.picked.
func (st *stallState) keptOf(e *stallCall) chainsKept {
	if st.kept.of == e.index {
		return st.kept
	}
	picked, same := st.picked[:0], 0
	older, newer := st.calls.Halves()
	for _, half := range [...][]stallCall{older, newer} {
		for i := range half {
			c := &half[i]
			if st.inChain(c, e) {
				picked = append(picked, c)
			}
			if c.inSameChain(e) {
				same++
			}
		}
	}
	st.picked = picked
	st.kept = chainsKept{of: e.index, repeats: len(picked), sameCalls: same}
	return st.kept
}

// inSameChain reports whether c belongs to e's chain of calls with its
// tool and arguments.
func (c *stallCall) inSameChain(e *stallCall) bool {
	return c.index >= e.sigFirst && c.sig == e.sig && !c.exempt
}

// repeatThreshold returns how many identical calls like e make a repeat:
// failing calls are reported sooner.
func (st *stallState) repeatThreshold(e *stallCall) int {
	if e.success {
		return st.repeats
	}
	return st.failed
}

// repeating reports whether e ends a chain of threshold or more identical
// calls, that many of them still kept.
func (st *stallState) repeating(e *stallCall, threshold int) bool {
	if threshold <= 0 || e.repeatRun < threshold {
		return false
	}
	return st.keptOf(e).repeats >= threshold
}

// mostSevere keeps the most severe of the findings offered to it, the
// first one offered among equally severe ones.
type mostSevere struct {
	f     stallFinding
	found bool
}

func (m *mostSevere) consider(f stallFinding) {
	if !m.found || f.severity > m.f.severity {
		m.f, m.found = f, true
	}
}

// inChain reports whether p belongs to the chain of repeats ending at e:
// every identical call since the chain's first one does. Each call of a
// chain continues its latest identical predecessor and inherits the
// chain's first index, and no call outside it has that index as its
// first, so comparing the first index and the signature is enough: the
// results need not be compared again.
func (st *stallState) inChain(p, e *stallCall) bool {
	return p.repeatFirst == e.repeatFirst && p.sig == e.sig && p.exempt == e.exempt
}

func (st *stallState) labelOf(c *stallCall) []byte { return c.label.Of(c.tool, c.summary, c.args) }

// list writes the evidence for a pattern of total calls whose kept calls
// are st.picked, oldest first; firstIndex and firstOf give the pattern's
// first call and a kept call identical to it.
func (st *stallState) list(b *strings.Builder, total int, firstIndex int64, firstOf *stallCall) {
	scan.ListCalls(b, len(st.picked), total, func(b *strings.Builder, i int) {
		c := st.picked[i]
		scan.EvidenceLine(b, c.index, st.labelOf(c), c.success, c.errMsg)
	}, func(b *strings.Builder) {
		scan.EvidenceLine(b, firstIndex, st.labelOf(firstOf), firstOf.success, firstOf.errMsg)
	})
}

// pick gathers the kept calls that keep returns true for, oldest first,
// into st.picked.
func (st *stallState) pick(keep func(*stallCall) bool) {
	picked := st.picked[:0]
	older, newer := st.calls.Halves()
	for _, half := range [...][]stallCall{older, newer} {
		for i := range half {
			if c := &half[i]; keep(c) {
				picked = append(picked, c)
			}
		}
	}
	st.picked, st.kept = picked, chainsKept{}
}

// pickChain gathers the kept calls of e's chain of repeats, e included,
// oldest first, into st.picked. It is pick for the pattern reported most
// often, without a call per kept call.
func (st *stallState) pickChain(e *stallCall) {
	picked := st.picked[:0]
	older, newer := st.calls.Halves()
	for _, half := range [...][]stallCall{older, newer} {
		for i := range half {
			if c := &half[i]; st.inChain(c, e) {
				picked = append(picked, c)
			}
		}
	}
	st.picked = picked
}

// Suggestions of the Stall assessments.
const (
	repeatSuggestion      = "Use the result you already have: calling again will not change it."
	repeatOtherSuggestion = "If it does not answer your question, change the arguments or use a different tool."
	failedSuggestion      = "Calling it again will not help: read the error, then change the call or try another approach."
	oscillateSuggestion   = "Decide what you need from these two calls and move on: switching between them is not making progress."
	stallWarning          = "If you cannot make progress this way, stop and report what is blocking you."
	pollSuggestion        = "Polling again will not change it: check whether what you are waiting for is stuck, or do other work before you poll again."
	sameCallSuggestion    = "Calling it again is not making progress: use what you already have, or change the call."
)

// assess turns a finding into an assessment. Its texts are written one
// after the other into st.out, whose buffer they share.
func (st *stallState) assess(f stallFinding) observer.Assessment {
	e := st.calls.Back(0)
	var room [3]string
	var x stallTexts
	st.out.Start(512)
	suggestions := st.describe(&x, room[:0], f, e)
	all := st.out.String()
	if x.summaryAt != (scan.Piece{}) {
		x.summary = x.summaryAt.In(all)
	}
	if x.suggestion != (scan.Piece{}) {
		suggestions = append(suggestions, x.suggestion.In(all))
	}
	if f.severity == observer.Warning {
		suggestions = append(suggestions, stallWarning)
	}
	a := observer.Assessment{Summary: x.summary, Severity: f.severity}
	a.Observations, a.Suggestions = st.parts.ObservationWith(
		observer.Observation{Category: x.category, Description: x.description.In(all), Evidence: x.evidence.In(all)},
		suggestions...)
	return a
}

// stallTexts are what a pattern's assessment says: fixed texts, and the
// pieces of st.out written for it.
type stallTexts struct {
	category, summary string // summary unless summaryAt is written

	summaryAt, description, evidence, suggestion scan.Piece
}

// describe writes the texts of the pattern f into st.out and x, and
// returns suggestions with the pattern's fixed suggestions appended.
func (st *stallState) describe(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	switch f.kind {
	case repeatPattern, pollPattern:
		return st.describeRepeat(x, suggestions, f, e)
	case sameCallPattern:
		return st.describeSameCall(x, suggestions, f, e)
	case oscillationPattern:
		return st.describeOscillation(x, suggestions, f, e)
	case writeBackPattern:
		st.describeWriteBack(x, f, e)
	}
	return suggestions
}

// repeatWording is what a repeat's texts say, by whether its calls
// succeeded.
type repeatWording struct {
	category, summary, outcome string
	suggestions                []string
}

var (
	repeatSucceeded = repeatWording{
		category:    "repeat",
		summary:     "You are repeating a call that keeps giving the same result.",
		outcome:     " times with the same arguments and returned the same result each time (calls #",
		suggestions: []string{repeatSuggestion, repeatOtherSuggestion},
	}
	repeatFailed = repeatWording{
		category:    "repeat",
		summary:     "You are repeating a call that keeps failing the same way.",
		outcome:     " times with the same arguments and failed the same way each time (calls #",
		suggestions: []string{failedSuggestion},
	}
	repeatPolled = repeatWording{
		category:    "no_progress",
		summary:     "You keep polling, and nothing has changed.",
		outcome:     " times with the same arguments and returned the same result each time (calls #",
		suggestions: []string{pollSuggestion},
	}
)

func (st *stallState) describeRepeat(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	t := &st.out
	w := &repeatFailed
	switch {
	case f.kind == pollPattern:
		w = &repeatPolled
	case e.success:
		w = &repeatSucceeded
	}
	if st.kept.of != e.index {
		st.pickChain(e)
	}
	first := e.repeatFirst
	st.list(&t.Builder, f.length, first, e)
	x.evidence = t.End()
	x.category, x.summary = w.category, w.summary
	scan.WriteQuoted(&t.Builder, e.tool)
	t.WriteString(" was called ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(w.outcome)
	scan.WriteInt(&t.Builder, first)
	t.WriteString(" to #")
	scan.WriteInt(&t.Builder, e.index)
	t.WriteString(").")
	x.description = t.End()
	return append(suggestions, w.suggestions...)
}

func (st *stallState) describeSameCall(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	t := &st.out
	first := e.sigFirst
	st.pick(func(c *stallCall) bool { return c.index >= first && c.sig == e.sig && !c.exempt })
	st.list(&t.Builder, f.length, first, e)
	x.evidence = t.End()
	x.category = "same_call"
	x.summary = "You keep making the same call; its result changes, but you are not moving on."
	scan.WriteQuoted(&t.Builder, e.tool)
	t.WriteString(" was called ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(" times with the same arguments (calls #")
	scan.WriteInt(&t.Builder, first)
	t.WriteString(" to #")
	scan.WriteInt(&t.Builder, e.index)
	t.WriteString("), with nothing else in between.")
	x.description = t.End()
	return append(suggestions, sameCallSuggestion)
}

func (st *stallState) describeOscillation(x *stallTexts, suggestions []string, f stallFinding, e *stallCall) []string {
	t := &st.out
	first := e.index - int64(f.length) + 1
	st.pick(func(c *stallCall) bool { return c.index >= first })
	other := st.calls.Back(1)
	firstOf := e
	if (f.length-1)%2 == 1 {
		firstOf = other
	}
	st.list(&t.Builder, f.length, first, firstOf)
	x.evidence = t.End()
	x.category = "oscillation"
	x.summary = "You are alternating between two calls that keep giving the same results."
	t.WriteString("The last ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(" calls alternated between ")
	writeQuotedLabel(&t.Builder, st.labelOf(other))
	t.WriteString(" and ")
	writeQuotedLabel(&t.Builder, st.labelOf(e))
	t.WriteString(", with the same results each time.")
	x.description = t.End()
	return append(suggestions, oscillateSuggestion)
}

func (st *stallState) describeWriteBack(x *stallTexts, f stallFinding, e *stallCall) {
	t := &st.out
	st.pick(func(c *stallCall) bool { return c.index >= e.wbFirst && c.wbRun > 0 && c.target == e.target })
	head := e.wbHead
	scan.ListCalls(&t.Builder, len(st.picked), f.length, func(b *strings.Builder, i int) {
		c := st.picked[i]
		scan.EvidenceLine(b, c.index, st.labelOf(c), c.success, c.errMsg)
	}, func(b *strings.Builder) {
		st.text = scan.AppendLabel(st.text[:0], head.tool, head.summary, head.args)
		scan.EvidenceLine(b, e.wbFirst, st.text, head.success, head.errMsg)
	})
	x.evidence = t.End()
	x.category = "write_back"
	target := scan.Clip(e.targetText, scan.MaxSummaryLen)
	t.WriteString("You keep reading and rewriting ")
	scan.WriteQuoted(&t.Builder, target)
	t.WriteString(" without making progress.")
	x.summaryAt = t.End()
	scan.WriteQuoted(&t.Builder, target)
	t.WriteString(" was read and written in turn ")
	scan.WriteInt(&t.Builder, int64(f.length))
	t.WriteString(" times (calls #")
	scan.WriteInt(&t.Builder, e.wbFirst)
	t.WriteString(" to #")
	scan.WriteInt(&t.Builder, e.index)
	t.WriteString("), and the cycle repeats itself: the same write, or the same content read back.")
	x.description = t.End()
	t.WriteString("Stop rewriting ")
	scan.WriteQuoted(&t.Builder, target)
	t.WriteString(": check what the last write did, then make one deliberate change.")
	x.suggestion = t.End()
}

// writeQuotedLabel writes a call's label, already on one line, in
// backticks.
func writeQuotedLabel(b *strings.Builder, label []byte) {
	b.WriteByte('`')
	b.Write(label)
	b.WriteByte('`')
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
