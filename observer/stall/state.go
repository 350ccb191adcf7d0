package stall

import (
	"hash/maphash"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/detect"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

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
		sameResult: scan.AtLeast(scan.Pick(s.SameResults, DefaultSameResults), 2),
		escalation: s.Escalation.Or(defaultStallEscalation),
		canon:      s.Normalizer.Compile(),
		results:    detect.MessageCanon(s.ResultRules),
		seed:       maphash.MakeSeed(),
		polling:    make(map[string]bool, len(s.PollingTools)),
	}
	st.calls = scan.NewRing[stallCall](st.window)
	for _, t := range s.PollingTools {
		st.polling[t] = true
	}
	for _, t := range s.ReadTools {
		st.access.Set(t, scan.ReadAccess)
	}
	for _, t := range s.WriteTools {
		st.access.Set(t, scan.WriteAccess)
	}
	return st
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
	wbNew               int   // successful writes in the cycle so far that no earlier one had made
	wbStuck             bool  // the cycle repeats itself
	wbSince             int   // wbRun when the cycle began to repeat itself, while wbStuck
	recur               int   // calls with its tool and arguments, each with the result of the one before, ending here
	recurFirst          int64 // index of the first of them
	noEffect            bool  // its result only echoes what was sent, after a continuation prompt
	noEffectRun         int   // calls in a row without effect, ending here
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
	pollCap, sameCalls, sameResult                int
	escalation                                    observer.Escalation

	calls   scan.Ring[stallCall]
	canon   *observer.Compiled
	results *scan.Canon
	seed    maphash.Seed
	text    []byte
	// normalized holds the latest results normalized, with the hash of
	// each: a result the same as one of them is not normalized again.
	normalized [4]normalizedResult
	nextResult int
	polling    map[string]bool
	// progressing holds the signatures of calls whose results showed
	// counters that moved: polls.
	progressing map[uint64]bool
	access      scan.ToolAccesses
	// sigs counts the kept calls by a part of their signature, and targets
	// the kept accesses of read/write cycles by a part of their target's
	// hash: a call whose part no kept call shares is new, found so without
	// a walk over the window.
	sigs, targets [countParts]uint16

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
	recheckPattern  // the same call with the same result, other calls between
	noEffectPattern // calls in a row that only echo back what was sent
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
	clear(st.progressing)
	st.sigs, st.targets = [countParts]uint16{}, [countParts]uint16{}
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

func (st *stallState) signature(tool, args string) uint64 {
	return maphash.String(st.seed, tool)*0x9E3779B97F4A7C15 ^ maphash.Bytes(st.seed, st.canon.Arguments(args))
}

// observation returns the hash of a call's normalized result and error.
func (st *stallState) observation(c *stallCall) uint64 {
	if c.obsDone {
		return c.obs
	}
	for _, r := range st.normalized {
		if r.done && r.exempt == c.exempt && r.result == c.result && r.errMsg == c.errMsg {
			c.obs, c.obsDone = r.obs, true
			return c.obs
		}
	}
	// A polling tool's counters are its progress: its results are
	// compared with the arguments' rules, which keep numbers.
	if c.exempt {
		st.text = st.canon.AppendText(st.text[:0], c.result)
		st.text = append(st.text, 0)
		st.text = st.canon.AppendText(st.text, c.errMsg)
	} else {
		st.text = st.results.Text(st.text[:0], c.result)
		st.text = append(st.text, 0)
		st.text = st.results.Text(st.text, c.errMsg)
	}
	c.obs, c.obsDone = maphash.Bytes(st.seed, st.text), true
	st.normalized[st.nextResult] = normalizedResult{result: c.result, errMsg: c.errMsg, exempt: c.exempt, obs: c.obs, done: true}
	st.nextResult = (st.nextResult + 1) % len(st.normalized)
	return c.obs
}

// normalizedResult is a result and error normalized, and the hash of
// what they became.
type normalizedResult struct {
	result, errMsg string
	obs            uint64
	exempt, done   bool
}

// sameObservation reports whether two calls got the same result.
func (st *stallState) sameObservation(a, b *stallCall) bool {
	same, _ := st.compare(a, b)
	return same
}

// compare reports whether a and b had the same outcome, and, when they
// did not, whether they differ only in counters that moved: progress.
func (st *stallState) compare(a, b *stallCall) (same, moved bool) {
	if a.success != b.success {
		return false, false
	}
	if a.result == b.result && a.errMsg == b.errMsg {
		return true, false
	}
	if st.observation(a) != st.observation(b) {
		return false, false
	}
	moved = countersMoved(a.result, b.result) || countersMoved(a.errMsg, b.errMsg)
	return !moved, moved
}

