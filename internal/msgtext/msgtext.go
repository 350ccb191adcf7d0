package msgtext

import (
	"strings"

	"github.com/cloudwego/eino/schema"
)

// Of returns m's text: its Content, or else the text parts of its
// multimodal content joined by newlines. A nil m has no text. It only
// reads m, so it is safe to call concurrently on a message nobody writes.
func Of(m *schema.Message) string {
	if m == nil {
		return ""
	}
	if m.Content != "" {
		return m.Content
	}
	var parts []string
	for _, p := range m.UserInputMultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	for _, p := range m.AssistantGenMultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	for _, p := range m.MultiContent {
		if p.Type == schema.ChatMessagePartTypeText && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
