package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout"
	"github.com/lookout-go/lookout/recorder"
)

// check compares a live call's input and tools with recorded call k of
// run r. It returns nil when they match.
func (c *Cassette) check(r *recRun, k int, input []*schema.Message, tools []*schema.ToolInfo) *DivergenceError {
	call := r.calls[k]
	if !c.opts.IgnoreMessages {
		if d := c.checkMessages(r, call, input); d != nil {
			return d
		}
	}
	if !c.opts.IgnoreTools && call.request != nil {
		if reason, diff := c.checkTools(call, tools); reason != "" {
			return &DivergenceError{Reason: reason, Diff: diff, Message: -1, ToolCallIndex: -1}
		}
	}
	return nil
}

// checkMessages compares a live call's input with recorded call call of
// run r, leaving out what Lookout injected and, when the options say so,
// system messages.
func (c *Cassette) checkMessages(r *recRun, call *recCall, input []*schema.Message) *DivergenceError {
	live := c.liveMessages(input)
	wants, system := c.recordedInput(call)
	// The run's system messages open the input, its own messages end it;
	// between them a run may hold a conversation the recording does not
	// show (see strict).
	if d := c.compareFrom(r, 0, wants[:system], live); d != nil {
		return d
	}
	own := wants[system:]
	at := len(live) - len(own)
	if c.strict(r) && at > system {
		return &DivergenceError{
			Reason:        fmt.Sprintf("input message %d is not in the recording", system+1),
			Message:       system,
			ToolCallIndex: -1,
			Diff:          lineDiff("", render(c.redact(live[system]))),
		}
	}
	return c.compareFrom(r, max(at, system), own, live)
}

// liveMessages is the input messages to compare: not those Lookout
// injected, nor system messages when they are ignored.
func (c *Cassette) liveMessages(input []*schema.Message) []*schema.Message {
	live := make([]*schema.Message, 0, len(input))
	for _, m := range input {
		if _, injected := lookout.Injected(m); m == nil || injected {
			continue
		}
		if c.opts.IgnoreSystem && m.Role == schema.System {
			continue
		}
		live = append(live, m)
	}
	return live
}

// recordedInput is the recorded input of call to compare and how many
// system messages open it.
func (c *Cassette) recordedInput(call *recCall) ([]want, int) {
	if !c.opts.IgnoreSystem {
		return call.input, call.system
	}
	return slices.DeleteFunc(slices.Clone(call.input), func(w want) bool { return w.msg.Role == schema.System }), 0
}

// compareFrom compares wants with the live messages from index at on.
func (c *Cassette) compareFrom(r *recRun, at int, wants []want, live []*schema.Message) *DivergenceError {
	for i, w := range wants {
		j := at + i
		if j >= len(live) {
			return missing(j, w)
		}
		if d := c.compare(r, j, w, live[j]); d != nil {
			return d
		}
	}
	return nil
}

func missing(i int, w want) *DivergenceError {
	return &DivergenceError{
		Reason:        fmt.Sprintf("input message %d (%s) is missing", i+1, describe(w)),
		Message:       i,
		ToolCallIndex: w.toolCall,
		Diff:          lineDiff(render(w.msg), ""),
	}
}

// describe names a recorded message for a report.
func describe(w want) string {
	if w.msg.Role == schema.Tool {
		if w.toolCall > 0 {
			return fmt.Sprintf("the result of tool call #%d, %s", w.toolCall, w.msg.ToolName)
		}
		return "the result of tool " + w.msg.ToolName
	}
	return string(w.msg.Role)
}

// matched is a live message found equal to a recorded one of run r,
// which the next calls of the run are given again: the runtime keeps its
// history's messages, so they are compared once.
type matched struct {
	r   *recRun
	seq uint64
	msg *schema.Message
}

// compare checks live message i against the recorded one of run r. The
// caller holds c.mu.
func (c *Cassette) compare(r *recRun, i int, w want, live *schema.Message) *DivergenceError {
	key := matched{r, w.seq, live}
	if _, ok := c.matched[key]; ok {
		return nil
	}
	got := c.redact(live)
	if c.same(w, got) {
		c.matched[key] = struct{}{}
		return nil
	}
	return &DivergenceError{
		Reason:        fmt.Sprintf("input message %d (%s) differs", i+1, describe(w)),
		Message:       i,
		ToolCallIndex: w.toolCall,
		Diff:          lineDiff(render(w.msg), render(got)),
	}
}

// same reports whether got, redacted, matches the recorded message:
// roles, contents and tool calls equal once normalized. Ids and times
// do not count.
func (c *Cassette) same(w want, got *schema.Message) bool {
	m := w.msg
	if m.Role != got.Role || !sameToolName(m, got) || !c.sameText(w, got) {
		return false
	}
	if !slices.EqualFunc(partsText(m), partsText(got), func(a, b string) bool {
		return c.norm.NormalizeText(a) == c.norm.NormalizeText(b)
	}) {
		return false
	}
	return slices.EqualFunc(m.ToolCalls, got.ToolCalls, func(a, b schema.ToolCall) bool {
		return a.Function.Name == b.Function.Name && c.norm.Normalize(a.Function.Arguments) == c.norm.Normalize(b.Function.Arguments)
	})
}

