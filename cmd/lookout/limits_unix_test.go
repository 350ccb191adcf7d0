//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The limits on hostile input, held at full size by the built command in
// a process of its own, whose time and memory the kernel counts.

// A gzip stream of 10 GiB of newlines (10 MB of gzip members, each a
// megabyte of newlines) stops at the decompression cap within 5 seconds
// of CPU time, with the error that says why.
func TestAGzipBombOf10GiBStopsAtTheCapWithin5Seconds(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10 MB bomb")
	}
	bin := buildCommand(t)
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(bytes.Repeat([]byte("\n"), 1<<20))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	path := filepath.Join(t.TempDir(), "bomb.jsonl.gz")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	for range 10 << 10 {
		_, err = w.Write(member.Bytes())
		require.NoError(t, err)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())

	for _, command := range []string{"validate", "inspect"} {
		cmd := exec.Command(bin, command, path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s: %s", command, stderr.String())
		assert.Equal(t, exitProblems, exit.ExitCode(), command)
		assert.Contains(t, stderr.String(), "a decompression bomb?", command)
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		t.Logf("%s of 10 GiB of newlines in %d MB of gzip: stopped after %v of CPU time (%v of wall time)",
			command, member.Len()*10<<10/1_000_000, cpu.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		assert.Less(t, cpu, 5*time.Second, command)
	}
}

// validate of 1 GB of random bytes, millions of problems, keeps the first
// hundred and counts the rest, in less than 100 MB of memory.
func TestValidateOf1GBOfRandomBytesTakesLessThan100MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GB")
	}
	bin := buildCommand(t)
	path := filepath.Join(t.TempDir(), "random.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	rng := rand.NewChaCha8([32]byte{7})
	buf := make([]byte, 1<<20)
	for range 1000 {
		_, _ = rng.Read(buf)
		_, err = f.Write(buf)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())

	cmd := exec.Command(bin, "validate", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	rss, err := runPeak(cmd)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	assert.Equal(t, exitProblems, exit.ExitCode())
	assert.Contains(t, stdout.String()+stderr.String(), "problems")
	t.Logf("validate of 1 GB of random bytes: %d MB at most resident", rss/1_000_000)
	assert.Less(t, rss, int64(100_000_000))
}

// runPeak runs cmd and returns the most memory its process had resident,
// in bytes. On Linux the kernel's count of a child's largest resident set
// starts from its parent's, since Go starts a child in its parent's memory
// until the exec: this test process's own, under the race detector larger
// than the command's. There the command's own high-water mark is read
// from /proc as it runs instead, and last a moment before it ends.
func runPeak(cmd *exec.Cmd) (int64, error) {
	if runtime.GOOS != "linux" {
		err := cmd.Run()
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

// buildCommand builds the lookout command, without the race detector,
// into a temporary directory, and returns its path.
func buildCommand(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "lookout")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
