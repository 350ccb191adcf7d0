//go:build !linux

package detectorbench

import "time"

// threadCPU returns 0: the thread's CPU time is read on Linux only.
func threadCPU() time.Duration { return 0 }
