package recorder

import (
	"context"
	"runtime"
	"testing"
)

// TestAnEmptyTakeKeepsTheQueuesRoom: the goroutine's first take, before
// any record, must not swap the queue made whole by New for a spare not
// yet made, which emitters would then grow from nothing.
func TestAnEmptyTakeKeepsTheQueuesRoom(t *testing.T) {
	p := &processor{size: 8, queue: make([]item, 0, 8)}
	if batch := p.take(); batch != nil {
		t.Fatalf("an empty queue gave a batch of %d", len(batch))
	}
	if cap(p.queue) != 8 {
		t.Fatalf("after an empty take the queue has room for %d, want 8", cap(p.queue))
	}
	p.queue = append(p.queue, item{seq: 1}, item{seq: 2})
	batch := p.take()
	if len(batch) != 2 || batch[1].seq != 2 {
		t.Fatalf("took %v, want the two items queued", batch)
	}
	if len(p.queue) != 0 || cap(p.queue) != 8 {
		t.Errorf("the queue after a take has len %d and room for %d, want 0 and 8", len(p.queue), cap(p.queue))
	}
	if p.batchLen != 2 || p.taking.Load() != 2 {
		t.Errorf("batchLen %d, taking %d: want the batch counted whole", p.batchLen, p.taking.Load())
	}
}

// TestAnEmitterReadsTheRecordsLeftToBeginOnlyWhenTheCountItHasIsFull:
// an emitter reads taking, which the goroutine writes for every record,
// only when the count last read of the batch in hand leaves no room, and
// keeps what it read for the emits after it.
func TestAnEmitterReadsTheRecordsLeftToBeginOnlyWhenTheCountItHasIsFull(t *testing.T) {
	p := &processor{size: 10}
	p.queue = make([]item, 2, 10)
	p.batchLen = 8 // as taken; the goroutine has begun 5 of them since
	p.taking.Store(3)
	if room := p.hasRoom(10); !room || p.batchLen != 3 {
		t.Fatalf("with 2 queued and 3 left to begin: room %v, count kept %d; want room, and 3 kept", room, p.batchLen)
	}
	// A count the goroutine could not have made, to tell a read from none.
	p.taking.Store(8)
	if !p.hasRoom(10) {
		t.Error("an emit with room by the count kept read taking again")
	}
	p.queue = p.queue[:7]
	if room := p.hasRoom(10); room || p.batchLen != 8 {
		t.Errorf("with the count kept full: room %v, count %d; want taking read again, and no room", room, p.batchLen)
	}
}

// TestAQueueTakesTheMemoryItsRecordsNeed: a Recorder's queue grows as
// records wait, rather than taking QueueSize entries at once, so a large
// QueueSize costs nothing until records need it.
func TestAQueueTakesTheMemoryItsRecordsNeed(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rec := New(NewMemorySink(), &Options{QueueSize: 1 << 20})
	run, _ := rec.StartRun(context.Background(), RunInfo{})
	for i := range 100 {
		_ = run.ToolEnded(context.Background(), ToolEnded{CallIndex: i})
	}
	if err := rec.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// A whole queue of 1<<20 entries would take 72 MiB, twice over.
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("a Recorder that queued 100 records allocated %d bytes", got)
	}
}
