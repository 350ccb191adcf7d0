package drive

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lookout-go/lookout/budget"
	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/recorder"
)

// State is what a checkpoint keeps of a root run, so that the run resumed
// from it goes on where it stopped: the session (budget, tool calls,
// observers' state), where the recording stopped, and the calls and
// sub-agent runs an interrupt paused. It is plain data and encodes to
// JSON.
type State struct {
	// Session is the session's snapshot (session.Store.Snapshot); null
	// when it could not be taken.
	Session json.RawMessage `json:"session"`
	// RunID, Next and Usage are the recorded run's id, its next seq and
	// what it had used; empty when nothing was recorded.
	RunID string            `json:"run_id,omitempty"`
	Next  uint64            `json:"next_seq,omitempty"`
	Usage recorder.RunUsage `json:"usage,omitzero"`
	// Paused are the run's calls the interrupt paused, whose
	// tool_started is recorded; the resumed run runs them again without
	// recording their start twice.
	Paused []string `json:"paused_calls,omitempty"`
	// Children are the sub-agent runs the interrupt paused, by their
	// parent run and the tool call that started each.
	Children map[string]PausedRun `json:"children,omitempty"`
	// EfficacyBase is the session's feedback-efficacy counts when the run
	// started, which its efficacy records count from.
	EfficacyBase map[string]observer.EfficacyCounts `json:"efficacy_base,omitempty"`
}

// State returns the run's state for a checkpoint. A session that cannot
// be snapshotted leaves Session null and is reported to Config.OnError:
// the rest is still worth keeping, and the resumed run starts a fresh
// session. A child's State is its root's.
func (r *Run) State(ctx context.Context) State {
	for r.parent != nil {
		r = r.parent
	}
	st := State{
		RunID: r.trace.rec.ID(), Next: r.trace.rec.Next(), Usage: r.trace.usage.load(),
		Paused: r.pausedCalls(), Children: r.pausedChildren(), EfficacyBase: r.efficacyBase(),
	}
	snap, err := r.store.Snapshot()
	if err != nil {
		r.cfg.OnError(ctx, fmt.Errorf("lookout: state kept without the session: %w", err))
	}
	st.Session = snap
	if st.Session == nil {
		st.Session = json.RawMessage("null")
	}
	return st
}

// restore sets the run up from st, before its recording starts: the
// session, the budget's deadline on the ctx, the recording's position and
// what the interrupt paused.
func (r *Run) restore(ctx context.Context, st *State) {
	if len(st.Session) > 0 && string(st.Session) != "null" {
		r.restoreSession(ctx, st.Session)
	}
	if st.RunID != "" && r.cfg.Recorder != nil {
		r.resumeRecording(st)
	}
	if st.RunID != "" {
		r.trace.efficacyBase.Store(&st.EfficacyBase)
	}
}

// restoreSession restores the checkpointed session, and with it the
// deadline of its budget on the ctx.
func (r *Run) restoreSession(ctx context.Context, snapshot json.RawMessage) {
	if err := r.store.Restore(snapshot); err != nil {
		r.cfg.OnError(ctx, fmt.Errorf("lookout: restore the checkpointed session: %w", err))
		return
	}
	if !enforced(r.cfg, budget.Time) {
		return
	}
	// Start set the deadline of a budget that started at the resume; the
	// checkpoint's has replaced it.
	if d, cause, ok := r.deadline(); ok {
		moveDeadline(ctx, d, cause)
	}
}

// resumeRecording goes on with the recording st names, where it stopped,
// with the calls and sub-agent runs the interrupt paused.
func (r *Run) resumeRecording(st *State) {
	r.trace.rec = r.cfg.Recorder.ResumeRun(recorder.RunInfo{RunID: st.RunID}, st.Next)
	r.trace.usage.store(st.Usage)
	r.trace.input.Store(true)
	r.setPausedCalls(st.Paused)
	r.family.mu.Lock()
	r.family.paused = st.Children
	r.family.mu.Unlock()
}
