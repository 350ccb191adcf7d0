package recorder

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
// a microsecond, an emitter waiting for room, once the goroutine has taken
// longer than turnTime over what it took, is woken once every quarter of
// the queue; behind a sink of the caller's, which may take its time over
// each record, every thirty-second.
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

// TestEmittersTakingTurnsAreWokenAfterTheBatch: behind this package's
// sinks, an emitter waiting for room is not woken while the goroutine
// writes what it took, so that the two take turns on one core; once the
// goroutine has taken longer than turnTime over it, as behind a slow
// disk, it is woken every roomStep records again.
func TestEmittersTakingTurnsAreWokenAfterTheBatch(t *testing.T) {
	for _, c := range []struct {
		name  string
		since time.Duration // since the goroutine began to take the queue
		want  int           // wake-ups over a batch of 10, a step of 4
	}{
		{"keeping up", 0, 0},
		{"slow", turnTime + time.Millisecond, 3},
	} {
		p := &processor{room: make(chan struct{}, 1), roomStep: 4, untimed: true, drainAt: time.Now().Add(-c.since)}
		p.taking.Store(10)
		p.waiters.Store(1)
		woken := 0
		for range 10 {
			p.begin()
			select {
			case <-p.room:
				woken++
			default:
			}
		}
		if woken != c.want {
			t.Errorf("%s: woken %d times, want %d", c.name, woken, c.want)
		}
	}
}

// TestTakingTurnsTheGoroutineLingersUntilTheQueueIsFull: while emitters
// wait for room, a lingering goroutine is woken by a full queue, not a
// half-full one, so that the emitter that fills it parks as it wakes the
// goroutine, which then runs on its core.
func TestTakingTurnsTheGoroutineLingersUntilTheQueueIsFull(t *testing.T) {
	for _, c := range []struct {
		turns bool
		want  int
	}{{false, 4}, {true, 8}} {
		// A try whose linger ran out (lingerTime) before the queue filled
		// tells nothing; the next try starts again.
		got := 0
		for try := 0; got == 0 && try < 20; try++ {
			got = wokenAfterLinger(c.turns)
		}
		if got != c.want {
			t.Errorf("taking turns %v: woken with %d records queued, want %d", c.turns, got, c.want)
		}
	}
}

// wokenAfterLinger pushes records, one at a time, into a queue of 8 whose
// goroutine lingers, and returns how many were queued when a push woke
// it; 0 if its linger ran out first.
func wokenAfterLinger(turns bool) int {
	p := &processor{size: 8, half: 4, wake: make(chan struct{}, 1), closing: make(chan struct{})}
	p.queue = append(p.queue, item{}) // the record that woke it
	done := make(chan struct{})
	go func() {
		defer close(done)
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		p.wait(timer, turns)
	}()
	for {
		select {
		case <-done:
			return 0
		default:
		}
		p.mu.Lock()
		woken := p.lingering && p.push(&item{})
		n := len(p.queue)
		p.mu.Unlock()
		if woken {
			p.signal()
			<-done
			return n
		}
		runtime.Gosched()
	}
}

// TestEmittersTakingTurnsAreNeverLeftWaiting: one emitter, and then four,
// recording far faster than a FileSink writes, into a queue of 16 under
// Block: every record is written and none waits out BlockTimeout, so the
// goroutine wakes every emitter it left waiting.
func TestEmittersTakingTurnsAreNeverLeftWaiting(t *testing.T) {
	ctx := context.Background()
	for _, emitters := range []int{1, 4} {
		var out countingWriter
		rec := New(NewWriterSink(&out, nil), &Options{QueueSize: 16, Block: true, BlockTimeout: 2 * time.Second})
		run := rec.ResumeRun(RunInfo{RunID: "r"}, 0)
		var wg sync.WaitGroup
		var failed atomic.Bool
		for range emitters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 2000 && !failed.Load(); i++ {
					if err := run.Budget(ctx, BudgetRecord{Resource: "tokens", Amount: 1}); err != nil {
						failed.Store(true)
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if err := rec.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := out.lines.Load(), int64(2000*emitters); got != want || rec.Dropped() != 0 {
			t.Errorf("%d emitters: %d lines written, %d dropped; want %d and none", emitters, got, rec.Dropped(), want)
		}
	}
}

// countingWriter counts the lines written to it.
type countingWriter struct{ lines atomic.Int64 }

func (w *countingWriter) Write(b []byte) (int, error) {
	w.lines.Add(int64(bytes.Count(b, []byte{'\n'})))
	return len(b), nil
}
