package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Role is who speaks a message.
type Role string

// The roles of OpenAI-style chat messages.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one OpenAI-style chat message:
//
//	{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}
//	{"role":"tool","content":"42","tool_call_id":"c1"}
//
// Content is always written, as a string or, for multimodal user input, a
// list of parts. ReasoningContent is written only when set, which
// FromRecords does only with Options.Reasoning. A Message is plain data:
// safe for concurrent reads.
type Message struct {
	Role             Role       `json:"role"`
	Content          Content    `json:"content"`
	Name             string     `json:"name,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one function call an assistant message asks for. Type is
// always "function". Safe for concurrent reads.
type ToolCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function names the function to call and its arguments as JSON text,
// exactly as the model produced them. Safe for concurrent reads.
type Function struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Content is a message body: the string Text, or, when Parts is non-nil,
// a list of parts. The zero value is the empty string. Safe for
// concurrent reads.
type Content struct {
	Text  string
	Parts []Part
}

// Part is one element of list content: {"type":"text","text":…},
// {"type":"image_url","image_url":{"url":…}} or
// {"type":"input_audio","input_audio":{"data":…,"format":"wav"}}. Safe for
// concurrent reads.
type Part struct {
	Type       string      `json:"type"`
	Text       string      `json:"text,omitempty"`
	ImageURL   *ImageURL   `json:"image_url,omitempty"`
	InputAudio *InputAudio `json:"input_audio,omitempty"`
}

// InputAudio is audio given inline: Data is base64, Format "wav" or
// "mp3", the two the API takes. Safe for concurrent reads.
type InputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

// ImageURL points at an image by URL, which may be a data: URL. Safe for
// concurrent reads.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// MarshalJSON writes a text part with its text, even when empty, as the
// API requires, and other parts as they are.
func (p Part) MarshalJSON() ([]byte, error) {
	type plain Part
	if p.Type != "text" {
		return marshal(plain(p))
	}
	return marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{p.Type, p.Text})
}

// MarshalJSON writes the string or the list, leaving HTML characters
// unescaped.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return marshal(c.Parts)
	}
	return marshal(c.Text)
}

// marshal is json.Marshal without HTML escaping, so markdown and tags in
// messages stay readable.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// UnmarshalJSON reads a string, a list of parts, or null (the empty
// string).
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var parts []Part
		if err := json.Unmarshal(data, &parts); err != nil {
			return err
		}
		if parts == nil {
			parts = []Part{}
		}
		*c = Content{Parts: parts}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("content must be a string or a list of parts: %w", err)
	}
	*c = Content{Text: s}
	return nil
}
