//go:build linux || darwin

package cmdtest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RunPeak runs cmd and returns the most memory its process had resident,
// in bytes. On Linux the kernel's count of a child's largest resident set
// starts from its parent's, since Go starts a child in its parent's memory
// until the exec: a test process's own, under the race detector larger
// than the command's. There the command's own high-water mark is read
// from /proc as it runs instead, and last a moment before it ends.
func RunPeak(cmd *exec.Cmd) (int64, error) {
	if runtime.GOOS != "linux" {
		err := cmd.Run()
		if cmd.ProcessState == nil {
			return 0, err
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, err // bytes on macOS
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		peak = max(peak, highWater(status))
		select {
		case err := <-done:
			return peak, err
		case <-tick.C:
		}
	}
}

// highWater returns the VmHWM line of a /proc status file in bytes, or 0
// when the file or the line is gone.
func highWater(status string) int64 {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
			return n * 1024
		}
	}
	return 0
}
