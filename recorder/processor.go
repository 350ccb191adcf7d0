package recorder

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lookout-go/lookout/internal/endwait"
	"github.com/lookout-go/lookout/internal/stack"
)

// processor is a Recorder's queue and the one goroutine that empties it
// into the sink, in the manner of OpenTelemetry's BatchSpanProcessor:
// emitting never waits for the sink, a full queue loses and counts the
// record unless blocking was asked for, and every sink call gets a
// context that ends.
//
// The queue is a slice that emitters append to under mu, held only for
// the append. The goroutine swaps it for an empty one and writes the
// batch it took without the lock, so a burst of records costs each
// emitter one short lock, and the goroutine one lock per batch. An
// emitter wakes the goroutine only when it is parked, or lingering with
// the queue half full: a wake-up per record would cost the emitter more
// than everything else it does.
//
// Emitters waiting for room (Options.Block) behind this package's sinks
// take turns with the goroutine: it lets the queue fill before taking it,
// and frees the room once it has written the whole of it. The emitter that
// finds the queue full wakes the goroutine and parks; the scheduler runs
// the goroutine it woke on the same core, and the goroutine, done, wakes
// the emitter and parks in turn. Each record is then written from the
// cache of the core that recorded it. Run side by side on two cores, the
// two would each wait on the other's cache for the records' memory: up to
// half as much CPU again per record on a 2-CPU machine, in the same wall
// time. See takingTurns for a goroutine that does not keep up.
//
// QueueSize bounds the records queued and not yet taken for writing: those
// waiting in the slice plus those of the batch in hand that the goroutine
// has not yet begun to write (taking). A record leaves the queue as its
// write begins, as it did when the queue was a channel. Records of the
// kinds shed first are refused past 3/4 of it, and a run's start and end
// are admitted past it (see admission).
type processor struct {
	rec          *Recorder
	sink         Sink
	block        bool
	untimed      bool        // the sink never waits on a ctx and gets the caller's: see newProcessor
	direct       *MemorySink // the sink, if it takes records without a ctx
	file         *FileSink   // the sink, if it is a FileSink: see writeFile
	settles      flushedSink // the sink, if it is one of this package's: see settled
	blockTimeout time.Duration
	size         int // Options.QueueSize
	shed         int // queued records past which those shed first are refused
	half         int // queued records past which a lingering goroutine is woken
	wakeAt       int // the same for this linger: half, or size while taking turns

	mu        sync.Mutex
	queue     []item       // waiting records and flush requests, in emit order
	batchLen  int          // taking as last read, or the batch's len when taken: never less than taking
	parked    bool         // the goroutine waits for wake with an empty queue
	lingering bool         // the goroutine lets records gather before it takes them
	flushing  bool         // a flush request waits in the queue: no lingering
	closed    bool         // Close began: no more items are taken
	reply     flushRequest // empty, left by a Flush that had its answer, for the next one
	// flushTimer, stopped, is left by a Flush bounded by an
	// endwait.Context for the next one.
	flushTimer *time.Timer

	wake    chan struct{} // cap 1: wakes the goroutine when it is parked or lingering
	room    chan struct{} // cap 1: wakes an emitter waiting for room
	closing chan struct{} // closed once closed is set: no emitter can queue any more
	exited  chan struct{} // closed when the goroutine returns
	once    sync.Once

	// The goroutine writes taking for every record, and every emitter
	// reads waiters: each has a cache line of its own, off that of mu,
	// which every emitter writes. Sharing one, an emitter's read of
	// waiters would take from the goroutine's core the line it writes
	// next, once a record each.
	_        [64]byte
	taking   atomic.Int64 // records of the batch in hand not yet begun
	roomStep int64        // records begun between wake-ups of an emitter waiting for room
	_        [48]byte
	waiters  atomic.Int64 // emitters waiting for room
	_        [56]byte

	// Owned by the goroutine; closeErr is set before exited closes.
	wctx     writeCtx
	out      Record    // the record being written, made from its item
	spare    []item    // the last batch written, emptied, to take the next one into
	drainAt  time.Time // when the goroutine, woken, began to take the queue
	written  []Payload // payloads going back to the pool: see giveBack
	lost     int       // records dropped unwritten after a Close gave up
	closeErr error
}

