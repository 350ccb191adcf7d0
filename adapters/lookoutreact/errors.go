package lookoutreact

import (
	"errors"

	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// ErrInvalidConfig is returned by [New] for a configuration that cannot
// work. The error names the field.
var ErrInvalidConfig = engine.ErrInvalidConfig

// ErrNoRun means a Lookout hook ran outside a Lookout run: the graph was
// run without [Lookout.AgentOption] (or [Lookout.ComposeOption] for a
// compose runnable), so there is no budget or session to work with. The
// hook lets the call through unobserved and reports ErrNoRun to
// Config.OnError, once per [Lookout].
var ErrNoRun = errors.New("lookoutreact: a hook found no run on the context; pass Lookout.AgentOption() to Generate and Stream, or Lookout.ComposeOption() to a compose runnable")
