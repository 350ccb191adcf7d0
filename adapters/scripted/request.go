package scripted

import (
	"maps"
	"slices"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Request is what the model received on one call. Messages and Tools are
// copies taken when the call arrived, so later changes made by the caller
// do not show up here. The zero Request has no messages and no tools. A
// Request is a value; reading it from several goroutines is safe.
type Request struct {
	// Messages is the input, in order.
	Messages []*schema.Message
	// Tools is the tools offered: those passed with model.WithTools, or
	// else those bound with WithTools. Empty means none were offered.
	Tools []*schema.ToolInfo
	// ToolChoice is the tool choice option, nil when not given.
	ToolChoice *schema.ToolChoice
	// AllowedToolNames narrows the tools the model may call, if given.
	AllowedToolNames []string
	// Stream tells a Stream call from a Generate call.
	Stream bool
}

// Contains reports whether the content of any message contains s.
func (r Request) Contains(s string) bool { return r.CountContaining(s) > 0 }

// CountContaining counts the messages whose content contains s.
func (r Request) CountContaining(s string) int {
	n := 0
	for _, m := range r.Messages {
		if m != nil && strings.Contains(m.Content, s) {
			n++
		}
	}
	return n
}

// ToolNames lists the names of the tools offered, in order.
func (r Request) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		if t != nil {
			names = append(names, t.Name)
		}
	}
	return names
}

// ToolsWithheld reports whether the model could not call any tool: none
// were offered, or the tool choice forbids calling them.
func (r Request) ToolsWithheld() bool {
	return len(r.Tools) == 0 || (r.ToolChoice != nil && *r.ToolChoice == schema.ToolChoiceForbidden)
}

// Last returns the last input message, or nil when there was none.
func (r Request) Last() *schema.Message {
	if len(r.Messages) == 0 {
		return nil
	}
	return r.Messages[len(r.Messages)-1]
}

// TB is the part of testing.TB that [AssertRequest] uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// AssertRequest checks the i-th request (0-based) that m and its copies
// received. It reports a test error, and returns false, when there is no
// such request or when check returns an error; a nil check only asserts
// that the request exists.
func AssertRequest(t TB, m *Model, i int, check func(Request) error) bool {
	t.Helper()
	r, ok := m.Request(i)
	if !ok {
		t.Errorf("scripted: no request %d: the model captured %d", i, len(m.Requests()))
		return false
	}
	if check == nil {
		return true
	}
	if err := check(r); err != nil {
		t.Errorf("scripted: request %d: %v", i, err)
		return false
	}
	return true
}

// captureMessages copies the messages and the slices and maps they hold,
// into one backing array so a long history costs two allocations.
func captureMessages(in []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(in))
	copies := make([]schema.Message, len(in))
	for i, m := range in {
		if m == nil {
			continue
		}
		c := &copies[i]
		*c = *m
		c.ToolCalls = slices.Clone(m.ToolCalls)
		c.UserInputMultiContent = slices.Clone(m.UserInputMultiContent)
		c.AssistantGenMultiContent = slices.Clone(m.AssistantGenMultiContent)
		c.MultiContent = slices.Clone(m.MultiContent)
		c.Extra = maps.Clone(m.Extra)
		out[i] = c
	}
	return out
}

func captureTools(in []*schema.ToolInfo) []*schema.ToolInfo {
	if in == nil {
		return nil
	}
	out := make([]*schema.ToolInfo, len(in))
	for i, t := range in {
		if t != nil {
			c := *t
			out[i] = &c
		}
	}
	return out
}