// item is one entry of the queue: a record to write, or a flush request.
// It holds only what differs from one record to the next, 72 bytes where
// a Record and its ctx take 128: the goroutine makes the Record from it
// and its run. Emitting copies an item into the queue, so the smaller it
// is, the less memory a run's records pass through (and, in a queue new
// to a process, the fewer pages it touches for the first time).
type item struct {
	run     *Trace          // nil for a flush request
	payload Payload         // the record's payload, or a flushRequest
	ctx     context.Context // the emitting ctx, for its values only
	seq     uint64
	at      time.Time
}

// flushRequest is the payload of a flush request: the buffered channel
// its answer goes to. It never reaches a sink.
type flushRequest chan error

func (flushRequest) Kind() Kind { return "" }

func newProcessor(rec *Recorder, opts *Options) *processor {
	p := &processor{
		rec:          rec,
		sink:         rec.sink,
		block:        opts.Block,
		blockTimeout: opts.BlockTimeout,
		wake:         make(chan struct{}, 1),
		room:         make(chan struct{}, 1),
		closing:      make(chan struct{}),
		exited:       make(chan struct{}),
	}
	if p.blockTimeout <= 0 {
		p.blockTimeout = DefaultBlockTimeout
	}
	// The package's own sinks, by their type: a type of the caller's that
	// embeds one has a Write of its own.
	switch s := rec.sink.(type) {
	case *MemorySink:
		// It neither looks at a ctx nor can panic: writeDirect is Write
		// without the ctx, which spares the recovery of a panic per
		// record.
		p.direct, p.untimed, p.settles = s, true, s
	case *FileSink:
		// It never waits on a ctx: it only hands the ctx of Write, Flush
		// and Close to its OnError, without its cancellation.
		p.file, p.untimed, p.settles = s, true, s
	}
	p.size = opts.QueueSize
	if p.size <= 0 {
		p.size = DefaultQueueSize
	}
	p.half = p.size / 2
	steps := roomSteps
	if p.untimed {
		steps = ownSinkRoomSteps
	}
	p.roomStep = int64(max(1, p.size/steps))
	p.shed = max(1, p.size*shedAt/4)
	// The queue starts small and grows, up to QueueSize, as far as the
	// records waiting at once need: a run whose records the goroutine
	// keeps up with never touches the memory a whole queue would take,
	// and the collector never scans it.
	p.queue = make([]item, 0, min(p.size, initialQueue))
	p.wctx.timeout = opts.WriteTimeout
	if p.wctx.timeout <= 0 {
		p.wctx.timeout = DefaultWriteTimeout
	}
	p.wctx.base = rec.epoch
	go p.loop()
	return p
}

// tryPush copies *it into the queue if fewer than limit records are
// queued, reporting whether it did, or ErrClosed.
func (p *processor) tryPush(it *item, limit int) (bool, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false, ErrClosed
	}
	if !p.hasRoom(limit) {
		p.mu.Unlock()
		p.signal() // a lingering goroutine would leave the queue full
		return false, nil
	}
	wake := p.push(it)
	more := p.waiters.Load() > 0 && p.hasRoom(p.size)
	p.mu.Unlock()
	if wake {
		p.signal()
	}
	if more {
		p.signalRoom() // the goroutine's one wake-up may have been meant for several
	}
	return true, nil
}

// hasRoom reports whether fewer than limit records are queued; p.mu is
// held. The records of the batch in hand not yet begun are counted as
// many as when last read, in batchLen, never fewer than there are:
// taking, which the goroutine writes for every record, is read only when
// that count leaves no room, and the count is kept. A queue kept full,
// whose emitters find room as the goroutine makes it, then costs them a
// read of taking per wake-up rather than one per record, each of which
// would take from the goroutine's core the line it writes next.
func (p *processor) hasRoom(limit int) bool {
	n := len(p.queue)
	if n+p.batchLen < limit {
		return true
	}
	p.batchLen = int(p.taking.Load())
	return n+p.batchLen < limit
}

