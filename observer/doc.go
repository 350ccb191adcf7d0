// Package observer watches an agent's trajectory and tells the model, in
// short markdown, what it sees.
//
// After each tool call the adapter hands the call to a [Pipeline]. The
// pipeline records it in the session's [ToolCallRecord] log (assigning a
// dense, unique call index even under parallel calls), then asks each
// configured observer in turn: first its [Trigger] (every N calls, after N
// consecutive errors, every interval, or on every call, OR'd together),
// then the observer's ShouldRun, then Observe. The assessments produced on
// that call are merged, in configuration order, into one
// [CurrentAssessment] that replaces the previous one in the session and is
// appended to the [PastAssessment] history.
//
// Before the next model call, [BuildContext] or [Pipeline.Inject] renders
// the current assessment for injection, unless it is stale: older than a
// number of tool calls (default 20) measured against the current call
// index.
//
// A rendered block looks like this:
//
//	## Trajectory Assessment
//
//	_Generated after tool call #47_
//
//	### Resources [caution]
//
//	You have 8 minutes remaining before the deadline. ...
//
//	**Suggestions**:
//	- Be mindful of remaining resources when planning next steps.
//
// # Built-in observers
//
// Each built-in observer lives in its own package and uses only this
// package's exported API:
//
//   - [github.com/lookout-go/lookout/observer/resource] reports the
//     remaining time, tokens and tool calls, and whether the pace so far
//     will exhaust one before the deadline.
//   - [github.com/lookout-go/lookout/observer/stall] notices the agent
//     going round in circles: the same call with the same result again
//     and again, A-B-A-B alternation, or reading and rewriting one target
//     without progress. A [Normalizer] makes calls that differ only in
//     timestamps, request ids or temporary paths compare equal.
//   - [github.com/lookout-go/lookout/observer/cascade] notices failures
//     piling up (in a row, or at a high rate) and names their common cause
//     by grouping normalized error messages.
//   - [github.com/lookout-go/lookout/observer/drift] notices recent work
//     moving outside the task's scope, taken from the [Task] session value
//     the adapter seeds from the first user message.
//
// Run the three detectors with [Trigger]{OnEveryCall: true}: their
// ShouldRun is cheap and declines unless the latest call continues a
// pattern, and their severity rises from info to caution to warning as the
// pattern persists. They are [Incremental]: the pipeline keeps their
// working state, one per session, so one detector value can serve many
// sessions at once.
//
// # History, trends and feedback efficacy
//
// The pipeline keeps the last [PipelineOptions].HistorySize assessments;
// an observer reads them with [Context.History] and whether severity is
// escalating or easing with [Context.Trend]. When the adapter tells the
// pipeline that an assessment was shown to the model ([Pipeline.Inject] or
// [Pipeline.Injected]) it judges what the agent did next over the next
// few tool calls, or the model's answer ([Pipeline.ModelResponded]):
// whether it did what the assessment asked, as each observer defines it
// ([EfficacyJudge]), wrapped up, or carried on as before. The counts per observer
// live in the [Efficacy] session value, and [PipelineOptions].OnEfficacy
// reports each reaction so the adapter can record it.
//
// # Writing an observer
//
// Implement [Observer]: a unique Name, ShouldRun to decline a run the
// trigger allowed, and Observe to return an [Assessment]. The [Context]
// gives the recent calls, the calls since a time, the error rate over a
// window, the consecutive errors, the budget and its pace, the assessment
// history and trends, and feedback efficacy. Observers run inline, under
// the pipeline's lock, so keep them quick and do not call back into the
// pipeline. An observer with a Validate() error method is validated by
// [NewPipeline]. An observer that keeps working state per session and
// updates it call by call implements [Incremental]; see
// Example_incrementalObserver. One whose section describes a pattern that
// can end implements [Withdrawer], and one that can refuse a tool call
// before it runs implements [Gatekeeper].
//
// # Pitfalls
//
//   - Trigger state is per observer: an observer that runs every call does
//     not reset the count of one that runs every 15.
//   - An observer that returns an error or panics does not stop the run or
//     the other observers; it shows up in the block as an observation of
//     category observer_error, and the error goes to the pipeline's error
//     handler (log/slog by default).
//   - Create one Pipeline per session. Two pipelines on one store would
//     number calls correctly but evaluate triggers independently.
//   - A zero Trigger never fires; NewPipeline rejects it rather than
//     letting an observer sit silent.
//   - An assessment stays in the block until another replaces it or it
//     goes stale, less the sections of [Withdrawer] observers whose
//     pattern the latest call broke, or that a new user message
//     ([Pipeline.UserMessage]) withdrew.
//   - The detectors judge the latest call. With a sparse trigger (every N
//     calls) they still see every call, but report only a pattern that
//     the call they run after continues.
//   - Drift needs a scope. Seed the [Task] before the first tool call, and
//     declare Task.Scope when the prompt names no paths, hosts or
//     resources.
//   - Feedback efficacy counts an assessment once, however many model
//     calls it is injected into; call Injected (or Inject) on every
//     injection and let the pipeline tell repeats apart.
package observer
