package lookoutadk

import (
	"context"
	"encoding/json"

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

// checkpointKey is the session value under which the run's state travels
// in Eino checkpoints.
const checkpointKey = "lookout.session"

// checkpoint carries the run's drive.State through Eino's checkpoints,
// as a value of the query's Eino session: the Runner's checkpoint holds
// the session, and the agents of a query, agents used as tools included,
// share it. It takes the state of the live run when encoded, so nothing is
// done until Eino saves a checkpoint.
type checkpoint struct {
	run *drive.Run
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
	if c.run != nil {
		return json.Marshal(c.run.State(context.Background()))
	}
	return json.Marshal(c.state)
}

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
// the Eino session ctx carries, so that a checkpoint Eino saves while this
// agent runs (an interrupt inside it) carries the root's state.
func ensure(ctx context.Context, r *drive.Run) {
	if !r.Begun() {
		begin(ctx, r)
	}
}

// begin is ensure for a run not yet begun, kept apart so that ensure, on
// the path of every model and tool call, inlines.
func begin(ctx context.Context, r *drive.Run) {
	root := r
	for root.Parent() != nil {
		root = root.Parent()
	}
	r.Begin(ctx, func() *drive.State { return read(ctx) })
	adk.AddSessionValue(ctx, checkpointKey, &checkpoint{run: root})
}

// read returns the checkpointed state, if any.
func read(ctx context.Context) *drive.State {
	v, _ := adk.GetSessionValue(ctx, checkpointKey)
	if cp, _ := v.(*checkpoint); cp != nil && cp.run == nil {
		return cp.state
	}
	return nil
}
