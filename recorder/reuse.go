package recorder

import (
	"sync"

	"github.com/lookout-go/lookout/internal/slab"
)

// payloadPool keeps the payloads of the kinds an agent records on every
// model and tool call, and its assessments, once a FileSink behind the Recorder has encoded
// them, for the Trace methods to fill in again: a run that writes to a
// file then allocates nothing per record, and the collector has nothing
// of it to collect. Every payload of those kinds that reaches the queue
// is the Recorder's own (one a caller passes to Emit is copied first; see
// Trace.own), and only a FileSink, which keeps none of them once written,
// gives them back. A sink of another kind, which may keep what it is
// handed, leaves the pool off.
//
// The pool keeps as many payloads of a kind as the queue holds records,
// so that a burst the goroutine writes at once comes back whole: it holds
// no more than a full queue held.
type payloadPool struct {
	on   bool // the sink is a FileSink
	most int  // payloads of a kind it keeps: Options.QueueSize

	mu       sync.Mutex
	request  []*ModelRequest
	response []*ModelResponse
	started  []*ToolStarted
	ended    []*ToolEnded
	budget   []*BudgetRecord
	assessed []*AssessmentRecord
}

// fresh returns a payload holding a copy of *v: one of free, or a new one
// from s.
func fresh[T any](pool *payloadPool, free *[]*T, s *slab.Slab[T], v *T) *T {
	if pool.on {
		pool.mu.Lock()
		if n := len(*free) - 1; n >= 0 {
			p := (*free)[n]
			*free = (*free)[:n]
			pool.mu.Unlock()
			*p = *v
			return p
		}
		pool.mu.Unlock()
	}
	return s.New(v)
}

// give puts back payloads written out, each emptied first, so that the
// pool holds on to nothing of the caller's.
func (pool *payloadPool) give(written []Payload) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for _, p := range written {
		switch t := p.(type) {
		case *ModelRequest:
			putBack(&pool.request, t, pool.most)
		case *ModelResponse:
			putBack(&pool.response, t, pool.most)
		case *ToolStarted:
			putBack(&pool.started, t, pool.most)
		case *ToolEnded:
			putBack(&pool.ended, t, pool.most)
		case *BudgetRecord:
			putBack(&pool.budget, t, pool.most)
		case *AssessmentRecord:
			putBack(&pool.assessed, t, pool.most)
		}
	}
}

// putBack empties p and adds it to free, unless free holds most.
func putBack[T any](free *[]*T, p *T, most int) {
	if len(*free) < most {
		var zero T
		*p = zero
		*free = append(*free, p)
	}
}

// own returns a copy of the caller's payload p, made by Trace.Emit, when
// it is of a kind the pool keeps, and reports whether it made one: every
// payload of those kinds that a FileSink writes is then the Recorder's,
// to reuse. Other payloads are returned as they are.
func (r *Trace) own(p Payload) (Payload, bool) {
	pool := &r.rec.pool
	switch t := p.(type) {
	case *ModelRequest:
		return fresh(pool, &pool.request, &r.slabs.request, t), true
	case *ModelResponse:
		return fresh(pool, &pool.response, &r.slabs.response, t), true
	case *ToolStarted:
		return fresh(pool, &pool.started, &r.slabs.started, t), true
	case *ToolEnded:
		return fresh(pool, &pool.ended, &r.slabs.ended, t), true
	case *BudgetRecord:
		return fresh(pool, &pool.budget, &r.slabs.budget, t), true
	case *AssessmentRecord:
		return fresh(pool, &pool.assessed, &r.slabs.assessed, t), true
	}
	return p, false
}
