package observer_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU measures the CPU time the benchmark's own thread spends, so
// that a figure per operation does not count time spent waiting for a CPU
// on a busy machine. Call start after b.ResetTimer and stop at the end.
type threadCPU struct{ at time.Duration }

func threadTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *threadCPU) start() {
	runtime.LockOSThread()
	c.at = threadTime()
}

func (c *threadCPU) stop(b *testing.B) {
	used := threadTime() - c.at
	runtime.UnlockOSThread()
	if used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
