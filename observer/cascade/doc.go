// Package cascade provides the error-cascade detector (named "Errors"), an
// [observer.Observer] that notices failures piling up, in a row or at a
// high rate, and names their common cause by grouping normalized error
// messages.
//
// Configure it with observer.Trigger{OnEveryCall: true}:
//
//	{Observer: cascade.New(), Trigger: observer.Trigger{OnEveryCall: true}}
//
// # Pitfalls
//
//   - It speaks only after a failed call: a success ends what it reports.
//   - Messages are grouped after [DefaultRules] replace ids, numbers, paths
//     and URLs; add rules when your tools' messages vary in other ways.
package cascade
