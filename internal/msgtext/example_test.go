package msgtext_test

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

func ExampleOf() {
	fmt.Printf("%q\n", msgtext.Of(schema.UserMessage("plain content wins")))
	fmt.Printf("%q\n", msgtext.Of(&schema.Message{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "look at this"},
		{Type: schema.ChatMessagePartTypeImageURL},
	}}))
	fmt.Printf("%q\n", msgtext.Of(&schema.Message{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
		{Type: schema.ChatMessagePartTypeText, Text: "here is"},
		{Type: schema.ChatMessagePartTypeText, Text: "my answer"},
	}}))
	fmt.Printf("%q\n", msgtext.Of(nil))
	// Output:
	// "plain content wins"
	// "look at this"
	// "here is\nmy answer"
	// ""
}
