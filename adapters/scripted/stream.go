package scripted

import (
	"strings"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
)

// split cuts a reply into the chunks Stream sends, in the shape streaming
// providers use:
//
//   - reasoning, if any, in one chunk;
//   - the content word by word, each piece keeping its trailing space;
//   - per tool call, a chunk with its index, ID, type and name and the first
//     half of the arguments, then a chunk with the same index and the rest;
//   - a last chunk with the finish reason and usage and nothing else.
//
// Every chunk carries the role, so schema.ConcatMessages gives back msg.
// Fields no provider streams (name, extra, multi-part content) travel on
// the last chunk unchanged.
func split(msg *schema.Message) []*schema.Message {
	chunks := make([]*schema.Message, 0, 2+strings.Count(msg.Content, " ")+2*len(msg.ToolCalls))
	role := msg.Role
	if msg.ReasoningContent != "" {
		chunks = append(chunks, &schema.Message{Role: role, ReasoningContent: msg.ReasoningContent})
	}
	for rest := msg.Content; rest != ""; {
		n := strings.IndexByte(rest, ' ') + 1
		if n == 0 {
			n = len(rest)
		}
		chunks = append(chunks, &schema.Message{Role: role, Content: rest[:n]})
		rest = rest[n:]
	}
	for _, c := range msg.ToolCalls {
		head, tail := halve(c.Function.Arguments)
		first := c
		first.Function.Arguments = head
		chunks = append(chunks, &schema.Message{Role: role, ToolCalls: []schema.ToolCall{first}})
		if tail != "" {
			chunks = append(chunks, &schema.Message{Role: role, ToolCalls: []schema.ToolCall{{
				Index:    c.Index,
				Function: schema.FunctionCall{Arguments: tail},
			}}})
		}
	}
	last := *msg
	last.Content, last.ReasoningContent, last.ToolCalls = "", "", nil
	return append(chunks, &last)
}

// halve splits s near its middle on a rune boundary.
func halve(s string) (string, string) {
	i := len(s) / 2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], s[i:]
}
