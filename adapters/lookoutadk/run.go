package lookoutadk

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/session"
)

// run is the state of one agent run, shared by the sub-agents it calls. It
// lives on the ctx that BeforeAgent returns, never in the middleware, which
// every run shares.
type run struct {
	cfg      *Config
	store    *session.Store
	tracker  *budget.Tracker
	pipeline *observer.Pipeline

	// root is true for the run that created this state; sub-agents that
	// share it are not roots and leave checkpoints to the root.
	root bool

	// restore guards reading the session back from an Eino checkpoint,
	// which is possible only inside the agent's graph, so it happens on the
	// first hook that runs.
	restore sync.Once
	// wrapUp is set once the model has been given a wrap-up turn.
	wrapUp atomic.Bool
	// cancel releases the deadline set on the run's ctx, if any.
	cancel context.CancelFunc

	mu sync.Mutex
	// injected holds the messages injected before the last model call, to
	// be replaced before the next.
	injected []*schema.Message
	// scanned is set once the history has been searched for injected
	// messages this run does not know about, such as after a resume.
	scanned bool
}

type runKey struct{}

func runFrom(ctx context.Context) *run {
	r, _ := ctx.Value(runKey{}).(*run)
	return r
}

// Session returns the session of the agent run that ctx belongs to, as seen
// from inside tools and other middleware.
func Session(ctx context.Context) (*session.Store, bool) {
	if r := runFrom(ctx); r != nil {
		return r.store, true
	}
	return session.FromContext(ctx)
}

// newRun builds the state of a run on store, which may carry a budget and
// tool calls from earlier runs.
func newRun(cfg *Config, store *session.Store) (*run, error) {
	tracker, err := budget.NewTracker(store, cfg.Limits, &budget.TrackerOptions{Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	pipeline, err := observer.NewPipeline(store, cfg.Observers, &observer.PipelineOptions{Now: cfg.Now, OnError: cfg.OnError})
	if err != nil {
		return nil, err
	}
	return &run{cfg: cfg, store: store, tracker: tracker, pipeline: pipeline, root: true}, nil
}

// checkpointKey is the run-local value under which the session travels in
// Eino checkpoints.
const checkpointKey = "lookout.session"

// checkpoint carries the session through Eino's gob-encoded run state. It
// snapshots the live store when encoded, so the session is written only
// when Eino saves a checkpoint, not on every call.
type checkpoint struct {
	store *session.Store
	data  []byte
}

func init() {
	schema.RegisterName[*checkpoint]("lookout_session_checkpoint")
}

// GobEncode snapshots the session.
func (c *checkpoint) GobEncode() ([]byte, error) {
	if c.store != nil {
		return c.store.Snapshot()
	}
	return c.data, nil
}

// GobDecode keeps the snapshot for the resumed run to restore.
func (c *checkpoint) GobDecode(b []byte) error {
	c.data = append([]byte(nil), b...)
	return nil
}

// MarshalJSON snapshots the session. Eino's checkpoint serializer encodes
// values that implement json.Marshaler with it rather than with gob.
func (c *checkpoint) MarshalJSON() ([]byte, error) {
	b, err := c.GobEncode()
	if len(b) == 0 && err == nil {
		return []byte("null"), nil
	}
	return b, err
}

// UnmarshalJSON keeps the snapshot for the resumed run to restore.
func (c *checkpoint) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		c.data = nil
		return nil
	}
	return c.GobDecode(b)
}

// ensure runs once per run inside the agent's graph: it restores the
// session from a checkpoint when the run is a resume, and registers the
// session for future checkpoints.
func (r *run) ensure(ctx context.Context) {
	if !r.root {
		return
	}
	r.restore.Do(func() {
		v, found, err := adk.GetRunLocalValue(ctx, checkpointKey)
		if err != nil {
			r.cfg.OnError(ctx, fmt.Errorf("lookoutadk: read checkpointed session: %w", err))
			return
		}
		if cp, ok := v.(*checkpoint); found && ok && cp.store == nil && len(cp.data) > 0 {
			if err := r.store.Restore(cp.data); err != nil {
				r.cfg.OnError(ctx, fmt.Errorf("lookoutadk: restore checkpointed session: %w", err))
			}
		}
		if err := adk.SetRunLocalValue(ctx, checkpointKey, &checkpoint{store: r.store}); err != nil {
			r.cfg.OnError(ctx, fmt.Errorf("lookoutadk: register session for checkpoints: %w", err))
		}
	})
}

func logError(ctx context.Context, err error) {
	slog.WarnContext(ctx, "lookout: error", "error", err)
}
