package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// The subset of the OpenAI chat completions wire format the server reads
// and writes.

type chatRequest struct {
	Model         string          `json:"model"`
	Messages      []wireMessage   `json:"messages"`
	Tools         []wireTool      `json:"tools"`
	ToolChoice    json.RawMessage `json:"tool_choice"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// includeUsage reports whether a streamed reply ends with a usage chunk.
func (r *chatRequest) includeUsage() bool {
	return r.StreamOptions != nil && r.StreamOptions.IncludeUsage
}

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content,omitempty"`
	Name             string          `json:"name,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"function"`
}

type wireToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
	AllowedTools struct {
		Mode  string           `json:"mode"`
		Tools []wireToolChoice `json:"tools"`
	} `json:"allowed_tools"`
}

type chatResponse struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []chatChoice    `json:"choices"`
	Usage   *wireTokenUsage `json:"usage,omitempty"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
	FinishReason *string     `json:"finish_reason"`
}

type streamChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []streamChoice  `json:"choices"`
	Usage   *wireTokenUsage `json:"usage,omitempty"`
}

type streamChoice struct {
	Index        int         `json:"index"`
	Delta        streamDelta `json:"delta"`
	FinishReason *string     `json:"finish_reason"`
}

type streamDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          string         `json:"content,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
}

func (d streamDelta) empty() bool {
	return d.Role == "" && d.Content == "" && d.ReasoningContent == "" && len(d.ToolCalls) == 0
}

type wireTokenUsage struct {
	PromptTokens            int                    `json:"prompt_tokens"`
	CompletionTokens        int                    `json:"completion_tokens"`
	TotalTokens             int                    `json:"total_tokens"`
	PromptTokensDetails     *wirePromptDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *wireCompletionDetails `json:"completion_tokens_details,omitempty"`
}

type wirePromptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type wireCompletionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

type errorBody struct {
	Error wireError `json:"error"`
}

type wireError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

// toEino converts the request into model input and call options.
func (r *chatRequest) toEino() ([]*schema.Message, []model.Option, error) {
	input, err := r.input()
	if err != nil {
		return nil, nil, err
	}
	opts, err := r.options()
	if err != nil {
		return nil, nil, err
	}
	return input, opts, nil
}

// input converts the request's messages into model input.
func (r *chatRequest) input() ([]*schema.Message, error) {
	input := make([]*schema.Message, len(r.Messages))
	for i := range r.Messages {
		msg, err := r.Messages[i].toEino()
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		input[i] = msg
	}
	return input, nil
}

// options converts the request's tools, model and tool_choice into call
// options.
func (r *chatRequest) options() ([]model.Option, error) {
	tools := make([]*schema.ToolInfo, 0, len(r.Tools))
	for _, t := range r.Tools {
		tools = append(tools, &schema.ToolInfo{Name: t.Function.Name, Desc: t.Function.Description})
	}
	opts := []model.Option{model.WithTools(tools)}
	if r.Model != "" {
		opts = append(opts, model.WithModel(r.Model))
	}
	choice, err := decodeToolChoice(r.ToolChoice)
	if err != nil {
		return nil, err
	}
	if choice != nil {
		opts = append(opts, *choice)
	}
	return opts, nil
}

func (w *wireMessage) toEino() (*schema.Message, error) {
	content, err := decodeContent(w.Content)
	if err != nil {
		return nil, err
	}
	msg := &schema.Message{
		Role:             schema.RoleType(w.Role),
		Content:          content,
		Name:             w.Name,
		ReasoningContent: w.ReasoningContent,
		ToolCallID:       w.ToolCallID,
	}
	for _, c := range w.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{
			Index:    c.Index,
			ID:       c.ID,
			Type:     c.Type,
			Function: schema.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments},
		})
	}
	return msg, nil
}

// absent reports whether a JSON field is missing or null.
func absent(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// decodeContent reads content given as a string, as null, or as an array
// of parts whose text parts are joined.
func decodeContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if absent(raw) {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	var sb strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			sb.WriteString(p.Text)
		}
	}
	return sb.String(), nil
}

// toolChoices maps the string forms of tool_choice onto Eino's tool
// choices.
var toolChoices = map[string]schema.ToolChoice{
	"none":     schema.ToolChoiceForbidden,
	"auto":     schema.ToolChoiceAllowed,
	"required": schema.ToolChoiceForced,
}

// decodeToolChoice maps tool_choice onto Eino's tool choice: "none" is
// forbidden, "auto" allowed, "required" or a named function forced.
func decodeToolChoice(raw json.RawMessage) (*model.Option, error) {
	raw = bytes.TrimSpace(raw)
	if absent(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		return decodeToolChoiceName(raw)
	}
	return decodeToolChoiceObject(raw)
}

// decodeToolChoiceName decodes tool_choice given as a string: "none",
// "auto" or "required".
func decodeToolChoiceName(raw json.RawMessage) (*model.Option, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	choice, ok := toolChoices[s]
	if !ok {
		return nil, fmt.Errorf("unknown tool_choice %q", s)
	}
	opt := model.WithToolChoice(choice)
	return &opt, nil
}

// decodeToolChoiceObject decodes tool_choice given as an object: a named
// function, forced, or a set of allowed tools, forced when its mode is
// "required".
func decodeToolChoiceObject(raw json.RawMessage) (*model.Option, error) {
	var c wireToolChoice
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("cannot decode tool_choice: %w", err)
	}
	var opt model.Option
	switch c.Type {
	case "function":
		opt = model.WithToolChoice(schema.ToolChoiceForced, c.Function.Name)
	case "allowed_tools":
		opt = allowedTools(c.AllowedTools.Mode, c.AllowedTools.Tools)
	default:
		return nil, fmt.Errorf("unknown tool_choice type %q", c.Type)
	}
	return &opt, nil
}

// allowedTools is the option of an allowed_tools tool choice: the named
// tools, allowed, or forced when mode is "required".
func allowedTools(mode string, tools []wireToolChoice) model.Option {
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, t.Function.Name)
	}
	choice := schema.ToolChoiceAllowed
	if mode == "required" {
		choice = schema.ToolChoiceForced
	}
	return model.WithToolChoice(choice, names...)
}

// fromEino writes a reply as an OpenAI response message.
func fromEino(msg *schema.Message) wireMessage {
	content, _ := json.Marshal(msg.Content)
	w := wireMessage{
		Role:             string(schema.Assistant),
		Content:          content,
		ReasoningContent: msg.ReasoningContent,
	}
	for _, c := range msg.ToolCalls {
		typ := c.Type
		if typ == "" {
			typ = "function"
		}
		w.ToolCalls = append(w.ToolCalls, wireToolCall{
			ID:       c.ID,
			Type:     typ,
			Function: wireFunction{Name: c.Function.Name, Arguments: c.Function.Arguments},
		})
	}
	return w
}
