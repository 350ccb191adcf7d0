package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
	"github.com/google/uuid"

	"github.com/lookout-go/lookout/internal/slab"
)

// LossPolicy decides what a lost record does to the run. The zero LossPolicy is
// Drop. It is a plain value and safe for concurrent use.
//
// A record is lost when the sink's Write fails (or panics), when the queue
// is full, when a Redactor or the Clock panics, when it holds JSON nested
// too deeply, or when it is emitted after Close. Under both policies a
// lost record keeps its seq, so it leaves a gap, and is counted in Dropped.
type LossPolicy int

const (
	// Drop reports every lost record to Options.OnError and goes on: the
	// Trace methods return nil. It is the default.
	Drop LossPolicy = iota
	// Escalate keeps the first lost record's *SinkError, which wraps
	// ErrSinkFailed and the cause: Recorder.Err returns it, and so does
	// every Trace method from then on, so the run can end itself. Records
	// emitted after it are still queued and written; losses after the
	// first go to Options.OnError.
	Escalate
)

// DefaultMaxFieldBytes is the default cut-off for tool arguments and
// results.
const DefaultMaxFieldBytes = 4 << 10

// Defaults of Options.
const (
	DefaultQueueSize    = 2048
	DefaultBlockTimeout = 250 * time.Millisecond
	DefaultWriteTimeout = 5 * time.Second
)

// Options configure a Recorder. A nil *Options means the defaults, and so
// does the zero value of every field. New reads it once; changing it
// afterwards has no effect.
type Options struct {
	// Policy is what a lost record does: Drop (default) or Escalate.
	Policy LossPolicy

	// OnError receives lost records (a *SinkError each) and other
	// failures of the recorder that the caller does not get back. Nil logs
	// them with log/slog at warning level. It may be called from many
	// goroutines at once, the Recorder's own included, so it must not call
	// the Recorder's Flush or Close.
	OnError func(ctx context.Context, err error)

	// QueueSize is how many records may wait for the sink. Zero means
	// DefaultQueueSize.
	QueueSize int

	// Block makes an emit that finds the queue full wait for room, until
	// its ctx ends or BlockTimeout passes, whichever comes first; then the
	// record is lost. By default a full queue loses the record at once
	// (with ErrQueueFull), so the agent is never slowed by its sink.
	Block bool

	// BlockTimeout bounds the wait for room under Block, and the wait of
	// Trace.End, which always waits for room. Zero means
	// DefaultBlockTimeout.
	BlockTimeout time.Duration

	// WriteTimeout bounds every call of the sink's Write, Flush and Close:
	// their ctx ends after it. Zero means DefaultWriteTimeout. The calls
	// of a MemorySink or a FileSink, which never wait on a ctx, are not
	// timed.
	WriteTimeout time.Duration

	// Clock stamps RecordedAt. The default is the wall time at New moved
	// on by the monotonic clock: time.Now, but for a step of the wall
	// clock while the Recorder lives. Should it panic, the record is lost
	// with an error wrapping ErrClockPanicked.
	Clock func() time.Time

	// NewRunID makes ids for runs started without one. The default makes
	// random (version 4) UUIDs.
	NewRunID func() string

	// MaxFieldBytes cuts tool arguments and results longer than this many
	// bytes (at a UTF-8 boundary), keeping their full size and a truncated
	// flag. Zero means DefaultMaxFieldBytes; a negative value keeps them
	// whole.
	MaxFieldBytes int

	// Redactors run, in order, on every free-text field of every record
	// before the sink sees it. They run after the built-in Secrets
	// redactor.
	Redactors []Redactor

	// KeepSecrets turns off the built-in Secrets redactor. Redactors still
	// run.
	KeepSecrets bool

	// MaxMediaBytes is the largest image or audio file a record keeps
	// inline: in a tool result's parts, or as base64 data in a message's
	// multimodal input. A larger one is kept by reference only: its
	// SHA-256 and size (and its URL, when it had one), not its bytes.
	// Zero means DefaultMediaInlineBytes; a negative value keeps every
	// file inline.
	MaxMediaBytes int
}

