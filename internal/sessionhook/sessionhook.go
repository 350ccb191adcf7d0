// Package sessionhook lets other packages of the module read, and on hot
// paths change, what package session keeps unexported, through functions
// session sets, so that session exports no name that serves them alone.
package sessionhook

import (
	"sync"
	"sync/atomic"
	"time"
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

// LogCore returns l, a *session.Log[T], as a Reserver[T]. Package session
// sets it when it is initialized.
var LogCore func(l any) any

// Reserver is what Appender works on in a session log.
type Reserver[T any] interface {
	// Mutex returns the log's lock.
	Mutex() *sync.Mutex
	// Reserve locks the log, takes the slot of the next entry, stamped
	// at, and returns it and its position. Readers see the entry once
	// the lock is released.
	Reserve(at time.Time) (slot *T, pos int64)
}

// Appender appends to a session log as Log.AppendFuncAt does, with the
// entry filled in the log's storage rather than copied in and out, and
// without a deferred unlock or a closure: for hot paths of the module
// that fill an entry with code that cannot panic, such as the tool-call
// records. Reserve locks the log and Release unlocks it: a panic between
// them would leave the log locked.
type Appender[T any] struct {
	mu *sync.Mutex
	r  Reserver[T]
}

// AppenderOf returns the Appender of l, a *session.Log[T].
func AppenderOf[T any](l any) Appender[T] {
	r := LogCore(l).(Reserver[T])
	return Appender[T]{mu: r.Mutex(), r: r}
}

// Reserve locks the log and takes the slot of the next entry, stamped at,
// as Log.AppendFuncAt does: entries stay in time order, and no other
// entry is appended until Release. It returns the slot, in the log's
// storage, and its position. The caller fills the slot, touching the log
// in no other way, and then calls Release; readers see the entry after it.
func (a *Appender[T]) Reserve(at time.Time) (slot *T, pos int64) { return a.r.Reserve(at) }

// Release unlocks the log after Reserve.
func (a *Appender[T]) Release() { a.mu.Unlock() }
