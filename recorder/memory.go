package recorder

import (
	"context"
	"sync"
	"time"
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
	chunks [][]memoryRecord // full chunks of memoryChunk records, then the open one
	n      int
	closed bool
	last   *envelope              // the envelope of the last record written
	shared map[envelope]*envelope // every envelope seen, once runs interleave
}

// envelope is what the records of one run have in common. A MemorySink
// keeps it once per run rather than once per record: the less a record
// takes, the less the garbage collector has to do while a run is held.
type envelope struct {
	schemaVersion int
	runID         string
	parentRunID   string
	depth         int
}

// memoryRecord is a Record as a MemorySink holds it.
type memoryRecord struct {
	seq        uint64
	recordedAt time.Time
	payload    Payload
	envelope   *envelope
}

// memoryChunk is how many records share one allocation. Growing by chunks
// means a write never copies the records already held. A chunk fills the
// largest small-object size (32 KiB, less the 8-byte header the runtime
// puts before small objects holding pointers), so it comes from the
// per-thread cache rather than the heap's large-object path.
const memoryChunk = (32<<10 - 8) / int(unsafe.Sizeof(memoryRecord{}))

// NewMemorySink returns an empty MemorySink.
func NewMemorySink() *MemorySink { return new(MemorySink) }

// Write appends a copy of r. It does not look at ctx.
func (m *MemorySink) Write(_ context.Context, r *Record) error {
	return m.writeDirect(r)
}

// writeDirect is Write: a Recorder calls it without a ctx.
func (m *MemorySink) writeDirect(r *Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	// TestMemorySinkKeepsEveryField fails when a Record field is missed.
	m.add(r.Seq, r.RecordedAt, r.Payload, m.envelopeOf(r))
	return nil
}

// add appends a record; m.mu is held.
func (m *MemorySink) add(seq uint64, at time.Time, p Payload, env *envelope) {
	m.put(m.open(), seq, at, p, env)
}

// put appends a record to chunk, the open chunk, or to a new one when
// chunk is full, and returns the chunk that took it; m.mu is held. A
// batch looks the open chunk up once and passes on what put returns.
func (m *MemorySink) put(chunk *[]memoryRecord, seq uint64, at time.Time, p Payload, env *envelope) *[]memoryRecord {
	k := len(*chunk)
	if k == memoryChunk {
		chunk, k = m.open(), 0
	}
	*chunk = (*chunk)[:k+1]
	// Set field by field rather than as a whole value, which would take
	// the bulk write barrier while the garbage collector runs.
	e := &(*chunk)[k]
	e.seq = seq
	e.recordedAt = at
	e.payload = p
	e.envelope = env
	m.n++
	return chunk
}

// open returns the chunk that takes the next record, with room for it;
// m.mu is held.
func (m *MemorySink) open() *[]memoryRecord {
	n := len(m.chunks) - 1
	if n < 0 || len(m.chunks[n]) == memoryChunk {
		m.chunks = append(m.chunks, make([]memoryRecord, 0, memoryChunk))
		n++
	}
	return &m.chunks[n]
}

// envelopeOf returns the envelope of r, shared with earlier records of its
// run. It is called with m.mu held.
func (m *MemorySink) envelopeOf(r *Record) *envelope {
	if l := m.last; l != nil && l.runID == r.RunID && l.depth == r.Depth && l.parentRunID == r.ParentRunID && l.schemaVersion == r.SchemaVersion {
		return l
	}
	return m.sharedEnvelope(r)
}

// sharedEnvelope is envelopeOf for a record of another run than the last.
func (m *MemorySink) sharedEnvelope(r *Record) *envelope {
	env := envelope{schemaVersion: r.SchemaVersion, runID: r.RunID, parentRunID: r.ParentRunID, depth: r.Depth}
	if m.shared == nil {
		m.shared = make(map[envelope]*envelope)
		if m.last != nil {
			m.shared[*m.last] = m.last
		}
	}
	p := m.shared[env]
	if p == nil {
		p = new(envelope)
		*p = env
		m.shared[env] = p
	}
	m.last = p
	return p
}

// Records returns a copy of the records written so far, in write order.
func (m *MemorySink) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Record, 0, m.n)
	for _, c := range m.chunks {
		for i := range c {
			e := &c[i]
			out = append(out, Record{
				SchemaVersion: e.envelope.schemaVersion,
				Seq:           e.seq,
				RunID:         e.envelope.runID,
				ParentRunID:   e.envelope.parentRunID,
				Depth:         e.envelope.depth,
				RecordedAt:    e.recordedAt,
				Payload:       e.payload,
			})
		}
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

// flushed reports that Flush would do nothing and return nil: the sink
// is open.
func (m *MemorySink) flushed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.closed
}

// Close stops the sink from accepting records. It is idempotent.
func (m *MemorySink) Close(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
