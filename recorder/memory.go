package recorder

import (
	"context"
	"sync"
	"unsafe"
)

// MemorySink keeps records in memory. It is meant for tests and examples:
// it grows without bound and loses everything when the process ends.
//
// The zero MemorySink is empty and ready to use. It is safe for concurrent
// use. It implements Flusher (a no-op) and Closer (after Close, Write and
// Flush return ErrClosed; the records stay readable).
type MemorySink struct {
	mu     sync.Mutex
	chunks [][]Record // full chunks of memoryChunk records, then the open one
	n      int
	closed bool
}

// memoryChunk is how many records share one allocation. Growing by chunks
// means a write never copies the records already held. A chunk fills the
// largest small-object size (32 KiB, less the 8-byte header the runtime
// puts before small objects holding pointers), so it comes from the
// per-thread cache rather than the heap's large-object path.
const memoryChunk = (32<<10 - 8) / int(unsafe.Sizeof(Record{}))

// NewMemorySink returns an empty MemorySink.
func NewMemorySink() *MemorySink { return new(MemorySink) }

// Write appends a copy of r.
func (m *MemorySink) Write(_ context.Context, r *Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if len(m.chunks) == 0 || len(m.chunks[len(m.chunks)-1]) == memoryChunk {
		m.chunks = append(m.chunks, make([]Record, 0, memoryChunk))
	}
	last := &m.chunks[len(m.chunks)-1]
	*last = (*last)[:len(*last)+1]
	// Copied field by field rather than as a whole Record, which would
	// take the bulk write barrier while the garbage collector runs.
	// TestMemorySinkKeepsEveryField fails when a new field is missed.
	e := &(*last)[len(*last)-1]
	e.SchemaVersion = r.SchemaVersion
	e.Seq = r.Seq
	e.RunID = r.RunID
	e.ParentRunID = r.ParentRunID
	e.Depth = r.Depth
	e.RecordedAt = r.RecordedAt
	e.Payload = r.Payload
	m.n++
	return nil
}

// Records returns a copy of the records written so far, in write order.
func (m *MemorySink) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Record, 0, m.n)
	for _, c := range m.chunks {
		out = append(out, c...)
	}
	return out
}

// Len returns how many records have been written.
func (m *MemorySink) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

// Flush does nothing: a MemorySink holds no buffer. After Close it returns
// ErrClosed.
func (m *MemorySink) Flush(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Close stops the sink from accepting records. It is idempotent.
func (m *MemorySink) Close(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
