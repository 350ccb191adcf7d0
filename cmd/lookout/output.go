package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// regularTarget returns an error unless path names a regular file or
// nothing yet: a page written there replaces only those, never a symlink
// (nor what it points at), a device, a FIFO, a socket or a directory.
func regularTarget(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode().IsRegular():
		return nil
	}
	return fmt.Errorf("%s is %s, not a regular file; give the path of a regular file or of a new one", path, kind(fi.Mode()))
}

// kind names the type of a file that is not a regular one.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
