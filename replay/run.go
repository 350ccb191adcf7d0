package replay

import (
	"cmp"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"
)

// recRun is one recorded run: its model calls, each with the input it
// was given as far as the recording tells it, and its tool calls.
type recRun struct {
	id, parent    string
	agent, callID string
	records       []recorder.Record
	children      []*recRun
	calls         []*recCall
	tools         []*recTool

	// Replay state, guarded by the cassette's lock.
	next    int // index of the next model call to play
	claimed bool
}

// recCall is one recorded model call.
type recCall struct {
	seq      uint64 // of the model_request, or of the model_response without one
	at, done time.Time
	request  *recorder.ModelRequest // nil when the recording has none (ATIF)
	response *recorder.ModelResponse
	// input is what the recording says the call's input held: the
	// run's system and user messages, the replies before it and their
	// tool results. Lookout's injected messages are not recorded.
	input []want
	// system counts the system messages that open input.
	system int
	// defs are the definitions of the tools offered, by name, as last
	// recorded up to this call.
	defs map[string]recorder.ToolDefinition
	// tools are the recorded tool calls the reply made, and next the
	// time of what the run did once they were done: its next model
	// call, or its end.
	tools []*recTool
	next  time.Time
	// checked is the time of the record before the call's request: the
	// run's checks before a model call read the clock before its request
	// is recorded, so they saw no later time than this.
	checked time.Time
}

// want is one message the recording expects in a call's input.
type want struct {
	msg *schema.Message
	// truncated says the recorded content is the start of the real one.
	truncated bool
	// toolCall is the recorded call index of a tool result, or -1.
	toolCall int
	seq      uint64
}

// recTool is one recorded tool call.
type recTool struct {
	started  *recorder.ToolStarted
	ended    *recorder.ToolEnded // nil when the call never ended
	seq      uint64              // of the tool_started record
	at, done time.Time
	call     *recCall // the model call whose reply made it, if any
	used     bool
	// over is closed once the live call has ended; see inTurn.
	once, closeOnce sync.Once
	over            chan struct{}
}

// use marks t as played and moves the clock to its recorded end; once
// every call of its reply is played, to what the run did next, so that a
// budget check before the next model call sees the time it saw in the
// recording. The caller holds c.mu.
func (c *Cassette) use(t *recTool) {
	t.used = true
	c.advance(t.done)
	if t.call == nil {
		return
	}
	for _, o := range t.call.tools {
		if !o.used {
			return
		}
	}
	c.advance(t.call.next)
}

// build reads the run's records, in seq order, into calls and tools.
func (r *recRun) build() {
	b := &runBuilder{
		r:      r,
		ended:  map[string]*recorder.ToolEnded{},
		endSeq: map[string]uint64{},
		defs:   map[string]recorder.ToolDefinition{},
		byID:   map[string]*recTool{},
	}
	var prev time.Time // the time of the record before rec
	for i := range r.records {
		b.add(&r.records[i], prev)
		prev = r.records[i].RecordedAt
	}
	for i := 1; i < len(r.calls); i++ {
		r.calls[i-1].next = cmp.Or(r.calls[i].checked, r.calls[i].at)
	}
}

// runBuilder is what build keeps while it reads a run's records.
type runBuilder struct {
	r       *recRun
	conv    []want
	pending *recCall // the request waiting for its response
	last    *recCall // the last answered call, whose results follow
	ended   map[string]*recorder.ToolEnded
	endSeq  map[string]uint64
	defs    map[string]recorder.ToolDefinition
	byID    map[string]*recTool
	// deadline is the run's time budget's end, if it has one.
	deadline time.Time
}

// add reads one record; before is the time of the record before it.
func (b *runBuilder) add(rec *recorder.Record, before time.Time) {
	if !b.addCall(rec, before) {
		b.addRun(rec)
	}
}

// addCall reads a record of a model or tool call. It reports whether rec
// was one.
func (b *runBuilder) addCall(rec *recorder.Record, before time.Time) bool {
	switch p := rec.Payload.(type) {
	case *recorder.ModelRequest:
		// A request without a response (a failed attempt) is replaced
		// by the next one.
		b.pending = b.open(rec.Seq, rec.RecordedAt, p)
		b.pending.checked = before
	case *recorder.ModelResponse:
		b.response(rec, p)
	case *recorder.ToolStarted:
		b.toolStarted(rec, p)
	case *recorder.ToolEnded:
		b.toolEnded(rec, p)
	default:
		return false
	}
	return true
}

// addRun reads a record of the run itself: its start and end, a message,
// a budget record.
func (b *runBuilder) addRun(rec *recorder.Record) {
	r := b.r
	switch p := rec.Payload.(type) {
	case *recorder.RunStarted:
		r.agent = p.AgentName
		b.deadline = p.Limits.Deadline
		r.callID = p.ParentToolCallID
	case *recorder.Message:
		if p.Message != nil {
			b.flush()
			b.conv = append(b.conv, want{msg: p.Message, toolCall: -1, seq: rec.Seq})
		}
	case *recorder.BudgetRecord:
		b.budget(p)
	case *recorder.RunEnded:
		b.runEnded(rec.RecordedAt)
	}
}

