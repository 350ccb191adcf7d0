package recorder

import (
	"context"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lookout-go/lookout/internal/uid"
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
	// DefaultQueueSize. Under pressure the records other records carry
	// too are shed first: past 3/4 of QueueSize, budget charges,
	// tool_started and assessment records are refused, and the rest once
	// QueueSize records wait. A run's run_started and run_ended are never
	// refused: they enter the queue at once, past QueueSize if need be
	// (two records per run at most), without waiting.
	QueueSize int

	// Block makes an emit that finds no room wait for it, until its ctx
	// ends or BlockTimeout passes, whichever comes first; then the record
	// is lost. By default a record that finds no room is lost at once
	// (with ErrQueueFull), so the agent is never slowed by its sink.
	// Behind a FileSink or a MemorySink, emitters that wait take turns
	// with the Recorder's goroutine, which lets the queue fill and frees
	// it whole once written, unless writing it takes more than a few
	// milliseconds.
	Block bool

	// BlockTimeout bounds the wait for room under Block. Zero means
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
	pool      payloadPool               // on for a FileSink

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
	r.redaction = redaction{secrets: !opts.KeepSecrets, others: slices.Clone(opts.Redactors), lastScan: new(scanMemo), lastCalls: new(callsMemo)}
	if r.maxField == 0 {
		r.maxField = DefaultMaxFieldBytes
	}
	if sink != nil {
		r.proc = newProcessor(r, opts)
		r.pool.on, r.pool.most = r.proc.file != nil, r.proc.size
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
	return uid.New()
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
