// Package resource provides the Resource observer (named "Resources"),
// which reports the remaining time, tokens and tool calls of the
// session's budget in plain language, and whether the pace so far will
// exhaust one before the deadline.
//
// Configure it with a sparse trigger, such as every ten calls and after
// three failures in a row:
//
//	{Observer: resource.New(), Trigger: observer.Trigger{EveryNCalls: 10, AfterConsecutiveErrors: 3}}
//
// # Pitfalls
//
//   - It reads the [budget.Budget] session value; with no budget set it
//     has nothing to report.
package resource
