// Package stall provides the Stall detector, an [observer.Observer] that
// notices an agent going round in circles: the same call with the same
// result again and again, A-B-A-B alternation between two calls, or
// reading and rewriting one target without progress.
//
// Configure it with observer.Trigger{OnEveryCall: true}:
//
//	{Observer: stall.New(), Trigger: observer.Trigger{OnEveryCall: true}}
//
// It is an [observer.Incremental] observer: the pipeline hands its
// per-session state every call once, so a check costs the same late in a
// run as early.
//
// # Pitfalls
//
//   - Declare tools that are meant to be called again and again (a job's
//     status) in PollingTools, or their repeats are reported.
//   - Results are compared after normalization: two calls whose results
//     differ only in ids, timestamps or temporary paths are the same call.
package stall
