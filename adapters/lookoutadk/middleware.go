package lookoutadk

import (
	"context"
	"fmt"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"

	"github.com/lookout-go/lookout/adapters/internal/engine"
	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// middleware is the adk.ChatModelAgentMiddleware returned by New. It holds
// only configuration; each run's state lives on the run's ctx.
type middleware struct {
	*adk.BaseChatModelAgentMiddleware
	cfg engine.Config
}

// New returns a middleware that gives an ADK ChatModelAgent observers,
// injected assessments and an enforced budget. Add it to the agent's
// Handlers (and to every sub-agent's, so they share the budget). A nil cfg
// means the defaults: a Resource observer every 10 calls or after 3
// consecutive errors, and no limits. ctx is unused and reserved.
func New(_ context.Context, cfg *Config) (adk.ChatModelAgentMiddleware, error) {
	n, err := cfg.Normalized()
	if err != nil {
		return nil, err
	}
	// Build a throwaway run to validate the observers now, not at the
	// first agent run.
	if _, err := engine.NewRun(&n, session.New(nil)); err != nil {
		return nil, err
	}
	return &middleware{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, cfg: n}, nil
}

// BeforeAgent starts the run's state. A sub-agent (an agent used as a
// tool) finds its parent's run on ctx and shares it. Otherwise the session
// is the one on ctx (see session.NewContext), so several Runner runs can
// share one session and one budget, or a new one.
//
// Should Lookout's own work here panic, the panic goes to Config.OnError
// and the agent runs without Lookout: Eino calls BeforeAgent on the
// goroutine that called Runner.Run.
func (m *middleware) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (rctx context.Context, rrc *adk.ChatModelAgentContext, err error) {
	in := ctx
	var started *engine.Run
	defer func() {
		if p := recover(); p != nil {
			m.cfg.OnError(in, fmt.Errorf("lookoutadk: BeforeAgent panicked: %v", p))
			if started != nil && started.Cancel != nil {
				started.Cancel()
			}
			// No run on the ctx, not even a parent's: every later hook
			// passes through.
			rctx, rrc, err = engine.WithRun(in, nil), rc, nil
		}
	}()
	name := ""
	w := watchFrom(ctx)
	if w != nil {
		name = w.name
	}
	if parent := engine.FromContext(ctx); parent != nil {
		child := parent.Child()
		child.StartRecording(ctx, name, parent, toolCallFrom(ctx))
		if w != nil {
			w.set(child)
		}
		return engine.WithRun(ctx, child), rc, child.Failure()
	}
	store, ok := session.FromContext(ctx)
	if !ok {
		store = session.New(&session.StoreOptions{Now: m.cfg.Now, Retention: m.cfg.Retention})
		ctx = session.NewContext(ctx, store)
	}
	r, err := engine.NewRun(&m.cfg, store)
	if err != nil {
		// The config was validated in New, so this should not happen; if it
		// does, the agent runs without Lookout rather than failing.
		m.cfg.OnError(ctx, err)
		return ctx, rc, nil
	}
	started = r
	ctx = engine.WithRun(ctx, r)
	// The recording starts at the first hook inside the agent's graph,
	// where a resume can be told from a new run.
	r.AgentName = name
	if m.cfg.Enforced(budget.Time) {
		if err := r.Tracker.Check(budget.Time); err != nil {
			r.StartRecording(ctx, name, nil, "")
			r.RecordExceeded(ctx, err)
			r.End(ctx, err)
			return ctx, rc, err
		}
		if d, cause, ok := deadline(r); ok {
			with := engine.WithDeadline
			if resumed, _, _ := compose.GetInterruptState[any](ctx); resumed {
				// The checkpoint, read at the first hook inside the
				// agent, may hold a budget with an earlier deadline.
				with = engine.WithMovableDeadline
			}
			ctx, r.Cancel = with(ctx, d, cause)
		}
	}
	// Handed to the run's watcher (see RunOption) once r is complete.
	if w != nil {
		w.set(r)
	}
	return ctx, rc, nil
}

// deadline returns when, on real time, the deadline of r's budget passes,
// and the budget error it ends the run with; false when the budget has no
// deadline. The budget's clock may be injected; a ctx runs on real time.
func deadline(r *engine.Run) (time.Time, *budget.ExceededError, bool) {
	b := r.Tracker.Budget()
	if b.Deadline.IsZero() {
		return time.Time{}, nil, false
	}
	left := b.Deadline.Sub(r.Cfg.Now())
	allowed := b.Deadline.Sub(b.StartedAt).Milliseconds()
	return time.Now().Add(left), &budget.ExceededError{Resource: budget.Time, Limit: allowed, Used: allowed}, true
}

// AfterAgent releases the run's deadline timer. Eino calls it only when a
// run succeeds; after an error the timer is released when the run's
// events end if the run has RunOption, and otherwise when the deadline
// passes.
func (m *middleware) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	r := engine.FromContext(ctx)
	if r == nil {
		return ctx, nil
	}
	if r.Cancel != nil {
		r.Cancel()
	}
	r.End(ctx, nil)
	return ctx, r.Failure()
}
