package lookout

import (
	"context"
	"runtime/debug"
	"sync"

	"github.com/google/uuid"

	"github.com/lookout-go/lookout/session"
)

// conversation is what a session keeps of the conversation its runs
// form: its id and how many root runs have taken a turn in it.
type conversation struct {
	ID    string `json:"id"`
	Turns int    `json:"turns"`
}

// ConversationOf returns the conversation of the runs recorded on session
// s, with Turn the index of the latest of them, and false when no recorded
// run has started on s.
func ConversationOf(s *session.Store) (session.Conversation, bool) {
	c, ok := session.ValueOf[conversation](s).Latest()
	if !ok || c.Turns == 0 {
		return session.Conversation{}, false
	}
	return session.Conversation{ID: c.ID, Turn: c.Turns - 1}, true
}

// takeTurn gives a root run its place in its conversation: the one ctx
// names (see session.WithConversation), or else the next turn of the
// conversation of the run's session, which the session's first run
// opens with a new id.
func (r *Run) takeTurn(ctx context.Context) session.Conversation {
	if c, ok := session.ConversationFrom(ctx); ok {
		return c
	}
	var out session.Conversation
	session.ValueOf[conversation](r.store).Update(func(c conversation, set bool) conversation {
		if !set || c.ID == "" {
			c.ID = uuid.NewString()
		}
		out = session.Conversation{ID: c.ID, Turn: c.Turns}
		c.Turns++
		return c
	})
	return out
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

// mainVersion is the version of the program's main module, or "" when
// the build info has none.
var mainVersion = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "(devel)" {
		return ""
	}
	return info.Main.Version
})
