package lookoutreact

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
	"github.com/lookout-go/lookout/session"
)

// Hooks gives react agents and compose graphs observers, injected
// assessments and an enforced budget. Its hooks go in two places, the
// model ([Hooks.WrapModel]) and the tools node
// ([Hooks.ToolMiddleware]); [Hooks.Agent] (or [Runnable] for a compose
// runnable) makes each Generate or Stream one run, and records its end
// before Generate returns or the stream reports its end.
//
// A Hooks holds only configuration: each run's session, budget tracker
// and observer pipeline live on the run's ctx, so one Hooks serves any
// number of concurrent runs and is safe for concurrent use. The zero
// Hooks works and behaves as New(ctx, nil).
type Hooks struct {
	once sync.Once
	l    *drive.Lookout
	// warned is set once a hook has reported ErrNoRun, so a misconfigured
	// agent logs once rather than on every call.
	warned atomic.Bool
}

// New returns the Hooks for cfg. A nil cfg means the defaults: a Resource
// observer every 10 calls or after 3 consecutive errors, no limits,
// nothing recorded. The configuration is checked now; an error wraps
// lookout.ErrInvalidConfig and names the field. ctx is unused and
// reserved.
func New(_ context.Context, cfg *lookout.Config) (*Hooks, error) {
	l, err := drive.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Hooks{l: l}, nil
}

// Callbacks returns the Eino callback handler through which the run
// learns the model its calls use, and the provider, from the model's own
// configuration: pass it to a run with
// agent.WithComposeOptions(compose.WithCallbacks(h.Callbacks())), or with
// callbacks.AppendGlobalHandlers at init. A run asks its first model call
// for them without it, unless the program registered global Eino
// handlers: then pass it. A call's options (model.WithModel) win over
// it, and lookout.Config.Agent.Model names a model that reports nothing.
// It has no cost beyond Eino's callbacks.
func (l *Hooks) Callbacks() callbacks.Handler { return engine.Identifier }

// Lookout returns the checked configuration the adapter runs with.
func (l *Hooks) Lookout() *drive.Lookout {
	l.once.Do(func() {
		if l.l == nil {
			l.l, _ = drive.New(nil) // the defaults always check
		}
	})
	return l.l
}

// Session returns the session of the run that ctx belongs to, as seen from
// inside tools, models and other graph nodes.
func Session(ctx context.Context) (*session.Store, bool) {
	if r, _ := drive.FromContext(ctx); r != nil {
		return r.Session(), true
	}
	return session.FromContext(ctx)
}

// run returns the run on ctx. A hook that finds none lets its call through
// and reports ErrNoRun, once per Hooks.
func (l *Hooks) run(ctx context.Context) *drive.Run {
	r, marked := drive.FromContext(ctx)
	if r != nil || marked {
		return r
	}
	if !l.warned.Swap(true) {
		l.Lookout().OnError(ctx, ErrNoRun)
	}
	return nil
}

// Generator is an agent that answers at once or as a stream, such as
// *react.Agent.
type Generator interface {
	Generate(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error)
	Stream(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.StreamReader[*schema.Message], error)
}

// Agent is an agent run through Lookout: each Generate or Stream is one
// run. It is safe for concurrent use when the agent is.
type Agent struct {
	// Name is the name runs are recorded under. [Hooks.Agent] sets it
	// to "ReActAgent", the react package's own name for its graph.
	Name  string
	l     *Hooks
	inner Generator
}

// Agent returns a, run through Lookout. Each Generate or Stream starts a
// run: a root run, on the session ctx carries (see session.NewContext) or
// a new one, or, inside a tool call of another run (a nested agent), a
// child of that run that shares its budget and is recorded as a linked
// sub-run. The run's end, errors included, is recorded before Generate
// returns or the stream reports its end, so a program that closes its
// Recorder right after loses nothing.
func (l *Hooks) Agent(a Generator) *Agent {
	return &Agent{Name: "ReActAgent", l: l, inner: a}
}

// Generate runs the agent once on input.
func (a *Agent) Generate(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.Message, error) {
	ctx, r, err := a.l.start(ctx, a.Name)
	if err != nil {
		return nil, err
	}
	out, err := a.inner.Generate(ctx, input, opts...)
	finish(ctx, r, err)
	return out, err
}

// Stream runs the agent once on input. The run ends when the stream does:
// at its end, at its first error, or when the caller closes it early.
func (a *Agent) Stream(ctx context.Context, input []*schema.Message, opts ...agent.AgentOption) (*schema.StreamReader[*schema.Message], error) {
	ctx, r, err := a.l.start(ctx, a.Name)
	if err != nil {
		return nil, err
	}
	sr, err := a.inner.Stream(ctx, input, opts...)
	if err != nil {
		finish(ctx, r, err)
		return nil, err
	}
	return endWith(ctx, r, sr), nil
}

// start starts a run named name on ctx.
func (l *Hooks) start(ctx context.Context, name string) (context.Context, *drive.Run, error) {
	return l.Lookout().Start(ctx, drive.StartOptions{AgentName: name, CallID: engine.ToolCallFrom(ctx)})
}

// finish records the end of run r with err, once, and releases its
// deadline. An interrupt pauses the run rather than ends it.
func finish(ctx context.Context, r *drive.Run, err error) {
	if r == nil {
		return
	}
	if engine.IsInterrupt(err) {
		r.Release()
		return
	}
	r.End(context.WithoutCancel(ctx), err)
}

// endWith returns a stream of what sr holds, ending run r before the
// caller can see the stream's end or error (see engine.Relay). A caller
// that closes the stream early ends the run with context.Canceled once sr
// has been read to its end, so that the model's last reply is still
// charged and recorded; that end is recorded after the caller's Close
// returns.
func endWith[T any](ctx context.Context, r *drive.Run, sr *schema.StreamReader[T]) *schema.StreamReader[T] {
	if r == nil {
		return sr
	}
	// Unbuffered: a caller's early Close is seen at the next value.
	return engine.Relay(sr, 0, func(T) {}, func(err error, abandoned bool) error {
		if err == nil && abandoned {
			err = context.Canceled
		}
		finish(ctx, r, err)
		if abandoned {
			return nil
		}
		return err
	})
}
