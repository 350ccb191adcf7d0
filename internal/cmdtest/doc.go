// Package cmdtest builds the lookout command for tests that run it in a
// process of its own, and measures what such a process holds in memory at
// most.
package cmdtest
