package recorder

import "testing"

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
