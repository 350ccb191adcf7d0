package msgtext_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

func TestOfReadsTheOlderMultiContentParts(t *testing.T) {
	//lint:ignore SA1019 messages from older providers still carry MultiContent
	parts := []schema.ChatMessagePart{
		{Type: schema.ChatMessagePartTypeText, Text: "first"},
		{Type: schema.ChatMessagePartTypeImageURL},
		{Type: schema.ChatMessagePartTypeText, Text: "second"},
	}
	if got := msgtext.Of(&schema.Message{Role: schema.User, MultiContent: parts}); got != "first\nsecond" {
		t.Errorf("Of = %q, want %q", got, "first\nsecond")
	}
}
