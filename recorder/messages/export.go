package messages

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
	"github.com/lookout-go/lookout/recorder"
)

// Options tune FromRecords. A nil *Options and the zero value mean the
// defaults. FromRecords only reads them, so one value may be shared by
// concurrent exports if its Redactor is safe for concurrent use.
type Options struct {
	// RunID picks the run to export. Empty means the only run without a
	// parent in the records; with several, FromRecords fails with
	// ErrAmbiguousRoot. Child runs (agents used as tools) are separate
	// conversations: pick them by id.
	RunID string

	// Reasoning adds each model response's reasoning as
	// "reasoning_content" on its assistant message.
	Reasoning bool

	// Assessments adds each assessment as a system message where it was
	// recorded. By default they are left out: the model saw only the
	// latest one, injected into its input, never a message of its own.
	Assessments bool

	// Redactor, if set, rewrites message text, reasoning, tool arguments
	// and tool results on their way out.
	Redactor recorder.Redactor
}

// FromRecords returns the conversation of one run as chat messages, in
// the order they happened: user and system messages as recorded, each
// model response as an assistant message with its tool calls, and each
// tool result as a tool message right after the assistant message that
// asked for it, in the order of its tool calls (not the order the calls
// finished in). A call id names a call of the latest response that made
// one with that id, since models that number calls per turn reuse ids; a
// call without an id is matched by its tool's name. A result for a call
// no response made stays where it was recorded. Records of other runs,
// and records that are not part of the conversation (model requests,
// budgets, run start and end, extensions), are skipped.
func FromRecords(records []recorder.Record, opts *Options) ([]Message, error) {
	o := optionsOf(opts)
	run, err := pickRun(records, o.RunID)
	if err != nil {
		return nil, err
	}
	c := conversation{x: exporter{opts: o}, calls: map[string][]slot{}}
	for _, r := range recordsOf(records, run) {
		c.add(r)
	}
	return c.messages(), nil
}

// optionsOf returns a copy of opts, or the zero Options when it is nil.
func optionsOf(opts *Options) Options {
	if opts == nil {
		return Options{}
	}
	return *opts
}

// recordsOf returns the records of the run, in seq order.
func recordsOf(records []recorder.Record, run string) []recorder.Record {
	var mine []recorder.Record
	for _, r := range records {
		if r.RunID == run {
			mine = append(mine, r)
		}
	}
	bySeq := func(a, b recorder.Record) int { return cmp.Compare(a.Seq, b.Seq) }
	if !slices.IsSortedFunc(mine, bySeq) {
		slices.SortStableFunc(mine, bySeq)
	}
	return mine
}

// conversation gathers a run's messages while its records are read in
// order. Each entry is a message and, for an assistant message, one slot
// per tool call for its result; calls maps a call id to the calls made
// with it, in order.
type conversation struct {
	x       exporter
	entries []entry
	calls   map[string][]slot
	// lastInjected is what the latest model call was injected.
	lastInjected []recorder.InjectedMessage
	unnamed      int // calls given an id of their own
}

type entry struct {
	msg     Message
	results []*Message
	// injected marks a message Lookout injected into a model call.
	injected bool
}

// add adds what one record says to the conversation.
func (c *conversation) add(r recorder.Record) {
	switch p := r.Payload.(type) {
	case *recorder.Message:
		c.historyMessage(p.Message)
	case *recorder.ModelResponse:
		if p.Error == "" { // a failed attempt said nothing
			c.response(c.x.response(p))
		}
	case *recorder.ToolEnded:
		c.toolResult(p.CallID, p.Name, c.x.toolResult(p))
	case *recorder.ModelRequest:
		c.request(p)
	case *recorder.AssessmentRecord:
		c.assessment(p)
	}
}

// historyMessage adds a message recorded from the conversation's history,
// if there is one.
func (c *conversation) historyMessage(m *schema.Message) {
	switch {
	case m == nil:
	case m.Role == schema.Tool:
		// A tool message from the conversation's history answers a
		// call like a recorded result does.
		c.toolResult(m.ToolCallID, m.Name, c.x.message(m))
	case m.Role == schema.Assistant:
		// An assistant message from the history, whose calls its tool
		// messages answer.
		c.response(c.x.message(m))
	default:
		c.entries = append(c.entries, entry{msg: c.x.message(m)})
	}
}

// assessment adds an assessment as a system message, when the options ask
// for assessments.
func (c *conversation) assessment(p *recorder.AssessmentRecord) {
	if c.x.opts.Assessments {
		c.entries = append(c.entries, entry{msg: Message{Role: RoleSystem, Content: Content{Text: c.x.redact(p.Markdown)}}})
	}
}

