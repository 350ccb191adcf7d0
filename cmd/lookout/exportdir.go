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
// inside the directory. Nothing is written. An ATIF document whose only
// problems are local media files that are missing fails its run alone:
// it is left out of files and its error is in missing.
func (x *exporter) prepareAll(records []recorder.Record, runs []string, names runNames) (files []*outputFile, missing []error, err error) {
	files = make([]*outputFile, 0, len(runs))
	for _, id := range runs {
		f := &outputFile{run: id, dir: x.dir, name: names.byRun[id] + x.extension()}
		if x.format == "atif" {
			err = x.prepareATIF(f, records, id)
		} else if f.data, err = x.encode(records, id); err == nil {
			err = atif.CheckPath(x.dir, f.name)
		}
		switch {
		case err != nil && onlyMissingMedia(err):
			missing = append(missing, fmt.Errorf("run %s: %w", id, err))
		case err != nil:
			return nil, nil, fmt.Errorf("run %s: %w", id, err)
		default:
			files = append(files, f)
		}
	}
	return files, missing, nil
}

// prepareATIF makes and checks the ATIF document of run id as f, its
// local media copied or left out as --media says.
func (x *exporter) prepareATIF(f *outputFile, records []recorder.Record, id string) error {
	t, err := atif.FromRecords(records, x.atifOptions(id))
	if err != nil {
		return err
	}
	if x.media != "" {
		for _, p := range t.LocalMedia(x.mediaFrom, x.media == "copy") {
			x.warn("run %s: media file %s left out", id, p)
		}
	}
	f.doc, err = atif.PrepareFile(x.dir, f.name, t)
	return err
}

// onlyMissingMedia reports whether err is a document's validation that
// found no problem but local media files that are missing.
func onlyMissingMedia(err error) bool {
	var invalid *atif.ValidationError
	if !errors.As(err, &invalid) || len(invalid.Problems) == 0 {
		return false
	}
	for _, p := range invalid.Problems {
		if p.Rule != atif.RuleMediaMissing {
			return false
		}
	}
	return true
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
	return path, outfile.Write(f.dir, f.name, outfile.Bytes(f.data))
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
