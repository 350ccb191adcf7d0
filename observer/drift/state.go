package drift

import (
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/detect"
	"github.com/lookout-go/lookout/observer/internal/scan"
	"github.com/lookout-go/lookout/session"
)

// driftCall is what Drift keeps of a call that named a target.
type driftCall struct {
	index               int64
	tool, summary, args string
	targets             []string
	outside             bool
	// ground is the position in groundCommands, plus one, of the
	// off-ground command the call runs; 0 when it runs none.
	ground uint8
	// planted is the position in the session's planted identifiers, plus
	// one, of the one the call acts on, when ground is plantedAt.
	planted uint8
	// version and grown are the scope's when outside was computed.
	version, grown int32
	label          scan.Label
}

// slotTargets is how many targets a call names at most, which a slot
// keeps room for.
const slotTargets = 4

// driftState is one session's working state for a Detector.
type driftState struct {
	window, minCalls, initial int
	derivedMin                int
	share                     float64
	escalation                observer.Escalation
	finder                    *scan.TargetFinder

	calls   scan.Ring[driftCall]
	targets []string
	// freeTargets holds room for the targets of slots yet to be filled.
	freeTargets []string

	store       *session.Store
	task        *session.Value[observer.Task]
	taskSeen    bool
	taskPrompt  string
	taskScope   []string
	lowerPrompt string // the prompt lower-cased, once needed
	// asks says, for each of groundCommands, whether the task asks for
	// its work: 0 when not yet known, 1 when it does, 2 when it does not.
	asks  [len(groundCommands)]uint8
	shell shellScan
	plant planted // instructions planted in tool results
	hit   uint8   // the planted identifier the call being read acts on, as a call keeps it
	// argsMake says whether the call being read may make targets.
	argsMake bool

	declared    []string // from Task.Scope
	fromPrompt  []string // from Task.Prompt, once the scope is first built
	promptRead  bool     // fromPrompt is the prompt's
	learned     []string // targets of the first calls
	made        []string // what the agent wrote, and its working directories
	madeSet     map[string]struct{}
	access      scan.ToolAccesses
	text        []byte            // scratch for unescaped arguments
	cwd         string            // the working directory the calls changed to, if known
	joinedIn    string            // the working directory joined holds paths under
	joined      map[string]string // relative paths, joined under joinedIn
	topFiles    []string          // of them, relative paths of files at the top of the tree
	learnedUpTo int64
	scope       []string   // its entries, in order
	index       scopeIndex // the same entries, to match targets with
	// version counts the scope's rebuilds, grown how many times it grew
	// since the last: a call inside it stays inside while it grows.
	version, grown int32

	order            []int    // scratch for keepUncovered
	kept             []bool   // scratch for keepUncovered
	candidateScratch []string // scratch for candidates

	episode int64 // call at which the current drift began; 0 when none

	outsideCalls []*driftCall // scratch for the evidence
	out          scan.Texts   // the texts of the latest assessment
	parts        detect.Parts // the observations and suggestions of the assessments

	checked int64
	found   bool
	finding driftFinding
	stale   bool // the scope must be built again before the next check
}

type driftFinding struct {
	outside, total int
	severity       observer.Severity
	// ground is the off-ground work of the latest call, when that alone
	// makes the finding.
	ground uint8
}

// CatchUp reads back four windows of calls: those that name no target
// are not kept.
func (st *driftState) CatchUp() int { return 4 * st.window }

// Reset forgets every call, and reads the run's first calls again.
func (st *driftState) Reset(oc *observer.Context) {
	st.calls.Clear()
	st.learned, st.topFiles, st.learnedUpTo = st.learned[:0], st.topFiles[:0], 0
	st.made, st.cwd = st.made[:0], ""
	clear(st.madeSet)
	st.plant.ids = st.plant.ids[:0]
	st.stale, st.checked = true, -1
	st.relearn(oc.Calls(), oc.CallIndex)
}

// Add takes in the next call.
func (st *driftState) Add(_ *observer.Context, rec *observer.ToolCallRecord) { st.add(rec) }

