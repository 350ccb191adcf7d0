package session

import "context"

// Conversation names the conversation a run belongs to and the run's turn
// in it, counted from 0. Runs that share a session form one conversation:
// Lookout numbers their turns itself. A driver that runs each turn on a
// session of its own, such as a conversation simulator, says which
// conversation and turn a run is with [WithConversation]. The zero value
// names no conversation. It is a plain value and safe for concurrent use.
type Conversation struct {
	ID   string `json:"id"`
	Turn int    `json:"turn"`
}

type conversationKey struct{}

// WithConversation returns a copy of ctx saying that the run started on it
// is turn c.Turn of conversation c.ID. An empty c.ID says nothing: ctx is
// returned as it is.
func WithConversation(ctx context.Context, c Conversation) context.Context {
	if c.ID == "" {
		return ctx
	}
	return context.WithValue(ctx, conversationKey{}, c)
}

// ConversationFrom returns the conversation ctx carries, and false when it
// carries none.
func ConversationFrom(ctx context.Context) (Conversation, bool) {
	c, ok := ctx.Value(conversationKey{}).(Conversation)
	return c, ok
}
