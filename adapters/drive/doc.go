// Package drive is the protocol an adapter drives Lookout runs with: for
// the authors of adapters to agent runtimes, not for the programs that
// run agents, which configure Lookout with lookout.Config and read runs
// with the root package.
//
// An adapter makes a [Lookout] from the user's Config with [New], once,
// and drives each run through its life:
//
//   - [Lookout.Start] on the ctx the runtime hands its components, which
//     returns the ctx carrying the run. A run started on a ctx that carries
//     one already is its child, sharing its session and budget;
//   - [Run.BeforeModel] before each model call: the error that ends the
//     run, or the [Turn] to inject (an assessment, a wrap-up reminder);
//   - [Run.StartModel] and [ModelCall.End] around each attempt, which
//     charge it and record it;
//   - [Run.Admit] and [Call.End] around each tool call, which admit it
//     against the budget, record it and run the observers;
//   - [Run.End] once the run is over, before the caller can see it, so
//     that a program that exits then loses nothing.
//
// [NewContext] and [FromContext] carry the run to the runtime's
// components; lookout.FromContext gives them a read-only view of it.
// [Run.State] is what a checkpoint keeps of a run, and [Run.Begin]
// continues a run from one.
//
// Package drivetest is the conformance kit: an adapter's tests describe
// how they build and run an agent, and every behaviour Lookout promises
// runs through the adapter as a subtest.
//
// Common pitfalls:
//   - End a run on every path, failures and cancellations included: a run
//     that never ends leaves its recording without run_ended and holds
//     its query's deadline timer.
//   - Every attempt at a model call goes through StartModel, retries
//     included, so that the budget charges what the provider bills.
//   - A tool call the budget refuses must not run: Admit returns the
//     message the model reads instead of the tool's result.
//   - The ctx StartModel and Admit are given must be the one Start
//     returned, or one derived from it.
//
// A Lookout and a Run are safe for concurrent use; a Call and a ModelCall
// belong to the goroutine that runs the call.
package drive
