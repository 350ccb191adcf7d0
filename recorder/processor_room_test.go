package recorder

import (
	"context"
	"io"
	"testing"
)

// TestAnEmitterWaitingForRoomIsWokenEveryRoomStepRecords: the goroutine
// wakes an emitter waiting for room once every roomStep records it begins
// to write, and when it has begun the last of its batch, not for every
// record.
func TestAnEmitterWaitingForRoomIsWokenEveryRoomStepRecords(t *testing.T) {
	p := &processor{room: make(chan struct{}, 1), roomStep: 4}
	p.taking.Store(10)
	p.waiters.Store(1)
	var woken []int64
	for range 10 {
		p.begin()
		select {
		case <-p.room:
			woken = append(woken, p.taking.Load())
		default:
		}
	}
	if len(woken) != 3 || woken[0] != 8 || woken[1] != 4 || woken[2] != 0 {
		t.Errorf("woken with %v records of the batch left to begin, want [8 4 0]", woken)
	}
}

// TestAnEmitterWaitingForThisPackagesSinksIsWokenOnceAQuarterOfTheQueueIsFree:
// behind a FileSink or a MemorySink, which take a record in a fraction of
// a microsecond, an emitter waiting for room is woken once every quarter
// of the queue; behind a sink of the caller's, which may take its time
// over each record, every thirty-second.
func TestAnEmitterWaitingForThisPackagesSinksIsWokenOnceAQuarterOfTheQueueIsFree(t *testing.T) {
	file := NewWriterSink(io.Discard, nil)
	for _, c := range []struct {
		name string
		sink Sink
		step int64
	}{
		{"file sink", file, 512},
		{"memory sink", NewMemorySink(), 512},
		{"a sink of the caller's", discardSink{}, 64},
	} {
		rec := New(c.sink, &Options{QueueSize: 2048})
		if got := rec.proc.roomStep; got != c.step {
			t.Errorf("%s: woken every %d records, want %d", c.name, got, c.step)
		}
		if err := rec.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// discardSink is a sink of the caller's that takes every record at once.
type discardSink struct{}

func (discardSink) Write(context.Context, *Record) error { return nil }