// Recorder stamps records with their run's next seq and time, redacts
// them on the caller's goroutine, and queues them for one goroutine of its
// own, which hands them to the sink in queue order. Records of one run
// reach the sink in seq order; the caller never waits for the sink (see
// Options.Block for the one bounded exception).
//
// Call Close when done: it writes out the queue, closes the sink and stops
// the goroutine. Records still queued when the program exits without it
// are lost.
//
// A Recorder is safe for concurrent use. Create it with New; the zero
// Recorder, like one with a nil sink, discards every record, uses the
// default options and starts no goroutine.
type Recorder struct {
	sink      Sink
	policy    LossPolicy
	onError   func(context.Context, error)
	clock     func() time.Time
	epoch     time.Time // when New ran, on both clocks: see stamp
	epochSec  int64     // epoch's Unix time, in seconds
	epochNsec int64     // and nanoseconds within the second
	newRunID  func() string
	maxField  int
	maxMedia  int
	redaction redaction
	dropped   atomic.Uint64
	failure   atomic.Pointer[SinkError] // the first loss, under Escalate

	proc *processor // nil: records are discarded
}

// New returns a Recorder writing to sink and starts its goroutine; Close
// stops it. A nil sink discards records (and starts nothing); a nil opts
// means the defaults.
func New(sink Sink, opts *Options) *Recorder {
	if opts == nil {
		opts = &Options{}
	}
	r := &Recorder{
		sink:     sink,
		policy:   opts.Policy,
		onError:  opts.OnError,
		clock:    opts.Clock,
		epoch:    time.Now(),
		newRunID: opts.NewRunID,
		maxField: opts.MaxFieldBytes,
		maxMedia: opts.MaxMediaBytes,
	}
	r.epochSec, r.epochNsec = r.epoch.Unix(), int64(r.epoch.Nanosecond())
	if r.maxMedia == 0 {
		r.maxMedia = DefaultMediaInlineBytes
	}
	r.redaction = redaction{secrets: !opts.KeepSecrets, others: slices.Clone(opts.Redactors), lastScan: new(scanMemo)}
	if r.maxField == 0 {
		r.maxField = DefaultMaxFieldBytes
	}
	if sink != nil {
		r.proc = newProcessor(r, opts)
	}
	return r
}

// Dropped returns how many records were lost, over all runs, under either
// policy: failed or panicking writes, a full queue, failed redaction or
// stamping, and records emitted after Close.
func (r *Recorder) Dropped() uint64 {
	if r == nil {
		return 0
	}
	return r.dropped.Load()
}

// Err returns the first lost record's *SinkError under the Escalate
// policy, and nil until then or under Drop. Losses happen on the
// Recorder's goroutine too, so call it after Flush to learn of those of
// the last records.
func (r *Recorder) Err() error {
	if r == nil {
		return nil
	}
	if se := r.failure.Load(); se != nil {
		return se
	}
	return nil
}

// RunInfo identifies a run and describes how it starts. The zero RunInfo
// starts a top-level run with a generated id and no limits.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type RunInfo struct {
	RunID       string // empty: a new id from Options.NewRunID
	ParentRunID string // the run that started this one, if any
	Depth       int    // 0 for a top-level run
	AgentName   string
	// AgentVersion and AgentModel describe the agent (RunStarted).
	AgentVersion string
	AgentModel   string
	// ConversationID and Turn place the run in its conversation; see
	// RunStarted.
	ConversationID string
	Turn           int
	// ParentToolCallID names the parent's tool call that started a child
	// run; see RunStarted.
	ParentToolCallID string
	Limits           RunLimits
	Thresholds       *Thresholds // the Resource observer's, if the run has one
	Metadata         map[string]string
}

