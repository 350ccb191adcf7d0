// Package adaptertest holds the test doubles and checks that the tests of
// Lookout's Eino adapters share: a fake clock, function-backed tools, and
// helpers over recorded trajectories. It is for tests only.
package adaptertest
