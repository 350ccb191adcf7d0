// Package engine holds what Lookout's Eino adapters share: the
// configuration, the per-run state (session, budget tracker, observer
// pipeline), the bookkeeping around a tool call, budget enforcement, the
// injected messages and model-call charging. The adapters (lookoutadk for
// ADK agents, lookoutreact for react agents and compose graphs) wire it to
// their runtime's hooks.
package engine
