// Package endwait carries, from package drive to package recorder, the
// bound on the wait of a query's end for its records to reach the sink.
//
// Bounding the wait with context.WithTimeout would cost each query a
// timer, a cancellation registration with the run's ctx and a channel,
// some 7k instructions and 7 allocations; the Recorder bounds it with a
// timer it reuses.
package endwait

import (
	"context"
	"time"
)

// Context is Context, for a Recorder's Flush that waits for Within at
// most. Anything else that is given it sees Context.
type Context struct {
	context.Context
	Within time.Duration
}
