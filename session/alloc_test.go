package session_test

import (
	"testing"

	"github.com/lookout-go/lookout/session"
)

type (
	allocA struct{ N int }
	allocB struct{ S string }
	allocC struct{ F float64 }
	allocD struct{ B bool }
	allocE struct{ N []int }
	allocF struct{ M map[string]int }
)

var keptStore *session.Store

// TestOpeningARunsSlicesAllocatesLittle: every run opens a store and a
// dozen slices in it. The store takes two allocations (itself and its
// list of slices, which has room for 16), and each slice one.
func TestOpeningARunsSlicesAllocatesLittle(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		s := session.New(nil)
		session.ValueOf[allocA](s)
		session.ValueOf[allocB](s)
		session.ValueOf[allocC](s)
		session.LogOf[allocD](s)
		session.LogOf[allocE](s)
		session.ValueOf[allocF](s)
		session.ValueOf[allocA](s) // open already: no allocation
		keptStore = s
	})
	if allocs > 2+6 {
		t.Errorf("a store with six slices took %v allocations, want at most 8", allocs)
	}
}