// push appends *it to the queue and reports whether the goroutine must be
// woken; p.mu is held.
func (p *processor) push(it *item) (wake bool) {
	p.queue = append(p.queue, *it) // grows, up to p.size, as records wait
	switch {
	case p.parked:
		p.parked = false
		return true
	case p.lingering && len(p.queue) >= p.wakeAt:
		p.lingering = false
		return true
	}
	return false
}

// Flush returns once every record queued before the call has been handed
// to the sink and the sink has been flushed (see the package's Flush), with
// the sink's Flush error; or with ctx's error if ctx ends first; or
// ErrClosed after Close. The zero Recorder, and a nil one, return nil at once.
//
// Flush waits for a sink that is slow; the write in progress and the
// flush itself are bounded by Options.WriteTimeout.
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil || r.proc == nil {
		return nil
	}
	p := r.proc
	if p.settled() && ctx.Err() == nil {
		return nil
	}
	var timeout <-chan time.Time
	if b, ok := ctx.(*endwait.Context); ok {
		// A query's end, which bounds its wait without a ctx of its own.
		ctx = b.Context
		t := p.timer(b.Within)
		defer p.keepTimer(t)
		timeout = t.C
	}
	done, err := p.request(ctx)
	if err != nil {
		return err
	}
	select {
	case err := <-done:
		// The channel is empty again and no one else holds it.
		p.mu.Lock()
		p.reply = done
		p.mu.Unlock()
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout:
		return context.DeadlineExceeded
	}
}

// settled reports whether a Flush has nothing to wait for: the goroutine
// is parked with an empty queue, so that every record queued so far was
// handed to the sink, and the sink, one of this package's, says that a
// Flush would do nothing (see flushedSink). A Flush after the Flush of a
// query's end, as a program makes before it exits, then costs neither
// goroutine a wake-up.
func (p *processor) settled() bool {
	if p.settles == nil {
		return false
	}
	p.mu.Lock()
	idle := p.parked && len(p.queue) == 0 && !p.closed
	p.mu.Unlock()
	return idle && p.settles.flushed()
}

// flushedSink is implemented by this package's sinks, and used for them
// alone, by their type (a type of the caller's that embeds one has a
// Flush of its own): flushed reports
// whether a Flush now would return nil having nothing to do, for it
// flushed whatever was written before.
type flushedSink interface{ flushed() bool }

// timer returns a timer that fires after d: the one a Flush left, or a
// new one.
func (p *processor) timer(d time.Duration) *time.Timer {
	p.mu.Lock()
	t := p.flushTimer
	p.flushTimer = nil
	p.mu.Unlock()
	if t == nil {
		return time.NewTimer(d)
	}
	t.Reset(d)
	return t
}

// keepTimer stops t and keeps it for the next Flush.
func (p *processor) keepTimer(t *time.Timer) {
	t.Stop()
	p.mu.Lock()
	p.flushTimer = t
	p.mu.Unlock()
}

// request queues a request to flush for a Flush called with ctx and wakes
// the goroutine whatever it is doing. It returns the channel the answer
// comes on. A request is not a record: it does not wait for room, so a
// full queue never holds up a Flush that is waiting for it anyway.
func (p *processor) request(ctx context.Context) (flushRequest, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	done := p.reply
	if done == nil {
		done = make(flushRequest, 1)
	}
	p.reply = nil
	p.queue = append(p.queue, item{ctx: ctx, payload: done})
	p.parked, p.lingering, p.flushing = false, false, true
	p.mu.Unlock()
	p.signal()
	return done, nil
}

func (p *processor) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *processor) signalRoom() {
	select {
	case p.room <- struct{}{}:
	default:
	}
}

