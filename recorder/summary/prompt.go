package summary

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/recorder"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// Confidence is how well a trajectory supports the agent's answer, as the
// summarizing model judged it. It is a string value and safe for
// concurrent use. The zero value means no level was given or recognised.
type Confidence string

// Confidence levels.
const (
	Low    Confidence = "low"
	Medium Confidence = "medium"
	High   Confidence = "high"
)

// Prompt is what one user prompt led to: the records of its run from its
// user message up to the next user message of the same run (or the end).
// Split fills in the counted fields; Summarizer.Summarize also the ones
// the model writes, or Error.
//
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type Prompt struct {
	// RunID and Seq name the user message that prompted the work.
	RunID string    `json:"run_id"`
	Seq   uint64    `json:"seq"`
	At    time.Time `json:"at,omitzero"` // when the user message was recorded

	// Conversation and Turn place the prompt in its conversation (see
	// Prompts.Lookup): the conversation id and turn the run's
	// run_started recorded, else its MetaConversation and MetaTurn
	// metadata, else the run's id and the prompt's index in it.
	Conversation string `json:"conversation"`
	Turn         int    `json:"turn"`

	Query      string        `json:"query"`              // the user message's text
	Response   string        `json:"response,omitempty"` // the last non-empty text the model answered with
	Tools      []string      `json:"tools,omitempty"`    // distinct tools called, sorted
	ToolCalls  int           `json:"tool_calls"`
	ToolErrors int           `json:"tool_errors"`
	ModelCalls int           `json:"model_calls"` // model responses: the reasoning steps
	Tokens     int64         `json:"tokens"`      // total tokens the responses reported
	Duration   time.Duration `json:"duration_ns"` // user message to the last record of the prompt

	Summary    string     `json:"summary,omitempty"`
	Rationale  string     `json:"tools_rationale,omitempty"` // why the tools were chosen
	Findings   []string   `json:"key_findings,omitempty"`
	Confidence Confidence `json:"confidence,omitempty"`
	// SummarizedAt is when the model's summary arrived; zero when none was
	// asked for.
	SummarizedAt time.Time `json:"summarized_at,omitzero"`
	// Error says why the prompt has no summary, when asking for one
	// failed. The summary fields are then empty; the counted ones are not.
	Error string `json:"error,omitempty"`
	// Attempts counts the model calls made for the prompt, retries
	// included.
	Attempts int `json:"attempts,omitempty"`
}

// Run metadata keys (recorder.RunStarted.Metadata) that place a run's
// prompts in a conversation: the conversation's id, and the turn of the
// run's first prompt, in decimal.
const (
	MetaConversation = "conversation_id"
	MetaTurn         = "turn"
)

// Lookup returns the prompt of a conversation's turn.
func (ps Prompts) Lookup(conversation string, turn int) (Prompt, bool) {
	for _, p := range ps {
		if p.Conversation == conversation && p.Turn == turn {
			return p, true
		}
	}
	return Prompt{}, false
}

// segment is a prompt with the records it covers, its user message first.
// The records point into the caller's slice, which is only read.
type segment struct {
	prompt  Prompt
	records []*recorder.Record
}

// Split returns one Prompt per user message in records, with the counted
// fields filled in: runs in order of first appearance, and within a run in
// seq order. Records of a run before its first user message (run start,
// system messages) belong to no prompt. Child runs have prompts of their
// own; a parent's prompt does not count its children's work. Records
// without a payload are left out.
func Split(records []recorder.Record) Prompts {
	segs := split(records)
	out := make(Prompts, len(segs))
	for i := range segs {
		out[i] = segs[i].prompt
	}
	return out
}

// split cuts the records of every run, in Seq order, into segments that
// each begin at a user message. Runs come in the order of their first
// record.
func split(records []recorder.Record) []segment {
	byRun, order := groupByRun(records)
	var segs []segment
	for _, id := range order {
		recs := byRun[id]
		slices.SortStableFunc(recs, func(a, b *recorder.Record) int { return cmp.Compare(a.Seq, b.Seq) })
		first := len(segs)
		segs = appendSegments(segs, recs)
		conv, turn := place(id, recs)
		for i := first; i < len(segs); i++ {
			segs[i].prompt.Conversation, segs[i].prompt.Turn = conv, turn+i-first
		}
	}
	return segs
}

