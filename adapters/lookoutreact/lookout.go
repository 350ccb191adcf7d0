package lookoutreact

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/internal/engine"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// Lookout gives react agents and compose graphs observers, injected
// assessments and an enforced budget. Its hooks go in three places: the
// model ([Lookout.WrapModel]), the tools node ([Lookout.ToolMiddleware])
// and the model input ([Lookout.MessageModifier] or [Lookout.Inject]); the
// run option ([Lookout.AgentOption] or [Lookout.ComposeOption]) starts
// each run's state.
//
// A Lookout holds only configuration: each run's session, budget tracker
// and observer pipeline live on the run's ctx, so one Lookout serves any
// number of concurrent runs and is safe for concurrent use. The zero
// Lookout works and behaves as New(nil): a Resource observer every 10
// calls or after 3 consecutive errors, and no limits.
type Lookout struct {
	once    sync.Once
	cfg     engine.Config
	handler *handler
	// warned is set once a hook has reported ErrNoRun, so a misconfigured
	// agent logs once rather than on every call.
	warned atomic.Bool
}

// New returns a Lookout for cfg. A nil cfg means the defaults. The
// observers are checked now, so a bad trigger fails here rather than at
// the first run.
func New(cfg *Config) (*Lookout, error) {
	n, err := cfg.Normalized()
	if err != nil {
		return nil, err
	}
	if _, err := engine.NewRun(&n, session.New(nil)); err != nil {
		return nil, err
	}
	l := &Lookout{}
	l.once.Do(func() { l.setup(n) })
	return l, nil
}

// config returns the normalized configuration, filling in the defaults for
// a zero Lookout.
func (l *Lookout) config() *engine.Config {
	l.once.Do(func() {
		// The defaults always normalize.
		n, _ := (*engine.Config)(nil).Normalized()
		l.setup(n)
	})
	return &l.cfg
}

func (l *Lookout) setup(n engine.Config) {
	l.cfg = n
	l.handler = &handler{l: l}
}

// Handler returns the callbacks handler that starts each run's state when
// the outermost graph starts. It must see the whole graph: register it
// with compose.WithCallbacks, not on designated nodes. It charges nothing;
// token usage is charged by [Lookout.WrapModel].
func (l *Lookout) Handler() callbacks.Handler {
	l.config()
	return l.handler
}

// AgentOption registers [Lookout.Handler] on one react agent run. Pass it
// to every Generate and Stream call:
//
//	out, err := agent.Generate(ctx, msgs, l.AgentOption())
func (l *Lookout) AgentOption() agent.AgentOption {
	return agent.WithComposeOptions(l.ComposeOption())
}

// ComposeOption registers [Lookout.Handler] on one run of a compiled
// compose graph, chain or workflow. Pass it to every Invoke, Stream,
// Collect and Transform call.
func (l *Lookout) ComposeOption() compose.Option {
	return compose.WithCallbacks(l.Handler())
}

// Session returns the session of the run that ctx belongs to, as seen from
// inside tools, models and other graph nodes.
func Session(ctx context.Context) (*session.Store, bool) {
	if r := engine.FromContext(ctx); r != nil {
		return r.Store, true
	}
	return session.FromContext(ctx)
}

// run returns the run on ctx. A hook that finds none lets its call through
// and reports ErrNoRun, once per Lookout.
func (l *Lookout) run(ctx context.Context, hook string) *engine.Run {
	if r := engine.FromContext(ctx); r != nil {
		return r
	}
	if !l.warned.Swap(true) {
		l.config().OnError(ctx, &NoRunError{Hook: hook})
	}
	return nil
}