// check reports a drift the latest call
// is part of.
func (st *driftState) check(oc *observer.Context) (driftFinding, bool) {
	if st.syncTask(oc.Store) {
		st.stale, st.checked = true, -1
	}
	if st.checked == oc.CallIndex {
		return st.finding, st.found
	}
	if st.stale && st.calls.Len() >= st.least() {
		// Built once the window could judge it: a run too short for that
		// never reads the prompt.
		st.rebuildScope()
	}
	st.checked = oc.CallIndex
	st.finding, st.found = st.detect(oc.CallIndex)
	return st.finding, st.found
}

// least returns how many calls naming a target the window must hold
// before the scope is judged.
func (st *driftState) least() int {
	if len(st.declared) > 0 {
		return st.minCalls
	}
	return st.derivedMin
}

// add records a call that names a target.
func (st *driftState) add(rec *observer.ToolCallRecord) {
	n := len(st.made)
	ground := st.findTargets(rec)
	if ground == 0 && st.hit != 0 {
		ground = plantedAt
	}
	st.plant.readResult(rec.CallIndex, rec.Result)
	if st.learn(rec.CallIndex) && !st.taskSeen {
		// Built once the task is known.
		st.stale = true
	}
	if n < len(st.made) {
		st.extendScope(st.made[n:])
	}
	st.resolve()
	if len(st.targets) == 0 && ground == 0 {
		return
	}
	slot := st.calls.Push()
	targets := slot.targets[:0]
	if cap(targets) == 0 {
		// The slots' targets share a few arrays, taken as slots fill.
		targets = scan.Carve(&st.freeTargets, slotTargets, 16*slotTargets)[:0]
	}
	*slot = driftCall{
		index: rec.CallIndex, tool: rec.ToolName, summary: rec.ParamsSummary, args: rec.Arguments,
		targets: append(targets, st.targets...),
		version: -1,
		label:   slot.label.Reuse(),
		ground:  ground,
		planted: st.hit,
	}
}

// outside reports whether the call c lies outside the scope: it does work
// off the task's ground, or none of its targets is in the scope.
func (st *driftState) outside(c *driftCall) bool {
	if c.version != st.version || c.grown != st.grown && c.outside {
		return st.judge(c)
	}
	c.grown = st.grown
	return c.outside
}

// judge works out whether c lies outside the scope as it is now.
func (st *driftState) judge(c *driftCall) bool {
	c.outside, c.version, c.grown = true, st.version, st.grown
	if st.offGround(c) {
		return true
	}
	for _, t := range c.targets {
		if st.index.covers(t) {
			c.outside = false
			break
		}
	}
	return c.outside
}

// detect reports a drift that the call at index is part of.
func (st *driftState) detect(index int64) (driftFinding, bool) {
	n := st.calls.Len()
	out, drifting := st.mostlyOutside(n)
	var newest *driftCall
	if n > 0 && st.calls.Back(0).index == index {
		newest = st.calls.Back(0)
	}
	offGround := newest != nil && st.offGround(newest)
	if !drifting && !offGround {
		st.episode = 0
		return driftFinding{}, false
	}
	if st.episode == 0 {
		st.episode = index
	}
	if newest == nil || !st.outside(newest) {
		return driftFinding{}, false
	}
	f := driftFinding{outside: out, total: n, severity: st.escalation.Severity(int(index - st.episode))}
	if !drifting {
		f.ground = newest.ground
	}
	return f, true
}

// mostlyOutside counts the n kept calls outside the scope, and reports
// whether they make a drift: there is a scope, enough calls, and a large
// enough share of them outside it.
func (st *driftState) mostlyOutside(n int) (int, bool) {
	if len(st.scope) == 0 || n < st.least() {
		return 0, false
	}
	out := 0
	older, newer := st.calls.Halves()
	for _, part := range [2][]driftCall{older, newer} {
		for i := range part {
			if st.outside(&part[i]) {
				out++
			}
		}
	}
	return out, float64(out) >= st.share*float64(n)
}