// place returns the conversation of a run's prompts and the turn of its
// first: from the run's metadata when it names them, else the run's id
// and 0.
func place(runID string, recs []*recorder.Record) (string, int) {
	for _, r := range recs {
		if rs, ok := r.Payload.(*recorder.RunStarted); ok {
			return placeFrom(runID, rs)
		}
	}
	return runID, 0
}

// placeFrom returns the conversation and turn the start of a run names:
// its conversation id and turn, else those of its metadata, else the run's
// id and 0.
func placeFrom(runID string, rs *recorder.RunStarted) (string, int) {
	if rs.ConversationID != "" {
		return rs.ConversationID, rs.Turn
	}
	conv, turn := runID, 0
	if c := rs.Metadata[MetaConversation]; c != "" {
		conv = c
	}
	if t, err := strconv.Atoi(rs.Metadata[MetaTurn]); err == nil && t >= 0 {
		turn = t
	}
	return conv, turn
}

// groupByRun returns the records that have a payload by run id, and the
// run ids in the order of their first record.
func groupByRun(records []recorder.Record) (map[string][]*recorder.Record, []string) {
	byRun := map[string][]*recorder.Record{}
	var order []string
	for i := range records {
		if recorder.IsNilPayload(records[i].Payload) {
			continue
		}
		id := records[i].RunID
		if _, ok := byRun[id]; !ok {
			order = append(order, id)
		}
		byRun[id] = append(byRun[id], &records[i])
	}
	return byRun, order
}

// appendSegments appends to segs a segment for each user message in
// recs, holding it and the records up to the next one. Records before the
// first user message belong to no prompt.
func appendSegments(segs []segment, recs []*recorder.Record) []segment {
	start := -1
	for i, rec := range recs {
		if !isUserMessage(rec) {
			continue
		}
		if start >= 0 {
			segs = append(segs, newSegment(recs[start:i]))
		}
		start = i
	}
	if start >= 0 {
		segs = append(segs, newSegment(recs[start:]))
	}
	return segs
}

// isUserMessage reports whether rec is a message the run was given by
// its user: the query of a root run, the request of an agent used as a
// tool. The history, a sub-agent's copy of the query and what the runtime
// passes on from earlier agents are not new prompts.
func isUserMessage(rec *recorder.Record) bool {
	m, ok := rec.Payload.(*recorder.Message)
	if !ok || m.Message == nil || m.Message.Role != schema.User {
		return false
	}
	switch m.Origin {
	case "", recorder.OriginRequest:
		return true
	case recorder.OriginQuery:
		return rec.ParentRunID == ""
	}
	return false
}

// newSegment counts what the records of one prompt hold; recs[0] is its
// user message.
func newSegment(recs []*recorder.Record) segment {
	first := recs[0]
	p := Prompt{
		RunID: first.RunID,
		Seq:   first.Seq,
		At:    first.RecordedAt,
		Query: msgtext.Of(first.Payload.(*recorder.Message).Message),
	}
	c := promptCount{p: &p, tools: map[string]bool{}}
	last := first.RecordedAt
	for _, rec := range recs[1:] {
		if rec.RecordedAt.After(last) {
			last = rec.RecordedAt
		}
		c.record(rec)
	}
	if last.After(p.At) {
		p.Duration = last.Sub(p.At)
	}
	if len(c.tools) > 0 {
		p.Tools = sortedKeys(c.tools)
	}
	return segment{prompt: p, records: recs}
}

// promptCount counts the records of one prompt into p: the tools used,
// by name, and the calls still open.
type promptCount struct {
	p     *Prompt
	tools map[string]bool
	open  openCalls
}

func (c *promptCount) record(rec *recorder.Record) {
	switch v := rec.Payload.(type) {
	case *recorder.ModelResponse:
		c.response(v)
	case *recorder.ToolStarted:
		c.open.start(v.CallID, v.CallIndex, v.Name)
		c.tools[v.Name] = true
		c.p.ToolCalls++
	case *recorder.ToolEnded:
		c.toolEnded(v)
	}
}

// response counts a model call and its tokens, and keeps its text as the
// prompt's latest answer.
func (c *promptCount) response(v *recorder.ModelResponse) {
	c.p.ModelCalls++
	if v.UsageReported {
		c.p.Tokens += v.Usage.TotalTokens
	}
	if text := msgtext.Of(v.Message); strings.TrimSpace(text) != "" {
		c.p.Response = text
	}
}

