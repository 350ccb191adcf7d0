package stall

import "github.com/lookout-go/lookout/observer/internal/scan"

// scanBack makes one pass back over the prior calls of the window to
// find the identical predecessor that e's repeat continues, and returns
// the previous access to e's target, or nil. It stops as soon as it has
// found both, or as soon as e needs neither.
func (st *stallState) scanBack(e *stallCall, prior int, known, accessed bool) *stallCall {
	e.repeatRun, e.repeatFirst = 1, e.index
	e.sigRun, e.sigFirst = 1, e.index
	b := backSearch{repeat: known && !e.exempt, sig: known && !e.exempt, access: accessed}
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
