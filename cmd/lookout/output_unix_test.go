//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputsThatAreNotRegularFilesAreRefused checks that report -o and
// merge --output at a symbolic link, a named pipe or a directory is a
// usage error that leaves the target as it was, where a rename would have
// put the output in its place.
func TestOutputsThatAreNotRegularFilesAreRefused(t *testing.T) {
	in := trajectoryFile(t)
	batch := simBatch(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))
	targets := map[string]string{link: "a symbolic link", fifo: "a named pipe", sub: "a directory"}
	// A character device like /dev/null (1, 3), where the process may make
	// one (as root on Linux): replacing it would not harm the machine.
	device := filepath.Join(dir, "null")
	if runtime.GOOS == "linux" && syscall.Mknod(device, syscall.S_IFCHR|0o600, 1<<8|3) == nil {
		targets[device] = "a device"
	} else {
		t.Log("no device made here: -o at a device is checked on the refusal alone")
	}

	for path, kind := range targets {
		for _, args := range [][]string{{"report", "-o", path, in}, {"merge", "--output", path, batch}} {
			before, err := os.Lstat(path)
			require.NoError(t, err)
			r := lookout(args...)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, path+" is "+kind+", not a regular file")
			after, err := os.Lstat(path)
			require.NoError(t, err)
			assert.Equal(t, before.Mode(), after.Mode(), "%s: %s was replaced", args[0], path)
		}
	}
	kept, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(kept), "the link's target changed")
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, leftovers)

	// The machine's own device is only looked at: a failure to refuse it
	// would replace it.
	assert.ErrorContains(t, regularTarget(os.DevNull), "is a device, not a regular file")
	assert.NoError(t, regularTarget(target))
	assert.NoError(t, regularTarget(filepath.Join(dir, "new.html")))
}

// TestADirectorysFilesThatAreNotRegularAreSkipped checks that a directory
// is read for its regular files, and links to them, only: a FIFO, a link
// to a device, a link in a loop and a link to nothing, named as
// trajectories, would never end or never open, and each is skipped with a
// warning.
func TestADirectorysFilesThatAreNotRegularAreSkipped(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(trajectoryFile(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), data, 0o600))
	require.NoError(t, os.Symlink(filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o600))
	require.NoError(t, os.Symlink(os.DevNull, filepath.Join(dir, "device.jsonl")))
	require.NoError(t, os.Symlink("loop.jsonl", filepath.Join(dir, "loop.jsonl")))
	require.NoError(t, os.Symlink("gone", filepath.Join(dir, "gone.jsonl")))

	done := make(chan result, 1)
	go func() { done <- lookout("inspect", dir) }()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("inspect of the directory never ended")
	}
	require.Equal(t, exitOK, r.code, r.stderr)
	records := func(out string) string {
		i := strings.Index(out, "records: ")
		require.GreaterOrEqual(t, i, 0, out)
		return strings.SplitN(out[i:], "\n", 2)[0]
	}
	single := lookout("inspect", filepath.Join(dir, "a.jsonl"))
	require.Equal(t, exitOK, single.code, single.stderr)
	var n int
	_, err = fmt.Sscanf(records(single.stdout), "records: %d", &n)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("records: %d", 2*n), records(r.stdout), "a.jsonl and b.jsonl, its link, are read")
	for name, why := range map[string]string{
		"fifo.jsonl":   "a named pipe, not a regular file",
		"device.jsonl": "a symbolic link to a device, not to a regular file",
		"loop.jsonl":   "a symbolic link that leads to no file: too many levels of symbolic links",
		"gone.jsonl":   "a symbolic link that leads to no file: no such file or directory",
	} {
		assert.Contains(t, r.stderr, "lookout: skipped "+filepath.Join(dir, name)+": "+why+"\n")
	}
}

// TestExportIntoADirectoryRefusesAFileThatIsNotRegular checks that a run's
// file in -o DIR that is a named pipe, which the write would wait on
// forever, or a symbolic link is refused and left as it is.
func TestExportIntoADirectoryRefusesAFileThatIsNotRegular(t *testing.T) {
	for _, format := range []string{"openai", "atif"} {
		dir := t.TempDir()
		r := lookout("export", "--format", format, "-o", dir, "--run", "run-2", trajectoryFile(t))
		require.Equal(t, exitOK, r.code, r.stderr)
		path := strings.TrimSpace(r.stdout)
		require.NoError(t, os.Remove(path))
		require.NoError(t, syscall.Mkfifo(path, 0o600))

		done := make(chan result, 1)
		go func() { done <- lookout("export", "--format", format, "-o", dir, "--run", "run-2", trajectoryFile(t)) }()
		select {
		case r = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the export waited on the named pipe", format)
		}
		assert.NotEqual(t, exitOK, r.code, format)
		assert.Contains(t, r.stderr, path+" is a named pipe, not a regular file", format)
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeNamedPipe, "%s: the pipe was replaced", format)
	}
}

// TestOutputsAreRenamedIntoPlace checks that export -o DIR, report -o and
// merge --output write a new file and rename it over the old one, rather
// than truncating the old file and writing into it: another name of the
// old file (a hard link) keeps the old content, and no temporary file is
// left beside the output.
func TestOutputsAreRenamedIntoPlace(t *testing.T) {
	in := trajectoryFile(t)
	batch := simBatch(t)
	exportDir := t.TempDir()
	r := lookout("export", "--format", "openai", "-o", exportDir, "--run", "run-2", in)
	require.Equal(t, exitOK, r.code, r.stderr)
	exported := strings.TrimSpace(r.stdout)

	page := filepath.Join(t.TempDir(), "report.html")
	dataset := filepath.Join(t.TempDir(), "dataset.jsonl")
	for path, args := range map[string][]string{
		exported: {"export", "--format", "openai", "-o", exportDir, "--run", "run-2", in},
		page:     {"report", "-o", page, in},
		dataset:  {"merge", "--output", dataset, batch},
	} {
		require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
		other := filepath.Join(t.TempDir(), "other-name")
		require.NoError(t, os.Link(path, other))

		r := lookout(args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NotEqual(t, "old", string(data), args[0])
		kept, err := os.ReadFile(other)
		require.NoError(t, err)
		assert.Equal(t, "old", string(kept), "%s wrote into the old file", args[0])
		leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
		assert.Empty(t, leftovers, args[0])
	}
}
