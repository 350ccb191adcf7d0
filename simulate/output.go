package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// OpenAIMessage is a chat message in the OpenAI chat-completions shape, the
// form conversation datasets are written in.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Name       string           `json:"name,omitempty"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// OpenAIToolCall is a tool call in the OpenAI shape.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type OpenAIToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction names the called function and carries its JSON arguments.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type OpenAIFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToOpenAI converts an Eino message. Multimodal text parts are joined into
// Content; other media are left out. A tool message's tool name goes into
// Name, in place of its sender name when it has both.
func ToOpenAI(m *schema.Message) OpenAIMessage {
	if m == nil {
		return OpenAIMessage{}
	}
	o := OpenAIMessage{Role: string(m.Role), Content: msgtext.Of(m), Name: m.Name, ToolCallID: m.ToolCallID}
	if m.Role == schema.Tool && m.ToolName != "" {
		o.Name = m.ToolName
	}
	for _, tc := range m.ToolCalls {
		typ := tc.Type
		if typ == "" {
			typ = "function"
		}
		o.ToolCalls = append(o.ToolCalls, OpenAIToolCall{
			ID: tc.ID, Type: typ,
			Function: OpenAIFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
		})
	}
	return o
}

// Message converts back to an Eino message.
func (o OpenAIMessage) Message() *schema.Message {
	m := &schema.Message{Role: schema.RoleType(o.Role), Content: o.Content, ToolCallID: o.ToolCallID}
	if o.Role == string(schema.Tool) {
		m.ToolName = o.Name
	} else {
		m.Name = o.Name
	}
	for _, tc := range o.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, schema.ToolCall{
			ID: tc.ID, Type: tc.Type,
			Function: schema.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
		})
	}
	return m
}

// Line is one turn of a conversation dataset: the user's input and the
// agent's output messages. Metadata holds "stepId" (when a step was
// selected), "selection" (the method), "scenario" (the scenario's
// metadata, when any) and, on the last line, "end" (the End).
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Line struct {
	ConversationID string          `json:"conversationId"`
	StepIndex      int             `json:"stepIndex"`
	Input          OpenAIMessage   `json:"input"`
	Output         []OpenAIMessage `json:"output"`
	Timestamp      time.Time       `json:"timestamp"`
	Metadata       map[string]any  `json:"metadata,omitempty"`
}

// Lines converts the result to dataset lines, one per turn. A run that
// ended before its first turn, as when the user model failed at once, has
// one line all the same, so that datasets list it: its input is empty, it
// has no output, and its metadata holds the end with the error.
func (r *Result) Lines() []Line {
	if len(r.Traces) == 0 && r.End.Reason != "" {
		return []Line{r.endLine()}
	}
	out := make([]Line, len(r.Traces))
	for i := range r.Traces {
		out[i] = r.turnLine(&r.Traces[i])
	}
	return out
}

// endLine is the one line of a run that ended before its first turn: no
// input, no output, and the end in its metadata.
func (r *Result) endLine() Line {
	end := r.End
	l := Line{ConversationID: r.ConversationID, Output: []OpenAIMessage{}, Metadata: map[string]any{"end": &end}}
	r.addScenarioMetadata(l.Metadata)
	return l
}

// turnLine is the line of turn t: the user's message as input, the agent's
// messages as output, and the turn's selection method, step, and end, if
// it ended the run, in its metadata.
func (r *Result) turnLine(t *StepTrace) Line {
	l := Line{
		ConversationID: r.ConversationID,
		StepIndex:      t.Turn,
		Input:          ToOpenAI(t.User),
		Output:         make([]OpenAIMessage, len(t.Agent)),
		Timestamp:      t.Timestamp,
		Metadata:       map[string]any{"selection": t.Selection.Method},
	}
	for j, m := range t.Agent {
		l.Output[j] = ToOpenAI(m)
	}
	if t.StepID != "" {
		l.Metadata["stepId"] = t.StepID
	}
	r.addScenarioMetadata(l.Metadata)
	if t.End != nil {
		l.Metadata["end"] = t.End
	}
	return l
}

// addScenarioMetadata puts the scenario's metadata, if it has any, in md
// under "scenario".
func (r *Result) addScenarioMetadata(md map[string]any) {
	if r.Scenario != nil && len(r.Scenario.Metadata) > 0 {
		md["scenario"] = r.Scenario.Metadata
	}
}

// WriteJSONL writes the result's lines to w, one JSON object per line,
// redacted as WriteArtifacts redacts them.
func (r *Result) WriteJSONL(w io.Writer) error {
	var b bytes.Buffer
	if err := r.encodeLines(&b); err != nil {
		return err
	}
	_, err := w.Write(r.redact(b.Bytes()))
	return err
}

// encodeLines writes the result's lines to w, as they are.
func (r *Result) encodeLines(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, l := range r.Lines() {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadJSONL reads dataset lines, such as several conversation.jsonl files
// concatenated. Lines may be of any length. Blank lines are skipped. A line
// that is not a JSON object or does not decode yields an error wrapping
// ErrMalformedLine, with every line read before it; so does a failure of r,
// with the line it cut short.
func ReadJSONL(r io.Reader) ([]Line, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Line
	for n := 1; ; n++ {
		raw, eof, err := readLine(br, n)
		if err != nil {
			return out, err
		}
		if b := bytes.TrimSpace(raw); len(b) > 0 {
			l, err := decodeLine(b, n)
			if err != nil {
				return out, err
			}
			out = append(out, l)
		}
		if eof {
			return out, nil
		}
	}
}

// readLine reads line n from br, reporting whether it was the last; a
// failure of the reader is an error wrapping ErrMalformedLine.
func readLine(br *bufio.Reader, n int) (raw []byte, eof bool, err error) {
	raw, err = br.ReadBytes('\n')
	switch {
	case err == io.EOF:
		return raw, true, nil
	case err != nil:
		return raw, false, fmt.Errorf("%w: line %d: %v", ErrMalformedLine, n, err)
	}
	return raw, false, nil
}

// decodeLine decodes b, the non-blank line n, which must be a JSON object.
func decodeLine(b []byte, n int) (Line, error) {
	var l Line
	// json.Unmarshal takes null for a zero Line without a word.
	if b[0] != '{' {
		return l, fmt.Errorf("%w: line %d: not a JSON object", ErrMalformedLine, n)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("%w: line %d: %v", ErrMalformedLine, n, err)
	}
	return l, nil
}
