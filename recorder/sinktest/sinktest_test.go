package sinktest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// Run itself is exercised against every sink of package recorder in that
// package's tests; these tests check that each check can fail.

// lossy silently loses every 997th record.
type lossy struct {
	recorder.MemorySink
	n atomic.Int64
}

func (l *lossy) Write(ctx context.Context, r *recorder.Record) error {
	if l.n.Add(1)%997 == 0 {
		return nil
	}
	return l.MemorySink.Write(ctx, r)
}

// forgetful keeps the envelope but loses the payload's content.
type forgetful struct{ recorder.MemorySink }

func (f *forgetful) Write(ctx context.Context, r *recorder.Record) error {
	c := *r
	c.Payload = &recorder.BudgetRecord{}
	return f.MemorySink.Write(ctx, &c)
}

// unclosable ignores Close.
type unclosable struct{ recorder.MemorySink }

func (*unclosable) Close(context.Context) error { return nil }

// grumpy fails every Close after the first, and every second Flush.
type grumpy struct {
	recorder.MemorySink
	closes, flushes atomic.Int64
}

var errGrumpy = errors.New("grumpy")

func (g *grumpy) Close(ctx context.Context) error {
	if g.closes.Add(1) > 1 {
		return errGrumpy
	}
	return g.MemorySink.Close(ctx)
}

func (g *grumpy) Flush(ctx context.Context) error {
	if g.flushes.Add(1)%2 == 0 {
		return errGrumpy
	}
	return g.MemorySink.Flush(ctx)
}

// impatient fails every call with an already-cancelled context with a
// different error.
type impatient struct{ recorder.MemorySink }

func (i *impatient) Flush(ctx context.Context) error {
	if ctx.Err() != nil {
		return errGrumpy
	}
	return nil
}

func TestTheKitCatchesBrokenSinks(t *testing.T) {
	reversed := func(s *recorder.MemorySink) ReadBack {
		return func() ([]recorder.Record, error) {
			recs := s.Records()
			slices.Reverse(recs)
			return recs, nil
		}
	}
	for _, tc := range []struct {
		name  string
		check func(recorder.Sink, ReadBack) error
		sink  func() (recorder.Sink, ReadBack)
	}{
		{"a sink that reorders fails the order check", checkOrder, func() (recorder.Sink, ReadBack) {
			s := recorder.NewMemorySink()
			return s, reversed(s)
		}},
		{"a sink that loses records fails the concurrency check", checkConcurrentRun, func() (recorder.Sink, ReadBack) {
			s := &lossy{}
			return s, func() ([]recorder.Record, error) { return s.Records(), nil }
		}},
		{"a sink that reorders fails the interleaving check", checkInterleavedRuns, func() (recorder.Sink, ReadBack) {
			s := recorder.NewMemorySink()
			return s, reversed(s)
		}},
		{"a sink that changes payloads fails the kinds check", checkKinds, func() (recorder.Sink, ReadBack) {
			s := &forgetful{}
			return s, func() ([]recorder.Record, error) { return s.Records(), nil }
		}},
		{"a sink that ignores close fails the after-close check", checkAfterClose, func() (recorder.Sink, ReadBack) {
			return &unclosable{}, nil
		}},
		{"a sink whose second close fails fails the close check", checkCloseTwice, func() (recorder.Sink, ReadBack) {
			s := &grumpy{}
			return s, func() ([]recorder.Record, error) { return s.Records(), nil }
		}},
		{"a sink whose second flush fails fails the flush check", checkFlushTwice, func() (recorder.Sink, ReadBack) {
			s := &grumpy{}
			return s, func() ([]recorder.Record, error) { return s.Records(), nil }
		}},
		{"a sink that answers a cancelled context with another error fails the context check", checkCancelled, func() (recorder.Sink, ReadBack) {
			s := &impatient{}
			return s, func() ([]recorder.Record, error) { return s.Records(), nil }
		}},
		{"a read-back error fails the check", checkOrder, func() (recorder.Sink, ReadBack) {
			return recorder.NewMemorySink(), func() ([]recorder.Record, error) { return nil, errGrumpy }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, read := tc.sink()
			if err := tc.check(s, read); err == nil {
				t.Error("the check passed a broken sink")
			}
		})
	}
}

// panicky panics in Write once closed, and in every Close after the first.
type panicky struct {
	recorder.MemorySink
	closes atomic.Int64
}

func (p *panicky) Write(ctx context.Context, r *recorder.Record) error {
	if p.closes.Load() > 0 {
		panic("write after close")
	}
	return p.MemorySink.Write(ctx, r)
}

func (p *panicky) Close(ctx context.Context) error {
	if p.closes.Add(1) > 1 {
		panic("second close")
	}
	return p.MemorySink.Close(ctx)
}

func TestAPanickingSinkFailsItsChecksNotTheProgram(t *testing.T) {
	err := Check(func() (recorder.Sink, ReadBack) {
		s := &panicky{}
		return s, func() ([]recorder.Record, error) { return s.Records(), nil }
	})
	if !errors.Is(err, errPanicked) {
		t.Fatalf("Check returned %v, want a panic reported", err)
	}
	for _, want := range []string{
		"close is idempotent: close 2: sinktest: panic: second close",
		"write and flush after close return ErrClosed: write after close returned sinktest: panic: write after close",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}

	err = Check(func() (recorder.Sink, ReadBack) {
		return recorder.NewMemorySink(), func() ([]recorder.Record, error) { panic("read back") }
	})
	if !errors.Is(err, errPanicked) || !strings.Contains(err.Error(), "keeps write order: sinktest: panic: read back") {
		t.Errorf("a panicking read-back gave %v", err)
	}
}
