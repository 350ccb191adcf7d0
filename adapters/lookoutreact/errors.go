package lookoutreact

import (
	"errors"

	"github.com/lookout-go/lookout/adapters/internal/engine"
)

// ErrInvalidConfig is returned by [New] for a configuration that cannot
// work. The error names the field.
var ErrInvalidConfig = engine.ErrInvalidConfig

// ErrNoRun means a Lookout hook ran outside a Lookout run: the graph was
// run without [Lookout.AgentOption] or [Lookout.ComposeOption], so there
// is no budget or session to work with. The hook lets the call through
// unobserved and reports a [*NoRunError] to Config.OnError, once per
// [Lookout].
var ErrNoRun = errors.New("lookoutreact: no run on the context")

// NoRunError says which hook found no run. It unwraps to [ErrNoRun].
type NoRunError struct {
	// Hook is "model", "tool" or "inject".
	Hook string
}

func (e *NoRunError) Error() string {
	return "lookoutreact: the " + e.Hook + " hook found no run on the context; " +
		"pass Lookout.AgentOption() to Generate/Stream (or Lookout.ComposeOption() to a compose runnable)"
}

// Unwrap returns [ErrNoRun].
func (e *NoRunError) Unwrap() error { return ErrNoRun }
