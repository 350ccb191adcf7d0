// Package lookoutreact attaches Lookout to Eino react agents
// (flow/agent/react) and to compose graphs built by hand: the same
// observers, injected assessments and enforced budget that lookoutadk
// gives ADK agents.
//
//	l, err := lookoutreact.New(&lookoutreact.Config{
//		Limits: budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100},
//	})
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: l.WrapModel(chatModel),
//		ToolsConfig: compose.ToolsNodeConfig{
//			Tools:               tools,
//			ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()},
//		},
//	})
//	out, err := agent.Generate(ctx, msgs, l.AgentOption())
//
// What each piece does:
//
//   - [Lookout.AgentOption] (for compose runnables, [Lookout.ComposeOption])
//     registers a callbacks handler whose OnStart, when the outermost graph
//     starts, builds the run's state: a session (the one on ctx, see
//     session.NewContext, or a new one), a budget tracker and an observer
//     pipeline. Eino runs every node of the graph with the ctx that OnStart
//     returns, so the hooks below find the state there. A graph run inside
//     a tool call of another with the tool's ctx (a nested agent) starts a
//     child run that shares its parent's session, budget and observers, so
//     one budget covers both; it inherits the handler through the ctx, so
//     the run option is not needed there. The deadline, if any, is set on the run's ctx with a
//     *budget.ExceededError as its cause. When the graph ends (a streamed
//     graph: when its output stream ends) the handler records the run's
//     end, errors included, and releases the deadline's timer.
//   - [Lookout.ToolMiddleware] admits every tool call, of all four kinds,
//     through the budget (a call over the tool-call limit is not run; the
//     model gets a tool message saying why), records it with a dense,
//     unique call index even when calls run in parallel, and runs the
//     observers after it. A tool error becomes a message the model can
//     read, unless ToolErrors says abort.
//   - [Lookout.WrapModel] ends the run with a *budget.ExceededError before
//     a model call once tokens or time are spent, or after a tool call was
//     refused on a wrap-up turn; adds the current assessment to the model's
//     input when it is not stale and, when tokens or time are nearly spent
//     or the tool calls are spent, a wrap-up reminder, while removing blocks
//     Lookout added before, so the input holds at most one; forbids tool
//     calls on the wrap-up turn; and charges every call's token usage,
//     streaming ones included, telling a call that reported no usage from
//     one that reported zero. The injected messages go to the model call
//     only: they never reach react's history or a compose graph's state.
//
// In a compose graph built by hand (a ChatModel node and a ToolsNode in a
// loop), the same three pieces go in the same places: the wrapped model in
// the ChatModel node, the middleware in the ToolsNodeConfig, and
// [Lookout.ComposeOption] on each Invoke or Stream.
//
// With Config.Sink or Config.Recorder set, the run's trajectory is recorded
// as a side effect: run_started (named after the graph, "ReActAgent" for a
// react agent), the input messages, model requests and responses, tool
// calls, assessments, budget events and run_ended. A nested agent's run is
// recorded as a sub-run linked to the tool call that started it.
//
// Observing and recording never break the agent: should Lookout's own work
// around a model or tool call panic, the panic is reported to
// Config.OnError and the call goes on as it would without Lookout.
//
// Token usage is charged by the model wrapper, from the reply's
// ResponseMeta.Usage, and never by the callbacks handler, so a model that
// fires its own callbacks (model.CallbackOutput.TokenUsage) is not charged
// twice.
//
// # The overrun bound
//
// The token limit is checked before each model call, so a run overruns it
// by at most one model response: the call that started under the limit.
// Nested agents running at the same time each may overrun by one response.
//
// # Cost
//
// Registering any callbacks handler makes Eino run its callback machinery
// around every node, which a graph without handlers skips; Lookout's
// handler asks for only the timings it uses (see callbacks.TimingChecker).
// Injecting a block copies the model's input once per model call.
//
// # Pitfalls
//
//   - Pass [Lookout.AgentOption] to every Generate and Stream call. Without
//     it the hooks find no run: they let every call through unobserved and
//     unlimited, and report [ErrNoRun] to Config.OnError once per Lookout.
//   - The handler must see the whole graph. Do not register it with
//     DesignateNode: a run started by a node's callbacks would end with that
//     node.
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
//     reply of agent.Stream is the run's output stream, which the handler
//     reads to its end (see below), so it is charged even when the caller
//     stops reading early; until then the run has not ended.
//   - react's default StreamToolCallChecker decides from the first chunk
//     whether a streamed reply calls tools; a model that writes text before
//     its tool calls ends the run there. That is react's behaviour, with or
//     without Lookout; give the agent a checker that reads further.
//   - The deadline set on the ctx runs on real time. Once it passes, the
//     ctx's Err is the budget error, which also satisfies
//     errors.Is(err, context.DeadlineExceeded); so the run ends with the
//     budget error whether Eino notices the expired ctx between nodes or
//     Lookout's own hooks do. A deadline already past when the run starts
//     is left to the hooks.
//   - Eino calls a streamed graph's end when it hands the output stream
//     back, before it has been read. The handler reads its own copy of that
//     stream on a goroutine, which ends with the stream, and ends the run
//     (records run_ended, releases the deadline's timer) then. A stream the
//     caller never reads to its end is still read to its end this way.
//   - The session is not part of Eino's checkpoints. To keep the budget,
//     the tool calls and the assessments across an interrupt and its
//     resume, put the same session on the ctx of both calls with
//     session.NewContext. The resume is recorded as a new run; the
//     interrupted one has no run_ended.
package lookoutreact
