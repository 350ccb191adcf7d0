package observer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/sessionhook"
	"github.com/lookout-go/lookout/observer/internal/scan"
	"github.com/lookout-go/lookout/session"
)

// PipelineOptions configures a [Pipeline]. A nil *PipelineOptions means the
// defaults.
type PipelineOptions struct {
	// Now is the clock. Nil means the store's clock.
	Now func() time.Time
	// OnError receives observer failures and panics (as [*Error]). Nil
	// logs them with log/slog at warning level.
	OnError func(ctx context.Context, err error)
	// HistorySize is how many past assessments the session keeps in its
	// [PastAssessment] log. Zero means [DefaultHistorySize]; negative
	// keeps none; at most [MaxHistorySize].
	HistorySize int
	// OnEfficacy receives the agent's reaction to each observer's part of
	// an assessment shown to the model, once it is classified; see
	// [Pipeline.Injected]. It runs under the pipeline's lock: keep it
	// quick and do not call back into the pipeline. Nil means none.
	OnEfficacy func(ctx context.Context, e EfficacyEvent)
	// Normalizer decides when a call repeats the last one, for feedback
	// efficacy. Nil means the zero Normalizer.
	Normalizer *Normalizer
	// EfficacyCalls is how many tool calls after an assessment is shown
	// its observers judge whether the agent followed it (see [EfficacyJudge]).
	// Zero means [DefaultEfficacyCalls]; at most [MaxTriggerCalls].
	EfficacyCalls int
}

// DefaultEfficacyCalls is how many tool calls after an assessment is shown
// its observers judge whether the agent followed it, when no other number
// is given.
const DefaultEfficacyCalls = 3

// Pipeline runs the configured observers after each tool call and keeps
// their state in a session store. Create one per session with
// [NewPipeline]. A Pipeline is safe for concurrent use: calls made in
// parallel are recorded and observed one at a time.
type Pipeline struct {
	// members holds what the pipeline keeps for each observer of its
	// configs, in order.
	members []member
	// now is PipelineOptions.Now; nil means the store's clock.
	now         func() time.Time
	onError     func(context.Context, error)
	onEfficacy  func(context.Context, EfficacyEvent)
	start       time.Time
	historySize int
	// efficacyCalls is PipelineOptions.EfficacyCalls or its default.
	efficacyCalls int

	store *session.Store
	calls *session.Log[ToolCallRecord]
	// appendCall appends to calls in place.
	appendCall sessionhook.Appender[ToolCallRecord]
	tally      *session.Value[Tally]
	// tallyCell changes tally without Change's deferred unlock.
	tallyCell sessionhook.Unguarded[Tally]
	states    *session.Value[ObserverStates]
	// statesRead tells when the members' states, read from states, are
	// out of date; under mu.
	statesRead readMark
	// quietUntil and quietErrors are when, by the members' states, a
	// trigger can fire next (see plan); under mu.
	quietUntil, quietErrors int64
	current                 *session.Value[CurrentAssessment]
	history                 *session.Log[PastAssessment]
	efficacy                *session.Value[Efficacy]
	budget                  *session.Value[budget.Budget]
	// efficacyRead tells when isPending, read from efficacy, is out of
	// date; both under mu.
	efficacyRead readMark
	isPending    bool
	// lastRead is the call last read for the observers' catch-up; under
	// mu.
	lastRead lastRead

	mu sync.Mutex
	// fired is scratch space for the observers whose trigger fired on the
	// current call, and ran for those of them that ran; reused under mu so
	// the quiet path does not allocate.
	fired, ran []int
	// events is scratch space for the efficacy events to report; used
	// under mu.
	events []EfficacyEvent
	// left is scratch space for the observers whose reaction to an
	// assessment is still undecided; used under mu.
	left []Rating
	// spare holds room for the next versions of the pending reaction;
	// used under mu.
	spare []pendingWith
	// currents and assessments hold room for the next assessments; used
	// under mu.
	currents    []CurrentAssessment
	assessments []Assessment
	// anyWithdrawer and anyGatekeeper are whether an observer is a
	// Withdrawer, and a Gatekeeper; anyAlways, whether the trigger of one
	// can fire on any call: on every call, or on time.
	anyWithdrawer, anyGatekeeper, anyAlways bool
	// canon canonicalizes arguments for feedback efficacy; used under mu.
	canon *scan.Canon
	// canonOf is the canonical form of canonArgs, when canonKept; used
	// under mu.
	canonOf   []byte
	canonArgs string
	canonKept bool
}

