package stall

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
	if best.found {
		return best.f, true
	}
	if t := st.recheckThreshold(e); t > 0 && e.recur >= t && e.repeatRun < e.recur {
		return st.findingOf(recheckPattern, e.recur, t), true
	}
	if st.sameResult > 0 && e.noEffectRun >= st.sameResult {
		return st.findingOf(noEffectPattern, e.noEffectRun, st.sameResult), true
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
	older, newer := st.calls.Halves()
	picked, same := st.keptIn(st.picked[:0], older, e)
	picked, sameNewer := st.keptIn(picked, newer, e)
	st.picked = picked
	st.kept = chainsKept{of: e.index, repeats: len(picked), sameCalls: same + sameNewer}
	return st.kept
}

// keptIn appends the calls of half in e's chain of repeats to picked, and
// counts those in e's chain of same calls. A call for each half keeps the
// loop's state in registers.
func (st *stallState) keptIn(picked []*stallCall, half []stallCall, e *stallCall) ([]*stallCall, int) {
	same := 0
	for i := range half {
		c := &half[i]
		if st.inChain(c, e) {
			picked = append(picked, c)
		}
		if c.inSameChain(e) {
			same++
		}
	}
	return picked, same
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
