package recorder

import "testing"

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
