package lookoutadk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/compose"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// Middleware is Lookout's adk.ChatModelAgentMiddleware. Register it in the
// Handlers of every ChatModelAgent of a program, sub-agents included, and
// wrap the agent given to the Runner with [Middleware.Agent], so that one
// query is one run with one budget, and its end is recorded before the
// Runner's iterator reports it.
//
// A Middleware holds only configuration: each run's state lives on the
// run's ctx, so one Middleware serves any number of agents and concurrent
// runs, and is safe for concurrent use.
type Middleware struct {
	*adk.BaseChatModelAgentMiddleware
	l *drive.Lookout
	// unwrapped says an agent started a query's run without the
	// wrapper: only then do model calls look for unwrappedKey.
	unwrapped atomic.Bool
}

var _ adk.ChatModelAgentMiddleware = (*Middleware)(nil)

// New returns a Middleware for cfg. A nil cfg means the defaults: a
// Resource observer every 10 calls or after 3 consecutive errors, no
// limits, nothing recorded. Eino's transfer and exit tools
// (adk.TransferToAgentToolName, and "exit" of adk.ExitTool) are added to
// cfg.ControlTools. The configuration is checked now; an error
// wraps lookout.ErrInvalidConfig and names the field. ctx is unused and
// reserved.
func New(_ context.Context, cfg *lookout.Config) (*Middleware, error) {
	var c lookout.Config
	if cfg != nil {
		c = *cfg
	}
	c.ControlTools = withControlTools(c.ControlTools)
	if !slices.Contains(c.HandoverTools, adk.TransferToAgentToolName) {
		c.HandoverTools = append(slices.Clip(c.HandoverTools), adk.TransferToAgentToolName)
	}
	l, err := drive.New(&c)
	if err != nil {
		return nil, err
	}
	return &Middleware{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, l: l}, nil
}

// Callbacks returns the Eino callback handler through which the run
// learns the model its calls use, and the provider, from the model's own
// configuration: pass it to a run with adk.WithCallbacks(m.Callbacks()),
// or with callbacks.AppendGlobalHandlers at init. A run asks its first
// model call for them without it, unless the program registered global
// Eino handlers: then pass it. A call's options (model.WithModel) win
// over it, and lookout.Config.Agent.Model names a model that reports
// nothing.
func (m *Middleware) Callbacks() callbacks.Handler { return engine.Identifier }

// Lookout returns the checked configuration the middleware runs with.
func (m *Middleware) Lookout() *drive.Lookout { return m.l }

// claim is put on the ctx by the agent wrapper. When the wrapped agent
// is a ChatModelAgent, single is set, and the agent runs as the
// wrapper's run itself, not as its child. observed holds the names of
// the agents whose middleware started a run in the query, so that the
// wrapper can report an agent without it.
type claim struct {
	run    *drive.Run
	single bool
	taken  atomic.Bool

	mu       sync.Mutex
	observed []string // backed by few while the query has few agents
	reported []string
	few      [4]string
}

// observe notes that agent name started a run in the query.
func (c *claim) observe(name string) {
	if name == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.observed, name) {
		if c.observed == nil {
			c.observed = c.few[:0]
		}
		c.observed = append(c.observed, name)
	}
}

// unobserved reports whether agent name sent an event without having
// started a run in the query, the first time it does.
func (c *claim) unobserved(name string) bool {
	if name == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.observed, name) || slices.Contains(c.reported, name) {
		return false
	}
	c.reported = append(c.reported, name)
	return true
}

type claimKey struct{}

// BeforeAgent starts the agent's run. Under [Middleware.Agent] the first
// agent runs as the query's run and the agents it starts (agents used as
// tools) as its children, sharing its session and budget. Without the
// wrapper, an agent with no run on its ctx starts one on the session ctx
// carries (see session.NewContext), or a new one.
func (m *Middleware) BeforeAgent(ctx context.Context, rc *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	r, marked := drive.FromContext(ctx)
	if r == nil && marked {
		return ctx, rc, nil // a run going on without Lookout
	}
	name := engine.AgentNameFrom(ctx)
	c, _ := ctx.Value(claimKey{}).(*claim)
	if c != nil {
		c.observe(name)
		if c.single && c.run == r && c.taken.CompareAndSwap(false, true) {
			addReturnDirectly(r, rc)
			return ctx, rc, nil
		}
	}
	opts := drive.StartOptions{AgentName: name, CallID: engine.ToolCallFrom(ctx)}
	if opts.AgentName == "" {
		opts.AgentName = engine.ToolNameFrom(ctx)
	}
	if r == nil {
		// A root run without the wrapper: a resume reads its checkpoint
		// at the first hook inside the agent's graph.
		opts.Deferred = true
		resumed, _, _ := compose.GetInterruptState[any](ctx)
		opts.Resumed = resumed
	}
	ctx, run, err := m.l.Start(ctx, opts)
	if run != nil {
		addReturnDirectly(run, rc)
		if r == nil && c == nil {
			m.l.OnError(ctx, fmt.Errorf("%w: %q", ErrUnwrapped, name))
			m.unwrapped.Store(true)
			ctx = context.WithValue(ctx, unwrappedKey{}, run)
		}
	}
	return ctx, rc, err
}

// unwrappedKey marks the ctx of a root run that an agent started without
// Middleware.Agent.
type unwrappedKey struct{}

// ErrUnwrapped is reported to Config.OnError when an agent with the
// Lookout middleware starts a query's run itself: the agent given to the
// Runner was not wrapped with [Middleware.Agent]. Each agent of a
// workflow or supervisor is then a query of its own, with a budget of its
// own, and the end of a run its agent's failure ends is recorded only as
// far as Lookout sees the failure (a tool call that failed, a budget
// stop, a model call that failed in an agent that neither retries nor
// fails over).
var ErrUnwrapped = errors.New("lookoutadk: the agent runs without Middleware.Agent; wrap the agent given to the Runner")

// addReturnDirectly makes the tools the agent returns on control tools of
// its run: like Eino's exit tool, they end the agent's turn (a loop's
// break tool is one), so they are free and stay offered on a wrap-up
// turn.
func addReturnDirectly(r *drive.Run, rc *adk.ChatModelAgentContext) {
	if rc == nil {
		return
	}
	for name, on := range rc.ReturnDirectly {
		if on {
			r.AddControlTools(name)
		}
	}
}

// AfterAgent records that the agent's run completed; Eino calls it only
// when a run succeeds. The run of [Middleware.Agent] is ended by the
// wrapper, after the agent's last event.
func (m *Middleware) AfterAgent(ctx context.Context, _ *adk.ChatModelAgentState) (context.Context, error) {
	r, _ := drive.FromContext(ctx)
	if r == nil {
		return ctx, nil
	}
	if c, _ := ctx.Value(claimKey{}).(*claim); c != nil && c.single && c.run == r {
		return ctx, r.Failure()
	}
	r.End(ctx, nil)
	return ctx, r.Failure()
}

// exitToolName is the name of adk.ExitTool, which leaves a loop agent or
// ends the run.
const exitToolName = "exit"

// withControlTools returns names with Eino's transfer and exit tools
// added, in a new slice.
func withControlTools(names []string) []string {
	out := slices.Clone(names)
	for _, n := range []string{adk.TransferToAgentToolName, exitToolName} {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
