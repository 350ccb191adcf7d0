package drive

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lookout-go/lookout/budget"
)

// withDeadline returns a copy of parent that is done at d, like
// context.WithDeadlineCause with cause as the cause, except for its Err:
// once d has passed, Err returns the budget error rather than
// context.DeadlineExceeded. The error still satisfies
// errors.Is(err, context.DeadlineExceeded).
//
// Eino checks the run's ctx between the nodes of its graph and ends the
// run with an error wrapping ctx.Err(). With this ctx, a deadline that
// passes while a tool runs, or between two hooks, ends the run with an
// error that satisfies errors.Is(err, budget.ErrExceeded) and errors.As
// to *budget.ExceededError, as a deadline noticed by Lookout's own hooks
// does. Values derived with context.WithValue share this Err, and so do
// contexts derived after the deadline. A context with a cancellation of
// its own (WithCancel, WithTimeout) made before the deadline reports
// context.DeadlineExceeded, with the budget error as its context.Cause;
// the tool wrappers turn such an error from a tool into the budget error. Giving those contexts this Err too would take a
// callback registration for each, which Eino makes several of per model
// and tool call.
func withDeadline(parent context.Context, d time.Time, cause *budget.ExceededError) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithDeadlineCause(parent, d, cause)
	return &deadlineCtx{Context: inner, parent: parent, cause: cause, done: inner.Done()}, cancel
}

// deadlineCtx is the ctx of WithDeadline: inner with its Err changed.
type deadlineCtx struct {
	context.Context // inner: the deadline, and parent's cancellation
	parent          context.Context
	cause           *budget.ExceededError
	// done is inner's Done channel, which never changes once made.
	done  <-chan struct{}
	found foundValues
}

// Done returns inner's Done channel. Eino asks for it several times per
// model and tool call, through every layer above this ctx; kept here, it
// costs no further calls down inner's own layers.
func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

// Value looks key up in parent, past inner's layers, which answer only
// the context package's own key, of type *int (see context.Cause). Eino
// looks a few keys up many times per model and tool call, most of them
// absent (a checkpoint, resume information), each time through every
// layer between the ctx it holds and the root; what parent holds never
// changes, so the first answers are kept.
func (c *deadlineCtx) Value(key any) any {
	// The key's home slot, looked at here rather than in a call: this is
	// the path of every lookup.
	k := wordsOf(&key)
	if e := c.found.slots[homeOf(k.typ)].Load(); e != nil && e.typ == k.typ && e.data == k.data {
		return e.value
	}
	return c.lookup(key)
}

// lookup is Value for a key not found in its home slot.
func (c *deadlineCtx) lookup(key any) any {
	switch key.(type) {
	case *int:
		return c.Context.Value(key)
	case nil:
		return c.parent.Value(key) // no nil key is kept
	}
	v, ok, seen := c.found.get(key)
	if ok {
		return v
	}
	v = c.parent.Value(key)
	c.found.put(key, v, seen)
	return v
}

// foundValues keeps the first values looked up through a ctx, the absent
// ones (nil) included, in entries written once. A table of many more
// slots than entries points at them: an entry is in its key's home slot,
// which the key's type picks, or else in a second slot it picks, when
// either was free, and is found there by comparing the words of the
// keys, not their values: a few instructions, however many keys are
// kept. The table is large enough that few keys find both taken; those
// are found among the entries. Entries and slots are only filled, each
// entry written before a slot points at it and before n counts it, so
// that a lookup reads them without a lock.
type foundValues struct {
	mu      sync.Mutex
	n       atomic.Int32 // entries filled
	entries [foundKept]foundEntry
	slots   [foundSlots]atomic.Pointer[foundEntry]
}

// foundSlots is the size of the table, of which foundKept slots are
// filled at most.
const (
	foundSlots = 64
	foundKept  = 12
)

// foundEntry is a key, as its type and data words, and its value.
type foundEntry struct {
	typ, data unsafe.Pointer
	value     any
}

// eface is the layout of an interface value without methods: its type
// and its data word. Equal words mean equal keys; keys of one type may
// be equal with different data words (two copies of a string).
type eface struct {
	typ, data unsafe.Pointer
}

func wordsOf(key *any) eface { return *(*eface)(unsafe.Pointer(key)) }

// key returns the key e holds.
func (e *foundEntry) key() any {
	return *(*any)(unsafe.Pointer(&eface{typ: e.typ, data: e.data}))
}

// homeOf returns the slot a key of type typ is kept in when it is free,
// and secondOf the slot it is kept in when that one is free instead.
func homeOf(typ unsafe.Pointer) int {
	return int(uint64(uintptr(typ)) * 0x9e3779b97f4a7c15 >> 58)
}

func secondOf(typ unsafe.Pointer) int {
	return int(uint64(uintptr(typ)) * 0x9e3779b97f4a7c15 >> 52 & (foundSlots - 1))
}

