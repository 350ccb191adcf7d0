package slab

import (
	"sync"
	"testing"
	"unsafe"
)

func TestNewCopiesIntoDistinctValues(t *testing.T) {
	var s Slab[int]
	seen := map[*int]bool{}
	for i := range 200 {
		p := s.New(&i)
		if *p != i {
			t.Fatalf("value %d holds %d", i, *p)
		}
		if seen[p] {
			t.Fatalf("value %d handed out twice", i)
		}
		seen[p] = true
	}
	for p := range seen {
		*p = -1 // every value is writable without touching another
	}
	n := 0
	for p := range seen {
		if *p != -1 {
			t.Fatal("a value changed under another")
		}
		n++
	}
	if n != 200 {
		t.Fatalf("%d values, want 200", n)
	}
}

func TestNewAllocatesTwicePerArray(t *testing.T) {
	var s Slab[[4]int64]
	v := [4]int64{1, 2, 3, 4}
	for range 2 * most { // past the growing arrays
		s.New(&v)
	}
	const values = most * 10
	// AllocsPerRun reports a whole number per run: a run makes many values.
	allocs := testing.AllocsPerRun(5, func() {
		for range values {
			s.New(&v)
		}
	}) / values
	if allocs != 2.0/most {
		t.Errorf("%.4f allocations per value, want 2/%d: an array and its header", allocs, most)
	}
}

func TestNewIsSafeForConcurrentUse(t *testing.T) {
	var s Slab[int]
	var wg sync.WaitGroup
	got := make([][]*int, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				got[g] = append(got[g], s.New(&i))
			}
		}()
	}
	wg.Wait()
	seen := map[*int]bool{}
	for g := range got {
		for i, p := range got[g] {
			if *p != i || seen[p] {
				t.Fatalf("goroutine %d value %d: %d, repeated %v", g, i, *p, seen[p])
			}
			seen[p] = true
		}
	}
}

// Zero hands out the slab's values as they are made, zero, from the same
// arrays as New: one after the other in an array, and never one New
// hands out.
func TestZeroHandsOutZeroValuesOfTheSlab(t *testing.T) {
	var s Slab[[4]int64]
	v := [4]int64{1, 2, 3, 4}
	seen := map[*[4]int64]bool{}
	var last *[4]int64
	adjacent := 0
	for i := range 200 {
		var p *[4]int64
		if i%3 == 0 {
			p = s.New(&v)
		} else {
			p = s.Zero()
			if *p != ([4]int64{}) {
				t.Fatalf("value %d is %v, not zero", i, *p)
			}
		}
		if seen[p] {
			t.Fatalf("value %d handed out twice", i)
		}
		seen[p] = true
		if last != nil && uintptr(unsafe.Pointer(p)) == uintptr(unsafe.Pointer(last))+unsafe.Sizeof(v) {
			adjacent++
		}
		last = p
	}
	if adjacent < 190 {
		t.Errorf("%d of 199 values follow the one before in its array: not taken from the slab's arrays", adjacent)
	}
}
