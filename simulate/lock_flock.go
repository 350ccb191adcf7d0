//go:build unix && !solaris && !aix

package simulate

import (
	"errors"
	"os"
	"syscall"
)

// lockEnforced says whether lockFile really excludes other holders.
const lockEnforced = true

// lockFile takes an exclusive flock on name, creating the file if needed.
// The lock belongs to this open file: closing it, or the process ending,
// releases it.
func lockFile(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