// Close stops taking records, hands every queued record to the sink,
// closes the sink (see the package's Close) and stops the Recorder's
// goroutine. It returns the sink's error from that.
//
// If ctx ends first, Close returns ctx's error and gives up: the sink call
// in progress sees its ctx end, the records still queued are dropped
// unwritten (and counted), the sink is closed with an ended ctx, and the
// goroutine exits as soon as the sink returns. Close is idempotent: a
// later call waits for the same shutdown and returns its result, which
// for a shutdown given up on wraps the ctx error that ended it.
//
// After Close, emitted records are lost and counted, as for a full queue,
// with ErrClosed. The zero Recorder, and a nil one, return nil at once.
func (r *Recorder) Close(ctx context.Context) error {
	if r == nil || r.proc == nil {
		return nil
	}
	p := r.proc
	p.once.Do(func() {
		// Emitters queue under mu, so once closed is set none can queue
		// more; closing then wakes the goroutine and blocked emitters.
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		close(p.closing)
	})
	// A shutdown that is over gives its result, whatever the state of ctx.
	select {
	case <-p.exited:
		return p.closeErr
	default:
	}
	select {
	case <-p.exited:
		return p.closeErr
	case <-ctx.Done():
		p.wctx.abort(ctx.Err())
		return ctx.Err()
	}
}

// roomSteps is how many times an emitter waiting for room is woken while
// the goroutine writes a full queue to a sink of the caller's, which may
// take its time over each record: a waiting emitter then sees room well
// within BlockTimeout.
//
// This package's sinks take a record in a fraction of a microsecond (a
// FileSink waits only to write out its buffer, once every few hundred
// records), and an emitter kept waiting by them is one that records
// faster than they write: it takes turns with the goroutine (see
// processor), and is woken once the goroutine has written all it took.
// Should the goroutine take longer than turnTime over that, as behind a
// slow disk, the emitter is woken ownSinkRoomSteps times a queue, once a
// quarter of it is free, as for a sink of the caller's.
const (
	roomSteps        = 32
	ownSinkRoomSteps = 4
)

// turnTime is how long emitters waiting for room behind this package's
// sinks wait for the goroutine to write all it took before it frees room
// as it goes: writing a full queue takes a millisecond or less when the
// file's writes do not wait for the disk, and BlockTimeout bounds the wait.
const turnTime = 5 * time.Millisecond

// lingerTime is how long the goroutine, woken by a record, lets more
// gather before it takes them: one wake-up then serves a batch.
const lingerTime = time.Millisecond

func (p *processor) loop() {
	if p.direct == nil {
		// A MemorySink takes little stack; others encode and write,
		// which takes 8 KiB.
		stack.Grow[[4 << 10]byte]()
	}
	defer close(p.exited)
	defer p.wctx.stop()
	timer := time.NewTimer(lingerTime)
	timer.Stop()
	for {
		p.drainAt = time.Now()
		p.drain()
		p.idle()
		// Emitters that waited for room behind this package's sinks have
		// it only now (see begin): woken once the goroutine parks, they
		// run on its core.
		turns := p.untimed && p.waiters.Load() > 0
		if turns {
			p.signalRoom()
		}
		if p.wait(timer, turns) {
			p.drain()
			p.shutdown()
			return
		}
	}
}

// wait parks the goroutine until an emit wakes it, then lingers, unless
// the queue is already half full or holds a flush request; a flush
// request, a half-full queue or Close cuts the linger short. Taking turns
// with emitters waiting for room, it lingers until the queue is full. It
// reports whether Close has begun.
func (p *processor) wait(timer *time.Timer, turns bool) (closed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return true
	}
	if len(p.queue) == 0 {
		// An emitter that queues while parked is set clears it and wakes us.
		p.parked = true
		p.mu.Unlock()
		select {
		case <-p.wake:
		case <-p.closing:
		}
		p.mu.Lock()
		p.parked = false
	}
	p.wakeAt = p.half
	if turns {
		p.wakeAt = p.size
	}
	if len(p.queue) < p.wakeAt && !p.closed && !p.flushing {
		p.lingering = true
		p.mu.Unlock()
		timer.Reset(lingerTime)
		select {
		case <-timer.C:
		case <-p.wake:
		case <-p.closing:
		}
		timer.Stop()
		p.mu.Lock()
		p.lingering = false
	}
	return false
}

