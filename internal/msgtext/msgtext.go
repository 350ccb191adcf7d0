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
		parts = appendText(parts, p.Type, p.Text)
	}
	for _, p := range m.AssistantGenMultiContent {
		parts = appendText(parts, p.Type, p.Text)
	}
	for _, p := range m.MultiContent {
		parts = appendText(parts, p.Type, p.Text)
	}
	return strings.Join(parts, "\n")
}

// appendText appends the text of a part that is a text part and has some.
func appendText(parts []string, typ schema.ChatMessagePartType, text string) []string {
	if typ == schema.ChatMessagePartTypeText && text != "" {
		return append(parts, text)
	}
	return parts
}

// InputParts returns m's multimodal input: its UserInputMultiContent, or
// else the parts of Eino's older MultiContent field, which programs
// written against earlier Eino versions still fill, converted. A nil m has
// none.
func InputParts(m *schema.Message) []schema.MessageInputPart {
	if m == nil {
		return nil
	}
	if len(m.UserInputMultiContent) > 0 {
		return m.UserInputMultiContent
	}
	legacy := m.MultiContent
	if len(legacy) == 0 {
		return nil
	}
	parts := make([]schema.MessageInputPart, len(legacy))
	for i, p := range legacy {
		parts[i] = inputPart(p)
	}
	return parts
}

// inputPart converts a part of the older MultiContent field. Its image or
// audio URL is kept only on a part of that type.
//
//lint:ignore SA1019 reading the deprecated field is what this conversion is for
func inputPart(p schema.ChatMessagePart) schema.MessageInputPart {
	part := schema.MessageInputPart{Type: p.Type, Text: p.Text}
	switch {
	case p.Type == schema.ChatMessagePartTypeImageURL && p.ImageURL != nil:
		url := p.ImageURL.URL
		part.Image = &schema.MessageInputImage{
			MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: p.ImageURL.MIMEType},
			Detail:            p.ImageURL.Detail,
		}
	case p.Type == schema.ChatMessagePartTypeAudioURL && p.AudioURL != nil:
		url := p.AudioURL.URL
		part.Audio = &schema.MessageInputAudio{MessagePartCommon: schema.MessagePartCommon{URL: &url, MIMEType: p.AudioURL.MIMEType}}
	}
	return part
}
