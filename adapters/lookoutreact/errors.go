package lookoutreact

import "errors"

// ErrNoRun means a Lookout hook ran outside a Lookout run: the agent was
// called directly rather than through [Hooks.Agent] (or a compose
// runnable not through [Runnable]), so there is no budget or session to
// work with. The hook lets the call through unobserved and reports
// ErrNoRun to Config.OnError, once per [Hooks].
var ErrNoRun = errors.New("lookoutreact: a hook found no run on the context; run the agent through Hooks.Agent, or a compose runnable through lookoutreact.Runnable")