// drain takes the queue a batch at a time and handles every item in it,
// until it finds the queue empty.
func (p *processor) drain() {
	for {
		batch := p.take()
		if batch == nil {
			return
		}
		for i := 0; i < len(batch); i++ {
			// The records this package's sinks take a run of them
			// under one lock; the rest one by one.
			n := p.writeRun(batch[i:])
			if p.rec.pool.on {
				p.giveBack(batch[i : i+n])
			}
			if i += n; i == len(batch) {
				break
			}
			p.begin()
			p.handle(&batch[i])
		}
		// Let go of what the callers handed over before the slice is reused.
		clear(batch)
		p.out = Record{}
		p.spare = batch[:0]
	}
}

// giveBack puts the payloads of items, written by a FileSink, back in
// the Recorder's pool, which takes those of the kinds it keeps.
func (p *processor) giveBack(items []item) {
	written := p.written[:0]
	for i := range items {
		written = append(written, items[i].payload)
	}
	if len(written) > 0 {
		p.rec.pool.give(written)
	}
	clear(written)
	p.written = written[:0]
}

// begin takes a record out of the queue as its write begins. It wakes an
// emitter waiting for room once every roomStep records, and when the
// batch in hand is all begun: an emitter woken for every record would
// take one slot and wait again, a wake-up of each goroutine per record,
// or, waiting for a kind shed first, find no room below its limit yet.
// Emitters taking turns with the goroutine are woken after the batch
// instead (see loop).
func (p *processor) begin() {
	if left := p.taking.Add(-1); p.waiters.Load() > 0 && left%p.roomStep == 0 && !p.takingTurns() {
		p.signalRoom()
	}
}

// takingTurns reports whether emitters waiting for room are left to wait
// until the goroutine has written all it took (see processor): behind
// this package's sinks, for turnTime after it began to take the queue.
func (p *processor) takingTurns() bool {
	return p.untimed && time.Since(p.drainAt) < turnTime
}

// writeRun writes the records at the head of items to a sink of this
// package's, a run of them under one lock of the sink, and returns how
// many it wrote, leaving the rest to handle.
func (p *processor) writeRun(items []item) int {
	switch {
	case p.direct != nil:
		return p.writeDirect(items)
	case p.file != nil:
		return p.writeFile(items)
	}
	return 0
}

// writeFile encodes the records at the head of items into the FileSink,
// under one lock of the sink, and returns how many it wrote: it stops at
// a flush request and at a record the sink fails or panics on, and
// writes none once the sink is closed or has failed, or a Close gave up,
// leaving those to handle, which reports them as it reports any write's
// failure. Each record is the one handle would make and write, and
// leaves the queue once written.
func (p *processor) writeFile(items []item) (n int) {
	s := p.file
	s.mu.Lock()
	defer s.mu.Unlock()
	// A panic, of a caller's Payload, say, leaves the record at n to
	// handle, whose write recovers it again.
	defer func() { _ = recover() }()
	if s.closed || s.failure != nil {
		return 0
	}
	for ; n < len(items); n++ {
		it := &items[n]
		if it.run == nil || p.wctx.aborted() {
			return n
		}
		if err := s.write(it.ctx, p.record(it)); err != nil {
			return n
		}
		p.begin()
	}
	return n
}

// writeDirect appends the records at the head of items to the
// MemorySink, under one lock of the sink, and returns how many it
// wrote: it stops at a flush request, and writes none once the sink is
// closed or a Close gave up, leaving those to handle. Each record is the
// one handle would make and write, and leaves the queue as its write
// begins, as with handle.
func (p *processor) writeDirect(items []item) int {
	m := p.direct
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0
	}
	chunk := m.open()
	for i := range items {
		it := &items[i]
		if it.run == nil || p.wctx.aborted() {
			return i
		}
		p.begin()
		env := it.run.env
		if env == nil {
			// Once per run: the run's envelope, shared by its records.
			env = m.envelopeOf(p.record(it))
			it.run.env = env
		}
		chunk = m.put(chunk, it.seq, it.at, it.payload, env)
	}
	return len(items)
}

// initialQueue is the room a new queue has; it grows as records wait.
const initialQueue = 64

