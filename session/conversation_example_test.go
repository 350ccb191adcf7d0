package session_test

import (
	"context"
	"fmt"

	"github.com/lookout-go/lookout/session"
)

// A driver that runs each turn of a conversation on its own session names
// the conversation and the turn on the ctx, for the runs to record.
func ExampleWithConversation() {
	ctx := session.WithConversation(context.Background(), session.Conversation{ID: "conv-1", Turn: 2})
	c, ok := session.ConversationFrom(ctx)
	fmt.Println(c.ID, c.Turn, ok)
	// Output: conv-1 2 true
}
