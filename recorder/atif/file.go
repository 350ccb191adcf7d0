package atif

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile validates t and writes it, indented, to the file name inside
// dir, and returns the path written. dir is created (0700) if missing;
// the file is created with mode 0600, and an existing file is truncated
// and set to 0600.
//
// name must stay inside dir: an empty name, an absolute path, a path
// with ".." that leaves dir, or a symbolic link that points outside dir
// is refused with a *PathError (ErrUnsafePath), before anything is
// written. The write goes through an os.Root, so a link swapped in after
// the check cannot redirect it. A document that fails Validate is refused
// with a *ValidationError. The write is not atomic: a crash can leave a
// partial file.
func WriteFile(dir, name string, t *Trajectory) (string, error) {
	if !filepath.IsLocal(name) {
		return "", &PathError{Dir: dir, Name: name, Reason: "not a relative path inside the directory"}
	}
	data, err := Encode(t)
	if err != nil {
		return "", fmt.Errorf("atif: encode: %w", err)
	}
	if problems := Validate(data); problems != nil {
		return "", &ValidationError{Problems: problems}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("atif: %w", err)
	}
	if err := staysInside(dir, name); err != nil {
		return "", err
	}
	if err := writeIn(dir, name, append(data, '\n')); err != nil {
		return "", fmt.Errorf("atif: %w", err)
	}
	return filepath.Join(dir, name), nil
}

// writeIn writes data to the file name inside dir through an os.Root, so
// that no link can lead the write out of dir, and leaves the file with
// mode 0600 even when it existed before.
func writeIn(dir, name string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := fill(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fill makes f private (0600) and writes data to it. It leaves closing f
// to the caller.
func fill(f *os.File, data []byte) error {
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	_, err := f.Write(data)
	return err
}

// staysInside resolves the symbolic links on the way to dir/name and
// reports a *PathError when the result is outside dir. Parts of the path
// that do not exist yet cannot be links, so the deepest existing one is
// what is checked.
func staysInside(dir, name string) error {
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("atif: %w", err)
	}
	escape := &PathError{Dir: dir, Name: name, Reason: "a symbolic link leads outside the directory"}
	target := filepath.Join(dir, name)
	for {
		if resolved, err := filepath.EvalSymlinks(target); err == nil {
			if !within(base, resolved) {
				return escape
			}
			return nil
		}
		// A link whose target is missing would create that target.
		if escapingLink(target) {
			return escape
		}
		parent := filepath.Dir(target)
		if parent == target || len(parent) < len(filepath.Clean(dir)) {
			return nil
		}
		target = parent
	}
}

// within reports whether path is base or lies under it, both with their
// links resolved.
func within(base, path string) bool {
	rel, err := filepath.Rel(base, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// escapingLink reports whether target is a symbolic link whose text is
// absolute or climbs out with "..", so that a write through it could
// leave the directory even though what it points at does not exist yet.
func escapingLink(target string) bool {
	info, err := os.Lstat(target)
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		return false
	}
	link, _ := os.Readlink(target)
	return filepath.IsAbs(link) || !filepath.IsLocal(link)
}

// ReadFile decodes the ATIF document in the file name. It does not
// validate it; use ValidateFile for that.
func ReadFile(name string) (*Trajectory, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("atif: %w", err)
	}
	return Decode(data)
}
