//go:build !linux

package recorder_test

import "time"

// processCPU reports nothing where the process's CPU time is not
// available: a rate per CPU-second is then infinite, and means nothing.
func processCPU() time.Duration { return 0 }
