package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// NotRegularError reports a target that is there and is not a regular
// file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode // the target's type bits, from os.Lstat
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; give the path of a regular file or of a new one", e.Path, Kind(e.Mode))
}

// Kind names the type of a file that is not a regular one: "a symbolic
// link", "a directory", "a named pipe", "a socket" or "a device".
func Kind(m fs.FileMode) string {
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

// Check returns a *NotRegularError when path is there and is not a
// regular file, nil when it is one or is not there yet, and the error of
// looking otherwise. It lets a caller refuse a target before doing the
// work of making its content; Write checks again.
func Check(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode().IsRegular():
		return nil
	}
	return &NotRegularError{Path: path, Mode: fi.Mode().Type()}
}

// Write makes the file name, a local path inside dir, with what write
// writes to it, through a temporary file in the same directory that is
// synced and then renamed over it; dir, and any folder of name inside
// it, must exist. The
// file is left with mode 0600. When write or anything after it fails,
// the temporary file is removed and the target is as it was.
func Write(dir, name string, write func(io.Writer) error) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%s is not a relative path inside %s", name, dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if fi, err := root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return &NotRegularError{Path: filepath.Join(dir, name), Mode: fi.Mode().Type()}
	}
	f, tmp, err := create(root, name)
	if err != nil {
		return err
	}
	err = fill(f, write)
	if err == nil {
		err = rename(root, dir, tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// create makes a new temporary file beside name in root, for this write
// alone.
func create(root *os.Root, name string) (*os.File, string, error) {
	var suffix [8]byte
	for {
		rand.Read(suffix[:])
		tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+"."+hex.EncodeToString(suffix[:])+".tmp")
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, tmp, err
		}
	}
}

// fill writes the content to f, syncs and closes it.
func fill(f *os.File, write func(io.Writer) error) error {
	err := write(f)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// rename moves tmp over name, both inside root, after checking again that
// name is not what Write refuses, and that the temporary file is still
// the regular file this write made.
func rename(root *os.Root, dir, tmp, name string) error {
	if fi, err := root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return &NotRegularError{Path: filepath.Join(dir, name), Mode: fi.Mode().Type()}
	}
	if fi, err := root.Lstat(tmp); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("the temporary file %s was changed while it was written", filepath.Join(dir, tmp))
	}
	return os.Rename(filepath.Join(dir, tmp), filepath.Join(dir, name))
}

// Bytes returns a write function that writes data.
func Bytes(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}
