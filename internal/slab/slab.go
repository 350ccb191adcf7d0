package slab

import (
	"sync"
	"sync/atomic"
)

// The first array of a Slab holds first values; each later one twice as
// many as the one before, up to most.
const (
	first = 4
	most  = 64
)

// Slab hands out *T. The zero Slab is ready to use and is safe for
// concurrent use.
type Slab[T any] struct {
	cur  atomic.Pointer[array[T]] // the array values come from
	mu   sync.Mutex               // held to replace cur
	next int                      // length of the next array; 0 before the first
}

// array is one allocation of values. taken counts the values handed out
// and the claims past its end, which find it full.
type array[T any] struct {
	values []T
	taken  atomic.Int64
}

// New returns a pointer to a value of the slab holding a copy of *v. A
// value is claimed with one atomic addition; the slab locks only to
// allocate the next array.
func (s *Slab[T]) New(v *T) *T {
	p := s.Zero()
	*p = *v
	return p
}

// Zero returns a pointer to a zero value of the slab, for a caller that
// fills it in place: no value is copied in. A value is claimed with one
// atomic addition; the slab locks only to allocate the next array.
func (s *Slab[T]) Zero() *T {
	for {
		if a := s.cur.Load(); a != nil {
			if i := a.taken.Add(1) - 1; i < int64(len(a.values)) {
				return &a.values[i]
			}
		}
		s.grow()
	}
}

// grow replaces a full array, or the missing first one, with a new one.
func (s *Slab[T]) grow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.cur.Load(); a != nil && a.taken.Load() < int64(len(a.values)) {
		return // another goroutine grew it
	}
	n := s.next
	if n == 0 {
		n = first
	}
	s.next = min(2*n, most)
	s.cur.Store(&array[T]{values: make([]T, n)})
}
