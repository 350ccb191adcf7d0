package drive

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// PausedRun is a sub-agent run's recording as a checkpoint keeps it: the
// run, the next seq and the usage so far.
type PausedRun struct {
	RunID string            `json:"run_id"`
	Next  uint64            `json:"next_seq"`
	Usage recorder.RunUsage `json:"usage,omitzero"`
	// Calls are the run's calls the interrupt paused; see
	// Run.PausedCalls.
	Calls []string `json:"paused_calls,omitempty"`
}

// family holds the sub-agent runs of a root run that are recorded and
// not yet ended, by their parent run and the tool call that started each
// (the family key), so that a
// checkpoint can keep them; and, after a resume, the ones to continue.
type family struct {
	mu     sync.Mutex
	open   map[string]*Run
	paused map[string]PausedRun
	// spoke names the agents that made a model call in the query, and
	// closed those that had their last turn; see Run.lastWord. spoke is
	// backed by few while the query has few agents.
	spoke, closed []string
	few           [2]string
	// attempts counts the model call attempts of the query in flight,
	// which its end waits for.
	attempts inflight
	// live holds the sub-agent runs started and not yet ended.
	live []*Run
	// unpriced says a model call of the query under a cost limit had no
	// price, and that it was told; see Run.priced.
	unpriced atomic.Bool
}

// started notes a sub-agent run started.
func (f *family) started(c *Run) {
	f.mu.Lock()
	f.live = append(f.live, c)
	f.mu.Unlock()
}

// stopped forgets a sub-agent run that ended.
func (f *family) stopped(c *Run) {
	f.mu.Lock()
	if i := slices.Index(f.live, c); i >= 0 {
		f.live = slices.Delete(f.live, i, i+1)
	}
	f.mu.Unlock()
}

// endLive records the end of the sub-agent runs still going whose agent
// match accepts, with err.
func (f *family) endLive(ctx context.Context, match func(*Run) bool, err error) {
	f.mu.Lock()
	var runs []*Run
	for _, c := range f.live {
		if match(c) {
			runs = append(runs, c)
		}
	}
	f.mu.Unlock()
	for _, c := range runs {
		c.End(ctx, err)
	}
}

// EndChildren records the end, with err, of the query's sub-agent runs
// still going whose agents are named in names, or of all of them when
// names is empty: those agents failed with err, which no hook of the
// runtime reports, and the query may go on without them (a supervisor an
// agent hands back to after failing). A root run started with
// StartOptions.Held leaves its sub-agent runs to this; another root's End
// ends them itself.
func (r *Run) EndChildren(ctx context.Context, err error, names ...string) {
	r.family.endLive(ctx, func(c *Run) bool {
		return c != r && (len(names) == 0 || slices.Contains(names, c.agentName))
	}, err)
}

// inflight counts calls in flight, and lets one wait for none to be.
type inflight struct {
	n    atomic.Int64
	mu   sync.Mutex
	idle chan struct{} // made by a waiter, closed when n drops to zero
	// waiting is set by a waiter before it reads n, so that the call
	// that brings n to zero takes the lock only when someone may wait:
	// either the waiter reads n after the drop, or that call reads
	// waiting after the waiter set it.
	waiting atomic.Bool
}

func (f *inflight) add() { f.n.Add(1) }

func (f *inflight) done() {
	if f.n.Add(-1) != 0 || !f.waiting.Load() {
		return
	}
	f.mu.Lock()
	if f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
	f.mu.Unlock()
}

// wait returns once no call is in flight, after d, or when ctx ends.
func (f *inflight) wait(ctx context.Context, d time.Duration) {
	f.mu.Lock()
	f.waiting.Store(true)
	if f.n.Load() <= 0 {
		f.mu.Unlock()
		return
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
}

// spoken notes that agent name made a model call in the query.
func (f *family) spoken(name string) {
	f.mu.Lock()
	if f.spoke == nil {
		f.spoke = f.few[:0]
	}
	if !slices.Contains(f.spoke, name) {
		f.spoke = append(f.spoke, name)
	}
	f.mu.Unlock()
}

// hasSpoken reports whether agent name made a model call in the query.
func (f *family) hasSpoken(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.spoke, name)
}