// member is what the pipeline keeps for one observer: its config, name
// and roles, and, used under the pipeline's lock, its trigger state as of
// the current call, its working state for the session when it is
// Incremental, and its Context, reused from call to call (a Context is
// valid only during the call it is passed to). The pipeline keeps them in
// one array.
type member struct {
	config Spec
	name   string
	roles  roles
	state  ObserverState
	inc    incremental
	ctx    Context
}

// validator is implemented by observers that can check their own
// configuration; [NewPipeline] calls it.
type validator interface {
	Validate() error
}

// NewPipeline returns a pipeline that runs configs, in order, against the
// slices of store. It opens the session slices it uses, so that a snapshot
// of the store holds them and a restore finds them: the [ToolCallRecord]
// and [PastAssessment] logs and the [Tally], [ObserverStates],
// [CurrentAssessment], [Efficacy] and [Task] values, and the budget. An observer that has
// a Validate() error method is validated.
func NewPipeline(store *session.Store, configs []Spec, opts *PipelineOptions) (*Pipeline, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: nil session store", ErrInvalidConfig)
	}
	n := len(configs)
	// fired and ran share one array, each with room for every observer.
	indices := make([]int, 2*n)
	p := &Pipeline{
		members:       make([]member, n),
		onError:       logError,
		historySize:   DefaultHistorySize,
		efficacyCalls: DefaultEfficacyCalls,
		store:         store,
		calls:         session.LogOf[ToolCallRecord](store),
		tally:         session.ValueOf[Tally](store),
		states:        session.ValueOf[ObserverStates](store),
		current:       session.ValueOf[CurrentAssessment](store),
		history:       session.LogOf[PastAssessment](store),
		efficacy:      session.ValueOf[Efficacy](store),
		fired:         indices[:0:n],
		ran:           indices[n:n],
	}
	session.ValueOf[Task](store)
	p.budget = session.ValueOf[budget.Budget](store)
	p.appendCall = sessionhook.AppenderOf[ToolCallRecord](p.calls)
	p.tallyCell = sessionhook.UnguardedOf[Tally](p.tally)
	p.statesRead.version = sessionhook.Version(p.states)
	p.efficacyRead.version = sessionhook.Version(p.efficacy)
	p.applyOptions(opts)
	if err := p.checkSizes(); err != nil {
		return nil, err
	}
	if p.historySize > 0 {
		p.history.SetRetention(p.historySize)
	}
	if err := p.name(configs); err != nil {
		return nil, err
	}
	p.start = p.clock()
	return p, nil
}

// clock reads the pipeline's clock: PipelineOptions.Now, or the store's,
// called directly rather than through a method value, which would be
// allocated with each pipeline.
func (p *Pipeline) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return p.store.Now()
}

// checkSizes reports an EfficacyCalls or a HistorySize out of bounds.
func (p *Pipeline) checkSizes() error {
	if p.efficacyCalls < 1 || p.efficacyCalls > MaxTriggerCalls {
		return fmt.Errorf("%w: EfficacyCalls %d is not from 1 to MaxTriggerCalls (%d)", ErrInvalidConfig, p.efficacyCalls, MaxTriggerCalls)
	}
	if p.historySize > MaxHistorySize {
		return fmt.Errorf("%w: HistorySize %d is more than MaxHistorySize (%d)", ErrInvalidConfig, p.historySize, MaxHistorySize)
	}
	return nil
}

// applyOptions sets what opts configures, leaving the defaults for what
// it leaves zero.
func (p *Pipeline) applyOptions(opts *PipelineOptions) {
	if opts == nil {
		p.canon = (*Normalizer)(nil).canon()
		return
	}
	if opts.Now != nil {
		p.now = opts.Now
	}
	if opts.OnError != nil {
		p.onError = opts.OnError
	}
	if opts.HistorySize != 0 {
		p.historySize = opts.HistorySize
	}
	p.onEfficacy = opts.OnEfficacy
	if opts.EfficacyCalls != 0 {
		p.efficacyCalls = opts.EfficacyCalls
	}
	p.canon = opts.Normalizer.canon()
}

// name records the observers' names and reports every problem with the
// configs at once.
func (p *Pipeline) name(configs []Spec) error {
	var errs []error
	for i, c := range configs {
		if c.Observer == nil {
			errs = append(errs, fmt.Errorf("%w: config %d: nil observer", ErrInvalidConfig, i))
			continue
		}
		name := c.Observer.Name()
		// The names of the members after i are still empty.
		errs = checkSpec(errs, i, name, c, p.member(name) >= 0)
		m := &p.members[i]
		m.config, m.name, m.roles = c, name, rolesOf(c.Observer)
		m.ctx = Context{calls: p.calls, history: p.history, budget: p.budget}
		p.anyWithdrawer = p.anyWithdrawer || m.roles.withdrawer != nil
		p.anyAlways = p.anyAlways || c.Trigger.OnEveryCall || c.Trigger.EveryInterval > 0
		p.anyGatekeeper = p.anyGatekeeper || m.roles.gate != nil
	}
	return errors.Join(errs...)
}