// start builds the state of a run that has none yet: a session (the one on
// ctx, see session.NewContext, or a new one), a budget tracker and an
// observer pipeline. When time is enforced and the deadline is ahead, the
// deadline is set on the run's ctx with a *budget.ExceededError as its
// cause.
func (l *Lookout) start(ctx context.Context) context.Context {
	cfg := l.config()
	store, ok := session.FromContext(ctx)
	if !ok {
		store = session.New(&session.Options{Now: cfg.Now, Retention: cfg.Retention})
		ctx = session.NewContext(ctx, store)
	}
	r, err := engine.NewRun(cfg, store)
	if err != nil {
		// The config was checked in New, so this should not happen; if it
		// does, the graph runs without Lookout rather than failing.
		cfg.OnError(ctx, err)
		return ctx
	}
	ctx = engine.WithRun(ctx, r)
	if !cfg.Enforced(budget.Time) {
		return ctx
	}
	b := r.Tracker.Budget()
	if b.Deadline.IsZero() {
		return ctx
	}
	// The budget's clock may be injected; the ctx runs on real time. A
	// deadline already past is left to the hooks, which end the run with
	// the budget error itself rather than Eino's context error.
	left := b.Deadline.Sub(cfg.Now())
	if left <= 0 {
		return ctx
	}
	allowed := b.Deadline.Sub(b.StartedAt).Milliseconds()
	ctx, r.Cancel = context.WithDeadlineCause(ctx, time.Now().Add(left), &budget.ExceededError{
		Resource: budget.Time, Limit: allowed, Used: allowed,
	})
	return context.WithValue(ctx, ownerKey{}, &owner{run: r, addr: compose.GetCurrentAddress(ctx)})
}

// owner marks the graph that started a run with a deadline, so that its
// end, and not the end of a node inside it, releases the deadline's timer.
type owner struct {
	run  *engine.Run
	addr compose.Address
}

type ownerKey struct{}

// ownerOf returns the run whose deadline ctx's component must release when
// it ends, or nil.
func ownerOf(ctx context.Context) *engine.Run {
	o, _ := ctx.Value(ownerKey{}).(*owner)
	if o == nil || !compose.GetCurrentAddress(ctx).Equals(o.addr) {
		return nil
	}
	return o.run
}

// handler is the callbacks.Handler returned by Lookout.Handler. Through
// Needed it asks Eino for only what it uses: the start of a component that
// finds no run on its ctx, and the end of the graph that owns a deadline.
// Every other component of the run costs one ctx lookup.
type handler struct {
	l *Lookout
}

var (
	_ callbacks.Handler       = (*handler)(nil)
	_ callbacks.TimingChecker = (*handler)(nil)
)

func (h *handler) Needed(ctx context.Context, _ *callbacks.RunInfo, timing callbacks.CallbackTiming) bool {
	switch timing {
	case callbacks.TimingOnStart, callbacks.TimingOnStartWithStreamInput:
		return engine.FromContext(ctx) == nil
	case callbacks.TimingOnEnd, callbacks.TimingOnError:
		return ownerOf(ctx) != nil
	default:
		return false
	}
}

func (h *handler) OnStart(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
	if engine.FromContext(ctx) != nil {
		return ctx
	}
	return h.l.start(ctx)
}

func (h *handler) OnStartWithStreamInput(ctx context.Context, _ *callbacks.RunInfo, input *schema.StreamReader[callbacks.CallbackInput]) context.Context {
	input.Close()
	if engine.FromContext(ctx) != nil {
		return ctx
	}
	return h.l.start(ctx)
}

// OnEnd releases the deadline's timer when the graph that set it ends.
// A graph run as a stream ends, for Eino, when its output stream is handed
// back, before the caller has read it; releasing the timer then would
// cancel the model's stream, so stream runs keep it until the deadline
// passes.
func (h *handler) OnEnd(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
	release(ctx)
	return ctx
}

func (h *handler) OnError(ctx context.Context, _ *callbacks.RunInfo, _ error) context.Context {
	release(ctx)
	return ctx
}

func (h *handler) OnEndWithStreamOutput(ctx context.Context, _ *callbacks.RunInfo, output *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
	output.Close()
	return ctx
}

func release(ctx context.Context) {
	if r := ownerOf(ctx); r != nil && r.Cancel != nil {
		r.Cancel()
	}
}