// sameToolName reports whether got may answer the same tool as the
// recorded message m: it does unless both are tool messages that name
// different tools.
func sameToolName(m, got *schema.Message) bool {
	return m.Role != schema.Tool || m.ToolName == "" || got.ToolName == "" || m.ToolName == got.ToolName
}

// sameText reports whether got's content matches the recorded message's,
// once normalized.
func (c *Cassette) sameText(w want, got *schema.Message) bool {
	if w.truncated {
		// The recording keeps the start of a long result; the live text
		// is normalized whole, so compare the recorded prefix raw.
		return strings.HasPrefix(got.Content, w.msg.Content)
	}
	return c.norm.NormalizeText(w.msg.Content) == c.norm.NormalizeText(got.Content)
}

// partsText lists the text of a message's multi-part content.
func partsText(m *schema.Message) []string {
	var out []string
	for _, p := range m.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			out = append(out, p.Text)
		}
	}
	for _, p := range m.MultiContent {
		if p.Type == schema.ChatMessagePartTypeText {
			out = append(out, p.Text)
		}
	}
	return out
}

// redact returns a copy of m with its free text redacted as the recorder
// redacted the recording.
func (c *Cassette) redact(m *schema.Message) *schema.Message {
	out := *m
	out.Content = c.redactText(m.Content)
	out.ToolCalls = cloneEach(m.ToolCalls, func(tc *schema.ToolCall) {
		tc.Function.Arguments = c.redactText(tc.Function.Arguments)
	})
	out.UserInputMultiContent = cloneEach(m.UserInputMultiContent, func(p *schema.MessageInputPart) {
		p.Text = c.redactText(p.Text)
	})
	if len(m.MultiContent) > 0 {
		out.MultiContent = slices.Clone(m.MultiContent)
		for i := range out.MultiContent {
			out.MultiContent[i].Text = c.redactText(out.MultiContent[i].Text)
		}
	}
	return &out
}

// cloneEach returns a copy of in with change applied to each element, or
// in itself when it is empty.
func cloneEach[T any](in []T, change func(*T)) []T {
	if len(in) == 0 {
		return in
	}
	out := slices.Clone(in)
	for i := range out {
		change(&out[i])
	}
	return out
}

var secrets = recorder.Secrets()

func (c *Cassette) redactText(s string) string {
	if s == "" {
		return s
	}
	if !c.opts.KeepSecrets {
		s = secrets.Redact(s)
	}
	for _, r := range c.opts.Redactors {
		s = r.Redact(s)
	}
	return s
}

// render writes a message as lines for a diff.
func render(m *schema.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "role: %s\n", m.Role)
	if m.ToolName != "" {
		fmt.Fprintf(&b, "tool: %s\n", m.ToolName)
	}
	if m.Content != "" {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	for _, t := range partsText(m) {
		b.WriteString(t)
		b.WriteByte('\n')
	}
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(&b, "call %s(%s)\n", tc.Function.Name, tc.Function.Arguments)
	}
	return b.String()
}

// checkTools compares the tools offered with those recorded. It returns
// a reason and a diff when they differ.
func (c *Cassette) checkTools(call *recCall, tools []*schema.ToolInfo) (string, string) {
	wantNames := slices.Sorted(slices.Values(call.request.Tools))
	gotNames := slices.Sorted(slices.Values(toolNames(tools)))
	if !slices.Equal(wantNames, gotNames) {
		return "the tools offered differ", lineDiff(strings.Join(wantNames, "\n")+"\n", strings.Join(gotNames, "\n")+"\n")
	}
	for _, t := range tools {
		if reason, diff := c.checkDefinition(call, t); reason != "" {
			return reason, diff
		}
	}
	return "", ""
}

// toolNames lists the names of tools, leaving out nil ones.
func toolNames(tools []*schema.ToolInfo) []string {
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		if t != nil {
			names = append(names, t.Name)
		}
	}
	return names
}

// checkDefinition compares live tool t with its recorded definition, when
// call has one. It returns a reason and a diff when they differ.
func (c *Cassette) checkDefinition(call *recCall, t *schema.ToolInfo) (string, string) {
	if t == nil {
		return "", ""
	}
	def, ok := call.defs[t.Name]
	if !ok {
		return "", "" // recorded before definitions were
	}
	got, err := c.definition(t)
	if err != nil {
		return fmt.Sprintf("the definition of tool %s cannot be read: %v", t.Name, err), ""
	}
	if def.Description != got.Description || !sameJSON(def.Parameters, got.Parameters) {
		return "the definition of tool " + t.Name + " differs", lineDiff(renderDef(def), renderDef(got))
	}
	return "", ""
}

// definition converts a live tool as Lookout records it, redacted.
func (c *Cassette) definition(t *schema.ToolInfo) (recorder.ToolDefinition, error) {
	d := recorder.ToolDefinition{Name: t.Name, Description: c.redactText(t.Desc)}
	js, err := t.ToJSONSchema()
	if err != nil || js == nil {
		return d, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(js); err != nil {
		return d, err
	}
	d.Parameters = json.RawMessage(c.redactText(strings.TrimSuffix(buf.String(), "\n")))
	return d, nil
}

// sameJSON compares two JSON documents as values.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

func renderDef(d recorder.ToolDefinition) string {
	return fmt.Sprintf("tool: %s\ndescription: %s\nparameters: %s\n", d.Name, d.Description, d.Parameters)
}
