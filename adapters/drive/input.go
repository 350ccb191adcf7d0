package drive

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// The recording holds every message of a model call's input once: each
// call records, before its request, the messages of its input that the
// run's records do not hold yet, with where they came from. A reader
// rebuilds a call's input as the last message_count messages of the run's
// conversation (less what was injected, which the request holds), so an
// input that does not continue the last one (a planner's fresh prompt, a
// history a middleware rewrote) is recorded whole again.

// seenInput is what a run's recording holds of its model calls' input:
// the last input recorded, less the messages Lookout injected at its end,
// and the reply recorded since.
type seenInput struct {
	mu sync.Mutex
	// n is the length of the last input, and first and last its first
	// and last messages: an input that starts with that one has them
	// at the same places.
	n           int
	first, last *schema.Message
	// query holds the messages the query was given, set on a root run
	// (see SetQuery) and read by its children.
	query []*schema.Message
	// reply is 1 plus the tool calls of the reply recorded since the
	// last input, which the conversation holds with a result for each
	// call; 0 when no reply was recorded.
	reply atomic.Int64
	// continues says the run is a later turn of a conversation, whose
	// earlier turns recorded the history it is given.
	continues atomic.Bool
}

// known returns how many messages at the start of x, an input less what
// was injected, the recording holds already: the last input and the reply
// recorded since, with its tool results, when x continues them, and
// otherwise none. It compares the ends of the last input, not every
// message: runtimes append to an agent's messages, and rebuild them
// (summarize, replan) with new messages.
func (s *seenInput) known(x []*schema.Message) int {
	if s.n == 0 || len(x) < s.n || !sameMessage(x[0], s.first) || !sameMessage(x[s.n-1], s.last) {
		return 0
	}
	k := s.n
	if reply := int(s.reply.Load()); reply > 0 {
		end := k + reply
		if end > len(x) || x[k] == nil || x[k].Role != schema.Assistant {
			return 0
		}
		for _, m := range x[k+1 : end] {
			if m == nil || m.Role != schema.Tool {
				return 0
			}
		}
		k = end
	}
	return k
}

// sameMessage reports whether a and b are the same message: the same
// pointer, or, as a modifier may build an agent's instruction anew for
// each call, the same plain text message.
func sameMessage(a, b *schema.Message) bool {
	return a == b || a != nil && b != nil && a.Role == b.Role && a.Content == b.Content && a.Name == b.Name &&
		a.ToolCallID == b.ToolCallID && len(a.ToolCalls) == 0 && len(b.ToolCalls) == 0 &&
		len(a.UserInputMultiContent) == 0 && len(b.UserInputMultiContent) == 0 &&
		len(a.MultiContent) == 0 && len(b.MultiContent) == 0 &&
		len(a.AssistantGenMultiContent) == 0 && len(b.AssistantGenMultiContent) == 0
}

// set notes that the recording holds x.
func (s *seenInput) set(x []*schema.Message) {
	s.n = len(x)
	s.reply.Store(0)
	if len(x) > 0 {
		s.first, s.last = x[0], x[len(x)-1]
	}
}

// replied notes a reply recorded with calls tool calls.
func (s *seenInput) replied(calls int) { s.reply.Store(int64(1 + calls)) }

// recordNew records the messages of x, a model call's input less what
// Lookout injected at its end, that the recording does not hold yet. A
// resumed run's recording holds its first call's input; the first call of
// a later turn of a conversation records what follows the history, which
// the earlier turns recorded.
func (r *Run) recordNew(ctx context.Context, x []*schema.Message, resumed bool) {
	s := &r.trace.seen
	s.mu.Lock()
	start := s.known(x)
	switch {
	case s.n > 0 || start > 0:
	case resumed:
		start = len(x)
	case s.continues.Load():
		start = turnStart(x)
	}
	s.set(x)
	s.mu.Unlock()
	if start == len(x) {
		return
	}
	o := r.origins(x)
	for i := start; i < len(x); i++ {
		if x[i] != nil {
			r.note(r.trace.rec.MessageFrom(ctx, x[i], o.of(x, i)))
		}
	}
}

// origins tells where the messages of a run's input came from.
type origins struct {
	r *Run
	// query is what the query was given, at at in the input (-1: not
	// there), the caller's history up to turn.
	query    []*schema.Message
	at, turn int
}

func (r *Run) origins(x []*schema.Message) origins {
	o := origins{r: r, at: -1}
	root := r
	for root.parent != nil {
		root = root.parent
	}
	root.trace.seen.mu.Lock()
	q := root.trace.seen.query
	root.trace.seen.mu.Unlock()
	if len(q) > 0 {
		o.query, o.turn = q, turnStart(q)
		for i, m := range x {
			if m == o.query[0] {
				o.at = i
				break
			}
		}
	}
	return o
}

// of returns the origin of x[i].
func (o origins) of(x []*schema.Message, i int) recorder.Origin {
	m := x[i]
	if j := i - o.at; o.at >= 0 && j >= 0 && j < len(o.query) && o.query[j] == m {
		if j < o.turn {
			return recorder.OriginHistory
		}
		return recorder.OriginQuery
	}
	r := o.r
	switch {
	case m.Role == schema.System:
		return recorder.OriginAgent
	case r.parent == nil && o.query == nil:
		// A root told nothing of its query: its input is the query's,
		// after the agent's instruction.
		if i < turnStart(x) {
			return recorder.OriginHistory
		}
		return recorder.OriginQuery
	case r.parent == nil:
		return recorder.OriginAgent
	case r.callID != "" && m.Role == schema.User:
		return recorder.OriginRequest
	case m.Role != schema.User || strings.HasPrefix(m.Content, "For context:"):
		return recorder.OriginContext
	default:
		return recorder.OriginAgent
	}
}

// turnStart returns where the last turn of msgs starts: after the last
// reply or tool result, or at 0.
func turnStart(msgs []*schema.Message) int {
	since := 0
	for i, m := range msgs {
		if m != nil && (m.Role == schema.Assistant || m.Role == schema.Tool) {
			since = i + 1
		}
	}
	return since
}

// SetQuery tells a root run the messages its query was given (what
// Runner.Run was passed), so that its recording, and its children's, say
// which messages of their model calls' input are the caller's history and
// the query. msgs must not be changed afterwards.
func (r *Run) SetQuery(msgs []*schema.Message) {
	if r.parent == nil && len(msgs) > 0 {
		r.trace.seen.mu.Lock()
		r.trace.seen.query = msgs
		r.trace.seen.mu.Unlock()
	}
}

// RecordInput records the query's messages as the run's input, for a root
// run whose own model calls do not see them: the root of a supervisor or
// a workflow, whose agents run as its children. It sets the query as
// SetQuery does.
func (r *Run) RecordInput(ctx context.Context, msgs []*schema.Message) {
	r.SetQuery(msgs)
	if !r.setupDone.Load() {
		r.Begin(ctx, nil)
	}
	if r.trace.rec != nil && !r.trace.input.Load() {
		r.recordNew(ctx, msgs, false)
	}
}