// StartRun begins a run and queues its run_started record. It always
// returns a usable *Trace; the error is nil under the Drop policy and,
// under Escalate, the Recorder's first loss if there was one (see Err).
func (r *Recorder) StartRun(ctx context.Context, info RunInfo) (*Trace, error) {
	id := info.RunID
	if id == "" {
		id = r.runID()
	}
	run := &Trace{rec: r, id: id, parent: info.ParentRunID, depth: info.Depth}
	err := run.emit(ctx, &RunStarted{
		AgentName: info.AgentName, AgentVersion: info.AgentVersion, AgentModel: info.AgentModel,
		ConversationID: info.ConversationID, Turn: info.Turn, ParentToolCallID: info.ParentToolCallID,
		Limits: info.Limits, Thresholds: info.Thresholds, Metadata: info.Metadata,
	}, true)
	return run, err
}

// ResumeRun continues a run recorded earlier, for example after an agent
// resumes from a checkpoint: records get seqs from next on, and no
// run_started record is written. Store Run.ID and Run.Next to resume.
// An empty info.RunID gets a new id, as in StartRun.
func (r *Recorder) ResumeRun(info RunInfo, next uint64) *Trace {
	id := info.RunID
	if id == "" {
		id = r.runID()
	}
	return &Trace{rec: r, id: id, parent: info.ParentRunID, depth: info.Depth, next: next}
}

func (r *Recorder) runID() string {
	if r.newRunID != nil {
		return r.newRunID()
	}
	return uuid.NewString()
}

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
	_      [64]byte

	mu      sync.Mutex
	next    uint64
	dropped atomic.Uint64
	slabs   payloadSlabs
	// pending are the run's records waiting, in seq order, for room in
	// a full queue; see Trace.await.
	pending []*pendingItem
}

// pendingItem is a record waiting for room in a full queue. done is
// closed once it is in the queue (queued) or given up.
type pendingItem struct {
	it     item
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

// ModelRequest records a model call as it is sent.
func (r *Trace) ModelRequest(ctx context.Context, p ModelRequest) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, r.slabs.request.New(&p), true)
}

// ModelResponse records a model call's answer.
func (r *Trace) ModelResponse(ctx context.Context, p ModelResponse) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, r.slabs.response.New(&p), true)
}

// ToolStarted records a tool call about to run.
func (r *Trace) ToolStarted(ctx context.Context, p ToolStarted) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, r.slabs.started.New(&p), true)
}

// ToolEnded records a tool call's result.
func (r *Trace) ToolEnded(ctx context.Context, p ToolEnded) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, r.slabs.ended.New(&p), true)
}

// Assessment records the observations shown to the model.
func (r *Trace) Assessment(ctx context.Context, p AssessmentRecord) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, r.slabs.assessed.New(&p), true)
}

