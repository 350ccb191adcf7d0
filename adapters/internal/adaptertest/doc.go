// Package adaptertest holds what the tests of Lookout's Eino adapters
// share: a fake clock, function-backed tools, helpers over recorded
// trajectories, and the behaviour suite both adapters must pass. It is
// for tests only.
//
// The suite is a list of [Scenario] values. A scenario builds a [Spec]
// (a scripted model, tools, a configuration and a check) for each [Mode]
// it runs in; an adapter's tests describe how they build and run an agent
// in an [Adapter] and call [RunSuite], so every scenario runs through
// every adapter as a subtest named after it.
//
// Common pitfalls:
//   - A scenario's Build runs once per mode and per adapter: state a check
//     reads (counters, captured sessions) must be made inside Build, never
//     shared between runs.
//   - A run's end may be recorded from another goroutine just after the
//     caller has the output; read a sink's records with [Ended], not
//     directly.
//   - Only behaviours that are the same in both adapters belong here. Where
//     the adapters rightly differ (the recorded agent name, how the wrap-up
//     turn withholds tools), the difference is a field of [Adapter], not a
//     branch on the adapter's name.
package adaptertest
