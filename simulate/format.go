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
	var t transcript
	for _, tr := range traces {
		if tr.User != nil {
			t.write(b, tr.User, maxToolText)
		}
		for _, m := range tr.Agent {
			t.write(b, m, maxToolText)
		}
	}
}

// transcript writes messages as plain text for a prompt: the user's and
// the assistant's text, every tool call with its tool's name and
// arguments, and every tool result with the name of the tool that gave
// it, marked when the tool failed. It remembers the calls it wrote, so
// that a result that does not carry its tool's name, as a message read
// back from the OpenAI shape does not, is named by its call id.
type transcript struct {
	tools map[string]string // tool name by call id
}

func (t *transcript) write(b *strings.Builder, m *schema.Message, limit int) {
	if m == nil {
		return
	}
	switch m.Role {
	case schema.Tool:
		t.writeResult(b, m, limit)
	case schema.User:
		writeLine(b, "User: ", truncate(msgtext.Of(m), limit))
	default:
		if txt := msgtext.Of(m); txt != "" {
			writeLine(b, "Assistant: ", truncate(txt, limit))
		}
		for _, tc := range m.ToolCalls {
			if t.tools == nil {
				t.tools = map[string]string{}
			}
			t.tools[tc.ID] = tc.Function.Name
			writeLine(b, "Assistant called tool "+tc.Function.Name+" with ", truncate(tc.Function.Arguments, limit))
		}
	}
}

// writeResult writes a tool result, named by its tool, saying whether
// the tool failed: Lookout's middleware writes a tool's error as a result
// starting "Error: ".
func (t *transcript) writeResult(b *strings.Builder, m *schema.Message, limit int) {
	name := m.ToolName
	if name == "" {
		name = t.tools[m.ToolCallID]
	}
	head := "Tool result"
	if name != "" {
		head += " from " + name
	}
	txt := msgtext.Of(m)
	if rest, ok := strings.CutPrefix(txt, ToolErrorPrefix); ok {
		head, txt = head+" (the tool failed)", rest
	}
	writeLine(b, head+": ", truncate(txt, limit))
}

func writeLine(b *strings.Builder, head, text string) {
	b.WriteString(head)
	b.WriteString(text)
	b.WriteByte('\n')
}