// Budget records a budget charge or a limit being exceeded.
func (r *Trace) Budget(ctx context.Context, p BudgetRecord) error {
	if r == nil {
		return nil
	}
	return r.emit(ctx, r.slabs.budget.New(&p), true)
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

// MaxBodyDepth is how many levels of arrays and objects the JSON a caller
// hands over whole may nest: an extension body, an *Unknown payload and a
// tool definition's parameter schema. encoding/json, and so every reader
// of this package, stops at 10,000 levels for a whole record, which wraps
// these values in a few levels of its own; the margin also leaves room for
// formats that nest them deeper still, such as ATIF. The recorder does not
// write a record holding deeper JSON: Run.Extension returns an error, and
// other calls fail the record under the Policy, as a failed write does.
const MaxBodyDepth = 9000

// tooDeep reports whether the arrays and objects of the JSON text b nest
// deeper than MaxBodyDepth.
func tooDeep(b []byte) bool {
	if len(b) <= MaxBodyDepth {
		return false // each level takes at least one byte
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > MaxBodyDepth {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// checkDepth returns an error wrapping ErrEncode when p holds JSON that
// nests deeper than MaxBodyDepth. owned says p came from a typed method
// that has checked it already.
func checkDepth(p Payload, owned bool) error {
	var deep string
	switch t := p.(type) {
	case *Extension:
		if !owned && tooDeep(t.Body) {
			deep = "extension body"
		}
	case *Unknown:
		if tooDeep(t.Body) {
			deep = "payload"
		}
	case *ModelRequest:
		for _, d := range t.ToolDefinitions {
			if tooDeep(d.Parameters) {
				deep = fmt.Sprintf("parameters of tool %q", d.Name)
				break
			}
		}
	default:
		return nil
	}
	if deep == "" {
		return nil
	}
	return fmt.Errorf("%w: %s nests deeper than %d levels", ErrEncode, deep, MaxBodyDepth)
}

// End records the run_ended record. It is queued even when ctx is already
// cancelled (a cancelled run still deserves its last record): when the
// queue is full End waits for room for up to Options.BlockTimeout, whatever
// ctx and Options.Block say. The sink gets ctx's values.
func (r *Trace) End(ctx context.Context, p RunEnded) error {
	return r.emitWait(ctx, &p, true, waitIgnoringCtx)
}

// Emit records any payload, including *Unknown for kinds of your own
// making. The typed methods are shorthands for it. The payload is not
// edited: truncation and redaction work on copies.
func (r *Trace) Emit(ctx context.Context, p Payload) error {
	return r.emit(ctx, p, false)
}

func (r *Trace) emit(ctx context.Context, p Payload, owned bool) error {
	return r.emitWait(ctx, p, owned, waitIfBlocking)
}

func (r *Trace) emitWait(ctx context.Context, p Payload, owned bool, wait waitMode) error {
	// A payload a typed method made is never nil.
	if r == nil || !owned && IsNilPayload(p) {
		return nil
	}
	rec := r.rec
	kind := p.Kind()
	p, err := rec.safePrepare(p, owned)
	proc := rec.proc
	r.mu.Lock()
	seq := r.next
	r.next++
	// A record whose redaction failed still uses up its seq, so that, as
	// for failed writes, every lost record leaves a gap.
	var waiting *pendingItem
	if err == nil && proc != nil {
		// The item is copied into the queue's slice, which is reused from
		// batch to batch: no allocation.
		// The seq is assigned and the item queued, or put behind the
		// run's records waiting for room, under the run's lock, so the
		// run's records enter the queue, and leave it, in seq order.
		it := item{run: r, ctx: ctx, seq: seq}
		it.at, err = rec.stamp()
		if err == nil {
			it.payload = p
			waiting, err = r.queue(proc, &it, wait)
		}
	}
	r.mu.Unlock()
	if waiting != nil {
		// The wait for room holds no lock: the run's other emits wait
		// their own turn, each for BlockTimeout or its ctx at most.
		err = r.await(ctx, proc, waiting, wait)
	}
	if err != nil {
		return rec.failed(ctx, r, &SinkError{RunID: r.id, Seq: seq, Kind: kind, Err: err})
	}
	return rec.Err()
}

// queue copies *it into the queue when there is room and no record of the
// run is waiting for it; r.mu is held. Otherwise it returns the record
// put behind those waiting, for await, or ErrQueueFull when the emit may
// not wait (Options.Block unset).
func (r *Trace) queue(proc *processor, it *item, wait waitMode) (*pendingItem, error) {
	if len(r.pending) == 0 {
		if ok, err := proc.tryPush(it); ok || err != nil {
			return nil, err
		}
	}
	if wait == waitIfBlocking && !proc.block {
		return nil, ErrQueueFull
	}
	w := &pendingItem{it: *it, done: make(chan struct{})}
	r.pending = append(r.pending, w)
	return w, nil
}

// await waits for w to be in the queue, for BlockTimeout at most, and
// until ctx ends unless wait is waitIgnoringCtx. Whichever emit of the run
// finds room moves the run's waiting records into the queue, in seq
// order; one that gives up leaves its record out, a gap in the seqs.
func (r *Trace) await(ctx context.Context, proc *processor, w *pendingItem, wait waitMode) error {
	var done <-chan struct{}
	if wait == waitIfBlocking {
		done = ctx.Done()
	}
	timer := time.NewTimer(proc.blockTimeout)
	defer timer.Stop()
	// Counted before looking for room: the goroutine frees a slot, then
	// reads waiters; either it sees this waiter, or this waiter sees the slot.
	proc.waiters.Add(1)
	defer proc.waiters.Add(-1)
	for {
		r.mu.Lock()
		err := r.pushPending(proc)
		if w.queued {
			r.mu.Unlock()
			return nil
		}
		if err != nil {
			r.giveUp(w)
			r.mu.Unlock()
			return err
		}
		r.mu.Unlock()
		var why error
		select {
		case <-w.done:
			continue
		case <-proc.room:
			continue
		case <-proc.closing:
			why = ErrClosed
		case <-done:
			why = fmt.Errorf("%w: %w", ErrQueueFull, ctx.Err())
		case <-timer.C:
			why = fmt.Errorf("%w after waiting %v", ErrQueueFull, proc.blockTimeout)
		}
		r.mu.Lock()
		queued := w.queued
		if !queued {
			r.giveUp(w)
		}
		r.mu.Unlock()
		if queued {
			return nil
		}
		return why
	}
}

// pushPending moves the run's waiting records into the queue, in seq
// order, while it has room; r.mu is held.
func (r *Trace) pushPending(proc *processor) error {
	for len(r.pending) > 0 {
		w := r.pending[0]
		ok, err := proc.tryPush(&w.it)
		if err != nil || !ok {
			return err
		}
		w.queued = true
		close(w.done)
		r.pending[0] = nil
		r.pending = r.pending[1:]
	}
	return nil
}

// giveUp takes w out of the run's waiting records; r.mu is held.
func (r *Trace) giveUp(w *pendingItem) {
	for i, x := range r.pending {
		if x == w {
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			close(w.done)
			return
		}
	}
}

// safePrepare is prepare, turning a panicking Redactor into an error: the
// record is then dropped rather than written unredacted. It also fails a
// record holding JSON nested too deeply for a reader to read back.
func (r *Recorder) safePrepare(p Payload, owned bool) (out Payload, err error) {
	if _, ok := p.(*BudgetRecord); ok {
		// Counts and names only: nothing to cut, redact or check.
		return p, nil
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrRedactorPanicked, v)
		}
	}()
	return r.prepare(p, owned)
}

// stamp returns the time to stamp a record with. It runs under a run's
// lock, so a panicking Clock becomes an error wrapping ErrClockPanicked
// rather than leaving the run locked.
//
// Without a Clock, the stamp is the wall time New read, moved on by the
// monotonic time since: one clock reading rather than time.Now's two. It
// drifts from the wall clock only when the wall clock is stepped while
// the Recorder lives, and never goes back. It is made from its Unix time,
// as time.Unix makes times, so it carries no monotonic reading of its own.
func (r *Recorder) stamp() (t time.Time, err error) {
	if r.clock == nil {
		if r.epoch.IsZero() {
			return time.Now(), nil
		}
		return time.Unix(r.epochSec, r.epochNsec+int64(time.Since(r.epoch))), nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrClockPanicked, v)
		}
	}()
	return r.clock(), nil
}

