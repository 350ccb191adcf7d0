// Package adaptertest holds what the tests of Lookout's Eino adapters and
// the conformance kit (adapters/drive/drivetest) share: a fake clock,
// function-backed tools, tools of every kind Eino runs, observers and
// sinks made for tests, and helpers over recorded trajectories. It is for
// tests only.
//
// Common pitfalls:
//   - A run's end may be recorded from another goroutine just after the
//     caller has the output; read a sink's records with [Ended], not
//     directly.
//   - Recorders made with [NewRecorder] are flushed by [Flush] and closed
//     when the test ends; a test that makes its own must close it.
package adaptertest