// closeTurns notes that agent name has had its last turn, reporting
// false when it had it already.
func (f *family) closeTurns(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if slices.Contains(f.closed, name) {
		return false
	}
	f.closed = append(f.closed, name)
	return true
}

func (f *family) opened(r *Run) {
	if f == nil || r.familyKey == "" {
		return
	}
	f.mu.Lock()
	if f.open == nil {
		f.open = map[string]*Run{}
	}
	f.open[r.familyKey] = r
	f.mu.Unlock()
}

func (f *family) ended(r *Run) {
	if f == nil || r.familyKey == "" {
		return
	}
	f.mu.Lock()
	if f.open[r.familyKey] == r {
		delete(f.open, r.familyKey)
	}
	f.mu.Unlock()
}

func (f *family) resume(key string) (PausedRun, bool) {
	if f == nil || key == "" {
		return PausedRun{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.paused[key]
	delete(f.paused, key)
	return p, ok
}

// pausedChildren returns the recordings of the sub-agent runs not yet
// ended, by family key, for a checkpoint.
func (r *Run) pausedChildren() map[string]PausedRun {
	r.family.mu.Lock()
	defer r.family.mu.Unlock()
	if len(r.family.open) == 0 {
		return nil
	}
	out := make(map[string]PausedRun, len(r.family.open))
	for id, c := range r.family.open {
		out[id] = PausedRun{RunID: c.trace.rec.ID(), Next: c.trace.rec.Next(), Usage: c.trace.usage.load(), Calls: c.pausedCalls()}
	}
	return out
}

// endChildOf records the end of the open sub-agent run that call callID
// of run runID started, if there is one, with err: a sub-agent that fails
// passes no hook that would record its end, and its error reaches the
// tool call of the parent that started it. The key is built only while a
// sub-agent is open.
func (f *family) endChildOf(ctx context.Context, runID, callID string, err error) {
	f.mu.Lock()
	var c *Run
	if len(f.open) > 0 {
		c = f.open[runID+"/"+callID]
	}
	f.mu.Unlock()
	if c != nil {
		c.End(ctx, err)
	}
}

// pausedCalls returns the ids of the run's calls that an interrupt paused
// after their tool_started was written, for a checkpoint.
func (r *Run) pausedCalls() []string {
	r.trace.pausedMu.Lock()
	defer r.trace.pausedMu.Unlock()
	return slices.Clone(r.trace.paused)
}

// setPausedCalls sets the calls of a resumed run that an interrupt paused,
// from its checkpoint: the runtime runs them again, and their
// tool_started, which the recording has, is not written again.
func (r *Run) setPausedCalls(ids []string) {
	r.trace.pausedMu.Lock()
	r.trace.paused = slices.Clone(ids)
	r.trace.hasPaused.Store(len(ids) > 0)
	r.trace.pausedMu.Unlock()
}

// pause remembers call id, paused by an interrupt after its tool_started
// was written.
func (r *Run) pause(id string) {
	r.trace.pausedMu.Lock()
	r.trace.paused = append(r.trace.paused, id)
	r.trace.hasPaused.Store(true)
	r.trace.pausedMu.Unlock()
}

// unpause forgets call id, reporting whether it was paused.
func (r *Run) unpause(id string) bool {
	r.trace.pausedMu.Lock()
	defer r.trace.pausedMu.Unlock()
	i := slices.Index(r.trace.paused, id)
	if i < 0 {
		return false
	}
	r.trace.paused = slices.Delete(r.trace.paused, i, i+1)
	r.trace.hasPaused.Store(len(r.trace.paused) > 0)
	return true
}