// failed counts a lost record and applies the policy. It returns what the
// Trace method returns.
func (r *Recorder) failed(ctx context.Context, run *Trace, se *SinkError) error {
	r.dropped.Add(1)
	run.dropped.Add(1)
	if r.policy == Escalate && r.failure.CompareAndSwap(nil, se) {
		return se
	}
	r.report(ctx, se)
	return r.Err()
}

// report hands err to the error handler.
func (r *Recorder) report(ctx context.Context, err error) {
	if r.onError != nil {
		r.onError(ctx, err)
		return
	}
	if se, ok := err.(*SinkError); ok {
		slog.WarnContext(ctx, "lookout recorder: record dropped", "run_id", se.RunID, "seq", se.Seq, "kind", string(se.Kind), "err", se.Err)
		return
	}
	slog.WarnContext(ctx, "lookout recorder: sink error", "err", err)
}

// prepare fills in sizes, truncates long tool fields, keeps large media
// by reference and redacts text. When owned is false p belongs to the
// caller and is copied, not edited. It fails a payload holding JSON nested
// too deeply for a reader to read back.
func (r *Recorder) prepare(p Payload, owned bool) (Payload, error) {
	rs := &r.redaction
	switch t := p.(type) {
	case *ToolStarted:
		return r.prepareToolStarted(t, owned), nil
	case *ToolEnded:
		return r.prepareToolEnded(t, owned), nil
	case *ModelResponse:
		if rs.none() {
			return t, nil
		}
		return rs.modelResponse(t), nil
	case *ModelRequest:
		if !rs.none() {
			t = rs.modelRequest(t)
		}
		return t, checkDepth(t, owned)
	}
	// The kinds a run records once or now and then.
	p = capMedia(p, r.maxMedia)
	if !rs.none() {
		p = rs.payload(p)
	}
	return p, checkDepth(p, owned)
}

