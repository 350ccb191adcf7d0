package observer

import (
	"context"
	"fmt"
	"maps"
	"strconv"
)

// Reaction is what the agent did after it was shown an assessment. It is
// a plain value, safe for concurrent use.
type Reaction int

// The reactions. The zero value means none has been classified.
const (
	// ChangedCourse: the agent's next tool call used a different tool, or
	// the same tool with different normalized arguments, than the last
	// call before it was shown the assessment.
	ChangedCourse Reaction = iota + 1
	// WrappedUp: the model answered without calling a tool.
	WrappedUp
	// CarriedOn: the agent repeated the last call before it was shown the
	// assessment: same tool, same normalized arguments.
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
// model calls it is injected into, and its reaction is the first one
// after it was first shown. It is a plain value, safe for concurrent use;
// the zero value counts nothing.
type EfficacyCounts struct {
	Shown         int64 `json:"shown"`
	ChangedCourse int64 `json:"changed_course"`
	WrappedUp     int64 `json:"wrapped_up"`
	CarriedOn     int64 `json:"carried_on"`
}

// Followed returns how many shown assessments the agent acted on: it
// changed course or wrapped up.
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
	AssessmentCallIndex int64    `json:"assessment_call_index"`
	Observers           []Rating `json:"observers"`
	// LastTool and LastArguments describe the last call before the
	// assessment was shown, the arguments in canonical form.
	LastTool      string `json:"last_tool,omitempty"`
	LastArguments string `json:"last_arguments,omitempty"`
	// Awaiting is how many tool calls of the model's response are still
	// to complete; 0 means the next call settles the reaction.
	Awaiting int `json:"awaiting,omitempty"`
	// Seen counts the calls of the response completed so far.
	Seen int `json:"seen,omitempty"`
	// Repeated is set when one of them repeated the last call.
	Repeated bool `json:"repeated,omitempty"`
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
	p.mu.Lock()
	defer p.mu.Unlock()
	p.guard(ctx, func() { p.injected(ctx, current) })
}

