package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/slab"
)

// Trace records one run's trajectory. Each record gets the next seq of the
// run, from 0 with no gaps; a lost record keeps its seq, so a gap in a
// stored trajectory marks a lost record (and Dropped counts it).
//
// A Trace is safe for concurrent use: concurrent calls are serialized, and
// each record is queued before the next seq is handed out, so the sink
// receives the run's records in seq order. A nil *Trace ignores every
// call, so recording can be switched off by passing nil.
type Trace struct {
	// Set when the run starts and read by the Recorder's goroutine for
	// every record it writes: kept off the cache line of mu and next,
	// which every emit writes, so that the goroutine's reads do not take
	// that line from the emitting core.
	rec    *Recorder
	id     string
	parent string
	depth  int
	// env is the run's envelope in a MemorySink the Recorder writes to
	// directly, set and read by the Recorder's goroutine only.
	env *envelope
	_   [64]byte

	mu      sync.Mutex
	next    uint64
	dropped atomic.Uint64
	slabs   payloadSlabs
	// pending are the run's records waiting, in seq order, for room in
	// a full queue; see Trace.await.
	pending []*pendingItem
}

// pendingItem is a record waiting for room in a full queue, until fewer
// than limit records are queued. done is closed once it is in the queue
// (queued) or given up. fares is the record's admission, read from its
// payload before it can be queued: once written, a payload may be reused
// (see payloadPool).
type pendingItem struct {
	it     item
	limit  int
	fares  admission
	queued bool
	done   chan struct{}
}

// payloadSlabs hold the payloads a run's typed methods record, a few
// allocated at a time: the records of a model and tool call then cost
// a fraction of an allocation each rather than one.
type payloadSlabs struct {
	request   slab.Slab[ModelRequest]
	response  slab.Slab[ModelResponse]
	started   slab.Slab[ToolStarted]
	ended     slab.Slab[ToolEnded]
	budget    slab.Slab[BudgetRecord]
	assessed  slab.Slab[AssessmentRecord]
	extension slab.Slab[Extension]
}

// ID returns the run's id.
func (r *Trace) ID() string {
	if r == nil {
		return ""
	}
	return r.id
}

// ParentID returns the id of the run that started this one, or "".
func (r *Trace) ParentID() string {
	if r == nil {
		return ""
	}
	return r.parent
}

// Depth returns 0 for a top-level run and parent depth + 1 for a child.
func (r *Trace) Depth() int {
	if r == nil {
		return 0
	}
	return r.depth
}

// Next returns the seq the run's next record will get, which is also how
// many records the run has stamped so far (for a run that was not resumed).
func (r *Trace) Next() uint64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Dropped returns how many of this run's records were lost, under either
// policy. A loss on the Recorder's goroutine is counted when it happens, so
// call Recorder.Flush first for an exact count of what was emitted.
func (r *Trace) Dropped() uint64 {
	if r == nil {
		return 0
	}
	return r.dropped.Load()
}

// StartChild begins a run started by this one (a sub-agent): its parent id
// is r's id and its depth r's depth + 1, whatever info says. It has its
// own seq from 0.
func (r *Trace) StartChild(ctx context.Context, info RunInfo) (*Trace, error) {
	if r == nil {
		return nil, nil
	}
	info.ParentRunID = r.id
	info.Depth = r.depth + 1
	return r.rec.StartRun(ctx, info)
}

// Message records a user or system message.
func (r *Trace) Message(ctx context.Context, m *schema.Message) error {
	return r.emit(ctx, &Message{Message: m}, true)
}

// MessageFrom records a message of a model call's input that came from
// origin.
func (r *Trace) MessageFrom(ctx context.Context, m *schema.Message, origin Origin) error {
	return r.emit(ctx, &Message{Message: m, Origin: origin}, true)
}

// ModelRequest records a model call as it is sent.
func (r *Trace) ModelRequest(ctx context.Context, p ModelRequest) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, fresh(&r.rec.pool, &r.rec.pool.request, &r.slabs.request, &p), true)
}

// ModelResponse records a model call's answer.
func (r *Trace) ModelResponse(ctx context.Context, p ModelResponse) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, fresh(&r.rec.pool, &r.rec.pool.response, &r.slabs.response, &p), true)
}

// ToolStarted records a tool call about to run.
func (r *Trace) ToolStarted(ctx context.Context, p ToolStarted) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, fresh(&r.rec.pool, &r.rec.pool.started, &r.slabs.started, &p), true)
}

// ToolEnded records a tool call's result.
func (r *Trace) ToolEnded(ctx context.Context, p ToolEnded) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, fresh(&r.rec.pool, &r.rec.pool.ended, &r.slabs.ended, &p), true)
}

// Assessment records the observations shown to the model.
func (r *Trace) Assessment(ctx context.Context, p AssessmentRecord) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, fresh(&r.rec.pool, &r.rec.pool.assessed, &r.slabs.assessed, &p), true)
}

// Budget records a budget charge or a limit being exceeded.
func (r *Trace) Budget(ctx context.Context, p BudgetRecord) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, fresh(&r.rec.pool, &r.rec.pool.budget, &r.slabs.budget, &p), true)
}

// Extension records a user-defined record. body must be valid JSON (or
// empty) nesting at most MaxBodyDepth levels; otherwise nothing is written
// and an error wrapping ErrEncode is returned, whatever the policy.
func (r *Trace) Extension(ctx context.Context, name string, body json.RawMessage) error {
	if len(body) > 0 && !validJSON(body) {
		return fmt.Errorf("%w: extension %q body is not valid JSON", ErrEncode, name)
	}
	if tooDeep(body) {
		return fmt.Errorf("%w: extension %q body nests deeper than %d levels", ErrEncode, name, MaxBodyDepth)
	}
	if r == nil {
		return nil
	}
	return r.emit(ctx, r.slabs.extension.New(&Extension{Name: name, Body: body}), true)
}

// End records the run_ended record. It is queued even when ctx is already
// cancelled (a cancelled run still deserves its last record), and, like
// run_started, even when the queue is full: it never waits and is never
// shed (see Options.QueueSize). The sink gets ctx's values.
func (r *Trace) End(ctx context.Context, p RunEnded) error {
	return r.emit(ctx, &p, true)
}

// Emit records any payload, including *Unknown for kinds of your own
// making. The typed methods are shorthands for it. The payload is not
// edited: truncation and redaction work on copies.
func (r *Trace) Emit(ctx context.Context, p Payload) error {
	return r.emit(ctx, p, false)
}
