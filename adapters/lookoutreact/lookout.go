package lookoutreact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/internal/engine"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// Lookout gives react agents and compose graphs observers, injected
// assessments and an enforced budget. Its hooks go in two places, the
// model ([Lookout.WrapModel]) and the tools node
// ([Lookout.ToolMiddleware]), and the run option ([Lookout.AgentOption] or
// [Lookout.ComposeOption]) starts and ends each run.
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

// Handler returns the callbacks handler behind [Lookout.AgentOption] and
// [Lookout.ComposeOption]. It starts a run's state when the outermost graph
// starts (or a child run when a graph starts inside a tool call of a run),
// and ends the run when that graph ends: it records run_ended and releases
// the deadline's timer. It must see the whole graph: register it with
// compose.WithCallbacks, not on designated nodes. It charges nothing; token
// usage is charged by [Lookout.WrapModel]. The handler is safe for
// concurrent use.
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
func (l *Lookout) run(ctx context.Context) *engine.Run {
	r, marked := engine.Lookup(ctx)
	if r != nil || marked {
		// A nil run that is marked goes on without Lookout; see safeStart.
		return r
	}
	if !l.warned.Swap(true) {
		l.config().OnError(ctx, ErrNoRun)
	}
	return nil
}

// start builds the state of a run when a graph starts. A graph with no
// run on its ctx starts a root run: a session (the one on ctx, see
// session.NewContext, or a new one), a budget tracker and an observer
// pipeline; when time is enforced and the deadline is ahead, the deadline
// is set on the run's ctx with a *budget.ExceededError as its cause. A
// graph started inside a tool call of a run (a nested agent) starts a child
// run that shares the parent's session, budget and observers and is
// recorded as a linked sub-run.
func (l *Lookout) start(ctx context.Context, info *callbacks.RunInfo) context.Context {
	return l.safeStart(ctx, info)
}

// safeStart is start guarded against faults in Lookout's own work: Eino
// calls OnStart on the goroutine that runs the graph, so a panic there
// would reach the caller. The panic goes to Config.OnError instead, and
// the graph runs without Lookout: its ctx is marked with no run, so that
// neither the hooks nor the components nested in it start one.
func (l *Lookout) safeStart(ctx context.Context, info *callbacks.RunInfo) (out context.Context) {
	var started *engine.Run
	defer func() {
		if p := recover(); p != nil {
			l.config().OnError(ctx, fmt.Errorf("lookoutreact: starting a run panicked: %v", p))
			if started != nil && started.Cancel != nil {
				started.Cancel()
			}
			out = engine.WithRun(ctx, nil)
		}
	}()
	return l.startRun(ctx, info, &started)
}

// startRun does start's work, setting *started to the run once it is
// built, so that safeStart can release its deadline after a fault.
func (l *Lookout) startRun(ctx context.Context, info *callbacks.RunInfo, started **engine.Run) context.Context {
	cfg := l.config()
	name := ""
	if info != nil {
		name = info.Name
	}
	if parent := engine.FromContext(ctx); parent != nil {
		callID := engine.ToolCallFrom(ctx)
		child := parent.Child()
		child.StartRecording(ctx, name, parent, callID)
		ctx = engine.WithRun(ctx, child)
		return context.WithValue(ctx, scopeKey{}, &scope{run: child, addr: compose.GetCurrentAddress(ctx),
			call: engine.ToolCallMarkFrom(ctx)})
	}
	store, ok := session.FromContext(ctx)
	if !ok {
		store = session.New(&session.StoreOptions{Now: cfg.Now, Retention: cfg.Retention})
		ctx = session.NewContext(ctx, store)
	}
	r, err := engine.NewRun(cfg, store)
	if err != nil {
		// The config was checked in New, so this should not happen; if it
		// does, the graph runs without Lookout rather than failing.
		cfg.OnError(ctx, err)
		return ctx
	}
	*started = r
	ctx = engine.WithRun(ctx, r)
	r.StartRecording(ctx, name, nil, "")
	if b := r.Tracker.Budget(); cfg.Enforced(budget.Time) && !b.Deadline.IsZero() {
		// The budget's clock may be injected; the ctx runs on real time. A
		// deadline already past is left to the hooks, which end the run
		// with the budget error itself rather than Eino's context error.
		if left := b.Deadline.Sub(cfg.Now()); left > 0 {
			allowed := b.Deadline.Sub(b.StartedAt).Milliseconds()
			ctx, r.Cancel = engine.WithDeadline(ctx, time.Now().Add(left), &budget.ExceededError{
				Resource: budget.Time, Limit: allowed, Used: allowed,
			})
		}
	}
	return context.WithValue(ctx, scopeKey{}, &scope{run: r, addr: compose.GetCurrentAddress(ctx)})
}

