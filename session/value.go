package session

import "sync"

// Value is a replace-latest slice holding one T. Obtain one with [ValueOf].
// A Value is safe for concurrent use.
type Value[T any] struct {
	name string

	mu  sync.RWMutex
	v   T
	set bool
}

// Seed replaces the value.
func (v *Value[T]) Seed(x T) {
	v.mu.Lock()
	v.v, v.set = x, true
	v.mu.Unlock()
}

// Latest returns the value and whether one was ever seeded.
func (v *Value[T]) Latest() (T, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.v, v.set
}

// Update replaces the value with fn(current, set), atomically, and returns
// the new value. fn runs under the value's lock and must not touch it.
func (v *Value[T]) Update(fn func(cur T, set bool) T) T {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.v = fn(v.v, v.set)
	v.set = true
	return v.v
}

// Clear removes the value; Latest then reports false.
func (v *Value[T]) Clear() {
	v.mu.Lock()
	var zero T
	v.v, v.set = zero, false
	v.mu.Unlock()
}

func (v *Value[T]) sliceName() string { return v.name }
func (v *Value[T]) sliceKind() string { return kindValue }
func (v *Value[T]) reset()            { v.Clear() }