// fieldLimit is the cut-off for tool arguments and results, or a negative
// value for none.
func (r *Recorder) fieldLimit() int {
	if r.maxField == 0 {
		return DefaultMaxFieldBytes
	}
	return r.maxField
}

// prepareToolStarted is prepare for a tool_started payload.
func (r *Recorder) prepareToolStarted(t *ToolStarted, owned bool) *ToolStarted {
	limit := r.fieldLimit()
	full := max(t.ArgumentsBytes, len(t.Arguments))
	over := limit > 0 && len(t.Arguments) > limit
	if over || t.ArgumentsBytes != full {
		if !owned {
			c := *t
			t = &c
		}
		t.ArgumentsBytes = full
		if over {
			// cut redacts the arguments, the only free text here.
			t.Arguments = r.cut(t.Arguments, limit)
			t.ArgumentsTruncated = true
			return t
		}
	}
	if r.redaction.none() {
		return t
	}
	return r.redaction.toolStarted(t)
}

// prepareToolEnded is prepare for a tool_ended payload.
func (r *Recorder) prepareToolEnded(t *ToolEnded, owned bool) *ToolEnded {
	if len(t.Parts) > 0 {
		t = capMedia(t, r.maxMedia).(*ToolEnded)
	}
	limit := r.fieldLimit()
	full := max(t.ResultBytes, len(t.Result))
	over := limit > 0 && (len(t.Result) > limit || partsOver(t.Parts, limit))
	if over || t.ResultBytes != full {
		if !owned {
			c := *t
			t = &c
		}
		t.ResultBytes = full
		if over {
			// cut redacts the result; scanning it again would be
			// wasted work, so only the error is left to redact.
			t.Result = r.cut(t.Result, limit)
			t.Truncated = true
			t.Error = r.redaction.text(t.Error)
			t.Parts = r.cutParts(t.Parts, limit)
			return t
		}
	}
	if r.redaction.none() {
		return t
	}
	return r.redaction.toolEnded(t)
}

// redactMargin is how much text past the cut-off is redacted along with
// the kept part, so a secret straddling the cut is still recognised.
const redactMargin = 256

// cut redacts and truncates s to at most limit bytes at a UTF-8 boundary.
func (r *Recorder) cut(s string, limit int) string {
	if len(s) > limit+redactMargin {
		// At a rune boundary too: redaction may shorten the text enough
		// for all of it to be kept.
		s = s[:runeStart(s, limit+redactMargin)]
	}
	s = r.redaction.text(s)
	if len(s) <= limit {
		return s
	}
	return s[:runeStart(s, limit)]
}

// runeStart returns the start of the rune holding byte i of s, so that
// s[:runeStart(s, i)] is s cut to at most i bytes at a rune boundary. In
// invalid UTF-8, where no rune starts within a rune's length of i, it
// returns i.
func runeStart(s string, i int) int {
	for j := i; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	return i
}