// add records a call and extends the patterns it continues.
func (st *stallState) add(rec *observer.ToolCallRecord) {
	e := stallCall{
		index: rec.CallIndex, tool: rec.ToolName, summary: rec.ParamsSummary, args: rec.Arguments,
		result: rec.Result, errMsg: rec.ErrorMessage, success: rec.Success,
		exempt: st.polling[rec.ToolName],
	}
	n := st.calls.Len()
	e.raw = st.rawOf(rec.ToolName, rec.ParamsSummary, rec.Arguments)
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
	// A call whose signature no kept call has continues no chain of its
	// calls, nor one whose target none has a cycle of accesses.
	known := st.sigs[e.sig%countParts] > 0
	lastAccess := st.scanBack(&e, prior, known, e.tracksTarget() && st.targets[e.targetHash%countParts] > 0)
	if !e.exempt {
		e.oscRun = st.oscillationRun(&e, n)
	}
	if e.tracksTarget() {
		st.extendWriteBack(&e, lastAccess, prior)
	}
	st.recheck(&e, prior, known)
	carry := n > 0 && st.continuesKept(st.calls.Back(0), &e)
	// The slot's label buffer is kept; the label of an identical call is
	// copied into it (same may be the slot being replaced).
	slot := st.calls.Push()
	var lostRepeat, lostSame bool
	if carry && st.calls.Len() == n {
		// The window was full: the slot held its oldest call.
		lostRepeat, lostSame = st.inChain(slot, &e), slot.inSameChain(&e)
	}
	if st.calls.Len() == n {
		st.count(slot, ^uint16(0)) // the window's oldest call, overwritten: -1
	}
	e.label = slot.label.Reuse()
	if same != nil && same.label.Done {
		e.label.Buf, e.label.Done = append(e.label.Buf, same.label.Buf...), true
	}
	*slot = e
	st.count(slot, 1)
	if carry {
		st.carryKept(slot, lostRepeat, lostSame)
	}
}

// count adds d, 1 or -1, to the counts of c's signature and, for an
// access of a read/write cycle, its target.
func (st *stallState) count(c *stallCall, d uint16) {
	st.sigs[c.sig%countParts] += d
	if c.wbRun > 0 {
		st.targets[c.targetHash%countParts] += d
	}
}

// countParts is how many parts calls are counted in: at most MaxWindow
// calls are kept, which a uint16 counts.
const countParts = 128

// continuesKept reports whether st.kept holds the chains of c, the latest
// call before e, and e's chains are c's: the same chain of repeats and
// the same chain of same calls.
func (st *stallState) continuesKept(c, e *stallCall) bool {
	return st.kept.of == c.index && c.repeatFirst == e.repeatFirst && c.sig == e.sig &&
		c.exempt == e.exempt && c.sigFirst == e.sigFirst
}

// carryKept takes st.kept, the chains of the call before e, on to e, the
// call just added, whose chains are the same: what keptOf would find in a
// walk over the window. The window lost its oldest call, which was in the
// chains as lostRepeat and lostSame say (the oldest of st.picked, then),
// and gained e, the newest of its chain of repeats.
func (st *stallState) carryKept(e *stallCall, lostRepeat, lostSame bool) {
	if lostRepeat {
		st.picked = st.picked[:copy(st.picked, st.picked[1:])]
	}
	st.picked = append(st.picked, e)
	k := &st.kept
	if lostSame {
		k.sameCalls--
	}
	if e.inSameChain(e) {
		k.sameCalls++
	}
	k.of, k.repeats = e.index, len(st.picked)
}

// rawOf returns what sameCall compares before a call's tool, summary and
// raw arguments: a hash of the arguments, which tell most calls apart,
// with the lengths of the tool and the summary, which cost no hashing.
// Calls it does not tell apart are told by their texts.
func (st *stallState) rawOf(tool, summary, args string) uint64 {
	return maphash.String(st.seed, args) ^ uint64(len(tool))<<48 ^ uint64(len(summary))<<32
}

// derive works out what a call not seen before in the window is compared
// by: its signature, and the target it reads or writes, if any.
func (st *stallState) derive(e *stallCall) {
	e.sig = st.signature(e.tool, e.args)
	if e.access = st.access.Of(e.tool); e.access != scan.NoAccess {
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
