// Package lookoutreact attaches Lookout to Eino react agents
// (flow/agent/react) and to compose graphs built by hand: the same
// observers, injected assessments and enforced budget that lookoutadk
// gives ADK agents.
//
//	l, err := lookoutreact.New(ctx, &lookout.Config{
//		Limits: budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100},
//	})
//	ra, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: l.WrapModel(chatModel),
//		ToolsConfig: compose.ToolsNodeConfig{
//			Tools:               tools,
//			ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
//		},
//	})
//	agent := l.Agent(ra)
//	out, err := agent.Generate(ctx, msgs) // one run
//
// What each piece does:
//
//   - [New] checks a lookout.Config (limits, observers, recorder, ...)
//     and returns a [Hooks], which holds only configuration: one Hooks
//     serves any number of agents and concurrent runs.
//   - [Hooks.Agent] wraps the agent: each Generate or Stream is one run.
//     It starts the run on the ctx it hands the agent, where every node
//     finds it: a session (the one on ctx, see session.NewContext, or a new
//     one), a budget tracker and an observer pipeline. The deadline, if
//     any, is set on that ctx with a *budget.ExceededError as its cause.
//     An agent run through its own Hooks.Agent inside a tool call of
//     another run (a nested agent) is a child run: it shares its parent's
//     session, budget and observers, and is recorded as a sub-run linked to
//     the tool call. Agent.Name (default "ReActAgent") names the run in the
//     recording.
//   - [Runnable] does the same for a compiled compose graph, chain or
//     workflow: each Invoke, Stream, Collect or Transform is one run.
//   - [Hooks.ToolMiddleware] admits every tool call, of all four kinds,
//     through the budget (a call over the tool-call limit is not run; the
//     model gets a tool message saying why), records it with a dense,
//     unique call index even when calls run in parallel, and runs the
//     observers after it. A tool error ends the run, as without Lookout,
//     unless Config.ToolErrors is lookout.ToolErrorsAsMessages: then it
//     becomes a message the model can read.
//   - [Hooks.WrapModel] ends the run with a *budget.ExceededError before
//     a model call once tokens, time or model calls are spent, or after a
//     tool call was refused on a wrap-up turn; adds the current assessment to the model's
//     input when it is not stale and, when tokens or time are nearly spent
//     or the tool calls are spent, a wrap-up reminder, while removing blocks
//     Lookout added before, so the input holds at most one; forbids tool
//     calls on the wrap-up turn; and charges every call's token usage,
//     streaming ones included, telling a call that reported no usage from
//     one that reported zero. The injected messages go to the model call
//     only: they never reach react's history or a compose graph's state.
//
// In a compose graph built by hand (a ChatModel node and a ToolsNode in a
// loop), the wrapped model goes in the ChatModel node, the middleware in
// the ToolsNodeConfig, and the compiled graph is run through [Runnable].
//
// # Where a run ends
//
// A run ends, errors included, before the caller can see that it is over:
// before Generate (or Invoke, Collect) returns, and, for Stream (or
// Transform), before the stream reports its end or its error. The wrapper
// reads the agent's stream on a goroutine of its own and ends the run
// before passing the end on. So with Config.Recorder set, run_ended is
// queued for the recording by then, and a program that closes its
// Recorder right after the run loses nothing. A caller that closes the
// stream early ends the run with context.Canceled, recorded from that
// goroutine once it notices. An interrupt pauses the run rather than
// ending it: it has no run_ended.
//
// With Config.Recorder set, the run's trajectory is recorded as a side
// effect: run_started, the input messages, model requests and responses,
// tool calls, assessments, budget events and run_ended.
//
// Observing and recording never break the agent: should Lookout's own work
// around a model or tool call, or the start of a run, panic, the panic is
// reported to Config.OnError and the call goes on as it would without
// Lookout.
//
// # The overrun bound
//
// The token limit is checked before each model call, so a run overruns it
// by at most one model response: the call that started under the limit.
// Nested agents running at the same time each may overrun by one response.
//
// # Pitfalls
//
//   - Run the agent through [Hooks.Agent] (a compose runnable through
//     [Runnable]). Called directly, its hooks find no run: they let every
//     call through unobserved and unlimited, and report [ErrNoRun] to
//     Config.OnError once per Hooks.
//   - Wrap the model given to react as ToolCallingModel. react's older
//     Model field (a model.ChatModel bound with BindTools) is not wrapped,
//     and its calls are not charged.
//   - The injection happens inside the model wrapper, so when the wrapped
//     model does not fire its own callbacks (eino-ext providers do), the
//     callbacks Eino fires around it see the input without the injected
//     messages. react's MessageModifier, if set, runs before and sees the
//     history without them too.
//   - The wrap-up turn forbids tool calls through the tool choice
//     (schema.ToolChoiceForbidden, "none" for OpenAI) and keeps the tools
//     described, which the history of tool calls needs. A model that
//     ignores the tool choice can still call tools; those calls are still
//     admitted by the tool-call budget. Once one is refused on a wrap-up
//     turn, or the tokens run out, the next model call ends the run.
//   - A streamed model reply is charged when its stream ends. The last
//     reply of Stream is the run's output stream: read it to its end.
//   - react's default StreamToolCallChecker decides from the first chunk
//     whether a streamed reply calls tools; a model that writes text before
//     its tool calls ends the run there. That is react's behaviour, with or
//     without Lookout; give the agent a checker that reads further.
//   - The deadline set on the ctx runs on real time. Once it passes, the
//     ctx's Err is the budget error, which also satisfies
//     errors.Is(err, context.DeadlineExceeded); so the run ends with the
//     budget error whether Eino notices the expired ctx between nodes or
//     Lookout's own hooks do.
//   - The session is not part of Eino's checkpoints. To keep the budget,
//     the tool calls and the assessments across an interrupt and its
//     resume, put the same session on the ctx of both calls with
//     session.NewContext. The resume is recorded as a new run; the
//     interrupted one has no run_ended.
package lookoutreact