// scope marks the graph that started a run, so that its end, and not the
// end of a node inside it, ends the run.
type scope struct {
	run  *engine.Run
	addr compose.Address
	// call marks the parent's tool call that started the run; nil for a
	// root. Another call with the same id, deeper in nested agents, has
	// another mark.
	call *engine.ToolCallMark
}

type scopeKey struct{}

func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}

// ending returns the run that ctx's component started, or nil when the
// component is not the graph that started a run.
func ending(ctx context.Context) *engine.Run {
	s := scopeOf(ctx)
	if s == nil || !compose.GetCurrentAddress(ctx).Equals(s.addr) {
		return nil
	}
	return s.run
}

// starting reports whether a component starting with ctx starts a run: it
// finds no run, or it is a graph run inside a tool call of the run it
// finds.
func starting(ctx context.Context, info *callbacks.RunInfo) bool {
	r, marked := engine.Lookup(ctx)
	if !marked {
		return true
	}
	if r == nil {
		return false // a run going on without Lookout; see safeStart
	}
	call := engine.ToolCallMarkFrom(ctx)
	if call == nil || info == nil || !isGraph(info.Component) {
		return false
	}
	s := scopeOf(ctx)
	return s == nil || s.call != call
}

func isGraph(c components.Component) bool {
	return c == compose.ComponentOfGraph || c == compose.ComponentOfChain || c == compose.ComponentOfWorkflow
}

// finish records the end of the run r, once, and releases its deadline's
// timer. An interrupt pauses the run rather than ends it.
func finish(ctx context.Context, r *engine.Run, err error) {
	if !isInterrupt(err) {
		r.End(context.WithoutCancel(ctx), err)
	}
	if r.Cancel != nil {
		r.Cancel()
	}
}

func isInterrupt(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := compose.IsInterruptRerunError(err); ok {
		return true
	}
	_, ok := compose.ExtractInterruptInfo(err)
	return ok
}

// handler is the callbacks.Handler returned by Lookout.Handler. Through
// Needed it asks Eino for only what it uses: the start of a graph that
// starts a run, and the end of that graph. Every other component costs a
// few ctx lookups.
type handler struct {
	l *Lookout
}

var (
	_ callbacks.Handler       = (*handler)(nil)
	_ callbacks.TimingChecker = (*handler)(nil)
)

func (h *handler) Needed(ctx context.Context, info *callbacks.RunInfo, timing callbacks.CallbackTiming) bool {
	switch timing {
	case callbacks.TimingOnStart, callbacks.TimingOnStartWithStreamInput:
		return starting(ctx, info)
	case callbacks.TimingOnEnd, callbacks.TimingOnError, callbacks.TimingOnEndWithStreamOutput:
		return ending(ctx) != nil
	default:
		return false
	}
}

func (h *handler) OnStart(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
	if !starting(ctx, info) {
		return ctx
	}
	return h.l.start(ctx, info)
}

func (h *handler) OnStartWithStreamInput(ctx context.Context, info *callbacks.RunInfo, input *schema.StreamReader[callbacks.CallbackInput]) context.Context {
	input.Close()
	if !starting(ctx, info) {
		return ctx
	}
	return h.l.start(ctx, info)
}

func (h *handler) OnEnd(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
	if r := ending(ctx); r != nil {
		finish(ctx, r, nil)
	}
	return ctx
}

func (h *handler) OnError(ctx context.Context, _ *callbacks.RunInfo, err error) context.Context {
	if r := ending(ctx); r != nil {
		finish(ctx, r, err)
	}
	return ctx
}

// OnEndWithStreamOutput ends a streamed run when its output stream ends.
// Eino calls it when the stream is handed back, before the caller has read
// it, and the last model reply is charged only as the stream is read; so
// the handler reads its own copy of the stream on a goroutine, which ends
// with the stream, and ends the run then.
func (h *handler) OnEndWithStreamOutput(ctx context.Context, _ *callbacks.RunInfo, output *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
	r := ending(ctx)
	if r == nil {
		output.Close()
		return ctx
	}
	go func() {
		defer output.Close()
		for {
			_, err := output.Recv()
			if errors.Is(err, io.EOF) {
				finish(ctx, r, nil)
				return
			}
			if err != nil {
				finish(ctx, r, err)
				return
			}
		}
	}()
	return ctx
}
