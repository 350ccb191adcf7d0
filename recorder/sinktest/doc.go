// Package sinktest checks that a recorder.Sink keeps the promises the
// recorder relies on. Run it from a test of your sink:
//
//	func TestMySink(t *testing.T) {
//		sinktest.Run(t, func(t *testing.T) (recorder.Sink, sinktest.ReadBack) {
//			s := mysink.New(t.TempDir())
//			return s, s.ReadAll
//		})
//	}
//
// Outside package testing, [Check] runs the same checks and returns an
// error naming each one the sink failed. A sink or read-back function
// that panics fails the check it panicked in; the panic does not take the
// test binary or program down.
//
// The kit writes through a recorder.Recorder with the Escalate policy and
// Options.Block, so no record is lost to a full queue and any failed write
// fails the check, and closes the sink by closing the Recorder; the
// Recorder calls the sink from its own goroutine, as it will in use. The
// checks of Close, ErrClosed and cancelled contexts call the sink directly.
//
// Common pitfalls: the read-back function is called after the sink is
// closed, so it must read the stored data, not the sink's buffers; and
// every case gets a fresh sink from the factory.
package sinktest
