// Package lookoutadk attaches Lookout to Eino ADK agents. A [Middleware]
// gives each ChatModelAgent it is registered on the observers, the
// injected assessments, the enforced budget and the recording that
// package lookout describes; [Middleware.Agent] makes each query of the
// Runner one run.
//
//	mw, err := lookoutadk.New(ctx, &lookout.Config{
//		Limits:   budget.Limits{Timeout: 30 * time.Minute, MaxTokens: 50_000, MaxToolCalls: 100},
//		Recorder: rec, // optional: a *recorder.Recorder
//	})
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Model: chatModel, ToolsConfig: tools,
//		Handlers: []adk.ChatModelAgentMiddleware{mw},
//	})
//	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)})
//
// [New] takes a [lookout.Config] (go doc github.com/lookout-go/lookout
// Config); a nil one means the defaults. It adds Eino's transfer and exit
// tools to Config.ControlTools, and the transfer tool to
// Config.HandoverTools; the tools an agent returns on
// (ToolsConfig.ReturnDirectly, such as a loop's break tool) are control
// tools of its run. One Middleware serves every agent of a program and
// any number of concurrent runs.
//
// # The query's run
//
// [Middleware.Agent] wraps the agent given to the Runner. Each Run or
// Resume of the wrapper is one run. A wrapped ChatModelAgent runs as that
// run, and the agents it reaches (agents used as tools) as its children. A
// wrapped supervisor or workflow (adk.SetSubAgents, adk/prebuilt/supervisor,
// sequential, loop and parallel agents, adk/prebuilt/deep and planexecute)
// is the run, and records the query's messages; each agent segment in it is
// a child named after its agent, and a segment that hands over says so in
// its stop reason. Children share the run's session and budget;
// Config.Leases may cap a named child. The wrapper passes the Runner's
// events on unchanged and in order, and ends the run before the Runner's
// iterator reports the first error event or its last event, once the
// model calls in flight are charged and the records are in the sink
// (within Config.EndWait): a program that exits on the error loses
// nothing. Eino may go on after an agent fails (a supervisor the agent
// hands back to, a parallel workflow's other branches): [QueryError]
// returns the query's error from its events. A run an interrupt pauses
// is not ended: its Resume goes on with the same run.
//
// An agent that sends events in a query without having started a run (no
// middleware in its Handlers) is reported to Config.OnError once, with
// [ErrUnobservedAgent]; an agent that starts a query's run itself, not
// being wrapped, with [ErrUnwrapped]. A model an agent calls outside a ChatModelAgent
// (the planner and replanner of planexecute) is charged and recorded
// through [Middleware.Model].
//
// # What each hook does
//
//   - BeforeAgent starts a child run when a run is on the ctx, or, for an
//     agent run without the wrapper, a root run on the session the ctx
//     carries (session.NewContext) or a new one. With an enforced time
//     limit, the deadline is set on the run's ctx with a
//     *budget.ExceededError as its cause.
//   - BeforeModelRewriteState counts the model call in the budget, and
//     ends the run with a *budget.ExceededError once tokens, cost or time
//     are spent, once model or tool calls are spent and the agent has had
//     its last turn, or after a tool call was refused on a wrap-up turn. Otherwise it replaces the previous injected block with
//     the current assessment, when it is fresh, and on a wrap-up turn adds
//     the reminder. Eino keeps the state returned here, so the history
//     never holds more than one block.
//   - WrapModel charges every model call attempt, retries and streams
//     included, telling a reply that reported no usage from one that
//     reported zero; records requests and replies; and on a wrap-up turn
//     forbids tool calls through the tool choice, keeping the tools
//     described, as providers that see tool calls in the history require:
//     schema.ToolChoiceForbidden, or schema.ToolChoiceAllowed with only the
//     control tools the agent offers (a transfer, exit).
//   - AfterModelRewriteState, when recording, notes how many tool calls
//     the reply asks for, so that a tool call that ends the run records
//     run_ended after the calls made beside it.
//   - WrapInvokableToolCall, WrapStreamableToolCall and their Enhanced
//     forms admit each call by the budget (a call over the tool-call limit
//     does not run: the model gets a tool message saying why), record it
//     with a dense, unique call index, run the observers after it, even
//     when calls run in parallel, and, with Config.ToolErrors set to
//     lookout.ToolErrorsAsMessages, turn a tool error into the message
//     "Error: ..."; by default it ends the run as in plain Eino. A
//     streamed call ends when its stream does.
//   - AfterAgent ends a child run, or a root run started without the
//     wrapper; Eino calls it only when the agent succeeds.
//
// Should Lookout's own work in a hook panic, the panic goes to
// Config.OnError and the agent goes on as it would without Lookout: a run
// whose start panicked runs without Lookout, the model call goes ahead
// with the state unchanged, the tool runs unobserved, and a tool's result
// or error and a model's reply pass through. A panic in a tool or model
// is not Lookout's: it goes on to Eino.
//
// The run's state ([drive.State]) travels in Eino's checkpoints as the
// value "lookout.session" of the query's Eino session
// (adk.AddSessionValue), whose type is registered with schema.RegisterName
// as "lookout_session_checkpoint" and encodes as JSON whether Eino's
// serializer uses JSON or gob: a resumed run keeps its budget, tool calls,
// assessments and recorded run, even in a fresh process.
//
// # Pitfalls
//
//   - Register the middleware on every ChatModelAgent, sub-agents
//     included: an agent without it does not charge the shared budget.
//   - Give the Runner mw.Agent(agent). Without the wrapper (reported with
//     ErrUnwrapped), a run that Eino ends with an error Lookout does not
//     see (a cancelled ctx) gets no run_ended, and its deadline's timer
//     holds the run in memory until the deadline passes; and a sub-agent a
//     transfer hands over to starts a run of its own, which shares the
//     budget only through a session on the ctx given to the Runner.
//   - In Eino v0.9.21, one ChatModelAgent used by several Runner runs at
//     the same time has a data race inside Eino (each run writes its cancel
//     context into a run config the agent builds once), with or without
//     middleware. Build one agent per concurrent run.
//   - The deadline on the run's ctx runs on real time. Once it passes, the
//     ctx's Err and context.Cause are the budget error, which also
//     satisfies errors.Is(err, context.DeadlineExceeded); so the run ends
//     with the budget error whether Eino or Lookout notices first.
//   - The assessment block moves to the end of the history in place: the
//     tail of the history's array is rewritten before each model call, so
//     a model or callbacks handler that keeps a call's input slice after
//     the call returns must copy it (slices.Clone) to keep it as it was.
package lookoutadk
