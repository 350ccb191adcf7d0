package drive

import (
	"context"
	"runtime/debug"
	"sync"

	"github.com/lookout-go/lookout/internal/runctx"
	"github.com/lookout-go/lookout/internal/uid"
	"github.com/lookout-go/lookout/session"
)

// takeTurn gives a root run its place in its conversation: the one ctx
// names (see session.WithConversation), or else the next turn of the
// conversation of the run's session, which the session's first run
// opens with a new id.
func (r *Run) takeTurn(ctx context.Context) session.Conversation {
	if c, ok := session.ConversationFrom(ctx); ok {
		return c
	}
	var out session.Conversation
	session.ValueOf[runctx.Conversation](r.store).Update(func(c runctx.Conversation, set bool) runctx.Conversation {
		if !set || c.ID == "" {
			c.ID = uid.New()
		}
		out = session.Conversation{ID: c.ID, Turn: c.Turns}
		c.Turns++
		return c
	})
	return out
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