// response adds an assistant message with a free slot for the result of
// each of its tool calls. A call without an id gets one, call_<n>, since
// a tool message must name the call it answers.
func (c *conversation) response(m Message) {
	c.entries = append(c.entries, entry{msg: m, results: make([]*Message, len(m.ToolCalls))})
	for i, tc := range m.ToolCalls {
		c.calls[tc.ID] = append(c.calls[tc.ID], slot{entry: len(c.entries) - 1, index: i, name: tc.Function.Name})
		if tc.ID == "" {
			c.unnamed++
			m.ToolCalls[i].ID = "call_" + strconv.Itoa(c.unnamed)
		}
	}
}

// toolResult puts a tool message in the slot of the call it answers, with
// that call's id. A result no call made is waiting for stays where it was
// recorded, as a user message: a tool message must answer a call of the
// assistant message before it, and the model read the result all the
// same.
func (c *conversation) toolResult(callID, name string, m Message) {
	free := func(s slot) bool { return c.entries[s.entry].results[s.index] == nil }
	if s, ok := callFor(c.calls[callID], callID, name, free); ok {
		m.ToolCallID = c.entries[s.entry].msg.ToolCalls[s.index].ID
		c.entries[s.entry].results[s.index] = &m
		return
	}
	m.Role, m.ToolCallID = RoleUser, ""
	c.entries = append(c.entries, entry{msg: m})
}

// noResult is the tool message that answers a call whose result was
// never recorded, so that every call of the conversation is answered.
const noResult = "[no result was recorded for this call]"

// messages lists the conversation: each message, then the results of its
// tool calls, in the order of the calls, with noResult for a call whose
// result never came.
func (c *conversation) messages() []Message {
	out := make([]Message, 0, len(c.entries))
	for _, e := range c.entries {
		out = append(out, e.msg)
		for i, m := range e.results {
			if m == nil {
				m = &Message{Role: RoleTool, Content: Content{Text: noResult}, ToolCallID: e.msg.ToolCalls[i].ID}
			}
			out = append(out, *m)
		}
	}
	return out
}

// slot is where a tool call's result goes: the entry of the assistant
// message that made the call, and the call's position in it.
type slot struct {
	entry, index int
	name         string
}

// callFor returns the call a result with this call id and tool name
// answers, among the calls made with the id (slots, in the order made):
// the first in the latest message that made such a call that is free.
// Models that number their calls per turn reuse ids across messages, and
// a call made without an id is matched by the tool's name too.
func callFor(slots []slot, id, name string, free func(slot) bool) (slot, bool) {
	if len(slots) == 0 {
		return slot{}, false
	}
	last := slots[len(slots)-1].entry
	for _, s := range slots {
		if s.entry == last && free(s) && s.answers(id, name) {
			return s, true
		}
	}
	return slot{}, false
}

// answers reports whether a result with this call id and tool name can
// answer the call in s, one made with that id: any such call when the id
// is set, and one of the same tool when it is not.
func (s slot) answers(id, name string) bool { return id != "" || s.name == name }

// pickRun returns the run to export.
func pickRun(records []recorder.Record, id string) (string, error) {
	present := map[string]bool{}
	for _, r := range records {
		present[r.RunID] = true
	}
	if id != "" {
		if !present[id] {
			return "", fmt.Errorf("%w: %q", ErrNoRootRun, id)
		}
		return id, nil
	}
	roots := rootRuns(records, present)
	switch len(roots) {
	case 0:
		return "", ErrNoRootRun
	case 1:
		return roots[0], nil
	}
	return "", &AmbiguousRootError{RunIDs: roots}
}

// rootRuns returns the runs, in the order first seen, that have no parent
// among the records (present) or name themselves as their parent.
func rootRuns(records []recorder.Record, present map[string]bool) []string {
	var roots []string
	seen := map[string]bool{}
	for _, r := range records {
		if seen[r.RunID] {
			continue
		}
		seen[r.RunID] = true
		if r.ParentRunID == "" || r.ParentRunID == r.RunID || !present[r.ParentRunID] {
			roots = append(roots, r.RunID)
		}
	}
	return roots
}

type exporter struct{ opts Options }

func (x exporter) redact(s string) string {
	if x.opts.Redactor == nil || s == "" {
		return s
	}
	return x.opts.Redactor.Redact(s)
}

func (x exporter) message(m *schema.Message) Message {
	out := Message{Role: RoleUser, Content: x.content(m), Name: m.Name}
	switch m.Role {
	case schema.System:
		out.Role = RoleSystem
	case schema.Assistant:
		out.Role = RoleAssistant
		out.ToolCalls = x.toolCalls(m.ToolCalls)
		if x.opts.Reasoning {
			out.ReasoningContent = x.redact(m.ReasoningContent)
		}
	case schema.Tool:
		out.Role = RoleTool
		out.ToolCallID = m.ToolCallID
	}
	return out
}

