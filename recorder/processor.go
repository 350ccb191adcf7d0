package recorder

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// processor is a Recorder's queue and the one goroutine that empties it
// into the sink, in the manner of OpenTelemetry's BatchSpanProcessor:
// emitting never waits for the sink, a full queue loses and counts the
// record unless blocking was asked for, and every sink call gets a
// context that ends.
type processor struct {
	rec          *Recorder
	sink         Sink
	block        bool
	blockTimeout time.Duration

	queue   chan item
	half    int           // len(queue) past which a lingering goroutine is woken
	wake    chan struct{} // cap 1: wakes the goroutine when it is parked or lingering
	parked  atomic.Bool   // the goroutine waits for wake with an empty queue
	linger  atomic.Bool   // the goroutine lets records gather before it drains them
	mu      sync.RWMutex  // emitters hold it for reading while they queue; Close takes it to fence them
	closing chan struct{} // closed when Close begins: no more items are taken
	stop    chan struct{} // closed once no emitter is between its check and its send
	exited  chan struct{} // closed when the goroutine returns
	once    sync.Once

	// Owned by the goroutine; closeErr is set before exited closes.
	wctx     writeCtx
	cur      item
	lost     int // records dropped unwritten after a Close gave up
	closeErr error
}

// item is one entry of the queue: a record to write, or a flush request.
type item struct {
	rec   Record
	ctx   context.Context // the emitting ctx, for its values only
	run   *Trace
	flush chan error // non-nil for a flush request; buffered
}

// waitMode says how long an emit waits for room in a full queue.
type waitMode int

const (
	waitIfBlocking  waitMode = iota // for BlockTimeout or until ctx ends, under Options.Block only
	waitIgnoringCtx                 // for BlockTimeout, whatever ctx and Options.Block say (run_ended)
)

func newProcessor(rec *Recorder, opts *Options) *processor {
	p := &processor{
		rec:          rec,
		sink:         rec.sink,
		block:        opts.Block,
		blockTimeout: opts.BlockTimeout,
		closing:      make(chan struct{}),
		stop:         make(chan struct{}),
		exited:       make(chan struct{}),
	}
	if p.blockTimeout <= 0 {
		p.blockTimeout = DefaultBlockTimeout
	}
	size := opts.QueueSize
	if size <= 0 {
		size = DefaultQueueSize
	}
	p.queue = make(chan item, size)
	p.half = size / 2
	p.wake = make(chan struct{}, 1)
	p.wctx.timeout = opts.WriteTimeout
	if p.wctx.timeout <= 0 {
		p.wctx.timeout = DefaultWriteTimeout
	}
	p.wctx.done = make(chan struct{})
	p.wctx.timer = time.AfterFunc(math.MaxInt64, p.wctx.expire)
	p.wctx.timer.Stop()
	go p.loop()
	return p
}

