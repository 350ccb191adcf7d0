package session

import (
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lookout-go/lookout/internal/sessionhook"
)

// chunkSize is the number of entries per storage chunk. Appends fill a
// chunk in place and allocate a new one only when it is full, so the cost
// of an append does not depend on the length of the log. A chunk of the
// tool-call records Lookout logs stays below 32 KiB, the largest object
// the runtime allocates from a thread's cache: a larger one is taken from
// the heap under its lock and zeroed page by page.
const chunkSize = 64

// Log is an append-only slice of T. Obtain one with [LogOf]. A Log is safe
// for concurrent use.
//
// Entries are never modified once appended. Readers take a view of the
// storage under a short lock and read it without one, so iteration never
// copies the log and never blocks writers.
type Log[T any] struct {
	name string
	now  func() time.Time

	// mu is a plain mutex: readers hold it only to copy a view, so they
	// gain little from sharing it, and a writer's RWMutex costs twice the
	// atomic operations.
	mu sync.Mutex
	// chunks hold the entries; each has length chunkSize, all but the last
	// are full. chunks[0][0] is at position first.
	chunks    [][]entry[T]
	first     int64
	total     int64 // entries ever appended, retained or not
	retention int
	// floor is the first position a retention set before the current one
	// had not yet dropped: entries below it stay dropped when the
	// retention grows.
	floor int64

	// last is the time of the newest entry, when there is one.
	last time.Time

	// epoch counts the times the contents were replaced; see Epoch.
	epoch atomic.Uint64
}

type entry[T any] struct {
	v  T
	at time.Time
}

// view is a reader's snapshot of the storage: the chunks, the position of
// the first chunk's first slot, and the retained range [start, end).
type view[T any] struct {
	chunks     [][]entry[T]
	first      int64
	start, end int64
}

func (v view[T]) at(pos int64) *entry[T] {
	off := pos - v.first
	return &v.chunks[off/chunkSize][off%chunkSize]
}

func (v view[T]) len() int { return int(v.end - v.start) }

// Append adds v to the log and returns its position: the number of entries
// appended before it.
func (l *Log[T]) Append(v T) int64 {
	at := l.now()
	l.mu.Lock()
	n := l.total
	l.push(entry[T]{v: v, at: at})
	l.mu.Unlock()
	return n
}

// AppendFunc builds an entry from its position and appends it, atomically:
// no other entry is appended between reading the position and appending.
// Use it to stamp dense, unique indices under concurrency. build runs under
// the log's lock and must not touch the log.
func (l *Log[T]) AppendFunc(build func(pos int64) T) T {
	return l.AppendFuncAt(l.now(), build)
}

// AppendFuncAt is AppendFunc for an entry stamped at, for a caller that
// has already read the clock. Entries stay in time order: an at earlier
// than the newest entry's time is raised to it.
func (l *Log[T]) AppendFuncAt(at time.Time, build func(pos int64) T) T {
	l.mu.Lock()
	// build is the caller's code: a panic in it must not leave the log
	// locked. The slot it was building stays unused and is taken by the
	// next append.
	defer l.mu.Unlock()
	e := l.slot(at)
	// Built in place: an entry can be large, and copying it costs.
	e.v = build(l.total)
	l.commit()
	return e.v
}

// logHook is a Log as sessionhook.Appender sees it: a type of the same
// storage whose methods are exported, so that sessionhook can name them,
// while Log itself exports nothing more.
type logHook[T any] Log[T]

func init() {
	sessionhook.LogCore = func(l any) any { return l.(interface{ hook() any }).hook() }
}

func (l *Log[T]) hook() any { return (*logHook[T])(l) }

// Mutex returns the log's lock.
func (h *logHook[T]) Mutex() *sync.Mutex { return &h.mu }

// Reserve locks the log and takes the next entry's slot, stamped at,
// and returns it with its position. The caller holds the lock until it
// has filled the slot: readers take their views under it, so none sees
// the entry before then. Chunks never move, so the slot stays put.
func (h *logHook[T]) Reserve(at time.Time) (*T, int64) {
	l := (*Log[T])(h)
	l.mu.Lock()
	e, pos := l.slot(at), l.total
	l.commit()
	return &e.v, pos
}

// push appends under l.mu.
func (l *Log[T]) push(e entry[T]) {
	l.slot(e.at).v = e.v
	l.commit()
}

// slot returns the slot of the next entry, stamped at, under l.mu. The
// entry is not visible until commit. Slots are written once, at positions
// no reader has seen yet, so readers holding an older view never race
// with the writer.
func (l *Log[T]) slot(at time.Time) *entry[T] {
	off := uint64(l.total - l.first) // unsigned: the divisions below are shifts
	if off > 0 && at.Before(l.last) {
		at = l.last // clocks read before the lock can arrive out of order
	}
	l.last = at
	if off == uint64(len(l.chunks))*chunkSize {
		l.chunks = append(l.chunks, make([]entry[T], chunkSize))
	}
	e := &l.chunks[off/chunkSize][off%chunkSize]
	e.at = at
	return e
}

// commit makes the entry in the next slot visible, under l.mu.
func (l *Log[T]) commit() {
	l.total++
	l.trim()
}

