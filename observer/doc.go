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
// [CurrentAssessment] that replaces the previous one in the session.
//
// Before the next model call, [BuildContext] renders the current assessment
// for injection, unless it is stale: older than a number of tool calls
// (default 20) measured against the current call index.
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
// # Writing an observer
//
// Implement [Observer]: a unique Name, ShouldRun to decline a run the
// trigger allowed, and Observe to return an [Assessment]. The [Context]
// gives the recent calls, the calls since a time, the error rate over a
// window, the consecutive errors and the budget. Observers run inline,
// under the pipeline's lock, so keep them quick and do not call back into
// the pipeline.
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
package observer
