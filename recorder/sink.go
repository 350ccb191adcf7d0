package recorder

import (
	"context"
	"errors"
	"fmt"
)

// Sink receives records. It is where records go; when and how they are
// stamped, redacted, queued and ordered is the Recorder's business.
//
// A Recorder calls its sink's Write, Flush and Close from one goroutine
// that it owns, one call at a time, in queue order, so the records of a
// run arrive in seq order. A sink
//
//   - must honour ctx: every call's ctx ends (after Options.WriteTimeout,
//     or when Recorder.Close gives up), and a call that outlives it holds
//     up the queue and, past Close's deadline, the Recorder's goroutine;
//   - must not keep r, or ctx, after Write returns (copy the Record value
//     if it needs keeping; the payload it points to is immutable and may
//     be kept): the Recorder reuses both;
//   - may be slow: a slow Write delays the queue, not the agent, until the
//     queue is full and records are lost (see Options.Block);
//   - must not call back into the Recorder (Flush or Close would wait for
//     the very goroutine that is calling the sink).
//
// A Sink used by one Recorder need not be safe for concurrent use; one
// shared by several Recorders, or called directly too, must be. The sinks
// of this package are.
//
// A sink that buffers implements Flusher; one that holds resources
// implements Closer. Both are checked at run time, like http.Flusher.
type Sink interface {
	Write(ctx context.Context, r *Record) error
}

// Flusher is implemented by sinks that buffer. Flush returns once every
// record written before the call is handed to the underlying storage, or
// with ctx's error if ctx ends first. Calling it again is harmless.
// Implementations must be safe for concurrent use.
type Flusher interface {
	Flush(ctx context.Context) error
}

// Closer is implemented by sinks that hold resources. Close flushes and
// releases them; afterwards Write and Flush return ErrClosed. Close is
// idempotent and returns ctx's error if ctx ends before it is done.
// Implementations must be safe for concurrent use.
type Closer interface {
	Close(ctx context.Context) error
}

// Flush flushes s if it is a Flusher, and does nothing otherwise.
func Flush(ctx context.Context, s Sink) error {
	if f, ok := s.(Flusher); ok {
		return f.Flush(ctx)
	}
	return nil
}

// Close closes s if it is a Closer, flushes it if it is only a Flusher,
// and does nothing otherwise.
func Close(ctx context.Context, s Sink) error {
	if c, ok := s.(Closer); ok {
		return c.Close(ctx)
	}
	return Flush(ctx, s)
}

// FanOut returns a sink that writes each record to every one of sinks in
// order. A sink that fails (or panics) does not stop the others; their
// errors are joined with errors.Join. The returned sink is a Flusher and a
// Closer that forward to those of sinks that are. It is safe for
// concurrent use when sinks are.
func FanOut(sinks ...Sink) Sink {
	return fanOut(append([]Sink(nil), sinks...))
}

type fanOut []Sink

func (f fanOut) Write(ctx context.Context, r *Record) error {
	var errs []error
	for _, s := range f {
		if err := safeWrite(ctx, s, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (f fanOut) Flush(ctx context.Context) error {
	var errs []error
	for _, s := range f {
		if err := Flush(ctx, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (f fanOut) idle() {
	for _, s := range f {
		if i, ok := s.(idler); ok {
			i.idle()
		}
	}
}

func (f fanOut) Close(ctx context.Context) error {
	var errs []error
	for _, s := range f {
		if err := Close(ctx, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// safeWrite calls s.Write and turns a panic into an error, so a broken sink
// cannot take down the agent that records through it.
func safeWrite(ctx context.Context, s Sink, r *Record) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrSinkPanicked, p)
		}
	}()
	return s.Write(ctx, r)
}
