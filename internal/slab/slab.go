package slab

import "sync"

// The first array of a Slab holds first values; each later one twice as
// many as the one before, up to most.
const (
	first = 4
	most  = 64
)

// Slab hands out *T. The zero Slab is ready to use and is safe for
// concurrent use.
type Slab[T any] struct {
	mu   sync.Mutex
	free []T
	next int // length of the next array; 0 before the first
}

// New returns a pointer to a value of the slab holding a copy of *v.
func (s *Slab[T]) New(v *T) *T {
	s.mu.Lock()
	if len(s.free) == 0 {
		n := s.next
		if n == 0 {
			n = first
		}
		s.free = make([]T, n)
		s.next = min(2*n, most)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	*p = *v
	s.mu.Unlock()
	return p
}
