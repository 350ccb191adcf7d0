package session

import "sync"

// Value is a replace-latest slice holding one T. Obtain one with [ValueOf].
// A Value is safe for concurrent use.
type Value[T any] struct {
	name string

	// mu is a plain mutex, as in Log: every critical section is a copy.
	mu  sync.Mutex
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
	v.mu.Lock()
	x, set := v.v, v.set
	v.mu.Unlock()
	return x, set
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

// Change calls fn with a pointer to the value, atomically, and fn changes
// it in place; the value then counts as seeded. It is Update without
// copying the value in and out, for large values on hot paths. fn runs
// under the value's lock: it must not touch the value otherwise, nor keep
// the pointer. A value read earlier with Latest is a copy, and fn's
// changes do not reach it, but memory the copy shares with the stored
// value, such as a map or a slice's array, must not be changed in place.
// Unlike Update, a panic in fn keeps the changes fn made before it.
func (v *Value[T]) Change(fn func(cur *T, set bool)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fn(&v.v, v.set)
	v.set = true
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
