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
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("atif: %w", err)
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fmt.Errorf("atif: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return "", fmt.Errorf("atif: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return "", fmt.Errorf("atif: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("atif: %w", err)
	}
	return filepath.Join(dir, name), nil
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
	target := filepath.Join(dir, name)
	for {
		resolved, err := filepath.EvalSymlinks(target)
		if err == nil {
			rel, err := filepath.Rel(base, resolved)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return &PathError{Dir: dir, Name: name, Reason: "a symbolic link leads outside the directory"}
			}
			return nil
		}
		// A link whose target is missing would create that target.
		if info, lerr := os.Lstat(target); lerr == nil && info.Mode()&os.ModeSymlink != 0 {
			link, _ := os.Readlink(target)
			if filepath.IsAbs(link) || !filepath.IsLocal(link) {
				return &PathError{Dir: dir, Name: name, Reason: "a symbolic link leads outside the directory"}
			}
		}
		parent := filepath.Dir(target)
		if parent == target || len(parent) < len(filepath.Clean(dir)) {
			return nil
		}
		target = parent
	}
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