// toolEnded counts a tool's end: as a call of its own when no start was
// seen for it, and as an error when it failed.
func (c *promptCount) toolEnded(v *recorder.ToolEnded) {
	if !c.open.end(v.CallID, v.CallIndex, v.Name) {
		c.p.ToolCalls++
	}
	c.tools[v.Name] = true
	if v.IsError || v.Error != "" {
		c.p.ToolErrors++
	}
}

// Prompts is the list Split and Summarize return. Like the Prompt values
// in it, it is plain data: safe to read from many goroutines, not to
// modify concurrently. A nil Prompts is an empty list.
type Prompts []Prompt

// PromptStats tally a list of prompts: how many were summarized, how
// confident the summaries are, which tools the prompts used and how many
// model calls they took.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently. The zero value describes no prompts.
type PromptStats struct {
	Prompts    int `json:"prompts"`
	Summarized int `json:"summarized"`
	Failed     int `json:"failed"`
	// Confidence counts summaries by level; a summary without a level
	// it recognised counts as "unknown".
	Confidence        map[string]int `json:"confidence,omitempty"`
	Tools             []string       `json:"tools,omitempty"` // distinct, sorted
	ModelCalls        int            `json:"model_calls"`
	AverageModelCalls float64        `json:"average_model_calls"` // ModelCalls / Prompts, 0 without prompts
}

// Stats tallies the prompts.
func (ps Prompts) Stats() PromptStats {
	s := PromptStats{Prompts: len(ps)}
	tools := map[string]bool{}
	for _, p := range ps {
		s.ModelCalls += p.ModelCalls
		for _, t := range p.Tools {
			tools[t] = true
		}
		s.countResult(&p)
	}
	if len(tools) > 0 {
		s.Tools = sortedKeys(tools)
	}
	if s.Prompts > 0 {
		s.AverageModelCalls = float64(s.ModelCalls) / float64(s.Prompts)
	}
	return s
}

// countResult counts p as failed, or as summarized with its confidence.
func (s *PromptStats) countResult(p *Prompt) {
	switch {
	case p.Error != "":
		s.Failed++
	case p.Summary != "":
		s.Summarized++
		s.Confidence = increment(s.Confidence, string(cmp.Or(p.Confidence, "unknown")))
	}
}

// WriteText writes the prompts for people to read, one block each, then
// their tally. It returns the first error from w.
func (ps Prompts) WriteText(w io.Writer) error {
	p := &printer{w: w}
	for i := range ps {
		if i > 0 {
			p.line("", "")
		}
		p.prompt(&ps[i])
	}
	s := ps.Stats()
	if len(ps) > 0 {
		p.line("", "")
	}
	line := fmt.Sprintf("prompts: %d, %d summarized, %d failed; %.2f model calls per prompt",
		s.Prompts, s.Summarized, s.Failed, s.AverageModelCalls)
	if len(s.Confidence) > 0 {
		line += "; confidence " + counts(s.Confidence)
	}
	p.line("", "%s", line)
	return p.err
}

// prompt writes the block of one prompt: what it asked, the work it took,
// its answer, and its summary or why that failed.
func (p *printer) prompt(q *Prompt) {
	p.line("", "prompt at run %s seq %d: %s", q.RunID, q.Seq, quote(cut(oneLine(q.Query), 120)))
	const in = "  "
	tools := "none"
	if len(q.Tools) > 0 {
		tools = strings.Join(q.Tools, ", ")
	}
	p.line(in, "work: %s, %s (%s), %s, %s", plural(q.ModelCalls, "model call", "model calls"),
		plural(q.ToolCalls, "tool call", "tool calls"), tools, plural(q.ToolErrors, "error", "errors"), duration(q.Duration))
	if q.Response != "" {
		p.line(in, "answer: %s", quote(cut(oneLine(q.Response), 200)))
	}
	switch {
	case q.Error != "":
		p.line(in, "summary failed: %s", oneLine(q.Error))
	case q.Summary != "":
		p.promptSummary(in, q)
	}
}

func (p *printer) promptSummary(in string, q *Prompt) {
	p.line(in, "confidence: %s", cmp.Or(string(q.Confidence), "unknown"))
	p.line(in, "summary: %s", oneLine(q.Summary))
	if q.Rationale != "" {
		p.line(in, "tools rationale: %s", oneLine(q.Rationale))
	}
	if len(q.Findings) > 0 {
		p.line(in, "key findings:")
		for _, f := range q.Findings {
			p.line(in+"  ", "- %s", oneLine(f))
		}
	}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
