package lookoutadk

import (
	"context"
	"time"

	"github.com/cloudwego/eino/adk"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/session"
)

// middleware is the adk.ChatModelAgentMiddleware returned by New. It holds
// only configuration; each run's state lives on the run's ctx.
type middleware struct {
	*adk.BaseChatModelAgentMiddleware
	cfg Config
}

// New returns a middleware that gives an ADK ChatModelAgent observers,
// injected assessments and an enforced budget. Add it to the agent's
// Handlers (and to every sub-agent's, so they share the budget). A nil cfg
// means the defaults. ctx is unused and reserved.
func New(_ context.Context, cfg *Config) (adk.ChatModelAgentMiddleware, error) {
	n, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	// Build a throwaway run to validate the observers now, not at the
	// first agent run.
	if _, err := newRun(&n, session.New(nil)); err != nil {
		return nil, err
	}
	return &middleware{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, cfg: n}, nil
}

// BeforeAgent starts the run's state. A sub-agent (an agent used as a
// tool) finds its parent's run on ctx and shares it. Otherwise the session
// is the one on ctx (see session.NewContext), so several Runner runs can
// share one session and one budget, or a new one.
func (m *middleware) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	if parent := runFrom(ctx); parent != nil {
		shared := &run{cfg: parent.cfg, store: parent.store, tracker: parent.tracker, pipeline: parent.pipeline}
		return context.WithValue(ctx, runKey{}, shared), rc, nil
	}
	store, ok := session.FromContext(ctx)
	if !ok {
		store = session.New(&session.Options{Now: m.cfg.Now, Retention: m.cfg.Retention})
		ctx = session.NewContext(ctx, store)
	}
	r, err := newRun(&m.cfg, store)
	if err != nil {
		// The config was validated in New; this cannot fail but must not
		// break the run if it does.
		m.cfg.OnError(ctx, err)
		return ctx, rc, nil
	}
	ctx = context.WithValue(ctx, runKey{}, r)
	if m.cfg.enforced(budget.Time) {
		if err := r.tracker.Check(budget.Time); err != nil {
			return ctx, rc, err
		}
		if deadline := r.tracker.Budget().Deadline; !deadline.IsZero() {
			// The budget's clock may be injected; the ctx runs on real time.
			left := deadline.Sub(m.cfg.Now())
			allowed := deadline.Sub(r.tracker.Budget().StartedAt).Milliseconds()
			ctx, r.cancel = context.WithDeadlineCause(ctx, time.Now().Add(left), &budget.ExceededError{
				Resource: budget.Time, Limit: allowed, Used: allowed,
			})
		}
	}
	return ctx, rc, nil
}

// AfterAgent releases the run's deadline timer. Eino calls it only when a
// run succeeds; after an error the timer is released when the deadline
// passes.
func (m *middleware) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	if r := runFrom(ctx); r != nil && r.cancel != nil {
		r.cancel()
	}
	return ctx, nil
}
