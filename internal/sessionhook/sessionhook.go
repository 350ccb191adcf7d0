// Package sessionhook lets other packages of the module read, and on hot
// paths change, what package session keeps unexported, through functions
// session sets, so that session exports no name that serves them alone.
package sessionhook

import (
	"sync"
	"sync/atomic"
)

// Version returns the version of v, a *session.Value[T]: a counter that
// every change to the value (Seed, Update, Change, Clear, a restore)
// advances under the value's lock, and nothing else does. A reader that
// keeps what it read, with the version it read it at (under the lock,
// from within Value.Read), can tell from one atomic load whether it is
// still current. Package session sets it when it is initialized.
var Version func(v any) *atomic.Uint64

// Cell returns what Value.Change works on in v, a *session.Value[T]: its
// lock, the value (a *T, as an any), whether it was set, and its version.
// Package session sets it when it is initialized.
var Cell func(v any) (mu *sync.Mutex, value any, set *bool, version *atomic.Uint64)

// Unguarded changes a session value as Value.Change does, without its
// deferred unlock: for hot paths of the module whose change cannot
// panic, such as the budget's counts, on which the deferred call is a
// good part of the cost. A panic in fn would leave the value locked.
type Unguarded[T any] struct {
	mu      *sync.Mutex
	v       *T
	set     *bool
	version *atomic.Uint64
}

// UnguardedOf returns the Unguarded of v, a *session.Value[T].
func UnguardedOf[T any](v any) Unguarded[T] {
	mu, value, set, version := Cell(v)
	return Unguarded[T]{mu: mu, v: value.(*T), set: set, version: version}
}

// Change calls fn with a pointer to the value under the value's lock, as
// Value.Change does: the version advances first, and the value then
// counts as set. fn must not panic.
func (u *Unguarded[T]) Change(fn func(cur *T)) {
	u.mu.Lock()
	u.version.Add(1)
	fn(u.v)
	*u.set = true
	u.mu.Unlock()
}
