// Package sessionhook lets other packages of the module read what package
// session keeps unexported, through functions session sets, so that
// session exports no name that serves them alone.
package sessionhook

import "sync/atomic"

// Version returns the version of v, a *session.Value[T]: a counter that
// every change to the value (Seed, Update, Change, Clear, a restore)
// advances under the value's lock, and nothing else does. A reader that
// keeps what it read, with the version it read it at (under the lock,
// from within Value.Read), can tell from one atomic load whether it is
// still current. Package session sets it when it is initialized.
var Version func(v any) *atomic.Uint64
