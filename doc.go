// Package lookout gives an agent that runs unattended a view of its own
// run: observers that tell the model what they see, limits the model is
// told about and that are enforced, and a recording of what happened.
//
// The package holds what a program that runs agents touches: the
// [Config], the readers of a run's results, the errors, and the read-only
// [Run] a tool finds on its ctx. It is runtime-neutral: it works on
// Eino's message types and nothing else of Eino. The adapters attach it to
// Eino agents (adapters/lookoutadk, adapters/lookoutreact); package
// adapters/drive is the protocol they drive runs with, for the authors of
// adapters to other runtimes.
//
// # Runs
//
// A run is one query, from its start to its end: one query of an ADK
// Runner, one Generate or Stream of a react agent, one invocation of a
// compose graph. It holds a session (a [session.Store]), a budget tracker
// and an observer pipeline. A run started while another is on the ctx (an
// agent used as a tool, the segments of a supervisor or a workflow) is a
// child: it shares its parent's session, budget and observers, so one
// budget covers the whole tree, and it is recorded as a sub-run linked to
// its parent. A query therefore has one root run and one budget.
//
// A root run uses the session the ctx carries ([session.NewContext]), or a
// new one. Runs on one session share its budget, tool calls and
// assessments, as the turns of a conversation do.
//
// An adapter checks its Config once when it is made ([Config.Check]), so
// a bad limit or trigger fails there and names the field.
//
// # Observers and assessments
//
// After each tool call, every observer whose [observer.Trigger] fires
// looks at the run's trajectory. What they say is merged into one
// assessment, which replaces the previous one. Before the next model call
// that assessment is added to the model's input as a short markdown block,
// unless it is more than MaxAgeCalls tool calls old; the block is replaced,
// never piled up. Injected messages are tagged, and [Injected] tells them
// from the conversation's own. With no Observers configured, one Resource
// observer reports the budget every 10 calls or after 3 consecutive
// errors. The observer package has the built-in observers (Resource,
// Stall, ErrorCascade, Drift) and the interface for your own.
//
// # Budgets
//
// [budget.Limits] bound a run's time, tokens, tool calls and model calls;
// the zero value is unlimited. The limits are told to the model (the
// Resource observer, and the wrap-up turn) and enforced, unless listed in
// Config.Advisory:
//
//   - A tool call over the tool-call limit does not run; the model gets a
//     tool message saying why.
//   - When tokens or time are nearly spent (Config.WrapUpAt, 10% by
//     default), the tool calls are spent, or one model call is left, the
//     next model call is a wrap-up turn: tool calls are forbidden through
//     the tool choice (control tools, Config.ControlTools, excepted) and
//     the model is asked to summarise.
//   - Once tokens, time or model calls are spent, or the model ignored its
//     wrap-up turn, the next model call is not made and the run ends with
//     a *[budget.ExceededError], which satisfies errors.Is(err,
//     budget.ErrExceeded). The deadline is also set on the run's ctx with
//     that error as its cause.
//
// Tokens are checked before each model call, so a run overruns its token
// limit by at most one model response. Config.Leases give a named child
// a cap of its own within the query's budget: near it the child gets a
// wrap-up turn and hands back, and the query goes on.
//
// # Recording
//
// With Config.Recorder set, each run's trajectory is recorded as a side
// effect: run_started, the input messages, model requests and responses,
// tool calls, assessments, budget events and run_ended. The [recorder.Recorder]
// is a subscriber that does not make the agent wait for storage: it
// queues records for a goroutine of its own, which writes them to its
// [recorder.Sink] (a JSON Lines file, memory, a fan-out); a full queue
// drops and counts, unless recorder.Options.Block asks to wait. The adapters end
// a run before the caller can see that it is over, so closing the Recorder
// right after loses nothing; close it when the program is done with it:
//
//	sink, err := recorder.NewFileSink("runs.jsonl", nil)
//	if err != nil { ... }
//	rec := recorder.New(sink, nil)
//	defer rec.Close(ctx) // writes out the queue and closes the sink
//	cfg := &lookout.Config{Recorder: rec}
//
// # Attaching to an agent
//
// An ADK agent takes the middleware in its Handlers, and the agent given
// to the Runner is wrapped, so that each query is one run:
//
//	mw, err := lookoutadk.New(ctx, cfg)
//	// adk.ChatModelAgentConfig{..., Handlers: []adk.ChatModelAgentMiddleware{mw}}
//	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: mw.Agent(agent)})
//
// A react agent takes the wrapped model and the tool middleware, and runs
// through the adapter's Agent (a compose graph through its Runnable):
//
//	l, err := lookoutreact.New(ctx, cfg)
//	// react.AgentConfig: ToolCallingModel: l.WrapModel(chatModel), and in
//	// ToolsConfig, ToolCallMiddlewares: []compose.ToolMiddleware{l.ToolMiddleware()}
//	out, err := l.Agent(reactAgent).Generate(ctx, msgs)
//
// The adapters' package docs say what each hook does and list the
// pitfalls.
//
// # Reading the results
//
// A program that holds the session reads it after the run: [BudgetOf],
// [ToolCallsOf] and [AssessmentOf]. Put the session on the ctx to hold it:
//
//	store := session.New(nil)
//	ctx = session.NewContext(ctx, store)
//	// ... run the agent with ctx ...
//	b, _ := lookout.BudgetOf(store) // b.TokensUsed, b.ToolCalls, ...
//
// Code that runs inside the run (a tool, another middleware) finds it with
// [FromContext] and reads [Run.Budget], [Run.Usage], [Run.ToolCalls] and
// [Run.Assessment]. The [Run] it gets is a view: it can't end the run nor
// charge it.
//
// # Checkpoints
//
// A checkpoint keeps a run's session (budget, tool calls, observers'
// state) and where its recording stopped, as plain JSON. A run resumed
// from it goes on with the same budget and the same recorded run. The ADK
// adapter carries it in Eino's checkpoints by itself.
//
// # Failures
//
// Observing and recording never break the agent. An observer's error or
// panic goes to Config.OnError (log/slog by default) and a note takes its
// place in the assessment; a failure of Lookout's own work, a panic
// included, goes to Config.OnError and the call goes on as it would
// without Lookout; a lost record is counted and reported by the recorder
// (recorder.Options.OnError). The deliberate stop is the budget's, and,
// when asked for, a failed write under the recorder's Escalate policy. A
// tool error ends the run as it would without Lookout, unless
// [ToolErrorsAsMessages] makes it a message the model reads.
//
// # Concurrency
//
// One adapter (one middleware) serves any number of agents and
// concurrent runs, each run with its own state on its ctx. Tool calls that run in parallel are each
// admitted by the budget, which never lets them overrun the tool-call
// limit, and recorded with a dense, unique call index; the observers run
// after one call at a time.
//
// # Writing an adapter
//
// Package adapters/drive is the protocol an adapter drives a run with,
// and adapters/drive/drivetest the conformance kit an adapter of another
// runtime runs in its tests.
package lookout
