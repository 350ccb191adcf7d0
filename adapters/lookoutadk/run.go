package lookoutadk

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/internal/engine"
	"github.com/lookout-go/lookout/session"
)

// Session returns the session of the agent run that ctx belongs to, as seen
// from inside tools and other middleware.
func Session(ctx context.Context) (*session.Store, bool) {
	if r := engine.FromContext(ctx); r != nil {
		return r.Store, true
	}
	return session.FromContext(ctx)
}

// checkpointKey is the run-local value under which the session travels in
// Eino checkpoints.
const checkpointKey = "lookout.session"

// checkpoint carries the session through Eino's run state. It snapshots
// the live store when encoded, so the session is written only when Eino
// saves a checkpoint, not on every call.
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

// ensure runs inside the agent's graph, once per run: it restores the
// session from a checkpoint when the run is a resume, and registers the
// session for future checkpoints. Only the root run does this; sub-agents
// share its session.
func ensure(ctx context.Context, r *engine.Run) {
	if !r.Root {
		return
	}
	r.Setup.Do(func() { restoreAndRegister(ctx, r) })
}

func restoreAndRegister(ctx context.Context, r *engine.Run) {
	v, found, err := adk.GetRunLocalValue(ctx, checkpointKey)
	if err != nil {
		r.Cfg.OnError(ctx, fmt.Errorf("lookoutadk: read checkpointed session: %w", err))
		return
	}
	if cp, ok := v.(*checkpoint); found && ok && cp.store == nil && len(cp.data) > 0 {
		if err := r.Store.Restore(cp.data); err != nil {
			r.Cfg.OnError(ctx, fmt.Errorf("lookoutadk: restore checkpointed session: %w", err))
		}
	}
	if err := adk.SetRunLocalValue(ctx, checkpointKey, &checkpoint{store: r.Store}); err != nil {
		r.Cfg.OnError(ctx, fmt.Errorf("lookoutadk: register session for checkpoints: %w", err))
	}
}