// member returns the index of the observer called name, or -1.
func (p *Pipeline) member(name string) int {
	for i := range p.members {
		if p.members[i].name == name {
			return i
		}
	}
	return -1
}

// roles are the optional interfaces an observer implements, each nil when
// it does not: asserted once, rather than on every call.
type roles struct {
	incremental Incremental
	judge       EfficacyJudge
	gate        Gatekeeper
	withdrawer  Withdrawer
}

func rolesOf(o Observer) roles {
	var r roles
	r.incremental, _ = o.(Incremental)
	r.judge, _ = o.(EfficacyJudge)
	r.gate, _ = o.(Gatekeeper)
	r.withdrawer, _ = o.(Withdrawer)
	return r
}

// checkSpec appends to errs the problems of config i, whose observer is
// called name, a name already taken when taken is true.
func checkSpec(errs []error, i int, name string, c Spec, taken bool) []error {
	switch {
	case name == "":
		errs = append(errs, fmt.Errorf("%w: config %d: observer has an empty name", ErrInvalidConfig, i))
	case taken:
		errs = append(errs, fmt.Errorf("%w: config %d: observer name %q is used twice", ErrInvalidConfig, i, name))
	}
	if err := c.Trigger.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%w: observer %q: %v", ErrInvalidConfig, name, err))
	}
	if v, ok := c.Observer.(validator); ok {
		if err := v.Validate(); err != nil {
			errs = append(errs, observerInvalid(name, err))
		}
	}
	return errs
}

// observerInvalid returns the error for observer name, whose Validate
// method returned err: a [*ConfigError] names the observer already.
func observerInvalid(name string, err error) error {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("%w: observer %q: %v", ErrInvalidConfig, name, err)
}

// Store returns the pipeline's session store.
func (p *Pipeline) Store() *session.Store { return p.store }

// AfterToolCall records a completed tool call and runs every observer whose
// trigger fires. rec.CallIndex is assigned here. rec.Timestamp is when the
// call ended: triggers and observers run as of that time, and a zero
// rec.Timestamp is set to the pipeline's clock. It returns the recorded
// call and, when at least one observer ran, the new [CurrentAssessment],
// which has replaced the previous one in the session and been appended to
// the [PastAssessment] history; when none ran, the sections of
// [Withdrawer] observers whose pattern the call broke leave the current
// assessment. When an assessment shown to the model awaits the agent's
// reaction, its observers judge the call (see [EfficacyJudge]) before the
// observers run. It never fails: observer errors and panics are isolated.
func (p *Pipeline) AfterToolCall(ctx context.Context, rec ToolCallRecord) (ToolCallRecord, *CurrentAssessment) {
	p.mu.Lock()
	if rec.Timestamp.IsZero() {
		rec.Timestamp = p.stamp()
	}
	e, pos := p.appendCall.Reserve(rec.Timestamp)
	rec.CallIndex = pos + 1
	*e = rec
	p.appendCall.Release()
	tally := p.count(rec.Success)
	if p.quiet(rec.CallIndex, tally) {
		// Nothing of the user's ran, nor can have panicked.
		p.mu.Unlock()
		return rec, nil
	}
	defer p.mu.Unlock()
	if p.pending() {
		p.guard(ctx, func() { p.react(ctx, &rec, tally) })
	}
	now := rec.Timestamp
	var current *CurrentAssessment
	if p.fire(rec.CallIndex, tally, now) {
		current = p.observe(ctx, rec, tally, now)
	}
	if current == nil {
		p.withdraw(ctx, rec.CallIndex, tally, now)
	}
	return rec, current
}

// stamp reads the clock for a call under p.mu, which a panic in the
// clock, the user's, releases as it goes on.
func (p *Pipeline) stamp() time.Time {
	read := false
	defer func() {
		if !read {
			p.mu.Unlock()
		}
	}()
	now := p.clock()
	read = true
	return now
}

