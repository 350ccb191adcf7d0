//go:build windows

package simulate

import (
	"errors"
	"syscall"
)

// lockEnforced says whether lockFile really excludes other holders.
const lockEnforced = true

// errSharingViolation is Windows' ERROR_SHARING_VIOLATION.
const errSharingViolation = syscall.Errno(32)

// lockFile opens name, creating it if needed, without sharing it, so no
// other handle can open it until this one is closed, explicitly or by the
// process ending.
func lockFile(name string) (func(), error) {
	p, err := syscall.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil,
		syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if errors.Is(err, errSharingViolation) {
		return nil, errLocked
	}
	if err != nil {
		return nil, err
	}
	return func() { syscall.CloseHandle(h) }, nil
}