// take returns the queued items, nil when there are none, and puts the
// spare slice in the queue's place: on the first take, a new one with
// the room the queue had grown to. An empty queue stays, rather than
// leave emitters to grow a queue from nothing.
func (p *processor) take() []item {
	p.mu.Lock()
	defer p.mu.Unlock()
	batch := p.queue
	p.batchLen = len(batch)
	p.flushing = false
	p.taking.Store(int64(len(batch)))
	if len(batch) == 0 {
		return nil
	}
	if p.spare == nil {
		p.spare = make([]item, 0, cap(batch))
	}
	p.queue, p.spare = p.spare, nil
	return batch
}

// handle writes it to the sink, or answers it if it is a flush request.
func (p *processor) handle(it *item) {
	switch {
	case it.run == nil:
		it.payload.(flushRequest) <- p.flush(it.ctx)
	case p.wctx.aborted():
		p.rec.dropped.Add(1)
		it.run.dropped.Add(1)
		p.lost++
	default:
		rec := p.record(it)
		if err := p.write(it.ctx, rec); err != nil {
			ctx := background(it.ctx)
			p.rec.failed(ctx, it.run, &SinkError{RunID: rec.RunID, Seq: rec.Seq, Kind: rec.Payload.Kind(), Err: err})
		}
	}
}

// write hands rec, emitted with ctx, to the sink.
func (p *processor) write(ctx context.Context, rec *Record) error {
	switch {
	case p.direct != nil:
		return p.direct.writeDirect(rec)
	case p.untimed:
		return safeWrite(ctx, p.sink, rec)
	}
	p.wctx.begin(ctx)
	err := safeWrite(&p.wctx, p.sink, rec)
	p.wctx.end()
	return err
}

// flush flushes the sink for a Flush called with ctx.
func (p *processor) flush(ctx context.Context) error {
	switch {
	case p.wctx.aborted():
		return ErrClosed
	case p.untimed:
		return safeFlush(ctx, p.sink)
	}
	p.wctx.begin(ctx)
	err := safeFlush(&p.wctx, p.sink)
	p.wctx.end()
	return err
}

// record makes, in p.out, the Record that it and its run describe.
func (p *processor) record(it *item) *Record {
	r := &p.out
	r.SchemaVersion = SchemaVersion
	r.Seq = it.seq
	r.RunID = it.run.id
	r.ParentRunID = it.run.parent
	r.Depth = it.run.depth
	r.RecordedAt = it.at
	r.Payload = it.payload
	return r
}

// idle tells a sink that buffers, when it can take a hint, that the queue
// ran empty, so it can write out what it holds (see FileSink).
func (p *processor) idle() {
	if s, ok := p.sink.(idler); ok && !p.wctx.aborted() {
		s.idle()
	}
}

// idler is implemented by this package's sinks that buffer.
type idler interface{ idle() }

func (p *processor) shutdown() {
	var errs []error
	if cause := p.wctx.cause(); cause != nil {
		errs = append(errs, fmt.Errorf("recorder: close gave up: %w", cause))
	}
	if p.lost > 0 {
		err := fmt.Errorf("%w: %d queued records dropped unwritten when close gave up", ErrSinkFailed, p.lost)
		p.rec.report(context.Background(), err)
		errs = append(errs, err)
	}
	if err := p.close(); err != nil {
		errs = append(errs, err)
	}
	p.closeErr = errors.Join(errs...)
}

// close closes the sink.
func (p *processor) close() error {
	if p.untimed {
		return safeClose(context.Background(), p.sink)
	}
	p.wctx.begin(context.Background())
	err := safeClose(&p.wctx, p.sink)
	p.wctx.end()
	return err
}

// background returns ctx without its cancellation, for an error handler
// that runs after the emit returned.
func background(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return context.WithoutCancel(ctx)
}

func safeFlush(ctx context.Context, s Sink) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrSinkPanicked, v)
		}
	}()
	return Flush(ctx, s)
}

func safeClose(ctx context.Context, s Sink) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrSinkPanicked, v)
		}
	}()
	return Close(ctx, s)
}