// quiet reports, under p.mu, whether nothing is to look at the call at
// callIndex, which made the tally tally, by what the pipeline last read
// of the session: the call comes before the call and the failure streak
// at which a trigger can fire (see plan), no assessment awaits the
// agent's reaction, and no observer can withdraw its section. Nothing of
// the user's runs to tell. When the observers' states or the Efficacy
// value changed since they were read, it leaves the call to the path
// that reads them.
func (p *Pipeline) quiet(callIndex int64, tally Tally) bool {
	return callIndex < p.quietUntil && tally.ConsecutiveErrors < p.quietErrors && !p.isPending && !p.anyWithdrawer &&
		!p.statesRead.stale() && !p.efficacyRead.stale()
}

// count adds a call that succeeded or not to the session's tally, and
// returns the new tally.
func (p *Pipeline) count(success bool) Tally {
	var tally Tally
	p.tallyCell.Change(func(t *Tally) {
		t.add(success)
		tally = *t
	})
	return tally
}

// add counts a call that succeeded or not.
func (t *Tally) add(success bool) {
	t.Calls++
	if success {
		t.ConsecutiveErrors = 0
		return
	}
	t.Failures++
	t.ConsecutiveErrors++
}

// fire brings the members' states up to date and reports whether the
// trigger of any observer fires after the call at callIndex, which made
// the tally tally, gathering those observers in p.fired. Before the call
// and the failure streak at which the states let a trigger fire (see
// plan), it asks none.
func (p *Pipeline) fire(callIndex int64, tally Tally, now time.Time) bool {
	if p.statesRead.stale() {
		p.readStates()
	}
	if callIndex < p.quietUntil && tally.ConsecutiveErrors < p.quietErrors {
		return false
	}
	fired := p.fired[:0]
	for i := range p.members {
		m := &p.members[i]
		// A trigger on every call fires without its state being looked at.
		if t := &m.config.Trigger; t.OnEveryCall || t.Fires(m.state, callIndex, tally.ConsecutiveErrors, now, p.start) {
			fired = append(fired, i)
		}
	}
	p.fired = fired
	return len(fired) > 0
}

// plan works out from the members' states when a trigger can fire next:
// none counting calls before call index quietUntil, and none counting
// errors with fewer than quietErrors consecutive errors. With a trigger
// on every call or on time, any call can fire one, and quietUntil stays
// 0, before every call. It runs under p.mu whenever the members' states
// change.
func (p *Pipeline) plan() {
	if p.anyAlways {
		return
	}
	until, errs := int64(math.MaxInt64), int64(math.MaxInt64)
	for i := range p.members {
		m := &p.members[i]
		t := &m.config.Trigger
		if t.EveryNCalls > 0 {
			// A sum that overflows is negative, and the trigger is asked.
			until = min(until, m.state.LastAssessmentCallIndex+int64(t.EveryNCalls))
		}
		if t.AfterConsecutiveErrors > 0 {
			errs = min(errs, int64(t.AfterConsecutiveErrors))
		}
	}
	p.quietUntil, p.quietErrors = until, errs
}

// readStates reads the observers' states into the members, with the
// version they were read at. The states change only when observers run,
// or when the session is restored or changed from outside, so most calls
// find the version unchanged and skip this.
func (p *Pipeline) readStates() {
	p.states.Read(func(states ObserverStates, _ bool) {
		p.statesRead.mark()
		for i := range p.members {
			m := &p.members[i]
			m.state = states[m.name]
		}
	})
	p.plan()
}

// readMark remembers the version of a session value (see
// sessionhook.Version) that a reader last read it at, so that what it
// read is kept until the value changes.
type readMark struct {
	version *atomic.Uint64
	read    uint64 // one more than the version read at; zero: never read
}

// stale reports whether the value has changed since it was read, or was
// never read.
func (m *readMark) stale() bool { return m.version.Load()+1 != m.read }

// mark notes that the value was read at its current version. It runs
// under the value's lock, from within Value.Read, or within Value.Change
// by a writer that keeps what it wrote.
func (m *readMark) mark() { m.read = m.version.Load() + 1 }

// current reports, under the value's lock within Value.Change, whether
// the value was read at the version just before the change's own: no
// other change came between the read and this one.
func (m *readMark) current() bool { return m.version.Load() == m.read }

// observe runs the observers in p.fired and stores what they produce.
func (p *Pipeline) observe(ctx context.Context, rec ToolCallRecord, tally Tally, now time.Time) *CurrentAssessment {
	p.ran = p.ran[:0]
	// The assessments are written where the next ones are carved from,
	// with room for every observer that fired.
	if len(p.assessments) < len(p.fired) {
		p.assessments = make([]Assessment, max(len(p.fired), assessmentChunk))
	}
	p.runFrom(ctx, 0, now, rec.CallIndex, tally)
	if len(p.ran) == 0 {
		return nil
	}
	p.recordRuns(rec.CallIndex, now)
	current := &scan.Carve(&p.currents, 1, currentChunk)[0]
	current.Assessments = scan.Carve(&p.assessments, len(p.ran), assessmentChunk)
	current.GeneratedAt, current.CallIndex = now, rec.CallIndex
	p.current.Seed(*current)
	if p.historySize > 0 {
		p.history.AppendFuncAt(now, func(int64) PastAssessment { return PastAssessment{*current} })
	}
	return current
}

