//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportRefusesAnOutputThatIsNotARegularFile checks that -o at a
// symbolic link, a named pipe or a directory is a usage error that leaves
// the target as it was, where a rename would have put the page in its
// place.
func TestReportRefusesAnOutputThatIsNotARegularFile(t *testing.T) {
	in := trajectoryFile(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))

	for path, kind := range map[string]string{link: "a symbolic link", fifo: "a named pipe", sub: "a directory"} {
		before, err := os.Lstat(path)
		require.NoError(t, err)
		r := lookout("report", "-o", path, in)
		assert.Equal(t, exitUsage, r.code, r.stderr)
		assert.Contains(t, r.stderr, path+" is "+kind+", not a regular file")
		after, err := os.Lstat(path)
		require.NoError(t, err)
		assert.Equal(t, before.Mode(), after.Mode(), "%s was replaced", path)
	}
	kept, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(kept), "the link's target changed")
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, leftovers)

	// A device is refused the same way; it is only looked at here, since a
	// failure to refuse it would replace it.
	assert.ErrorContains(t, regularTarget(os.DevNull), "is a device, not a regular file")
	assert.NoError(t, regularTarget(target))
	assert.NoError(t, regularTarget(filepath.Join(dir, "new.html")))
}
