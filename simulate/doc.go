// Package simulate drives a conversational agent through multi-turn
// scenarios with a simulated user, and turns every run into a dataset.
//
// A language model plays the user. It has a goal, a persona and, optionally,
// a plan of steps; the agent under test answers each message. The package
// works on Eino's own types: messages are *schema.Message and the user model
// is any model.BaseChatModel. The agent sits behind the small Target
// interface; TargetFunc adapts a function, and the adapters/simtarget package
// adapts adk.Runner, react agents and compose runnables.
//
// # Concepts
//
// A Scenario holds the Goal, the Persona (name, description, guardrails), an
// optional Graph of Steps with a Start and Terminals, MaxTurns, LoopLimit, a
// ConversationID, Metadata, optional Goals, and the conversation controls
// (Opening, Script, StopSignal, Criteria, Interrupts, OnRankerFailure). A
// Step has an instruction and
// hints for the user model, Preconditions (After another step, or a custom
// When check), MaxAttempts, a Timeout and a Satisfied check. Steps that wait
// for each other through After, in a cycle, make the scenario invalid. Each
// step also has runtime state (StepState): idle, in_progress, satisfied,
// blocked, failed or skipped, with its attempts and when it last changed, on
// the Runner's Clock.
//
// A Runner holds the user model, the ranker, the policy and the clock, and
// plays one scenario with Run. A Batch plays many scenarios, each several
// times, with bounded concurrency, resumable and shardable.
//
// # One turn
//
//  1. Preconditions of all unfinished steps are evaluated; custom ones run in
//     parallel and see the same read-only State.
//  2. A step is selected: the Start step on the first turn; otherwise the
//     first eligible step that has preconditions, in graph order; otherwise
//     the Ranker scores the eligible steps from the most recent turn (tool
//     messages included) and the best score above RankThreshold (0.5) wins;
//     otherwise no step. Scores that are not numbers in [0, 1], and scores
//     for steps the ranker was not offered, are dropped, whatever the
//     ranker. Every StepTrace records its Selection method and the
//     candidates the ranker scored. A ranker that fails ends the run with
//     SideRanker (SideInfrastructure for a provider's failure), unless the
//     scenario degrades (RankerDegrade) and plays the turn without a step.
//  3. Loop detection: if the step would be chosen more than LoopLimit times in
//     a row, the run stops with StopAgentLoop.
//  4. The user message: the scenario's Opening or Script entry for the turn
//     when it has one; otherwise the user model writes it. Its system prompt holds the
//     persona, the goal and the guardrails, as rules to follow in every
//     message; its user prompt holds the last UserContextTurns turns (tool
//     calls and results included) and the selected step's instruction and
//     hints, or an invitation to continue toward the goal. A message that
//     holds the scenario's StopSignal ends the run with StopUser.
//  5. The Target answers with the whole history; its assistant and tool
//     messages are kept in order. Interrupts it meets are answered by the
//     scenario's Interrupts policy (AnswerInterrupt).
//  6. Step states are updated, goals are checked, and the Policy decides
//     whether to stop.
//
// # Satisfaction
//
// A step with a Satisfied check is satisfied when the check says so; the
// check runs after every turn, whether or not the step was selected, because
// an agent may do more than it was asked. A step without one uses the default
// heuristic: it is satisfied by a turn that attempted it in which the
// agent's last message is an assistant message with text and no pending tool
// calls, that is, the agent answered. The heuristic is optimistic: an answer
// is not proof that the work was done. Use a custom check or Goals when that
// matters.
//
// A step that is not satisfied after MaxAttempts attempts, or that is still
// unsatisfied Timeout after its first attempt (on the Runner's Clock), is
// failed and never selected again. Steps never attempted by the end of the
// run are marked skipped.
//
// # Stops
//
// DefaultPolicy stops with StopGoalReached when State.GoalReached reports
// true and with StopMaxTurns when the turns run out. Custom policies may stop
// for any reason, typically StopPolicyViolation; whatever a policy says, no
// run exceeds MaxTurns. StopAgentLoop comes from loop detection, StopUser
// from the user's stop signal, and StopError from a failure, or from a
// policy that stops with it. The last StepTrace (and Result.End) records the
// reason, whether the goal was completed, and a short summary. A run is
// completed only when it stops with StopGoalReached (or StopUser) and
// State.GoalReached agrees; a run that stops for any other reason is not,
// even if its goals are met by then. A user stop with unmet goals lists them
// in End.UnmetGoals. Scenario Criteria are scored by the Runner's Judge once
// the run ends (End.Criteria), and End.Passed says the run completed with
// every criterion passed.
//
// On StopError, Run always returns a *RunError whose Side says who failed:
// the agent (its Target returned an error or panicked), the ranker, the
// infrastructure (a model provider's transient failure, HTTP 429 or 5xx, a
// timeout, a reset, that remained after retries, whichever model it was)
// or the simulator (the user model, a check, a goal, the judge, the policy,
// or the caller cancelling ctx). It unwraps to ErrAgent, ErrRanker,
// ErrInfrastructure or ErrSimulator and to the cause, so
// errors.Is(err, context.Canceled) holds when the caller cancelled; custom
// preconditions that the runner cancels itself, after another one failed,
// do not add their context.Canceled to the error.
//
// # Retries
//
// The runner retries the calls of the user model, the ranker and the judge
// on transient errors (IsTransient), with exponential backoff and jitter,
// within the run's deadline (Runner.Retry, Runner.CallTimeout); RetryModel
// does the same for the agent's own model, and reports its retries and
// failed calls to the run. Result.Usage counts each role's calls, attempts,
// failures and tokens; ReadBatch averages them, with their cost, per role.
//
// # Checkable ends
//
// Simulated users are known to declare success too early (the user model says
// thanks before anything was booked) or too late (the run goes on after the
// agent has finished). Goals fix both: each Goal is a predicate over what the
// agent actually did, its tool calls with their arguments and results
// (Evidence). When a scenario declares goals, the goal is reached exactly
// when all of them are met: a terminal step reached without them does not
// end the run, and the run ends as soon as they are met. ToolCalled and
// ToolCalledWith cover the common cases; they need a call whose result is
// not an error (a tool message starting "Error: ", as Lookout's middleware
// writes a tool's error, is Failed). ToolTried accepts failed calls.
//
// # Outputs
//
// Result.Traces is the source of truth. Result.Conversation returns the
// messages in order, Result.Lines and Result.WriteJSONL the dataset (one
// line per turn: {conversationId, stepIndex, input, output[], timestamp,
// metadata}, messages in the OpenAI chat shape), Result.Summary a short text.
// WriteArtifacts writes conversation.jsonl, stepTraces.json and
// trajectory.meta.json into a folder named after the conversation id,
// sanitised with SafeName; files are 0600.
//
// # Batches
//
// Batch.Run gives each job (scenario × repetition) a folder under OutDir
// named by its ID and writes DoneFile there last, atomically, once the run
// ended without error (FailedFile when it ended with one), with a
// fingerprint of the scenario, the options and Lookout's version. Running
// the batch again skips the jobs done with an unchanged fingerprint, so an
// interrupted batch resumes and a changed one reruns; temporary files a
// killed batch left are removed first, and the folders of jobs the batch
// no longer has are moved into StaleDir, with a notice, so that OutDir
// holds only the batch's runs. Shard i of Shards takes the jobs
// whose global Index % Shards == i (ShardFromEnv reads them from a
// Kubernetes Indexed Job), and Merge joins the finished runs of the shards
// into one dataset, in job order; ReadBatch sums a batch up: completion,
// stop reasons, pass^k, tokens and cost per role, failures by side. While it runs,
// a batch holds a lock on LockFile in OutDir, so a second batch on the same
// OutDir fails with ErrOutDirInUse instead of mixing its files in; the lock
// dies with its process, so a crashed batch never blocks its resumption.
// Panics in Setup and OnResult fail their job, not the process.
//
// # Common pitfalls
//
//   - With Ranker nil, ranking requests go to the UserModel. A scripted user
//     model then receives them too; give the Runner its own Ranker (a
//     RankerFunc or NewRanker on another model) to keep scripts simple.
//   - Models and targets that keep per-conversation state (scripted ones) must
//     not be shared between concurrent runs: use Batch.Setup to build them
//     per job.
//   - Checks, goals and policies get shared snapshots; they must not modify
//     State or Evidence. Custom preconditions run concurrently.
//   - A scenario with neither Goals nor a Graph only ends on MaxTurns or a
//     custom policy, and Completed is then always false.
//   - LoopLimit counts consecutive turns on one step; a step that needs many
//     attempts also needs a LoopLimit above its MaxAttempts.
//   - Without OutDir a batch writes nothing and cannot resume.
//   - Shards that run at the same time need an OutDir each.
//   - Merge with Merge, not by concatenating every conversation.jsonl,
//     which takes unfinished runs too.
//   - A goal enters the fingerprint by its name only: change Batch.Version
//     when what a goal checks changes.
package simulate
