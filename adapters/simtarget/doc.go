// Package simtarget puts Eino agents behind simulate.Target, so a simulated
// user can drive them through multi-turn scenarios.
//
//   - Runner and Agent adapt an ADK agent through adk.Runner;
//   - React adapts a flow/agent/react agent;
//   - Runnable adapts a compiled compose graph or chain from messages to a
//     message.
//
// A plain function needs no adapter: use simulate.TargetFunc.
//
// # With Lookout
//
// A target runs the agent it is given, so to observe the conversation with
// Lookout, give it the agent as Lookout runs it; each turn is then one
// Lookout run, whose end is recorded before Respond returns. Put a session
// on the ctx (session.NewContext) to give the whole conversation one
// budget.
//
//   - ADK: register the lookoutadk middleware in the agent's Handlers and
//     pass the agent wrapped with mw.Agent:
//     simtarget.Agent(ctx, mw.Agent(agent)), or a Runner built with
//     adk.RunnerConfig{Agent: mw.Agent(agent)}.
//   - react: build the agent with lookoutreact's l.WrapModel and
//     l.ToolMiddleware and pass it run through l.Agent:
//     simtarget.React(l.Agent(agent)).
//   - compose: pass the compiled graph run through
//     lookoutreact.Runnable(l, name, compiled) to simtarget.Runnable.
//
// # Multi-turn
//
// Eino agents keep no conversation between calls, so every Respond hands the
// agent the whole history: each earlier user message followed by the
// agent's own assistant and tool messages, then the new user message. The
// simulate runner accumulates that history; these targets only run the
// agent on it and return what the turn produced, in order, as the agent's
// own history holds it: the results of parallel tool calls follow the order
// of the calls, not the order in which they finished. Messages of agents
// and models run inside a tool (a react agent in a tool, an ADK agent tool
// whose internal events the runner forwards) are the tool's business and
// are left out. When the agent fails, React and the ADK targets return
// what the turn produced before the error, with the error.
//
// # Common pitfalls
//
//   - Runnable sees only the graph's final reply, not its tool calls, so
//     goals over tool calls (simulate.ToolCalled) can never be met through
//     it. Use React or an ADK agent for those.
//   - An ADK interrupt is answered by the scenario's Interrupts policy, by
//     tool name; one it does not answer fails the turn with
//     ErrInterrupted. A Runner of your own needs a CheckPointStore to
//     resume; Agent builds one.
//   - In a batch with concurrency above one, a shared target must be safe for
//     concurrent use; agents built on stateful fakes (scripted models) are
//     not, so build one per job in simulate.Batch.Setup.
//   - The agent's Instruction becomes a system message on every run; the
//     simulate history holds only user, assistant and tool messages.
package simtarget
