package session

import (
	"iter"
	"sync"
	"time"
)

// Log is an append-only slice of T. Obtain one with [LogOf]. A Log is safe
// for concurrent use.
//
// Entries are never modified once appended. Readers take a view of the
// backing array under a short lock and read it without one, so iteration
// never copies the log and never blocks writers.
type Log[T any] struct {
	name string
	now  func() time.Time

	mu        sync.RWMutex
	items     []entry[T]
	total     int64 // entries ever appended, retained or not
	retention int
}

type entry[T any] struct {
	v  T
	at time.Time
}

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
	at := l.now()
	l.mu.Lock()
	v := build(l.total)
	l.push(entry[T]{v: v, at: at})
	l.mu.Unlock()
	return v
}

// push appends under l.mu. With a retention bound the head is dropped by
// reslicing, which also shrinks the capacity, so append soon moves the
// retained entries to a fresh array and memory stays within a small
// multiple of the retention. Dropped slots are not zeroed: a reader may
// still be iterating over them.
func (l *Log[T]) push(e entry[T]) {
	l.items = append(l.items, e)
	l.total++
	if l.retention > 0 && len(l.items) > l.retention {
		l.items = l.items[len(l.items)-l.retention:]
	}
}

// SetRetention bounds the number of retained entries; zero keeps all.
// Entries beyond the new bound are dropped at once.
func (l *Log[T]) SetRetention(n int) {
	if n < 0 {
		n = 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retention = n
	if n > 0 && len(l.items) > n {
		kept := make([]entry[T], n, n+n/2+1)
		copy(kept, l.items[len(l.items)-n:])
		l.items = kept
	}
}

// Len returns the number of retained entries.
func (l *Log[T]) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.items)
}

// Total returns the number of entries ever appended, including those
// dropped by retention.
func (l *Log[T]) Total() int64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.total
}

// view returns the retained entries and the position of the first one.
func (l *Log[T]) view() ([]entry[T], int64) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.items, l.total - int64(len(l.items))
}

// Latest returns the most recently appended entry.
func (l *Log[T]) Latest() (T, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if len(l.items) == 0 {
		var zero T
		return zero, false
	}
	return l.items[len(l.items)-1].v, true
}

// At returns the entry at position pos, if it is still retained.
func (l *Log[T]) At(pos int64) (T, bool) {
	items, first := l.view()
	i := pos - first
	if pos < 0 || i < 0 || i >= int64(len(items)) {
		var zero T
		return zero, false
	}
	return items[i].v, true
}

// Last returns a new slice with the last n retained entries, oldest first.
func (l *Log[T]) Last(n int) []T {
	items, _ := l.view()
	if n > len(items) {
		n = len(items)
	}
	if n <= 0 {
		return nil
	}
	out := make([]T, n)
	for i, e := range items[len(items)-n:] {
		out[i] = e.v
	}
	return out
}

// Since returns the retained entries appended at or after t, oldest first.
// It reads back from the newest entry, so it costs what it returns.
func (l *Log[T]) Since(t time.Time) []T {
	items, _ := l.view()
	i := len(items)
	for i > 0 && !items[i-1].at.Before(t) {
		i--
	}
	if i == len(items) {
		return nil
	}
	out := make([]T, len(items)-i)
	for j, e := range items[i:] {
		out[j] = e.v
	}
	return out
}

// All iterates over the retained entries, oldest first, with their
// positions. Entries appended during iteration are not visited.
func (l *Log[T]) All() iter.Seq2[int64, T] {
	return func(yield func(int64, T) bool) {
		items, first := l.view()
		for i, e := range items {
			if !yield(first+int64(i), e.v) {
				return
			}
		}
	}
}

// Backward iterates over the retained entries, newest first, with their
// positions. Stop early to pay only for the entries visited.
func (l *Log[T]) Backward() iter.Seq2[int64, T] {
	return func(yield func(int64, T) bool) {
		items, first := l.view()
		for i := len(items) - 1; i >= 0; i-- {
			if !yield(first+int64(i), items[i].v) {
				return
			}
		}
	}
}

func (l *Log[T]) sliceName() string { return l.name }
func (l *Log[T]) sliceKind() string { return kindLog }

func (l *Log[T]) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = nil
	l.total = 0
}
