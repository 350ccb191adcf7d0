// Package stall provides the Stall detector, an [observer.Observer] that
// notices an agent going round in circles: the same call with the same
// result again and again, A-B-A-B alternation between two calls, reading
// and rewriting one target without progress, the same check failing the
// same way after each edit, or commands a waiting shell only echoes.
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
//     status) in PollingTools, or their repeats are reported; a call whose
//     results show counters moving is taken as a poll without it.
//   - Results are compared after normalization: two calls whose results
//     differ only in ids, timestamps or temporary paths are the same call.
//     A counter that moved (an epoch, a step, a line number) is progress.
package stall