// ModelResponded tells the pipeline that the model answered with
// toolCalls tool calls. With none, the agent's reaction to a pending
// assessment is [WrappedUp]. With some, the reaction is settled when that
// many calls have completed: [CarriedOn] if any of them repeated the last
// call before the assessment was shown, [ChangedCourse] otherwise. An
// adapter that does not call it gets the reaction from the first call
// alone. A negative toolCalls is ignored.
func (p *Pipeline) ModelResponded(ctx context.Context, toolCalls int) {
	if toolCalls < 0 {
		return
	}
	if !p.pending() {
		// Nothing awaits a reaction: what the locked path would do,
		// observed at once.
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.guard(ctx, func() {
		events := p.events[:0]
		p.efficacy.Change(func(eff *Efficacy, _ bool) { events = p.respond(eff, toolCalls, events) })
		p.report(ctx, events)
	})
}

// respond applies a model response with toolCalls calls to the pending
// assessment of eff, the stored value under its lock, and appends the
// events to report to events.
func (p *Pipeline) respond(eff *Efficacy, toolCalls int, events []EfficacyEvent) []EfficacyEvent {
	pend := eff.Pending
	switch {
	case pend == nil:
	case pend.Seen > 0:
		// A previous response's calls did not all complete; what was
		// seen of them is the reaction.
		events = p.settle(eff, pend.reaction(), 0, events)
	case toolCalls == 0:
		events = p.settle(eff, WrappedUp, 0, events)
	case toolCalls == 1 && pend.Awaiting <= 1:
		// The next call settles the reaction, as it does already: the
		// stored value need not change.
	default:
		next := *pend
		next.Awaiting = toolCalls
		eff.Pending = &next
	}
	return events
}

// pending reports whether a shown assessment awaits the agent's reaction.
func (p *Pipeline) pending() bool {
	var pending bool
	p.efficacy.Read(func(eff Efficacy, _ bool) { pending = eff.Pending != nil })
	return pending
}

// Efficacy returns the feedback efficacy counted so far.
func (p *Pipeline) Efficacy() Efficacy {
	eff, _ := p.efficacy.Latest()
	return eff
}

func (pend *PendingReaction) reaction() Reaction { return reactionOf(pend.Repeated) }

// reactionOf is the reaction of an agent that repeated the call it made
// before the assessment, or did not.
func reactionOf(repeated bool) Reaction {
	if repeated {
		return CarriedOn
	}
	return ChangedCourse
}

// injected counts current as shown and makes it the pending assessment.
// It runs under p.mu.
func (p *Pipeline) injected(ctx context.Context, current CurrentAssessment) {
	if len(current.Assessments) == 0 {
		return
	}
	events := p.events[:0]
	p.efficacy.Change(func(eff *Efficacy, _ bool) { events = p.show(eff, &current, events) })
	p.report(ctx, events)
}

// show counts current as shown in eff, the stored value under its lock,
// unless it was already, and makes it the pending assessment; it appends
// the events to report to events.
func (p *Pipeline) show(eff *Efficacy, current *CurrentAssessment, events []EfficacyEvent) []EfficacyEvent {
	if current.CallIndex <= eff.LastShown {
		return events
	}
	// Built before eff changes: a user's normalizer rule may panic.
	pend := p.pendingFor(current)
	if eff.Pending != nil && eff.Pending.Seen > 0 {
		events = p.settle(eff, eff.Pending.reaction(), 0, events)
	}
	countShown(eff, current.Assessments, pend)
	eff.LastShown, eff.Pending = current.CallIndex, pend
	return events
}

// pendingFor returns the reaction current awaits, with the last call made
// before it was shown.
func (p *Pipeline) pendingFor(current *CurrentAssessment) *PendingReaction {
	pend := newPending(current.CallIndex, len(current.Assessments))
	if last, ok := p.calls.Latest(); ok {
		pend.LastTool = last.ToolName
		pend.LastArguments = sameString(p.canon.Canonical(last.Arguments), last.Arguments)
	}
	return pend
}

// countShown counts the assessments as shown in eff and rates their
// observers in pend.
func countShown(eff *Efficacy, assessments []Assessment, pend *PendingReaction) {
	if eff.ByObserver == nil {
		eff.ByObserver = make(map[string]EfficacyCounts, len(assessments))
	}
	for _, a := range assessments {
		c := eff.ByObserver[a.Observer]
		c.Shown++
		eff.ByObserver[a.Observer] = c
		pend.Observers = append(pend.Observers, Rating{Observer: a.Observer, Severity: a.Severity})
	}
}

// pendingWith is a PendingReaction allocated together with room for the
// ratings of its first observers: most assessments come from one or two.
type pendingWith struct {
	pend  PendingReaction
	first [2]Rating
}

// newPending returns a PendingReaction for the assessment after call
// index, with room for n ratings.
func newPending(index int64, n int) *PendingReaction {
	if n > 2 {
		return &PendingReaction{AssessmentCallIndex: index, Observers: make([]Rating, 0, n)}
	}
	p := new(pendingWith)
	p.pend = PendingReaction{AssessmentCallIndex: index, Observers: p.first[:0:n]}
	return &p.pend
}

// react classifies the agent's reaction to a pending assessment from a
// completed call. It runs under p.mu.
func (p *Pipeline) react(ctx context.Context, rec ToolCallRecord) {
	events := p.events[:0]
	p.efficacy.Change(func(eff *Efficacy, _ bool) {
		pend := eff.Pending
		if pend == nil {
			return
		}
		repeated := pend.Repeated ||
			rec.ToolName == pend.LastTool && string(p.canon.Canonical(rec.Arguments)) == pend.LastArguments
		if pend.Awaiting > 1 {
			next := *pend
			next.Seen++
			next.Repeated = repeated
			next.Awaiting--
			eff.Pending = &next
			return
		}
		events = p.settle(eff, reactionOf(repeated), rec.CallIndex, events)
	})
	p.report(ctx, events)
}

// settle records reaction r to the pending assessment of eff, the stored
// value under its lock, and appends the events to report to events. It
// runs under p.mu.
func (p *Pipeline) settle(eff *Efficacy, r Reaction, callIndex int64, events []EfficacyEvent) []EfficacyEvent {
	pend := eff.Pending
	if eff.ByObserver == nil {
		eff.ByObserver = make(map[string]EfficacyCounts, len(pend.Observers))
	}
	for _, o := range pend.Observers {
		c := eff.ByObserver[o.Observer]
		c.add(r)
		eff.ByObserver[o.Observer] = c
	}
	eff.Pending = nil
	if p.onEfficacy == nil {
		return events
	}
	for _, o := range pend.Observers {
		events = append(events, EfficacyEvent{
			Observer:            o.Observer,
			Severity:            o.Severity,
			AssessmentCallIndex: pend.AssessmentCallIndex,
			Reaction:            r,
			CallIndex:           callIndex,
			Counts:              eff.ByObserver[o.Observer],
		})
	}
	return events
}

// report hands events to OnEfficacy, outside the efficacy value's lock,
// and keeps their array for the next time. It runs under p.mu.
func (p *Pipeline) report(ctx context.Context, events []EfficacyEvent) {
	p.events = events[:0]
	for _, e := range events {
		p.onEfficacy(ctx, e)
	}
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
