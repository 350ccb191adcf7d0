package recorder

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/lookout-go/lookout/internal/recordhook"
)

func init() { recordhook.EmitExtension = emitCodeWritten }

// emitCodeWritten is recordhook.EmitExtension: an extension whose body
// has no text to redact is queued as it is, without being prepared.
func emitCodeWritten(ctx context.Context, trace, ext any, from, to int) error {
	r, e := trace.(*Trace), ext.(*Extension)
	if r == nil {
		return nil
	}
	if !r.rec.redaction.cleanBut(e.Body, from, to) {
		return r.emit(ctx, e, false)
	}
	return r.enqueue(ctx, e, e, nil)
}

func (r *Trace) emit(ctx context.Context, p Payload, owned bool) error {
	// A payload a typed method made is never nil.
	if r == nil || !owned && IsNilPayload(p) {
		return nil
	}
	if !owned && r.rec.pool.on {
		p, owned = r.own(p)
	}
	prepared, err := r.rec.safePrepare(p, owned)
	return r.enqueue(ctx, p, prepared, err)
}

// enqueue assigns the next seq to the payload p, as prepared, and queues
// it, or reports err, the failure of its preparation, under that seq.
// The kind of a lost record is read from p only then.
func (r *Trace) enqueue(ctx context.Context, p, prepared Payload, err error) error {
	rec := r.rec
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
			it.payload = prepared
			fares := admissionOf(prepared)
			var ok bool
			if len(r.pending) == 0 {
				ok, err = proc.tryPush(&it, proc.limit(fares))
			}
			if !ok && err == nil {
				waiting, err = r.queue(proc, &it, fares)
			}
		}
	}
	r.mu.Unlock()
	if waiting != nil {
		// The wait for room holds no lock: the run's other emits wait
		// their own turn, each for BlockTimeout or its ctx at most.
		err = r.await(ctx, proc, waiting)
	}
	if err != nil {
		return rec.failed(ctx, r, &SinkError{RunID: r.id, Seq: seq, Kind: p.Kind(), Err: err})
	}
	return rec.Err()
}

// queue is for a record that found no room in the queue, or records of
// its run waiting for room; r.mu is held. It returns the record put
// behind those waiting, for await, or the refusal when the emit may not
// wait (Options.Block unset). A run's start or end never waits: it goes
// into the queue at once, behind the run's waiting records, which go in
// with it.
func (r *Trace) queue(proc *processor, it *item, fares admission) (*pendingItem, error) {
	if fares == framing {
		if err := r.pushPending(proc, math.MaxInt); err != nil {
			return nil, err
		}
		_, err := proc.tryPush(it, math.MaxInt)
		return nil, err
	}
	if !proc.block {
		return nil, refusal(fares)
	}
	w := &pendingItem{it: *it, limit: proc.limit(fares), fares: fares, done: make(chan struct{})}
	r.pending = append(r.pending, w)
	return w, nil
}

// await waits for w to be in the queue, for BlockTimeout at most, and
// until ctx ends. Whichever emit of the run finds room moves the run's
// waiting records into the queue, in seq order; one that gives up leaves
// its record out, a gap in the seqs.
func (r *Trace) await(ctx context.Context, proc *processor, w *pendingItem) error {
	done := ctx.Done()
	timer := time.NewTimer(proc.blockTimeout)
	defer timer.Stop()
	// Counted before looking for room: the goroutine frees a slot, then
	// reads waiters; either it sees this waiter, or this waiter sees the slot.
	proc.waiters.Add(1)
	defer proc.waiters.Add(-1)
	for {
		r.mu.Lock()
		err := r.pushPending(proc, 0)
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
			why = fmt.Errorf("%w after waiting %v", refusal(w.fares), proc.blockTimeout)
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
// order, while each finds room below its limit, or below limit if that
// is larger; r.mu is held.
func (r *Trace) pushPending(proc *processor, limit int) error {
	for len(r.pending) > 0 {
		w := r.pending[0]
		ok, err := proc.tryPush(&w.it, max(w.limit, limit))
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

// stamp returns the time to stamp a record with. It runs under a run's
// lock, so a panicking Clock becomes an error wrapping ErrClockPanicked
// rather than leaving the run locked.
//
// Without a Clock, the stamp is the wall time New read, moved on by the
// monotonic time since: one clock reading rather than time.Now's two. It
// drifts from the wall clock only when the wall clock is stepped while
// the Recorder lives, and never goes back. It is made from its Unix time,
// as time.Unix makes times, so it carries no monotonic reading of its own.
func (r *Recorder) stamp() (time.Time, error) {
	if r.clock == nil && !r.epoch.IsZero() {
		return time.Unix(r.epochSec, r.epochNsec+int64(time.Since(r.epoch))), nil
	}
	return r.clockStamp()
}

// clockStamp is stamp with a Clock, or without the wall time New read.
func (r *Recorder) clockStamp() (t time.Time, err error) {
	if r.clock == nil {
		return time.Now(), nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrClockPanicked, v)
		}
	}()
	return r.clock(), nil
}
