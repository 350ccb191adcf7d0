//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/cmdtest"
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
	bin := cmdtest.Build(t, context.Background())
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
	bin := cmdtest.Build(t, context.Background())
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
	rss, err := cmdtest.RunPeak(cmd)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	assert.Equal(t, exitProblems, exit.ExitCode())
	assert.Contains(t, stdout.String()+stderr.String(), "problems")
	t.Logf("validate of 1 GB of random bytes: %d MB at most resident", rss/1_000_000)
	assert.Less(t, rss, int64(100_000_000))
}
