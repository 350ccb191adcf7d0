package atif

import (
	"slices"
	"sort"
)

// link attaches a child run to the step that delegated to it, by the
// rules in the FromRecords documentation.
func (x *exporter) link(steps []*pending, calls map[string][]*callSpan, child *run) []*pending {
	ref := SubagentTrajectoryRef{TrajectoryID: child.id}
	if c := parentCall(calls, child); c != nil {
		attachToCall(c, ref)
		return steps
	}
	if i := lastAgentStepBefore(steps, child.started); i >= 0 {
		steps[i].others = append(steps[i].others, ObservationResult{SubagentTrajectoryRef: []SubagentTrajectoryRef{ref}})
		return steps
	}
	carrier := carrierStep(child.started, ObservationResult{SubagentTrajectoryRef: []SubagentTrajectoryRef{ref}})
	at := sort.Search(len(steps), func(i int) bool { return child.started.before(steps[i].at) })
	return slices.Insert(steps, at, carrier)
}

// parentCall returns the call that delegated to child: the one its
// run_started names, or, when it names none, the best call running when
// it started. It returns nil when there is no such call, and when child
// was imported as not started by a call.
func parentCall(calls map[string][]*callSpan, child *run) *callSpan {
	callID := child.parentToolCall()
	if callID == "" {
		if child.importedUncalled() {
			return nil
		}
		return openCall(calls, child)
	}
	if spans := calls[callID]; len(spans) > 0 {
		return calledBy(spans, child.started)
	}
	return nil
}

// parentToolCall returns the parent's tool call that r's run_started
// names as the one that started it, or "".
func (r *run) parentToolCall() string {
	if r.info == nil {
		return ""
	}
	return r.info.ParentToolCallID
}

// importedUncalled reports whether ToRecords imported r as a child that
// no tool call started (see uncalledKey).
func (r *run) importedUncalled() bool {
	uncalled, _ := residueOf(r.extras, trajectoryKey)[uncalledKey].(bool)
	return uncalled
}

// openCall returns the best parent, by better, among the calls that were
// running when child started, or nil when none was.
func openCall(calls map[string][]*callSpan, child *run) *callSpan {
	var best *callSpan
	for _, spans := range calls {
		for _, c := range spans {
			if c.openAt(child.started) && (best == nil || better(c, best, child.agentName)) {
				best = c
			}
		}
	}
	return best
}

// openAt reports whether the call had started before at and had not
// ended by then.
func (c *callSpan) openAt(at moment) bool {
	return c.started && c.start.before(at) && (!c.done || at.before(c.end))
}

// lastAgentStepBefore returns the index of the last agent step recorded
// before at, or -1.
func lastAgentStepBefore(steps []*pending, at moment) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].step.Source == SourceAgent && steps[i].at.before(at) {
			return i
		}
	}
	return -1
}

// calledBy picks, among the calls made with the id a child names (spans),
// the one that started it: the latest to start before the child did, or
// the first call when none did.
func calledBy(spans []*callSpan, child moment) *callSpan {
	var best *callSpan
	for _, c := range spans {
		if c.start.before(child) && (best == nil || best.start.before(c.start)) {
			best = c
		}
	}
	if best == nil {
		return spans[0]
	}
	return best
}

// better reports whether call a is a better parent for a child than b.
func better(a, b *callSpan, agent string) bool {
	if (a.name == agent) != (b.name == agent) {
		return a.name == agent
	}
	if a.start.before(b.start) != b.start.before(a.start) {
		return b.start.before(a.start)
	}
	return a.order > b.order
}

func attachToCall(c *callSpan, ref SubagentTrajectoryRef) {
	p := c.step
	res := p.results[c.index]
	if res == nil {
		res = &ObservationResult{SourceCallID: p.step.ToolCalls[c.index].ID}
		p.results[c.index] = res
	}
	res.SubagentTrajectoryRef = append(res.SubagentTrajectoryRef, ref)
}
