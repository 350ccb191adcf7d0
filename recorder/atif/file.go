package atif

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lookout-go/lookout/internal/outfile"
)

// WriteFile validates t and writes it, indented, to the file name inside
// dir, with the media files it needs (Trajectory.MediaFiles) in a folder
// "media" next to it, and returns the path written. dir is created (0700)
// if missing; files are created with mode 0600, through a temporary file
// renamed over the name, and an existing file is replaced. A symbolic
// link, a device, a named pipe or a directory at a file's name is refused
// and left as it is. A media file already there, named by its
// content's SHA-256, is left as it is.
//
// name must stay inside dir: an empty name, an absolute path, a path
// with ".." that leaves dir, or a symbolic link that points outside dir
// is refused with a *PathError (ErrUnsafePath), before anything is
// written. The write goes through an os.Root, so a link swapped in after
// the check cannot redirect it. A document that fails Validate, or names
// a local media file that is neither written with it nor already there,
// is refused with a *ValidationError. Each file is written whole or not
// at all; a crash between files can leave media files without their
// document.
func WriteFile(dir, name string, t *Trajectory) (string, error) {
	d, err := PrepareFile(dir, name, t)
	if err != nil {
		return "", err
	}
	return d.Write()
}

// PreparedFile is a trajectory encoded and checked for one place, ready to
// be written there: PrepareFile does every check WriteFile does, and
// Write does the writing, so that a caller writing several documents can
// check them all before writing any. A PreparedFile is not safe for
// concurrent use.
type PreparedFile struct {
	dir, name string
	data      []byte
	media     []MediaFile // paths relative to dir
	created   []string    // files Write created, for Undo
}

// PrepareFile encodes and validates t for the file name inside dir and
// checks that it and its media files stay inside dir, as WriteFile does,
// without writing anything. dir need not exist yet.
func PrepareFile(dir, name string, t *Trajectory) (*PreparedFile, error) {
	if !filepath.IsLocal(name) {
		return nil, &PathError{Dir: dir, Name: name, Reason: "not a relative path inside the directory"}
	}
	data, err := Encode(t)
	if err != nil {
		return nil, fmt.Errorf("atif: encode: %w", err)
	}
	d := &PreparedFile{dir: dir, name: name, data: append(data, '\n')}
	pending, err := d.addMedia(t.MediaFiles())
	if err != nil {
		return nil, err
	}
	if err := d.check(data, pending); err != nil {
		return nil, err
	}
	return d, nil
}

// addMedia takes the media files written with the document, at paths
// relative to the document, and returns those paths.
func (d *PreparedFile) addMedia(files []MediaFile) (map[string]bool, error) {
	pending := map[string]bool{}
	for _, m := range files {
		rel := filepath.Join(filepath.Dir(d.name), filepath.FromSlash(m.Path))
		if !filepath.IsLocal(rel) {
			return nil, &PathError{Dir: d.dir, Name: rel, Reason: "a media file outside the directory"}
		}
		pending[m.Path] = true
		d.media = append(d.media, MediaFile{Path: rel, Data: m.Data})
	}
	return pending, nil
}

// check validates the document data, whose media files at the pending
// paths are to be written with it, and, when the directory already
// exists, that the files stay inside it.
func (d *PreparedFile) check(data []byte, pending map[string]bool) error {
	v := &validator{checkMedia: true, mediaDir: filepath.Join(d.dir, filepath.Dir(d.name)), pending: pending}
	v.document(data)
	if v.problems != nil {
		return &ValidationError{Problems: v.problems}
	}
	if _, err := os.Stat(d.dir); err != nil {
		return nil
	}
	return d.checkPaths()
}

// checkPaths checks that the document and its media files stay inside
// the directory.
func (d *PreparedFile) checkPaths() error {
	for _, target := range append([]string{d.name}, d.mediaPaths()...) {
		if err := staysInside(d.dir, target); err != nil {
			return err
		}
	}
	return nil
}

// Path is where the document is written.
func (d *PreparedFile) Path() string { return filepath.Join(d.dir, d.name) }

