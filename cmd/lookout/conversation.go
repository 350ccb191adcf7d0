package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// exportConversation exports the conversation id of path's runs as ATIF:
// one document with every turn, to standard output or to
// DIR/<conversation id>.trajectory.json, or, with chain, one document per
// turn in DIR, linked by continued_trajectory_ref. Every document is
// validated before any is written.
func (x *exporter) exportConversation(path, id string, chain bool) int {
	switch {
	case x.format != "atif":
		return x.badUsage("--conversation exports ATIF only, not %q", x.format)
	case id == "":
		return x.badUsage("--chain needs --conversation")
	case chain && x.dir == "":
		return x.badUsage("--chain writes several files: give -o DIR")
	case x.runID != "":
		return x.badUsage("--conversation and --run pick different things; give one")
	}
	inputs, records, err := loadPath(x.env, path, x.repair)
	if err != nil {
		return x.failErr(err)
	}
	opts := x.agent
	opts.Conversation = id
	name := fileName(id) + x.extension()
	var docs []atif.Document
	if chain {
		docs, err = atif.ConversationChain(records, &opts, name)
	} else {
		var t *atif.Trajectory
		t, err = atif.FromConversation(records, &opts)
		docs = []atif.Document{{Name: name, Trajectory: t}}
	}
	if err != nil {
		return x.fail("export %s: conversation %s: %v", path, id, err)
	}
	encoded := make([][]byte, len(docs))
	for i, d := range docs {
		data, err := atif.Encode(d.Trajectory)
		if err == nil {
			if problems := atif.Validate(data); problems != nil {
				err = &atif.ValidationError{Problems: problems}
			}
		}
		if err != nil {
			return x.fail("export %s: conversation %s: %s: %v", path, id, d.Name, err)
		}
		encoded[i] = append(data, '\n')
	}
	if x.dir == "" {
		if _, err := x.stdout.Write(encoded[0]); err != nil {
			return x.fail("write: %v", err)
		}
		return exitOK
	}
	for _, in := range inputs {
		for _, d := range docs {
			if sameFile(in, filepath.Join(x.dir, d.Name)) {
				return x.fail("export %s: conversation %s: writing %s would overwrite the input file; choose another -o DIR", path, id, filepath.Join(x.dir, d.Name))
			}
		}
	}
	for _, d := range docs {
		written, err := atif.WriteFile(x.dir, d.Name, d.Trajectory)
		if err != nil {
			return x.fail("export %s: conversation %s: %v", path, id, err)
		}
		fmt.Fprintln(x.stdout, written)
	}
	return exitOK
}

// sameFile reports whether input, an input file, is the file at out.
func sameFile(input, out string) bool {
	if input == stdinName {
		return false
	}
	in, err := os.Stat(input)
	if err != nil {
		return false
	}
	o, err := os.Stat(out)
	return err == nil && os.SameFile(in, o)
}

// loadPath reads the records of path, a file or a directory whose files
// are read together, and returns the files read.
func loadPath(e *env, path string, repair bool) ([]string, []recorder.Record, error) {
	inputs, err := expand([]string{path})
	if err != nil {
		return nil, nil, err
	}
	records, err := loadAllWith(e, inputs, repair)
	return inputs, records, err
}