// get returns the value kept for key: from its second slot, or else
// from the entries, compared by their words and, for an entry of the
// key's type with other words, by value. It returns too the number of
// entries it looked at, which put passes on. Slots are only filled, and
// a key takes its home slot, or else its second, when free: while either
// is free, a key in neither, by its words or by value, is not kept, and
// the entries are not looked at.
func (f *foundValues) get(key any) (value any, ok bool, seen int) {
	k := wordsOf(&key)
	n := int(f.n.Load())
	home, second := f.slots[homeOf(k.typ)].Load(), f.slots[secondOf(k.typ)].Load()
	for _, e := range [...]*foundEntry{second, home} {
		if e != nil && e.typ == k.typ && (e.data == k.data || e.key() == key) {
			return e.value, true, 0
		}
	}
	if home == nil || second == nil {
		return nil, false, n
	}
	for i := range n {
		if e := &f.entries[i]; e.typ == k.typ && (e.data == k.data || e.key() == key) {
			return e.value, true, 0
		}
	}
	return nil, false, n
}

// put keeps value for key, which get did not find among the first seen
// entries, unless foundKept entries are filled or one added since holds
// key's words. Entries added since are compared by their words only, so
// that the lock is held only where nothing can panic (comparing keys by
// value may): a key kept at once by another lookup, in another box,
// takes a second entry, which answers as the first does.
func (f *foundValues) put(key, value any, seen int) {
	k := wordsOf(&key)
	f.mu.Lock()
	n := int(f.n.Load())
	for i := seen; i < n; i++ {
		if e := &f.entries[i]; e.typ == k.typ && e.data == k.data {
			f.mu.Unlock()
			return
		}
	}
	if n == foundKept {
		f.mu.Unlock()
		return
	}
	e := &f.entries[n]
	e.typ, e.data, e.value = k.typ, k.data, value
	f.n.Store(int32(n + 1))
	if h := homeOf(k.typ); f.slots[h].Load() == nil {
		f.slots[h].Store(e)
	} else if s := secondOf(k.typ); f.slots[s].Load() == nil {
		f.slots[s].Store(e)
	}
	f.mu.Unlock()
}

// Err returns the budget error if the deadline ended c, and otherwise
// inner's error.
func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == error(c.cause) {
		return deadlineError{c.cause}
	}
	return err
}

// withMovableDeadline is withDeadline for a ctx whose deadline
// [MoveDeadline] may move earlier: a run resumed from a checkpoint learns
// its budget's deadline only once the checkpoint is read, after its ctx
// was made with a deadline measured from the resume. Its ctx costs a
// little more on every Value lookup that passes through it, so adapters
// use it only where the deadline may move.
func withMovableDeadline(parent context.Context, d time.Time, cause *budget.ExceededError) (context.Context, context.CancelFunc) {
	early, stop := context.WithCancelCause(parent)
	ctx, cancel := withDeadline(early, d, cause)
	m := &movableCtx{Context: ctx, stop: stop, deadline: d}
	return m, func() {
		cancel()
		m.release()
	}
}

// movableCtx is the ctx of WithMovableDeadline: a WithDeadline ctx whose
// parent it can end, with a budget error as the cause, before the
// deadline.
type movableCtx struct {
	context.Context // the WithDeadline ctx
	// stop ends the WithDeadline ctx, through its parent.
	stop context.CancelCauseFunc

	mu       sync.Mutex
	deadline time.Time
	// moved is the cause of the deadline MoveDeadline set, and timer
	// calls stop with it then.
	moved    *budget.ExceededError
	timer    *time.Timer
	released bool
}

type movableKey struct{}

// Value returns m itself for movableKey, so that MoveDeadline finds it.
func (m *movableCtx) Value(key any) any {
	if key == (movableKey{}) {
		return m
	}
	return m.Context.Value(key)
}

// Deadline returns the deadline, as moved by MoveDeadline.
func (m *movableCtx) Deadline() (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deadline, true
}

// Err returns the budget error once the deadline, first or moved, has
// passed, and otherwise the ctx's error.
func (m *movableCtx) Err() error {
	err := m.Context.Err()
	if err == nil {
		return nil
	}
	m.mu.Lock()
	moved := m.moved
	m.mu.Unlock()
	if moved != nil && context.Cause(m.Context) == error(moved) {
		return deadlineError{moved}
	}
	return err
}

// release stops the timer of a moved deadline and releases the ctx's
// parent.
func (m *movableCtx) release() {
	m.mu.Lock()
	m.released = true
	if m.timer != nil {
		m.timer.Stop()
	}
	m.mu.Unlock()
	m.stop(context.Canceled)
}

// moveDeadline moves the deadline that WithMovableDeadline set on ctx to
// d, with cause as its cause, when d is earlier. Once the moved deadline
// passes, the ctx's Err is the budget error, as at the first deadline; a
// context with a cancellation of its own made before then reports
// context.Canceled, with the budget error as its context.Cause. A ctx
// without such a deadline, or one already released, is left as it is.
func moveDeadline(ctx context.Context, d time.Time, cause *budget.ExceededError) {
	m, _ := ctx.Value(movableKey{}).(*movableCtx)
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.released || !d.Before(m.deadline) {
		return
	}
	m.deadline, m.moved = d, cause
	if m.timer != nil {
		m.timer.Stop()
	}
	m.timer = time.AfterFunc(time.Until(d), func() { m.stop(cause) })
}

// deadlineError is a budget error that is also a deadline: errors.Is
// reports true for both budget.ErrExceeded and context.DeadlineExceeded.
type deadlineError struct{ *budget.ExceededError }

func (e deadlineError) Unwrap() error { return e.ExceededError }

func (deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// Timeout reports true, as context.DeadlineExceeded's method does.
func (deadlineError) Timeout() bool { return true }

// Temporary reports true, as context.DeadlineExceeded's method does.
func (deadlineError) Temporary() bool { return true }
