package observer

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// Reaction is what the agent did after it was shown an assessment. It is
// a plain value, safe for concurrent use.
type Reaction int

// The reactions. The zero value means none has been classified.
const (
	// ChangedCourse: the agent did what the assessment asked, as its
	// observer judges (see [EfficacyJudge]): the repeated pattern stopped, the
	// failing call was not retried unchanged, the work came back into
	// scope. For an observer that is no EfficacyJudge: the agent's next tool call
	// was not the last call before it was shown the assessment again.
	ChangedCourse Reaction = iota + 1
	// WrappedUp: the model answered without calling a tool.
	WrappedUp
	// CarriedOn: the agent did not do what the assessment asked within
	// the calls judged.
	CarriedOn
)

// reactionNames are the reactions' names, by reaction.
var reactionNames = [...]string{0: "none", ChangedCourse: "changed_course", WrappedUp: "wrapped_up", CarriedOn: "carried_on"}

// String returns "changed_course", "wrapped_up", "carried_on", or "none"
// for the zero value.
func (r Reaction) String() string {
	if r < 0 || r > CarriedOn {
		return "reaction(" + strconv.Itoa(int(r)) + ")"
	}
	return reactionNames[r]
}

// MarshalText encodes the reaction as its name.
func (r Reaction) MarshalText() ([]byte, error) {
	if r < 0 || r > CarriedOn {
		return nil, fmt.Errorf("observer: unknown reaction %d", int(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText decodes a reaction name.
func (r *Reaction) UnmarshalText(b []byte) error {
	for v, name := range reactionNames {
		if name == string(b) {
			*r = Reaction(v)
			return nil
		}
	}
	return fmt.Errorf("observer: unknown reaction %q", b)
}

// EfficacyCounts counts one observer's assessments shown to the model and
// what the agent did next. An assessment is counted once, however many
// model calls it is injected into, and judged over the calls after it was
// first shown (see [EfficacyJudge]); one that suggests nothing is not counted. It
// is a plain value, safe for concurrent use; the zero value counts
// nothing.
type EfficacyCounts struct {
	Shown         int64 `json:"shown"`
	ChangedCourse int64 `json:"changed_course"`
	WrappedUp     int64 `json:"wrapped_up"`
	CarriedOn     int64 `json:"carried_on"`
}

// Followed returns how many shown assessments the agent followed: it did
// what the assessment asked, or wrapped up.
func (c EfficacyCounts) Followed() int64 { return c.ChangedCourse + c.WrappedUp }

// Unclassified returns how many shown assessments have no reaction yet,
// or never got one (the run ended first).
func (c EfficacyCounts) Unclassified() int64 {
	return c.Shown - c.ChangedCourse - c.WrappedUp - c.CarriedOn
}

func (c *EfficacyCounts) add(r Reaction) {
	switch r {
	case ChangedCourse:
		c.ChangedCourse++
	case WrappedUp:
		c.WrappedUp++
	case CarriedOn:
		c.CarriedOn++
	}
}

// Efficacy is the session value of feedback efficacy: per observer, how
// many of its assessments were shown to the model and how the agent
// reacted. The pipeline keeps it; it survives snapshots. It is a
// [session.Cloner]: a value read from the session is a clone, which the
// pipeline's later changes do not reach. The zero value means nothing has
// been shown yet.
type Efficacy struct {
	ByObserver map[string]EfficacyCounts `json:"by_observer,omitempty"`
	// LastShown is the call index of the latest assessment counted as
	// shown, so that injecting it again is not counted twice.
	LastShown int64 `json:"last_shown,omitempty"`
	// Pending is the shown assessment whose reaction is not known yet.
	Pending *PendingReaction `json:"pending,omitempty"`
}

// Clone returns a copy of e that shares no map with it. The Pending
// reaction is shared: once stored it is replaced, never changed.
func (e Efficacy) Clone() Efficacy {
	e.ByObserver = maps.Clone(e.ByObserver)
	return e
}

// PendingReaction is an assessment shown to the model, waiting for the
// agent's reaction. It is part of [Efficacy], and read-only once stored.
type PendingReaction struct {
	// AssessmentCallIndex identifies the assessment: the call after which
	// it was produced.
	AssessmentCallIndex int64 `json:"assessment_call_index"`
	// Observers are the observers whose reaction is still to be judged.
	Observers []Rating `json:"observers"`
	// LastTool and LastArguments describe the last call before the
	// assessment was shown, the arguments in canonical form.
	LastTool      string `json:"last_tool,omitempty"`
	LastArguments string `json:"last_arguments,omitempty"`
	// Calls counts the tool calls made since it was shown.
	Calls int `json:"calls,omitempty"`
	// Repeated is set when the first of them repeated the last call
	// unchanged.
	Repeated bool `json:"repeated,omitempty"`
	// Budget is the session's budget when it was shown.
	Budget budget.Budget `json:"budget,omitzero"`
}

// Shown is what a [EfficacyJudge] is told of its assessment shown to the model.
// It is a plain value.
type Shown struct {
	// CallIndex is the call after which the assessment was produced.
	CallIndex int64
	// Severity is the assessment's severity.
	Severity Severity
	// LastTool is the tool of the last call before it was shown.
	LastTool string
	// Calls counts the tool calls made since it was shown, the latest
	// included.
	Calls int
	// Repeated is set when the first of them repeated the last call
	// before it was shown, with the same normalized arguments: the agent
	// tried again before doing anything else.
	Repeated bool
	// Budget is the session's budget when it was shown.
	Budget budget.Budget
}

// EfficacyJudge is an optional interface for an observer that says what following
// its assessment means. After each tool call made since the observer's
// assessment was shown to the model, up to [PipelineOptions].EfficacyCalls
// of them, the pipeline asks the EfficacyJudge whether the agent did what the
// assessment asked. final is set on the last call judged, or when another
// assessment is shown first: an undecided verdict then counts as not
// followed. A model that answers without calling a tool wrapped up, which
// counts as followed for every observer.
//
// EfficacyJudge is called under the pipeline's lock, as ShouldRun is, with the
// observer's [Incremental] state up to date.
type EfficacyJudge interface {
	Observer
	Judge(ctx context.Context, oc *Context, shown Shown, final bool) (followed, decided bool)
}

// Rating names an observer and the severity of its assessment. It is a
// plain value, safe for concurrent use.
type Rating struct {
	Observer string   `json:"observer"`
	Severity Severity `json:"severity"`
}

// EfficacyEvent reports the agent's reaction to one observer's part of an
// assessment. The pipeline hands one to [PipelineOptions].OnEfficacy per
// observer whenever a reaction is classified; an adapter writes it to the
// trajectory so a run's analytics can say how often each observer's
// feedback was followed. It is a plain value, safe for concurrent use, and
// marshals to JSON with reactions and severities as names.
type EfficacyEvent struct {
	Observer string   `json:"observer"`
	Severity Severity `json:"severity"`
	// AssessmentCallIndex identifies the assessment: the call after which
	// it was produced.
	AssessmentCallIndex int64    `json:"assessment_call_index"`
	Reaction            Reaction `json:"reaction"`
	// CallIndex is the tool call that settled the reaction; 0 when the
	// agent wrapped up.
	CallIndex int64 `json:"call_index,omitempty"`
	// Counts are the observer's counts including this reaction.
	Counts EfficacyCounts `json:"counts"`
}

// Inject returns the block to put into the model input before the next
// model call, as [BuildContext] does, and records that the model was shown
// it, for feedback efficacy. It returns "" when there is no assessment or
// it is stale. A non-positive maxAgeCalls means [DefaultMaxAgeCalls].
func (p *Pipeline) Inject(ctx context.Context, maxAgeCalls int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	current, ok := p.current.Latest()
	if !ok || current.IsStale(p.calls.Total(), maxAgeCalls) {
		return ""
	}
	block := current.Render()
	if block != "" {
		p.guard(ctx, func() { p.injected(ctx, current) })
	}
	return block
}

// Injected records that current was put into the model input. Call it
// each time the block is injected; an assessment already counted is not
// counted again. The agent's reaction is classified on the next tool call
// ([Pipeline.AfterToolCall]) or model response ([Pipeline.ModelResponded]).
func (p *Pipeline) Injected(ctx context.Context, current CurrentAssessment) {
	if !suggests(current.Assessments) {
		// Nothing to count: checked before the lock is taken.
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.guard(ctx, func() { p.injected(ctx, current) })
}

// ModelResponded tells the pipeline that the model answered with
// toolCalls tool calls. With none, the agent's reaction to a pending
// assessment is [WrappedUp]. With some, the calls are judged as they
// complete. A negative toolCalls is ignored.
func (p *Pipeline) ModelResponded(ctx context.Context, toolCalls int) {
	if toolCalls == 0 {
		p.wrappedUp(ctx)
	}
}

// wrappedUp is ModelResponded for a model that answered without calling
// a tool. ModelResponded, which is left small enough to be inlined, costs
// its caller next to nothing for one that called tools.
func (p *Pipeline) wrappedUp(ctx context.Context) {
	if !p.pendingNow() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.guard(ctx, func() {
		events := p.events[:0]
		p.efficacy.Change(func(eff *Efficacy, _ bool) {
			if pend := eff.Pending; pend != nil {
				events = p.settleAll(eff, pend, WrappedUp, 0, events)
			}
			p.keepPending(eff)
		})
		p.report(ctx, events)
	})
}

// pending reports whether a shown assessment awaits the agent's reaction.
// It runs under p.mu, and reads the session's Efficacy only when it has
// changed since it last did.
func (p *Pipeline) pending() bool {
	if p.efficacyRead.stale() {
		p.efficacy.Read(func(eff Efficacy, _ bool) {
			p.efficacyRead.mark()
			p.isPending = eff.Pending != nil
		})
	}
	return p.isPending
}

// keepPending ends a change of the pipeline's own to eff, the stored
// value under its lock: it notes whether an assessment is pending, as
// read at the version the change made, so that the next call does not
// read the value back. It runs under p.mu.
func (p *Pipeline) keepPending(eff *Efficacy) {
	p.isPending = eff.Pending != nil
	p.efficacyRead.mark()
}

// pendingNow is pending for a caller that does not hold p.mu.
func (p *Pipeline) pendingNow() bool {
	var pending bool
	p.efficacy.Read(func(eff Efficacy, _ bool) { pending = eff.Pending != nil })
	return pending
}

// Efficacy returns the feedback efficacy counted so far.
func (p *Pipeline) Efficacy() Efficacy {
	eff, _ := p.efficacy.Latest()
	return eff
}

// reactionOf is the reaction of an agent that followed an assessment, or
// did not.
func reactionOf(followed bool) Reaction {
	if followed {
		return ChangedCourse
	}
	return CarriedOn
}

// injected counts current as shown and makes it the pending assessment.
// It runs under p.mu.
func (p *Pipeline) injected(ctx context.Context, current CurrentAssessment) {
	if !suggests(current.Assessments) {
		return
	}
	events := p.events[:0]
	p.efficacy.Change(func(eff *Efficacy, _ bool) {
		events = p.show(ctx, eff, &current, events)
		p.keepPending(eff)
	})
	p.report(ctx, events)
}

// suggests reports whether any of the assessments suggests something:
// one that suggests nothing asks nothing to follow, and is not counted as
// shown.
func suggests(assessments []Assessment) bool {
	for i := range assessments {
		if len(assessments[i].Suggestions) > 0 {
			return true
		}
	}
	return false
}

// show counts current as shown in eff, the stored value under its lock,
// unless it was already, and makes it the pending assessment; it appends
// the events to report to events. A pending assessment it replaces is
// judged on the calls made since it was shown.
func (p *Pipeline) show(ctx context.Context, eff *Efficacy, current *CurrentAssessment, events []EfficacyEvent) []EfficacyEvent {
	if current.CallIndex <= eff.LastShown {
		return events
	}
	// Built before eff changes: a user's normalizer rule may panic.
	pend := p.pendingFor(current)
	if old := eff.Pending; old != nil && old.Calls > 0 {
		events = p.judgeAll(ctx, eff, old, 0, true, &instant{}, events)
	}
	countShown(eff, current.Assessments, pend)
	eff.LastShown, eff.Pending = current.CallIndex, pend
	return events
}

// pendingFor returns the reaction current awaits, with the last call made
// before it was shown.
func (p *Pipeline) pendingFor(current *CurrentAssessment) *PendingReaction {
	pend := p.newPending(current.CallIndex, len(current.Assessments))
	// The last call, as Log.Latest returns it, read without a copy, most
	// often already read for the observers' catch-up.
	epoch := p.calls.Epoch()
	if last := p.callAt(p.calls.Total()-1, epoch); last != nil {
		pend.LastTool = last.ToolName
		pend.LastArguments = sameString(p.canonical(last.Arguments), last.Arguments)
	}
	pend.Budget, _ = p.budget.Latest()
	return pend
}

// countShown counts the assessments as shown in eff and rates their
// observers in pend.
func countShown(eff *Efficacy, assessments []Assessment, pend *PendingReaction) {
	if eff.ByObserver == nil {
		eff.ByObserver = make(map[string]EfficacyCounts, len(assessments))
	}
	for _, a := range assessments {
		if len(a.Suggestions) == 0 {
			// An assessment that suggests nothing asks nothing to follow.
			continue
		}
		c := eff.ByObserver[a.Observer]
		c.Shown++
		eff.ByObserver[a.Observer] = c
		pend.Observers = append(pend.Observers, Rating{Observer: a.Observer, Severity: a.Severity})
	}
}

// pendingWith is a PendingReaction with room for the ratings of its first
// observers: most assessments come from one or two.
type pendingWith struct {
	pend  PendingReaction
	first [2]Rating
}

// pendingChunk is how many versions of pending reactions are allocated
// at a time: the one shown, and one stored for each call judged while an
// observer is undecided.
const pendingChunk = 8

// newPending returns a PendingReaction for the assessment after call
// index, with room for n ratings.
func (p *Pipeline) newPending(index int64, n int) *PendingReaction {
	if n > 2 {
		return &PendingReaction{AssessmentCallIndex: index, Observers: make([]Rating, 0, n)}
	}
	s := p.version()
	s.pend = PendingReaction{AssessmentCallIndex: index, Observers: s.first[:0:n]}
	return &s.pend
}

// version returns room for a version of a pending reaction never used
// before. Each is written once, before it is stored, so readers of
// earlier versions never see it change.
func (p *Pipeline) version() *pendingWith { return &scan.Carve(&p.spare, 1, pendingChunk)[0] }

// react judges the agent's reaction to a pending assessment after a
// completed call, which made the tally tally. It runs under p.mu.
func (p *Pipeline) react(ctx context.Context, rec *ToolCallRecord, tally Tally) {
	events := p.events[:0]
	p.efficacy.Change(func(eff *Efficacy, _ bool) {
		if pend := eff.Pending; pend != nil {
			next := *pend
			next.Calls++
			if next.Calls == 1 {
				next.Repeated = rec.ToolName == pend.LastTool && string(p.canonical(rec.Arguments)) == pend.LastArguments
			}
			// The tally as the call left it, which count just read.
			at := instant{tally: tally, tallied: true}
			events = p.judgeAll(ctx, eff, &next, rec.CallIndex, next.Calls >= p.efficacyCalls, &at, events)
		}
		p.keepPending(eff)
	})
	p.report(ctx, events)
}

// judgeAll asks each observer of pend whether the agent followed its
// assessment, after the call at callIndex (0 when no call was made), at
// the instant at, and settles those decided; pend becomes eff's pending
// assessment, or none when every observer is settled.
func (p *Pipeline) judgeAll(ctx context.Context, eff *Efficacy, pend *PendingReaction, callIndex int64, final bool, at *instant, events []EfficacyEvent) []EfficacyEvent {
	left := p.left[:0]
	for _, o := range pend.Observers {
		followed, decided := p.judge(ctx, o, pend, final, at)
		if decided || final {
			events = p.settleOne(eff, pend, o, reactionOf(followed && decided), callIndex, events)
		} else {
			left = append(left, o)
		}
	}
	p.left = left[:0]
	eff.Pending = nil
	if len(left) > 0 {
		eff.Pending = p.storedWith(pend, left)
	}
	return events
}

// storedWith returns a copy of pend to store, awaiting the reactions of
// the observers in left, a part of pend's. When left holds them all, the
// copy shares pend's ratings, which nothing changes once stored;
// otherwise it has its own.
func (p *Pipeline) storedWith(pend *PendingReaction, left []Rating) *PendingReaction {
	if len(left) == len(pend.Observers) {
		s := p.version()
		s.pend = *pend
		return &s.pend
	}
	stored := p.newPending(pend.AssessmentCallIndex, len(left))
	observers := append(stored.Observers, left...)
	*stored = *pend
	stored.Observers = observers
	return stored
}

// instant is the moment the observers of a pending assessment are judged
// at: the clock, the latest call and the tally, read for the first
// observer that judges and shared by the others. The tally is given when
// tallied.
type instant struct {
	now       time.Time
	callIndex int64
	tally     Tally
	read      bool
	tallied   bool
}

// at returns the instant, reading it on first use.
func (p *Pipeline) at(t *instant) *instant {
	if !t.read {
		if !t.tallied {
			p.tally.Read(func(tally Tally, _ bool) { t.tally = tally })
		}
		t.now, t.callIndex, t.read = p.clock(), p.calls.Total(), true
	}
	return t
}

// judge asks observer o whether the agent followed its part of pend, at
// the instant t. An observer that is no EfficacyJudge is followed when the
// call made since was not the last call before it was shown; a Judge that
// panics is not.
func (p *Pipeline) judge(ctx context.Context, o Rating, pend *PendingReaction, final bool, t *instant) (followed, decided bool) {
	i := p.member(o.Observer)
	var j EfficacyJudge
	if i >= 0 {
		j = p.members[i].roles.judge
	}
	if j == nil {
		return pend.Calls > 0 && !pend.Repeated, pend.Calls > 0
	}
	defer func() {
		if r := recover(); r != nil {
			p.onError(ctx, &Error{Observer: o.Observer, Phase: "judge", Err: fmt.Errorf("%w: %v", ErrPanicked, r)})
			followed, decided = false, true
		}
	}()
	t = p.at(t)
	oc := p.context(i, t.now, t.callIndex, t.tally)
	oc.state = p.catchUp(i, oc)
	shown := Shown{CallIndex: pend.AssessmentCallIndex, Severity: o.Severity, LastTool: pend.LastTool,
		Calls: pend.Calls, Repeated: pend.Repeated, Budget: pend.Budget}
	return j.Judge(ctx, oc, shown, final)
}

// settleAll records reaction r for every observer of pend, the pending
// assessment of eff, and clears it.
func (p *Pipeline) settleAll(eff *Efficacy, pend *PendingReaction, r Reaction, callIndex int64, events []EfficacyEvent) []EfficacyEvent {
	for _, o := range pend.Observers {
		events = p.settleOne(eff, pend, o, r, callIndex, events)
	}
	eff.Pending = nil
	return events
}

// settleOne records reaction r of observer o to pend in eff, the stored
// value under its lock, and appends the event to report to events. It
// runs under p.mu.
func (p *Pipeline) settleOne(eff *Efficacy, pend *PendingReaction, o Rating, r Reaction, callIndex int64, events []EfficacyEvent) []EfficacyEvent {
	if eff.ByObserver == nil {
		eff.ByObserver = make(map[string]EfficacyCounts, len(pend.Observers))
	}
	c := eff.ByObserver[o.Observer]
	c.add(r)
	eff.ByObserver[o.Observer] = c
	if p.onEfficacy == nil {
		return events
	}
	return append(events, EfficacyEvent{
		Observer:            o.Observer,
		Severity:            o.Severity,
		AssessmentCallIndex: pend.AssessmentCallIndex,
		Reaction:            r,
		CallIndex:           callIndex,
		Counts:              c,
	})
}

// report hands events to OnEfficacy, outside the efficacy value's lock,
// and keeps their array for the next time. It runs under p.mu.
func (p *Pipeline) report(ctx context.Context, events []EfficacyEvent) {
	p.events = events[:0]
	for _, e := range events {
		p.onEfficacy(ctx, e)
	}
}

// canonical returns the canonical form of a call's arguments, args. A
// call's arguments are canonicalized when the call is judged and again
// when the assessment made after it is shown, so the latest form is kept
// for the next time; it runs under p.mu.
func (p *Pipeline) canonical(args string) []byte {
	if !p.canonKept || args != p.canonArgs {
		p.canonKept = false
		p.canonOf = append(p.canonOf[:0], p.canon.Canonical(args)...)
		p.canonArgs, p.canonKept = args, true
	}
	return p.canonOf
}

// sameString returns b as a string: s itself when it holds the same bytes,
// as the canonical form of arguments often does, and otherwise a copy.
func sameString(b []byte, s string) string {
	if string(b) == s {
		return s
	}
	return string(b)
}

// guard runs fn, turning a panic (from a user's normalizer rule or
// efficacy hook) into an error for the error handler: efficacy tracking
// never breaks the run.
func (p *Pipeline) guard(ctx context.Context, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			p.onError(ctx, fmt.Errorf("observer: efficacy tracking: %w: %v", ErrPanicked, r))
		}
	}()
	fn()
}
