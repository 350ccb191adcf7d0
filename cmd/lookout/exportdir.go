package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lookout-go/lookout/internal/outfile"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// outputFile is one file an export writes into its directory, made and
// checked, not yet written.
type outputFile struct {
	run  string
	doc  *atif.PreparedFile // an ATIF document, with its media
	dir  string             // otherwise: data goes to the file name in dir
	name string
	data []byte
	made bool // the file did not exist before this export wrote it
}

// prepareAll makes every run's file and checks it: ATIF documents are
// validated, media included, and every path, links resolved, must stay
// inside the directory. Nothing is written.
func (x *exporter) prepareAll(records []recorder.Record, runs []string, names runNames) ([]*outputFile, error) {
	files := make([]*outputFile, 0, len(runs))
	for _, id := range runs {
		f := &outputFile{run: id, dir: x.dir, name: names.byRun[id] + x.extension()}
		var err error
		if x.format == "atif" {
			var t *atif.Trajectory
			if t, err = atif.FromRecords(records, x.atifOptions(id)); err == nil {
				f.doc, err = atif.PrepareFile(x.dir, f.name, t)
			}
		} else if f.data, err = x.encode(records, id); err == nil {
			err = atif.CheckPath(x.dir, f.name)
		}
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// writeAll writes the files in order and returns their paths. When one
// fails, the files already written that did not exist before are removed.
func writeAll(files []*outputFile) ([]string, error) {
	written := make([]string, 0, len(files))
	for i, f := range files {
		path, err := f.write()
		if err != nil {
			return nil, errors.Join(fmt.Errorf("run %s: %w", f.run, err), undo(files[:i+1]))
		}
		written = append(written, path)
	}
	return written, nil
}

// write writes f and returns its path.
func (f *outputFile) write() (string, error) {
	path := filepath.Join(f.dir, f.name)
	if err := regularTarget(path); err != nil {
		return "", err
	}
	if f.doc != nil {
		return f.doc.Write()
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return "", err
	}
	if err := atif.CheckPath(f.dir, f.name); err != nil {
		return "", err
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		f.made = true
	}
	return writeInside(f.dir, f.name, f.data)
}

// undo removes the files an export made before it failed.
func undo(files []*outputFile) error {
	var errs []error
	for _, f := range files {
		switch {
		case f.doc != nil:
			errs = append(errs, f.doc.Undo())
		case f.made:
			if err := os.Remove(filepath.Join(f.dir, f.name)); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// needsNoMedia refuses a trajectory with media files to write next to it,
// which a document written to standard output has no folder for.
func needsNoMedia(t *atif.Trajectory) error {
	if n := len(t.MediaFiles()); n > 0 {
		return fmt.Errorf("the trajectory holds %s to write next to the document; export it with -o DIR", count(n, "media file", "media files"))
	}
	return nil
}

// writeInside writes data to the file name inside dir, created 0600 (dir
// 0700 if missing), through a temporary file renamed over it inside an
// os.Root, so that the write cannot leave dir nor go through what is at
// the name.
func writeInside(dir, name string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), outfile.Write(dir, name, outfile.Bytes(data))
}