func (d *PreparedFile) mediaPaths() []string {
	paths := make([]string, len(d.media))
	for i, m := range d.media {
		paths[i] = m.Path
	}
	return paths
}

// Write writes the document's media files, then the document, and
// returns the document's path. The paths are checked again first, so a
// link put in place since PrepareFile cannot lead a write out of the
// directory.
func (d *PreparedFile) Write() (string, error) {
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return "", fmt.Errorf("atif: %w", err)
	}
	if err := d.checkPaths(); err != nil {
		return "", err
	}
	for _, m := range d.media {
		if err := d.writeMedia(m); err != nil {
			return "", fmt.Errorf("atif: %w", err)
		}
	}
	if err := d.writeNew(d.name, d.data); err != nil {
		return "", fmt.Errorf("atif: %w", err)
	}
	return d.Path(), nil
}

// writeMedia writes a media file unless a file of its name, which says
// what it holds, is already there.
func (d *PreparedFile) writeMedia(m MediaFile) error {
	full := filepath.Join(d.dir, m.Path)
	if _, err := os.Lstat(full); err == nil {
		return nil
	}
	folder := filepath.Dir(m.Path)
	if _, err := os.Lstat(filepath.Join(d.dir, folder)); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Join(d.dir, folder), 0o700); err != nil {
			return err
		}
		d.created = append(d.created, folder) // removed by Undo once its files are
	}
	if err := staysInside(d.dir, m.Path); err != nil {
		return err
	}
	return d.writeNew(m.Path, m.Data)
}

// writeNew writes the file name, remembering it for Undo when it did not
// exist before.
func (d *PreparedFile) writeNew(name string, data []byte) error {
	_, err := os.Lstat(filepath.Join(d.dir, name))
	existed := err == nil
	if err := writeIn(d.dir, name, data); err != nil {
		return err
	}
	if !existed {
		d.created = append(d.created, name)
	}
	return nil
}

// Undo removes the files (and the media folder) Write created, for a
// caller that writes several documents all or nothing. Files Write
// replaced keep their new content; a folder that holds other files by
// then stays.
func (d *PreparedFile) Undo() error {
	var errs []error
	for i := len(d.created) - 1; i >= 0; i-- {
		path := filepath.Join(d.dir, d.created[i])
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			if info, statErr := os.Lstat(path); statErr == nil && info.IsDir() {
				continue // another document's media is in it
			}
			errs = append(errs, err)
		}
	}
	d.created = nil
	return errors.Join(errs...)
}

// writeIn writes data to the file name inside dir, through a temporary
// file renamed over it inside an os.Root, so that no link can lead the
// write out of dir and no link, device or pipe at the name is written
// through; the file is left with mode 0600 even when it existed before.
func writeIn(dir, name string, data []byte) error {
	return outfile.Write(dir, name, outfile.Bytes(data))
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
	if leadsOutside(base, dir, filepath.Join(dir, name)) {
		return &PathError{Dir: dir, Name: name, Reason: "a symbolic link leads outside the directory"}
	}
	return nil
}

// leadsOutside reports whether target, a path under dir, leads outside
// base, dir with its links resolved, through its deepest existing part.
func leadsOutside(base, dir, target string) bool {
	for {
		if resolved, err := filepath.EvalSymlinks(target); err == nil {
			return !within(base, resolved)
		}
		// A link whose target is missing would create that target.
		if escapingLink(target) {
			return true
		}
		parent := filepath.Dir(target)
		if parent == target || len(parent) < len(filepath.Clean(dir)) {
			return false
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

// CheckPath reports a *PathError when a file written under the name
// inside dir would land outside dir: name is not a local path, or a
// symbolic link on the way, or the file itself, leads out. A dir that
// does not exist yet holds no links, so only the name is checked.
func CheckPath(dir, name string) error {
	if !filepath.IsLocal(name) {
		return &PathError{Dir: dir, Name: name, Reason: "not a relative path inside the directory"}
	}
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	return staysInside(dir, name)
}
