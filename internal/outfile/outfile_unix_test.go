//go:build unix

package outfile_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/outfile"
)

// TestWriteRefusesAFIFOAndADevice checks that a named pipe is neither
// opened (which would wait for a reader) nor replaced, and that a device
// is refused; the device is only looked at, since a failure to refuse it
// would replace it.
func TestWriteRefusesAFIFOAndADevice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	var nr *outfile.NotRegularError
	require.ErrorAs(t, outfile.Write(dir, "fifo", outfile.Bytes([]byte("x"))), &nr)
	assert.Equal(t, "a named pipe", outfile.Kind(nr.Mode))
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeNamedPipe)

	require.ErrorAs(t, outfile.Check(os.DevNull), &nr)
	assert.Equal(t, "a device", outfile.Kind(nr.Mode))
}
