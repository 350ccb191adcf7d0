package session

import (
	"sync"
	"sync/atomic"

	"github.com/lookout-go/lookout/internal/sessionhook"
)

// Value is a replace-latest slice holding one T. Obtain one with [ValueOf].
// A Value is safe for concurrent use.
//
// When T implements [Cloner], readers get clones: Latest and Update return
// them, and snapshots are taken from them. The stored value then shares
// nothing with what readers hold, and [Value.Change] may change the maps
// it holds in place.
type Value[T any] struct {
	name string
	// clone copies a value of a Cloner T for a reader; nil for other types.
	clone func(T) T

	// mu is a plain mutex, as in Log: every critical section is a copy.
	mu  sync.Mutex
	v   T
	set bool
	// version advances, under mu, with every change to v or set; see
	// sessionhook.Version.
	version atomic.Uint64
}

func init() {
	sessionhook.Version = func(v any) *atomic.Uint64 {
		if x, ok := v.(interface{ versionOf() *atomic.Uint64 }); ok {
			return x.versionOf()
		}
		return nil
	}
	sessionhook.Cell = func(v any) (*sync.Mutex, any, *bool, *atomic.Uint64) {
		return v.(interface {
			cell() (*sync.Mutex, any, *bool, *atomic.Uint64)
		}).cell()
	}
}

func (v *Value[T]) versionOf() *atomic.Uint64 { return &v.version }

func (v *Value[T]) cell() (*sync.Mutex, any, *bool, *atomic.Uint64) {
	return &v.mu, &v.v, &v.set, &v.version
}

// Cloner is implemented by value types that hold memory their copies
// share, such as a map. Clone returns a copy that shares nothing the
// owner of the original may change.
type Cloner[T any] interface {
	Clone() T
}

// clonerOf returns, as an any, the func(T) T that clones a T for a
// reader, or nil when T does not implement Cloner. Stores call it once
// for T (see sliceType).
func clonerOf[T any]() any {
	var zero T
	if _, ok := any(zero).(Cloner[T]); ok {
		return func(x T) T { return any(x).(Cloner[T]).Clone() }
	}
	return nil
}

// Seed replaces the value. For a [Cloner] T it stores a clone, so that
// the caller's x and the stored value share nothing.
func (v *Value[T]) Seed(x T) {
	if v.clone != nil {
		x = v.clone(x)
	}
	v.mu.Lock()
	v.v, v.set = x, true
	v.version.Add(1)
	v.mu.Unlock()
}

// Latest returns the value and whether one was ever seeded. For a
// [Cloner] T it is a clone.
func (v *Value[T]) Latest() (x T, set bool) {
	if v.clone != nil {
		return v.latestClone()
	}
	v.mu.Lock()
	x, set = v.v, v.set
	v.mu.Unlock()
	return x, set
}

// latestClone is Latest for a Cloner T. Clone is the type's own code: a
// panic in it must not leave the value locked.
func (v *Value[T]) latestClone() (T, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.set {
		return v.v, false
	}
	return v.clone(v.v), true
}

// Read calls fn with the value and whether one was ever seeded, under the
// value's lock, without cloning it. fn must not change the value or
// anything it shares, keep it past its return, or touch the value
// otherwise. It is Latest for a reader that needs a part of a large or
// [Cloner] value on a hot path.
func (v *Value[T]) Read(fn func(cur T, set bool)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fn(v.v, v.set)
}

// Update replaces the value with fn(current, set), atomically, and returns
// the new value, a clone for a [Cloner] T. fn runs under the value's lock
// and must not touch it otherwise.
func (v *Value[T]) Update(fn func(cur T, set bool) T) T {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.version.Add(1)
	v.v = fn(v.v, v.set)
	v.set = true
	if v.clone != nil {
		return v.clone(v.v)
	}
	return v.v
}

// Change calls fn with a pointer to the value, atomically, and fn changes
// it in place; the value then counts as seeded. It is Update without
// copying the value in and out, for large values on hot paths. fn runs
// under the value's lock: it must not touch the value otherwise, nor keep
// the pointer. A value read earlier with Latest is a copy, and fn's
// changes do not reach it, but memory the copy shares with the stored
// value, such as a map or a slice's array, must not be changed in place,
// unless T is a [Cloner]: readers of a Cloner hold clones, and fn may
// change the maps the stored value holds. Unlike Update, a panic in fn
// keeps the changes fn made before it.
func (v *Value[T]) Change(fn func(cur *T, set bool)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	// Advanced before fn, which may change the value and then panic.
	v.version.Add(1)
	fn(&v.v, v.set)
	v.set = true
}

// Clear removes the value; Latest then reports false.
func (v *Value[T]) Clear() {
	v.mu.Lock()
	var zero T
	v.v, v.set = zero, false
	v.version.Add(1)
	v.mu.Unlock()
}

func (v *Value[T]) sliceName() string { return v.name }
func (v *Value[T]) sliceKind() string { return kindValue }
func (v *Value[T]) reset()            { v.Clear() }
