package recorder_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, on every thread,
// so that a rate per CPU-second does not count time spent waiting for a
// CPU on a busy machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