// Assessments are kept in arrays of currentChunk CurrentAssessments and
// assessmentChunk Assessments, allocated as they fill.
const (
	currentChunk    = 16
	assessmentChunk = 32
)

// recordRuns records in the observers' states that those in p.ran ran
// after the call at callIndex. Readers of the session value get clones, so
// the stored map is updated in place. When the members' states were read
// at the version this change replaces, nobody else wrote in between: the
// members keep the states written and the new version counts as read, so
// that the next call does not read back what this one wrote.
func (p *Pipeline) recordRuns(callIndex int64, now time.Time) {
	p.states.Change(func(states *ObserverStates, _ bool) {
		// Change advanced the version once, for this change.
		own := p.statesRead.current()
		if *states == nil {
			*states = make(ObserverStates, len(p.members))
		}
		for _, i := range p.ran {
			m := &p.members[i]
			st := m.state
			st.LastAssessmentCallIndex = callIndex
			st.LastAssessmentTime = now
			st.TotalAssessments++
			(*states)[m.name] = st
			if own {
				m.state = st
			}
		}
		if own {
			p.statesRead.mark()
			p.plan()
		}
	})
}

// runFrom runs the observers of p.fired from the k-th on, each after
// bringing its working state up to date, and appends to p.ran those that
// ran, their assessments written one after the other at the front of
// p.assessments. Errors and panics are isolated: a stand-in for the
// observer's assessment says it failed. The observers share one deferred
// recovery, which, after a panic, runs those after the one that panicked.
func (p *Pipeline) runFrom(ctx context.Context, k int, now time.Time, callIndex int64, tally Tally) {
	phase := "should_run"
	defer func() {
		if r := recover(); r != nil {
			i := p.fired[k]
			p.assessments[len(p.ran)] = p.failed(ctx, p.members[i].name, phase, fmt.Errorf("%w: %v", ErrPanicked, r), now)
			p.ran = append(p.ran, i)
			p.runFrom(ctx, k+1, now, callIndex, tally)
		}
	}()
	for ; k < len(p.fired); k++ {
		i := p.fired[k]
		phase = "should_run"
		oc := p.context(i, now, callIndex, tally)
		oc.state = p.catchUp(i, oc)
		o := p.members[i].config.Observer
		if !o.ShouldRun(ctx, oc) {
			continue
		}
		phase = "observe"
		a := &p.assessments[len(p.ran)]
		var err error
		if *a, err = o.Observe(ctx, oc); err != nil {
			*a = p.failed(ctx, p.members[i].name, phase, err, now)
		} else {
			p.complete(ctx, p.members[i].name, a, now)
		}
		p.ran = append(p.ran, i)
	}
}

// complete fills in what the assessment a of the observer called name
// leaves out at now, and brings an unknown severity to the nearest known
// one.
func (p *Pipeline) complete(ctx context.Context, name string, a *Assessment, now time.Time) {
	a.Observer = name
	if a.Timestamp.IsZero() {
		a.Timestamp = now
	}
	if a.Severity < Info || a.Severity > Warning {
		// An unknown severity could not be rendered or snapshotted; the
		// nearest known one keeps the assessment.
		p.onError(ctx, &Error{Observer: name, Phase: "observe", Err: fmt.Errorf("unknown severity %d", int(a.Severity))})
		a.Severity = min(max(a.Severity, Info), Warning)
	}
}

func (p *Pipeline) failed(ctx context.Context, name, phase string, err error, now time.Time) Assessment {
	oe := &Error{Observer: name, Phase: phase, Err: err}
	p.onError(ctx, oe)
	return Assessment{
		Observer: name,
		Summary:  "This observer failed; its view of the run is missing from this assessment.",
		Observations: []Observation{{
			Category: CategoryObserverError,
			// An error may span lines (errors.Join writes one per error):
			// on one line it cannot break the block's structure.
			Description: scan.OneLine(oe.Error()),
		}},
		Severity:  Info,
		Timestamp: now,
	}
}

func logError(ctx context.Context, err error) {
	slog.WarnContext(ctx, "lookout: observer failed", "error", err)
}