// trim drops whole chunks that hold only entries beyond the retention.
// The remaining chunk headers move to a new array, with room for the next
// chunk: the old array cannot be cleared, since a reader may still hold a
// view of it, and while the log used it the dropped chunks, and every
// entry in them, would stay reachable.
func (l *Log[T]) trim() {
	if l.retention <= 0 {
		return
	}
	drop := 0
	for len(l.chunks)-drop > 1 && l.first+chunkSize <= l.total-int64(l.retention) {
		drop++
		l.first += chunkSize
	}
	if drop > 0 {
		kept := len(l.chunks) - drop
		l.chunks = append(make([][]entry[T], 0, kept+1), l.chunks[drop:]...)
	}
}

func (l *Log[T]) viewLocked() view[T] {
	start := max(l.first, l.floor)
	if l.retention > 0 && l.total-int64(l.retention) > start {
		start = l.total - int64(l.retention)
	}
	return view[T]{chunks: l.chunks, first: l.first, start: start, end: l.total}
}

func (l *Log[T]) view() view[T] {
	l.mu.Lock()
	v := l.viewLocked()
	l.mu.Unlock()
	return v
}

// SetRetention bounds the number of retained entries; zero keeps all.
// Entries beyond the new bound are dropped at once.
func (l *Log[T]) SetRetention(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.retention > 0 {
		l.floor = max(l.floor, l.total-int64(l.retention))
	}
	l.retention = max(n, 0)
	l.trim()
}

// Len returns the number of retained entries.
func (l *Log[T]) Len() int { return l.view().len() }

// Total returns the number of entries ever appended, including those
// dropped by retention.
func (l *Log[T]) Total() int64 {
	l.mu.Lock()
	n := l.total
	l.mu.Unlock()
	return n
}

// Latest returns the most recently appended entry.
func (l *Log[T]) Latest() (T, bool) {
	v := l.view()
	if v.len() == 0 {
		var zero T
		return zero, false
	}
	return v.at(v.end - 1).v, true
}

// At returns the entry at position pos, if it is still retained.
func (l *Log[T]) At(pos int64) (T, bool) {
	v := l.view()
	if pos < v.start || pos >= v.end {
		var zero T
		return zero, false
	}
	return v.at(pos).v, true
}

// Last returns a new slice with the last n retained entries, oldest first.
func (l *Log[T]) Last(n int) []T {
	v := l.view()
	n = min(n, v.len())
	if n <= 0 {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = v.at(v.end - int64(n) + int64(i)).v
	}
	return out
}

// Since returns the retained entries appended at or after t, oldest first.
// It reads back from the newest entry, so it costs what it returns.
func (l *Log[T]) Since(t time.Time) []T {
	v := l.view()
	pos := v.end
	for pos > v.start && !v.at(pos-1).at.Before(t) {
		pos--
	}
	if pos == v.end {
		return nil
	}
	out := make([]T, v.end-pos)
	for i := range out {
		out[i] = v.at(pos + int64(i)).v
	}
	return out
}

// All iterates over the retained entries, oldest first, with their
// positions. Entries appended during iteration are not visited.
func (l *Log[T]) All() iter.Seq2[int64, T] {
	return func(yield func(int64, T) bool) {
		v := l.view()
		for pos := v.start; pos < v.end; pos++ {
			if !yield(pos, v.at(pos).v) {
				return
			}
		}
	}
}

// Range iterates over the retained entries at positions from up to but
// not including to, oldest first, with their positions. It yields
// pointers to the log's own storage, so that a reader on a hot path pays
// for neither a copy nor a lock per entry: read through them, never
// change what they point to. Entries appended during iteration are not
// visited.
func (l *Log[T]) Range(from, to int64) iter.Seq2[int64, *T] {
	return func(yield func(int64, *T) bool) {
		v := l.view()
		for pos := max(from, v.start); pos < min(to, v.end); pos++ {
			if !yield(pos, &v.at(pos).v) {
				return
			}
		}
	}
}

// Backward iterates over the retained entries, newest first, with their
// positions. Stop early to pay only for the entries visited.
func (l *Log[T]) Backward() iter.Seq2[int64, T] {
	return func(yield func(int64, T) bool) {
		v := l.view()
		for pos := v.end - 1; pos >= v.start; pos-- {
			if !yield(pos, v.at(pos).v) {
				return
			}
		}
	}
}

// entries returns the retained entries, for snapshots.
func (l *Log[T]) entries() ([]entry[T], int64) {
	v := l.view()
	out := make([]entry[T], 0, v.len())
	for pos := v.start; pos < v.end; pos++ {
		out = append(out, *v.at(pos))
	}
	return out, v.end
}

// Epoch returns a number that changes each time the log's contents are
// replaced, as [Store.Restore] does, and never otherwise: appends and
// retention leave it alone. A reader that remembers positions, such as
// how far it has read, can tell from it without a lock whether they still
// name the same entries.
func (l *Log[T]) Epoch() uint64 { return l.epoch.Load() }

// load replaces the contents with items, the last of total entries.
func (l *Log[T]) load(items []entry[T], total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.epoch.Add(1)
	l.chunks = nil
	l.first = total - int64(len(items))
	l.floor = l.first
	l.total = l.first
	for _, e := range items {
		l.push(e)
	}
}

func (l *Log[T]) sliceName() string { return l.name }
func (l *Log[T]) sliceKind() string { return kindLog }

func (l *Log[T]) reset() { l.load(nil, 0) }
