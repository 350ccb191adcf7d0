package lookout

import (
	"github.com/lookout-go/lookout/internal/runctx"
	"github.com/lookout-go/lookout/session"
)

// ConversationOf returns the conversation of the runs recorded on session
// s, with Turn the index of the latest of them, and false when no recorded
// run has started on s.
func ConversationOf(s *session.Store) (session.Conversation, bool) {
	c, ok := session.ValueOf[runctx.Conversation](s).Latest()
	if !ok || c.Turns == 0 {
		return session.Conversation{}, false
	}
	return session.Conversation{ID: c.ID, Turn: c.Turns - 1}, true
}

// AgentInfo describes the agent for the recording and its exports. Zero
// fields are left to what Lookout learns otherwise: the agent's name from
// the adapter, the version from the program's build info, the model from
// the model calls.
type AgentInfo struct {
	// Name names the agent of root runs started without a name.
	Name string
	// Version is the agent's version. Empty means the version of the
	// program's main module, from its build info, when it has one.
	Version string
	// Model is the model the agent is configured with.
	Model string
}