// runEnded makes the run's end, at, the time after its last model call,
// unless a budget record gave one.
func (b *runBuilder) runEnded(at time.Time) {
	r := b.r
	if n := len(r.calls); n > 0 && r.calls[n-1].next.IsZero() {
		r.calls[n-1].next = at
	}
}

// response closes the model call waiting for p, or one of its own for a
// response without its request.
func (b *runBuilder) response(rec *recorder.Record, p *recorder.ModelResponse) {
	c := b.pending
	if c == nil {
		c = b.open(rec.Seq, rec.RecordedAt, nil)
	}
	b.pending = nil
	c.response, c.done = p, rec.RecordedAt
	b.r.calls = append(b.r.calls, c)
	b.last = c
}

// toolEnded keeps a tool's result for the conversation and gives it to
// the call it ends.
func (b *runBuilder) toolEnded(rec *recorder.Record, p *recorder.ToolEnded) {
	b.ended[p.CallID] = p
	b.endSeq[p.CallID] = rec.Seq
	if t := b.byID[p.CallID]; t != nil && t.ended == nil {
		t.ended, t.done = p, rec.RecordedAt
	}
}

// budget reads a budget record. A run the deadline stopped records how
// much time the check found used: the time of the check, to the
// millisecond, is the budget's start plus that.
func (b *runBuilder) budget(p *recorder.BudgetRecord) {
	r := b.r
	if n := len(r.calls); n > 0 && p.Event == recorder.BudgetExceeded && p.Resource == "time" && !b.deadline.IsZero() {
		r.calls[n-1].next = b.deadline.Add(time.Duration(p.Used-p.Limit) * time.Millisecond)
	}
}

func (b *runBuilder) toolStarted(rec *recorder.Record, p *recorder.ToolStarted) {
	r := b.r
	t := &recTool{started: p, seq: rec.Seq, at: rec.RecordedAt}
	r.tools = append(r.tools, t)
	if n := len(r.calls); n > 0 {
		t.call = r.calls[n-1]
		t.call.tools = append(t.call.tools, t)
	}
	if p.CallID != "" {
		b.byID[p.CallID] = t
	}
}

// flush appends the last reply and the results of its tool calls, in the
// order the reply made them, as the runtime hands them to the model.
func (b *runBuilder) flush() {
	if b.last == nil {
		return
	}
	if msg := b.last.response.Message; msg != nil {
		b.conv = append(b.conv, want{msg: msg, toolCall: -1, seq: b.last.seq})
		for _, tc := range msg.ToolCalls {
			te := b.ended[tc.ID]
			if te == nil {
				continue
			}
			b.conv = append(b.conv, want{msg: toolMessage(te), truncated: te.Truncated, toolCall: te.CallIndex, seq: b.endSeq[tc.ID]})
		}
	}
	b.last = nil
}

// open starts a model call recorded at seq, with its request if it has
// one.
func (b *runBuilder) open(seq uint64, at time.Time, req *recorder.ModelRequest) *recCall {
	b.flush()
	if req != nil && len(req.ToolDefinitions) > 0 {
		// A call's definitions are shared with the calls after it until
		// a request brings new ones.
		b.defs = copyDefs(b.defs)
		for _, d := range req.ToolDefinitions {
			b.defs[d.Name] = d
		}
	}
	// conv only grows, and its messages are not changed: each call keeps
	// the prefix it was given, capped so that appending to it cannot
	// write into conv.
	c := &recCall{seq: seq, at: at, request: req, input: b.conv[:len(b.conv):len(b.conv)], defs: b.defs}
	for _, w := range c.input {
		if w.msg.Role != schema.System {
			break
		}
		c.system++
	}
	return c
}

func copyDefs(m map[string]recorder.ToolDefinition) map[string]recorder.ToolDefinition {
	out := make(map[string]recorder.ToolDefinition, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// refusalPrefix starts the tool message of a call the budget refused,
// which the recording keeps as the call's result.
const refusalPrefix = "Tool call refused:"

// toolMessage is the tool message the model was given for a recorded
// result: the result, or for a failed call Lookout's "Error: ..." text.
func toolMessage(te *recorder.ToolEnded) *schema.Message {
	content := te.Result
	if te.IsError && !strings.HasPrefix(te.Result, refusalPrefix) {
		content = errorContent(te.Error)
	}
	return &schema.Message{Role: schema.Tool, Content: content, ToolCallID: te.CallID, ToolName: te.Name}
}

// errorContent is a failed tool call's result as Lookout's adapters give
// it to the model.
func errorContent(msg string) string { return "Error: " + msg }

// strict reports whether a call's input must hold exactly the recorded
// messages: a run that may have been given a conversation the recording
// does not show (a later root run of a conversation, a transfer target
// given the history of the agents before it) may hold more between its
// system messages and its own.
func (c *Cassette) strict(r *recRun) bool {
	if r.parent == "" {
		return len(c.roots) > 0 && c.roots[0] == r
	}
	return r.callID != ""
}
