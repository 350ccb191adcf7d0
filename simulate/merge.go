package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MergeOptions adjusts Merge. SkipFailed leaves out the runs that ended
// with an error, listing them in MergeReport.Failed only.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type MergeOptions struct {
	SkipFailed bool
}

// MergeReport says what Merge took and what it left. Runs counts the runs
// whose lines were written, Lines the lines; Failed lists the folders of
// runs that ended with an error (taken unless skipped), Unfinished those
// with no marker: runs in progress, or cut short by a killed batch.
// Folders whose name starts with a dot, StaleDir among them, are no run's.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type MergeReport struct {
	Runs       int      `json:"runs"`
	Lines      int      `json:"lines"`
	Failed     []string `json:"failed,omitempty"`
	Unfinished []string `json:"unfinished,omitempty"`
}

// Merge writes to w the conversation.jsonl of every finished run in the
// batch output folders dirs (the OutDirs of one batch's shards), in job
// order, and reports on the rest. A run is finished once its marker is
// written: DoneFile when it ended without error, FailedFile when it ended
// with one; a failed run's last line carries its error in
// metadata.end, and a run that failed before its first turn has one line
// saying so. Folders with no marker are listed as unfinished and left out.
//
// The output does not depend on how often the batch was interrupted and
// resumed, nor on how it was sharded. Two folders holding the same job
// index make an ErrInvalidBatch, as do folders that are not batch
// outputs.
func Merge(w io.Writer, opts MergeOptions, dirs ...string) (*MergeReport, error) {
	if len(dirs) == 0 {
		return nil, errNoDirs
	}
	runs, rep, err := finishedRuns(dirs, opts)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		raw, err := os.ReadFile(filepath.Join(r.dir, ConversationFile))
		if err != nil {
			return rep, fmt.Errorf("simulate: merge %s: %w", r.dir, err)
		}
		if _, err := w.Write(raw); err != nil {
			return rep, err
		}
		rep.Runs++
		rep.Lines += bytes.Count(raw, []byte{'\n'})
	}
	return rep, nil
}

type finishedRun struct {
	dir    string
	marker Marker
}

// finishedRuns lists the finished runs under dirs in job order, with a
// report of the runs it leaves out.
func finishedRuns(dirs []string, opts MergeOptions) ([]finishedRun, *MergeReport, error) {
	c := runCollector{opts: opts, rep: &MergeReport{}, seen: map[int]string{}}
	for _, out := range dirs {
		if err := c.collect(out); err != nil {
			return nil, nil, err
		}
	}
	sort.Slice(c.runs, func(i, j int) bool { return c.runs[i].marker.Index < c.runs[j].marker.Index })
	return c.runs, c.rep, nil
}

// runCollector gathers the finished runs of a batch's output folders,
// reporting those it leaves out in rep; seen maps each job index found to
// its run folder.
type runCollector struct {
	opts MergeOptions
	rep  *MergeReport
	runs []finishedRun
	seen map[int]string
}

// collect adds the run folders in the output folder out.
func (c *runCollector) collect(out string) error {
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("simulate: merge: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := c.add(filepath.Join(out, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// add adds the run folder dir: to the report's unfinished runs when it has
// no end marker, to its failed runs when it failed (and to the runs too,
// unless failed runs are skipped), else to the runs. A job found twice is
// an error.
func (c *runCollector) add(dir string) error {
	m, failed, ok := readEndMarker(dir)
	if !ok {
		c.rep.Unfinished = append(c.rep.Unfinished, dir)
		return nil
	}
	if failed {
		c.rep.Failed = append(c.rep.Failed, dir)
		if c.opts.SkipFailed {
			return nil
		}
	}
	if prev, dup := c.seen[m.Index]; dup {
		return fmt.Errorf("%w: job %d is in both %s and %s", ErrInvalidBatch, m.Index, prev, dir)
	}
	c.seen[m.Index] = dir
	c.runs = append(c.runs, finishedRun{dir: dir, marker: m})
	return nil
}

// readEndMarker reads the marker of the run folder dir: its DoneFile, else
// its FailedFile, with failed true. ok is false when it has neither.
func readEndMarker(dir string) (m Marker, failed, ok bool) {
	if m, ok := readMarker(dir, DoneFile); ok {
		return m, false, true
	}
	m, ok = readMarker(dir, FailedFile)
	return m, ok, ok
}

// errNoDirs is the error of a merge given no folders.
var errNoDirs = errors.New("simulate: merge: no batch folders")
