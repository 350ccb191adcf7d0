package observer

import (
	"math"

	"github.com/lookout-go/lookout/session"
)

// Incremental is an optional interface for an observer that keeps working
// state for each session and brings it up to date one tool call at a time,
// rather than reading the whole log each time it runs.
//
// The pipeline creates the state with NewCallState the first time the
// observer's trigger fires in a session. Each time the trigger fires after
// that, and before ShouldRun, the pipeline hands the state every call
// recorded since it last did, oldest first, so that the state has seen
// every call even under a sparse trigger. The observer finds its state
// with [Context.CallState]. The state is used under the pipeline's lock,
// one call at a time.
type Incremental interface {
	Observer
	// NewCallState returns the working state for one session.
	NewCallState() CallState
}

// CallState is an [Incremental] observer's working state for one session.
type CallState interface {
	// CatchUp is how many of the latest calls the state needs to read
	// when it has not seen them: when more were recorded since it last
	// read, or when it reads the log afresh, it is Reset and handed only
	// the last CatchUp calls. Zero or less means every call the log
	// keeps.
	CatchUp() int
	// Reset drops everything learnt from earlier calls: the log was
	// restored from a snapshot or rolled back underneath the state, or
	// more calls than CatchUp were recorded since it last read. oc is the
	// run the reset is made for; the calls handed to Add follow.
	Reset(oc *Context)
	// Add takes in the next call. rec is the log's own: read it, never
	// change it; its strings may be kept.
	Add(oc *Context, rec *ToolCallRecord)
}

// CallState returns the observer's working state for this session, up to
// date with every call so far, when the observer is [Incremental]; nil
// otherwise, or outside a pipeline.
func (c *Context) CallState() CallState { return c.state }

// incremental is what the pipeline keeps for one Incremental observer in
// one session: its state, and how far the state has read the log.
type incremental struct {
	state CallState
	cur   cursor
}

// catchUp brings the observer's state up to date with the log, creating it
// on first use, and returns it; nil for an observer that is not
// Incremental. It is the check that the state is up to date, which it
// usually is: an observer's state is handed each call when the observer
// first runs or judges after it, and the work is left to readCalls.
func (p *Pipeline) catchUp(i int, oc *Context) CallState {
	m := &p.members[i]
	if m.roles.incremental == nil || m.inc.state == nil && p.stateOf(i) == nil {
		return nil
	}
	if inc := &m.inc; inc.cur.index == oc.CallIndex && inc.cur.epoch == p.calls.Epoch() {
		// Up to date: the state was handed this call already.
		return inc.state
	}
	return p.readCalls(&m.inc, oc)
}

// readCalls hands inc's state the calls recorded since it last read, up
// to oc's, or resets it and hands it the latest when it must start
// afresh (see CallState.CatchUp), and returns the state.
func (p *Pipeline) readCalls(inc *incremental, oc *Context) CallState {
	keep := inc.state.CatchUp()
	if keep <= 0 {
		keep = math.MaxInt
	}
	from, reset := inc.cur.next(p.calls, oc.CallIndex, keep)
	if reset {
		inc.state.Reset(oc)
	}
	if from == oc.CallIndex-1 {
		// One new call, the usual case: read once for every observer.
		if rec := p.callAt(from, inc.cur.epoch); rec != nil {
			inc.state.Add(oc, rec)
			inc.cur.index = rec.CallIndex
		}
		return inc.state
	}
	for _, rec := range p.calls.Range(from, oc.CallIndex) {
		inc.state.Add(oc, rec)
		inc.cur.index = rec.CallIndex
	}
	return inc.state
}

// stateOf returns observer i's working state, creating it on first use;
// nil for an observer that is not Incremental or gives no state.
func (p *Pipeline) stateOf(i int) CallState {
	inc := &p.members[i].inc
	if inc.state == nil {
		if o := p.members[i].roles.incremental; o != nil {
			inc.state = o.NewCallState()
		}
	}
	return inc.state
}

// cursor follows the session's call log for one detector, so that each
// call is processed once. It remembers the last call processed and the
// log's epoch, to notice when the log was restored from a snapshot or
// rolled back underneath it.
type cursor struct {
	index int64 // CallIndex of the last call processed; 0 before any
	// epoch is the log's Epoch when the cursor last moved: positions
	// name the same calls while it stays the same.
	epoch uint64
}

// next returns the log position of the first call to process for a log
// whose newest call has index upto, keeping at most keep calls, and
// whether what the detector derived so far must be dropped first.
func (c *cursor) next(calls *session.Log[ToolCallRecord], upto int64, keep int) (from int64, reset bool) {
	from = c.index // positions are CallIndex-1, so the next one is c.index
	epoch := calls.Epoch()
	if c.index > 0 && (c.index > upto || epoch != c.epoch) {
		from, reset = 0, true
	}
	c.epoch = epoch
	if upto-from > int64(keep) {
		from, reset = upto-int64(keep), true
	}
	return from, reset
}

// lastRead is the call the pipeline last read from its log for its
// observers' catch-up: the entry at pos, as of the log's epoch.
type lastRead struct {
	rec   *ToolCallRecord
	pos   int64
	epoch uint64
}

// callAt returns the call at position pos of the log, which was at epoch,
// as Log.Range yields it, or nil when the log does not hold it. The
// observers that catch up on the same call share one read of it: an entry
// does not change once written, and a restore changes the epoch. It runs
// under p.mu.
func (p *Pipeline) callAt(pos int64, epoch uint64) *ToolCallRecord {
	if l := &p.lastRead; l.rec != nil && l.pos == pos && l.epoch == epoch {
		return l.rec
	}
	var rec *ToolCallRecord
	for _, r := range p.calls.Range(pos, pos+1) {
		rec = r
	}
	if rec != nil {
		p.lastRead = lastRead{rec: rec, pos: pos, epoch: epoch}
	}
	return rec
}