// content is parts for multimodal user input, or else the message text:
// the content, or the text of its output parts when the content is empty.
// Inline WAV and MP3 audio becomes an input_audio part; other media than
// images is replaced by a text part saying what was left out.
func (x exporter) content(m *schema.Message) Content {
	input := msgtext.InputParts(m)
	if len(input) == 0 {
		return Content{Text: x.redact(msgtext.Of(m))}
	}
	parts := make([]Part, 0, len(input))
	for _, in := range input {
		parts = append(parts, x.part(in))
	}
	return Content{Parts: parts}
}

// part is one part of multimodal user input as the API takes it, or a text
// part saying what was left out.
func (x exporter) part(in schema.MessageInputPart) Part {
	switch in.Type {
	case schema.ChatMessagePartTypeText:
		return Part{Type: "text", Text: x.redact(in.Text)}
	case schema.ChatMessagePartTypeImageURL:
		if p, ok := imagePart(in.Image); ok {
			return p
		}
	case schema.ChatMessagePartTypeAudioURL:
		if p, ok := audioPart(in.Audio); ok {
			return p
		}
	}
	return Part{Type: "text", Text: fmt.Sprintf("[%s omitted]", in.Type)}
}

// imagePart is the image_url part of an image, and false when there is no
// image or it has neither a URL nor inline data.
func imagePart(img *schema.MessageInputImage) (Part, bool) {
	if img == nil {
		return Part{}, false
	}
	url := imageURL(img)
	if url == "" {
		return Part{}, false
	}
	return Part{Type: "image_url", ImageURL: &ImageURL{URL: url, Detail: string(img.Detail)}}, true
}

// audioPart is the input_audio part of audio, and false when there is no
// audio or it is not inline base64 WAV or MP3.
func audioPart(a *schema.MessageInputAudio) (Part, bool) {
	if a == nil {
		return Part{}, false
	}
	in := inputAudio(a)
	return Part{Type: "input_audio", InputAudio: in}, in != nil
}

// imageURL is the image's URL, or a data: URL built from inline data.
func imageURL(img *schema.MessageInputImage) string {
	if img.URL != nil && *img.URL != "" {
		return *img.URL
	}
	if img.Base64Data != nil && *img.Base64Data != "" && img.MIMEType != "" {
		return "data:" + img.MIMEType + ";base64," + *img.Base64Data
	}
	return ""
}

// inputAudio is the audio as the API takes it inline, or nil when it is
// not inline base64 WAV or MP3.
func inputAudio(a *schema.MessageInputAudio) *InputAudio {
	if a.Base64Data == nil || *a.Base64Data == "" {
		return nil
	}
	switch strings.ToLower(a.MIMEType) {
	case "audio/wav", "audio/x-wav", "audio/wave":
		return &InputAudio{Data: *a.Base64Data, Format: "wav"}
	case "audio/mpeg", "audio/mp3":
		return &InputAudio{Data: *a.Base64Data, Format: "mp3"}
	}
	return nil
}

func (x exporter) response(p *recorder.ModelResponse) Message {
	out := Message{Role: RoleAssistant}
	if p.Message != nil {
		out.Content = Content{Text: x.redact(msgtext.Of(p.Message))}
		out.ToolCalls = x.toolCalls(p.Message.ToolCalls)
		if x.opts.Reasoning {
			out.ReasoningContent = x.redact(p.Message.ReasoningContent)
		}
	}
	return out
}

func (x exporter) toolCalls(calls []schema.ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		args := x.redact(c.Function.Arguments)
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		out[i] = ToolCall{ID: c.ID, Type: "function", Function: Function{Name: c.Function.Name, Arguments: args}}
	}
	return out
}

// toolResult is a tool message: the result, or the error text when the
// call failed with no result.
func (x exporter) toolResult(p *recorder.ToolEnded) Message {
	text := p.Result
	if text == "" && p.IsError {
		text = p.Error
	}
	return Message{Role: RoleTool, Content: Content{Text: x.redact(text)}, ToolCallID: p.CallID}
}

// Write writes messages as JSON Lines: one message per line, each line
// ending in a newline. HTML characters are not escaped.
func Write(w io.Writer, msgs []Message) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range msgs {
		if err := enc.Encode(&msgs[i]); err != nil {
			return fmt.Errorf("messages: write: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("messages: write: %w", err)
	}
	return nil
}

// maxLine bounds one JSONL line when reading.
const maxLine = 64 << 20

// Read reads messages written by Write, one per line. Blank lines are
// skipped. A line that is not a message with a known role stops the read
// with a *LineError; the messages before it are returned with it.
func Read(r io.Reader) ([]Message, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []Message
	for line := 1; sc.Scan(); line++ {
		data := bytes.TrimSpace(sc.Bytes())
		if len(data) == 0 {
			continue
		}
		var m Message
		if err := json.Unmarshal(data, &m); err != nil {
			return out, &LineError{Line: line, Err: err}
		}
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		default:
			return out, &LineError{Line: line, Err: fmt.Errorf("unknown role %q", m.Role)}
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("messages: read: %w", err)
	}
	return out, nil
}
