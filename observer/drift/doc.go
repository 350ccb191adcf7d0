// Package drift provides the Drift detector, an [observer.Observer] that
// notices recent work moving outside the task's scope, taken from the
// [observer.Task] session value the adapter seeds from the first user
// message.
//
// Configure it with observer.Trigger{OnEveryCall: true}:
//
//	{Observer: drift.New(), Trigger: observer.Trigger{OnEveryCall: true}}
//
// # Pitfalls
//
//   - Drift needs a scope. Seed the Task before the first tool call, and
//     declare Task.Scope when the prompt names no paths, hosts or
//     resources.
//   - With no scope at all it judges no share rather than guess; it still
//     reports a call that works clearly off the task's ground (a search of
//     the whole filesystem, managing accounts or services the prompt does
//     not ask for, sending to an address that only instructions planted in
//     a tool result gave).
//   - A task that should do what a file or page says must say so ("follow
//     the instructions in it"), or its instructions' addresses read as
//     planted.
package drift
