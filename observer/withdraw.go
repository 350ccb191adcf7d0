package observer

import (
	"context"
	"fmt"
	"time"
)

// Withdrawer is an optional interface for an observer whose assessment
// describes a pattern that can end, such as a repeated call. After each
// tool call on which no observer ran, the pipeline asks each Withdrawer
// whose section is in the current assessment whether what it said still
// holds; a section that no longer holds leaves the current assessment,
// and the other sections stay. [Pipeline.UserMessage] withdraws every
// Withdrawer's section at once.
//
// Holds is called under the pipeline's lock, as ShouldRun is, with the
// observer's [Incremental] state brought up to date first.
type Withdrawer interface {
	Observer
	// Holds reports whether the pattern the observer last reported still
	// holds after the latest call.
	Holds(ctx context.Context, oc *Context) bool
}

// withdraw removes from the current assessment the sections of the
// Withdrawers whose pattern the call at callIndex broke. It is called when
// no observer ran on the call.
func (p *Pipeline) withdraw(ctx context.Context, callIndex int64, tally Tally, now time.Time) {
	if !p.anyWithdrawer {
		return
	}
	p.keepSections(func(observer string) bool { return p.stillHolds(ctx, observer, callIndex, tally, now) })
}

// keepSections keeps in the current assessment the sections of the
// observers keep accepts, and replaces the assessment when it lost any.
func (p *Pipeline) keepSections(keep func(observer string) bool) {
	current, ok := p.current.Latest()
	if !ok || len(current.Assessments) == 0 {
		return
	}
	kept := current.Assessments[:0:0]
	for _, a := range current.Assessments {
		if keep(a.Observer) {
			kept = append(kept, a)
		}
	}
	if len(kept) < len(current.Assessments) {
		current.Assessments = kept
		p.current.Seed(current)
	}
}

// stillHolds asks the observer called name, if it is a Withdrawer, whether
// its section still holds. An observer that fails or panics keeps its
// section.
func (p *Pipeline) stillHolds(ctx context.Context, name string, callIndex int64, tally Tally, now time.Time) (holds bool) {
	i := p.member(name)
	if i < 0 {
		return true
	}
	w := p.members[i].roles.withdrawer
	if w == nil {
		return true
	}
	defer func() {
		if r := recover(); r != nil {
			p.onError(ctx, &Error{Observer: name, Phase: "holds", Err: fmt.Errorf("%w: %v", ErrPanicked, r)})
			holds = true
		}
	}()
	oc := p.context(i, now, callIndex, tally)
	oc.state = p.catchUp(i, oc)
	return w.Holds(ctx, oc)
}

// UserMessage tells the pipeline that a new user message arrived: the
// sections of every [Withdrawer] leave the current assessment, as what they
// described was the agent's course before the user spoke. The other
// sections stay.
func (p *Pipeline) UserMessage(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keepSections(func(observer string) bool { return !p.isWithdrawer(observer) })
}

// isWithdrawer reports whether the observer called name is a
// [Withdrawer].
func (p *Pipeline) isWithdrawer(name string) bool {
	i := p.member(name)
	if i < 0 {
		return false
	}
	return p.members[i].roles.withdrawer != nil
}