// enqueue copies *it into the queue. A free slot takes it whatever the
// state of ctx; a full queue loses it at once, or after a wait bounded by
// blockTimeout (and ctx, unless wait is waitIgnoringCtx).
func (p *processor) enqueue(ctx context.Context, it *item, wait waitMode) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	select {
	case <-p.closing:
		return ErrClosed
	default:
	}
	select {
	case p.queue <- *it:
		p.poke()
		return nil
	default:
	}
	p.nudge() // a lingering goroutine would leave the queue full
	if wait == waitIfBlocking && !p.block {
		return ErrQueueFull
	}
	var done <-chan struct{}
	if wait == waitIfBlocking {
		done = ctx.Done()
	}
	timer := time.NewTimer(p.blockTimeout)
	defer timer.Stop()
	select {
	case p.queue <- *it:
		p.poke()
		return nil
	case <-p.closing:
		return ErrClosed
	case <-done:
		return fmt.Errorf("%w: %w", ErrQueueFull, ctx.Err())
	case <-timer.C:
		return fmt.Errorf("%w after waiting %v", ErrQueueFull, p.blockTimeout)
	}
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
	done := make(chan error, 1)
	if err := p.request(ctx, item{ctx: ctx, flush: done}); err != nil {
		return err
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// request queues a flush request, waiting for room until ctx ends.
func (p *processor) request(ctx context.Context, it item) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	select {
	case <-p.closing:
		return ErrClosed
	default:
	}
	select {
	case p.queue <- it:
		p.nudge()
		return nil
	case <-p.closing:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// poke wakes the goroutine after an emit when it is parked with an empty
// queue, or lingering with the queue half full. Otherwise it costs an
// atomic load or two: waking a goroutine for every record would cost the
// emitter more than everything else it does.
func (p *processor) poke() {
	if p.parked.Load() {
		if p.parked.CompareAndSwap(true, false) {
			p.signal()
		}
	} else if p.linger.Load() && len(p.queue) >= p.half {
		p.signal()
	}
}

// nudge wakes the goroutine whatever it is doing, for a flush request or a
// full queue.
func (p *processor) nudge() {
	p.parked.Store(false)
	p.signal()
}

func (p *processor) signal() {
	select {
	case p.wake <- struct{}{}:
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
		close(p.closing)
		// Wait for emitters that are between their check and their send;
		// none can wait long, since closing wakes blocked ones.
		p.mu.Lock()
		close(p.stop)
		p.mu.Unlock()
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

// lingerTime is how long the goroutine, woken by a record, lets more
// gather before it drains them: one wake-up then serves a batch.
const lingerTime = time.Millisecond

func (p *processor) loop() {
	defer close(p.exited)
	defer p.wctx.timer.Stop()
	timer := time.NewTimer(lingerTime)
	timer.Stop()
	for {
		p.drain()
		p.idle()
		// Park until an emit finds the queue empty and wakes us. A record
		// queued between the drain and parked being set is seen by the
		// length check, or its emitter sees parked and wakes us.
		p.parked.Store(true)
		if len(p.queue) == 0 {
			select {
			case <-p.wake:
			case <-p.stop:
				p.parked.Store(false)
				p.drain()
				p.shutdown()
				return
			}
		}
		p.parked.Store(false)
		// Linger, unless the queue is already half full; a flush request,
		// a half-full queue or Close cuts it short.
		p.linger.Store(true)
		if len(p.queue) < p.half {
			timer.Reset(lingerTime)
			select {
			case <-timer.C:
			case <-p.wake:
			case <-p.stop:
			}
			timer.Stop()
		}
		p.linger.Store(false)
	}
}

// drain handles every item already queued, without waiting.
func (p *processor) drain() {
	for {
		select {
		case p.cur = <-p.queue:
			p.handle()
		default:
			return
		}
	}
}

// handle writes p.cur to the sink, or answers it if it is a flush request.
func (p *processor) handle() {
	it := &p.cur
	switch {
	case it.flush != nil:
		var err error
		if p.wctx.aborted() {
			err = ErrClosed
		} else {
			p.wctx.begin(it.ctx)
			err = safeFlush(&p.wctx, p.sink)
			p.wctx.end()
		}
		it.flush <- err
	case p.wctx.aborted():
		p.rec.dropped.Add(1)
		it.run.dropped.Add(1)
		p.lost++
	default:
		p.wctx.begin(it.ctx)
		err := safeWrite(&p.wctx, p.sink, &it.rec)
		p.wctx.end()
		if err != nil {
			ctx := background(it.ctx)
			p.rec.failed(ctx, it.run, &SinkError{RunID: it.rec.RunID, Seq: it.rec.Seq, Kind: it.rec.Payload.Kind(), Err: err})
		}
	}
	// Let go of what the caller handed over; the strings are overwritten
	// by the next item.
	it.rec.Payload, it.ctx, it.run, it.flush = nil, nil, nil, nil
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
	p.wctx.begin(context.Background())
	if err := safeClose(&p.wctx, p.sink); err != nil {
		errs = append(errs, err)
	}
	p.wctx.end()
	p.closeErr = errors.Join(errs...)
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

// writeCtx is the context of every sink call. The goroutine reuses one for
// all its calls, so a write allocates nothing. It carries the values of
// the ctx the record was emitted with, ends after the write timeout, and
// ends for good when a Close gives up. Sinks must not keep it after the
// call returns (see Sink).
type writeCtx struct {
	values  context.Context // goroutine-owned
	timeout time.Duration
	timer   *time.Timer // runs expire

	mu       sync.Mutex
	done     chan struct{}
	err      error
	deadline time.Time
	active   bool
	gaveUp   atomic.Bool
	why      error // why Close gave up
}

func (c *writeCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline, c.active
}

func (c *writeCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

func (c *writeCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *writeCtx) Value(key any) any {
	if c.values == nil {
		return nil
	}
	return c.values.Value(key)
}

func (c *writeCtx) String() string { return "recorder.writeCtx" }

// begin starts a sink call carrying the values of values.
func (c *writeCtx) begin(values context.Context) {
	c.values = values
	c.mu.Lock()
	c.deadline = time.Now().Add(c.timeout)
	c.active = true
	c.mu.Unlock()
	c.timer.Reset(c.timeout)
}

// end finishes a sink call. A call that timed out leaves the channel
// closed; the next call gets a fresh one, unless Close gave up.
func (c *writeCtx) end() {
	c.values = nil
	c.timer.Stop()
	c.mu.Lock()
	c.active = false
	c.deadline = time.Time{}
	if c.err != nil && !c.gaveUp.Load() {
		c.done = make(chan struct{})
		c.err = nil
	}
	c.mu.Unlock()
}

// expire ends the call in progress if its deadline has passed. A timer
// that fires late, after its call ended, finds no call or a later deadline
// and does nothing.
func (c *writeCtx) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active && c.err == nil && !time.Now().Before(c.deadline) {
		c.err = context.DeadlineExceeded
		close(c.done)
	}
}

// abort ends the call in progress and every later one, with cause.
func (c *writeCtx) abort(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gaveUp.Load() {
		return
	}
	c.why = cause
	c.gaveUp.Store(true)
	if c.err == nil {
		close(c.done)
	}
	c.err = context.Canceled
}

func (c *writeCtx) aborted() bool { return c.gaveUp.Load() }

func (c *writeCtx) cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}
