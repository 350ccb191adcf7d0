package simulate

import (
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// maxToolText bounds how much of one tool result goes into a prompt.
const maxToolText = 1500

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + " …[truncated]"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// formatTraces writes the last n turns as plain text for a prompt, tool
// calls and tool results included. n <= 0 means all turns.
func formatTraces(b *strings.Builder, traces []StepTrace, n int) {
	if n > 0 && len(traces) > n {
		traces = traces[len(traces)-n:]
	}
	for _, t := range traces {
		if t.User != nil {
			b.WriteString("User: ")
			b.WriteString(msgtext.Of(t.User))
			b.WriteByte('\n')
		}
		for _, m := range t.Agent {
			formatAgentMessage(b, m)
		}
	}
}

func formatAgentMessage(b *strings.Builder, m *schema.Message) {
	if m == nil {
		return
	}
	switch m.Role {
	case schema.Tool:
		b.WriteString("Tool result")
		if m.ToolName != "" {
			b.WriteString(" from ")
			b.WriteString(m.ToolName)
		}
		b.WriteString(": ")
		b.WriteString(truncate(msgtext.Of(m), maxToolText))
		b.WriteByte('\n')
	default:
		if txt := msgtext.Of(m); txt != "" {
			b.WriteString("Assistant: ")
			b.WriteString(txt)
			b.WriteByte('\n')
		}
		for _, tc := range m.ToolCalls {
			b.WriteString("Assistant called tool ")
			b.WriteString(tc.Function.Name)
			b.WriteString(" with ")
			b.WriteString(truncate(tc.Function.Arguments, maxToolText))
			b.WriteByte('\n')
		}
	}
}
