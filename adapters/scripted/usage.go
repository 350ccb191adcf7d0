package scripted

import "github.com/cloudwego/eino/schema"

// Per-message overhead in the default prompt count, like the few tokens
// real chat formats spend on role markers.
const messageOverhead = 4

// PromptTokens is the default prompt-token count for input: every message
// costs 4 tokens plus one token per 4 bytes of its text (content, reasoning,
// tool-call names and arguments), rounded up.
func PromptTokens(input []*schema.Message) int {
	n := 0
	for _, m := range input {
		if m == nil {
			continue
		}
		n += messageOverhead + quarter(textBytes(m))
	}
	return n
}

// CompletionTokens is the default completion-token count for a reply: one
// token per 4 bytes of its text (content, reasoning, tool-call names and
// arguments), rounded up. An empty reply costs 0.
func CompletionTokens(reply *schema.Message) int {
	if reply == nil {
		return 0
	}
	return quarter(textBytes(reply))
}

func textBytes(m *schema.Message) int {
	n := len(m.Content) + len(m.ReasoningContent)
	for _, c := range m.ToolCalls {
		n += len(c.Function.Name) + len(c.Function.Arguments)
	}
	return n
}

func quarter(n int) int { return (n + 3) / 4 }
