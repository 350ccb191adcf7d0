package drive

import (
	"context"
	"slices"
	"time"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/internal/runctx"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// NewContext returns a copy of ctx carrying r, where the components of
// the run (tools, models, nested agents) find it with [FromContext], and
// read it with lookout.FromContext. A nil r marks a run that goes on
// without Lookout: components under it neither use a run nor start one.
func NewContext(ctx context.Context, r *Run) context.Context {
	if r == nil {
		return runctx.NewContext(ctx, nil)
	}
	return runctx.NewContext(ctx, &r.handle)
}

// FromContext returns the run ctx carries. ok reports whether ctx
// carries a run or the mark of a run that goes on without Lookout, for
// which r is nil.
func FromContext(ctx context.Context) (r *Run, ok bool) {
	h, ok := runctx.FromContext(ctx)
	if h == nil {
		return nil, ok
	}
	return h.Run.(*Run), true
}

// StartOptions describe a run being started. The zero value starts a run
// of an unnamed agent.
type StartOptions struct {
	// AgentName names the agent in the recording.
	AgentName string
	// CallID is the tool call of the run on the ctx that starts this
	// one, for an agent used as a tool.
	CallID string
	// Deferred leaves the start of the recording to [Run.Begin], which
	// may load a checkpoint first: a run resumed from a checkpoint learns
	// where its recording stopped only once it reads the checkpoint.
	Deferred bool
	// Resumed says the run resumes from a checkpoint that Begin will
	// load, whose budget may have an earlier deadline than a new one.
	Resumed bool
	// Held leaves the release of the run's deadline to the caller's
	// [Run.Release], once the runtime is done with the run's ctx: [Run.End]
	// does not release it. An adapter that records a query's end while
	// its agents may still be running (Eino goes on after an agent fails)
	// holds the deadline for them.
	Held bool
}

// Start starts a run and returns ctx carrying it. When ctx carries a run
// already, the new run is its child: it shares the parent's session,
// budget and observers and is recorded as a linked sub-run. Otherwise it
// is a root run, on the session ctx carries (see session.NewContext) or a
// new one; when time is enforced, the budget's deadline is set on the
// returned ctx with a *budget.ExceededError as its cause, so that
// errors.Is(err, budget.ErrExceeded) holds for a run the deadline ends.
//
// On a ctx marked to go on without Lookout (NewContext(ctx, nil)), Start
// returns ctx and a nil run. Start returns an error only when the
// budget's time is already spent; the run is then recorded as ended with
// it. Should Lookout's own work panic, the panic goes to Config.OnError and
// ctx is returned marked to go on without Lookout.
func (l *Lookout) Start(ctx context.Context, opts StartOptions) (out context.Context, r *Run, err error) {
	in := ctx
	defer func() {
		if p := recover(); p != nil {
			l.cfg.OnError(in, panicError("starting a run", p))
			if r != nil && r.cancel != nil {
				r.cancel()
			}
			out, r, err = NewContext(in, nil), nil, nil
		}
	}()
	parent, marked := FromContext(ctx)
	if parent != nil {
		// The child begins at its first hook, or at its end, and a
		// parent that has not begun (a supervisor's or a workflow's
		// root, whose first segment this is) with it: the hook may load
		// a checkpoint first.
		c := parent.child(opts.AgentName, opts.CallID)
		return NewContext(ctx, c), c, c.Failure()
	}
	if marked {
		return ctx, nil, nil
	}
	return l.startRoot(ctx, opts)
}

// startRoot starts a root run.
func (l *Lookout) startRoot(ctx context.Context, opts StartOptions) (context.Context, *Run, error) {
	store, ok := session.FromContext(ctx)
	if !ok {
		store = l.newStore()
		ctx = session.NewContext(ctx, store)
	}
	r, err := l.newRun(store)
	if err != nil {
		// The config was checked in New, so this should not happen; if
		// it does, the agent runs without Lookout rather than failing.
		l.cfg.OnError(ctx, err)
		return NewContext(ctx, nil), nil, nil
	}
	r.agentName = opts.AgentName
	r.held = opts.Held
	if r.agentName == "" {
		r.agentName = l.cfg.Agent.Name
	}
	ctx = NewContext(ctx, r)
	if enforced(&l.cfg, budget.Time) {
		if err := r.tracker.Check(budget.Time); err != nil {
			r.Begin(ctx, nil)
			r.recordExceeded(ctx, err)
			r.End(ctx, err)
			return ctx, r, err
		}
		if d, cause, ok := r.deadline(); ok {
			with := withDeadline
			if opts.Resumed {
				// The checkpoint, read at Begin, may hold a budget with
				// an earlier deadline.
				with = withMovableDeadline
			}
			ctx, r.cancel = with(ctx, d, cause)
		}
	}
	if !opts.Deferred {
		r.Begin(ctx, nil)
	}
	return ctx, r, nil
}

// deadline returns when, on real time, the deadline of r's budget passes,
// and the budget error it ends the run with; false when the budget has no
// deadline. The budget's clock may be injected; a ctx runs on real time.
func (r *Run) deadline() (time.Time, *budget.ExceededError, bool) {
	b := r.tracker.Budget()
	if b.Deadline.IsZero() {
		return time.Time{}, nil, false
	}
	left := b.Deadline.Sub(r.cfg.Now())
	allowed := b.Deadline.Sub(b.StartedAt).Milliseconds()
	return time.Now().Add(left), &budget.ExceededError{Resource: budget.Time, Limit: allowed, Used: allowed}, true
}

// Begin starts the recording of a run started with
// StartOptions.Deferred, once: load, when not nil, is called first and
// returns the state of a checkpoint to continue from, or nil for a new
// run. Later calls return at once, and calls made while the first runs
// wait for it. The hooks call Begin themselves; an adapter calls it
// before them when it has a checkpoint to load.
//
// A child's Begin begins its root first, with load, and then starts the
// child's own recording.
func (r *Run) Begin(ctx context.Context, load func() *State) {
	if r.parent != nil {
		r.parent.Begin(ctx, load)
		r.setup.Do(func() {
			defer r.setupDone.Store(true)
			r.startRecording(ctx, r.parent)
		})
		return
	}
	r.setup.Do(func() {
		defer r.setupDone.Store(true)
		if load != nil {
			if st := load(); st != nil {
				r.restore(ctx, st)
			}
		}
		if r.trace.rec == nil {
			r.startRecording(ctx, nil)
		}
	})
}

// Begun reports whether the run's Begin is done.
func (r *Run) Begun() bool { return r.setupDone.Load() }

// Release releases the run's deadline timer without recording an end,
// for a run an interrupt paused, or one started with StartOptions.Held.
// End releases it too, unless the run is held.
func (r *Run) Release() {
	if r.cancel != nil {
		r.cancel()
	}
}

// Session returns the session the run works on.
func (r *Run) Session() *session.Store { return r.store }

// Budget returns the budget the run charges, shared with its parent and
// children and with earlier runs on the same session.
func (r *Run) Budget() budget.Budget { return r.tracker.Budget() }

// Parent returns the run that started this one, or nil for a root.
func (r *Run) Parent() *Run { return r.parent }

// AgentName returns the name of the run's agent, if known.
func (r *Run) AgentName() string { return r.agentName }

// CallID returns the id of the parent's tool call that started the run,
// for an agent used as a tool, or "".
func (r *Run) CallID() string { return r.callID }

// WrappingUp reports whether the run has been given a wrap-up turn.
func (r *Run) WrappingUp() bool { return r.wrapUp.Load() }

// OnError reports err to the run's error handler.
func (r *Run) OnError(ctx context.Context, err error) { r.cfg.OnError(ctx, err) }

// ToolCalls returns the last n tool calls the run's session keeps (all of
// them for n ≤ 0), oldest first; see [lookout.ToolCallsOf].
func (r *Run) ToolCalls(n int) []observer.ToolCallRecord { return lookout.ToolCallsOf(r.store, n) }

// Assessment returns the session's current assessment, the one the model
// is shown while it is fresh; see [lookout.AssessmentOf].
func (r *Run) Assessment() (observer.CurrentAssessment, bool) { return r.current.Latest() }

// Control reports whether the tool named name is a control tool the run
// may call now (see Config.ControlTools and [Run.AddControlTools]): a
// handover tool is not one on the run's last turn after a limit was
// spent.
func (r *Run) Control(name string) bool {
	if r.l.handover.has(name) && r.final.Load() != nil {
		return false
	}
	return r.control(name)
}

// control reports whether the tool named name is a control tool of the
// run.
func (r *Run) control(name string) bool {
	if r.l.control.has(name) {
		return true
	}
	own := r.ownControl.Load()
	return own != nil && slices.Contains(*own, name)
}

// AddControlTools makes the tools named names control tools of the run,
// besides Config.ControlTools: an adapter adds
// the tools an agent returns on, which end its turn.
func (r *Run) AddControlTools(names ...string) {
	if len(names) == 0 {
		return
	}
	for {
		old := r.ownControl.Load()
		var merged []string
		if old != nil {
			merged = slices.Clone(*old)
		}
		for _, n := range names {
			if !slices.Contains(merged, n) {
				merged = append(merged, n)
			}
		}
		if r.ownControl.CompareAndSwap(old, &merged) {
			return
		}
	}
}

// Check returns the error that stops a model call of the run now (see
// BeforeModel), recording it, without preparing a turn: for a model an
// agent calls outside the run's own model calls, whose input gets
// nothing injected.
func (r *Run) Check(ctx context.Context) error {
	err := r.exceededNow(ctx)
	if err != nil {
		r.recordExceeded(ctx, err)
	}
	return err
}
