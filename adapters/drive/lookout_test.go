package drive

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestNameSetAgreesWithAMap checks both ways a nameSet keeps its names,
// a few in a slice and more in a map, against a map of the same names.
func TestNameSetAgreesWithAMap(t *testing.T) {
	probes := []string{"", "exit", "exiT", "tool0", "tool9", "tool10", "transfer_to_agent", "x"}
	for n := 0; n <= fewNames+3; n++ {
		var names []string
		want := map[string]bool{}
		for i := range n {
			name := fmt.Sprintf("tool%d", i)
			names = append(names, name, name) // duplicates count once
			want[name] = true
		}
		names = append(names, "exit")
		want["exit"] = true
		s := setOf(names[:len(names)/2], names[len(names)/2:])
		for _, p := range append(probes, names...) {
			if got := s.has(p); got != want[p] {
				t.Errorf("%d names: has(%q) = %v, want %v", n, p, got, want[p])
			}
		}
	}
	if (setOf()).has("exit") {
		t.Error("the empty set has a name")
	}
}

// TestInflightWakesItsWaiter checks that the call that ends the last one
// in flight wakes a waiter, though done takes the lock only once a
// waiter has come.
func TestInflightWakesItsWaiter(t *testing.T) {
	var f inflight
	f.add()
	f.add()
	f.done() // no waiter yet
	woken := make(chan struct{})
	go func() {
		f.wait(context.Background(), time.Hour)
		close(woken)
	}()
	for {
		f.mu.Lock()
		waiting := f.idle != nil
		f.mu.Unlock()
		if waiting {
			break
		}
		runtime.Gosched()
	}
	f.done()
	select {
	case <-woken:
	case <-time.After(time.Minute):
		t.Fatal("the waiter was not woken")
	}
	f.wait(context.Background(), time.Hour) // none in flight: at once
}
