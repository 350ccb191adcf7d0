package lookoutadk

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/adapters/drive"
	"github.com/lookout-go/lookout/session"
)

// Session returns the session of the agent run that ctx belongs to, as seen
// from inside tools and other middleware.
func Session(ctx context.Context) (*session.Store, bool) {
	if r, _ := drive.FromContext(ctx); r != nil {
		return r.Session(), true
	}
	return session.FromContext(ctx)
}

// checkpointKey is the run-local value under which the run's state
// travels in Eino checkpoints.
const checkpointKey = "lookout.session"

// checkpoint carries the run's drive.State through Eino's run state. It
// takes the state of the live run when encoded, so nothing is done until
// Eino saves a checkpoint.
type checkpoint struct {
	run *drive.Run
	// probing is set while Eino checks, as the value is registered, that
	// it can be encoded. The check throws the encoding away, so it gets
	// one without the session: a snapshot costs as much as the session
	// holds, which in a long conversation is thousands of calls.
	probing atomic.Bool
	// state is decoded from a checkpoint.
	state *drive.State
}

func init() {
	schema.RegisterName[*checkpoint]("lookout_session_checkpoint")
}

// MarshalJSON encodes the run's state. Eino's checkpoint serializer
// encodes values that implement json.Marshaler with it rather than with
// gob.
func (c *checkpoint) MarshalJSON() ([]byte, error) {
	switch {
	case c.run != nil && !c.probing.Load():
		return json.Marshal(c.run.State(context.Background()))
	case c.state != nil:
		return json.Marshal(c.state)
	default:
		return probeState, nil
	}
}

// probeState is the encoding of an empty state, which the check Eino makes
// as the value is registered gets: it is thrown away.
var probeState = []byte(`{"session":null}`)

// UnmarshalJSON keeps the state the resumed run restores.
func (c *checkpoint) UnmarshalJSON(b []byte) error {
	var st drive.State
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	c.state = &st
	return nil
}

// GobEncode encodes as MarshalJSON does.
func (c *checkpoint) GobEncode() ([]byte, error) { return c.MarshalJSON() }

// GobDecode decodes as UnmarshalJSON does.
func (c *checkpoint) GobDecode(b []byte) error { return c.UnmarshalJSON(b) }

// ensure runs inside the agent's graph, once per run: on a resume it
// restores the root run's state from the checkpoint; either way it begins
// the recording (the root's first, for a child) and registers the root in
// this agent's run-local values, so that a checkpoint Eino saves while
// this agent runs (an interrupt inside it) carries the root's state.
func ensure(ctx context.Context, r *drive.Run) {
	if r.Begun() {
		return
	}
	root := r
	for root.Parent() != nil {
		root = root.Parent()
	}
	r.Begin(ctx, func() *drive.State { return read(ctx, root) })
	register(ctx, root)
}

// read returns the checkpointed state, if any.
func read(ctx context.Context, r *drive.Run) *drive.State {
	v, found, err := adk.GetRunLocalValue(ctx, checkpointKey)
	if err != nil {
		r.OnError(ctx, fmt.Errorf("lookoutadk: read checkpoint: %w", err))
	}
	if cp, _ := v.(*checkpoint); found && cp != nil && cp.run == nil {
		return cp.state
	}
	return nil
}

// register makes the live root run the run-local value that Eino's
// checkpoints save.
func register(ctx context.Context, root *drive.Run) {
	live := &checkpoint{run: root}
	live.probing.Store(true)
	err := adk.SetRunLocalValue(ctx, checkpointKey, live)
	live.probing.Store(false)
	if err != nil {
		root.OnError(ctx, fmt.Errorf("lookoutadk: register session for checkpoints: %w", err))
	}
}
