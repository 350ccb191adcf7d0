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
	if err := x.conversationMisuse(id, chain); err != nil {
		return x.badUsage("%w", err)
	}
	inputs, records, err := loadPath(x.env, path, x.repair)
	if err != nil {
		return x.failErr(err)
	}
	docs, encoded, err := x.conversationDocs(records, id, chain)
	if err != nil {
		return x.fail("export %s: conversation %s: %v", path, id, err)
	}
	if x.dir == "" {
		return x.writeStdout(encoded[0])
	}
	if out, ok := x.overwrittenDoc(inputs, docs); ok {
		return x.fail("export %s: conversation %s: writing %s would overwrite the input file; choose another -o DIR", path, id, out)
	}
	return x.writeDocs(path, id, docs)
}

// conversationMisuse returns the usage error of the flags given with
// --conversation or --chain, or nil when they go together.
func (x *exporter) conversationMisuse(id string, chain bool) error {
	switch {
	case x.format != "atif":
		return fmt.Errorf("--conversation exports ATIF only, not %q", x.format)
	case id == "":
		return fmt.Errorf("--chain needs --conversation")
	case chain && x.dir == "":
		return fmt.Errorf("--chain writes several files: give -o DIR")
	case x.runID != "":
		return fmt.Errorf("--conversation and --run pick different things; give one")
	}
	return nil
}

// conversationDocs returns the ATIF documents of conversation id, one per
// turn with chain, else one holding every turn, and their validated
// encodings.
func (x *exporter) conversationDocs(records []recorder.Record, id string, chain bool) ([]atif.Document, [][]byte, error) {
	docs, err := x.conversation(records, id, chain)
	if err != nil {
		return nil, nil, err
	}
	encoded, err := encodeDocs(docs)
	return docs, encoded, err
}

// conversation returns the ATIF documents of conversation id: one per
// turn with chain, else one holding every turn.
func (x *exporter) conversation(records []recorder.Record, id string, chain bool) ([]atif.Document, error) {
	opts := x.agent
	opts.Conversation = id
	name := fileName(id) + x.extension()
	if chain {
		return atif.ConversationChain(records, &opts, name)
	}
	t, err := atif.FromConversation(records, &opts)
	return []atif.Document{{Name: name, Trajectory: t}}, err
}

// encodeDocs encodes and validates each document, a line each; the error
// names the document that failed.
func encodeDocs(docs []atif.Document) ([][]byte, error) {
	encoded := make([][]byte, len(docs))
	for i, d := range docs {
		data, err := encodeValid(d.Trajectory)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		encoded[i] = append(data, '\n')
	}
	return encoded, nil
}

// encodeValid encodes t as ATIF and validates the encoding.
func encodeValid(t *atif.Trajectory) ([]byte, error) {
	data, err := atif.Encode(t)
	if err != nil {
		return nil, err
	}
	if problems := atif.Validate(data); problems != nil {
		return nil, &atif.ValidationError{Problems: problems}
	}
	return data, nil
}

// writeStdout writes data to standard output.
func (x *exporter) writeStdout(data []byte) int {
	if _, err := x.stdout.Write(data); err != nil {
		return x.fail("write: %v", err)
	}
	return exitOK
}

// overwrittenDoc returns the path in x.dir of a document that would
// replace one of the input files.
func (x *exporter) overwrittenDoc(inputs []string, docs []atif.Document) (string, bool) {
	for _, in := range inputs {
		for _, d := range docs {
			if out := filepath.Join(x.dir, d.Name); sameFile(in, out) {
				return out, true
			}
		}
	}
	return "", false
}

// writeDocs writes each document to its file in x.dir and prints the
// paths written.
func (x *exporter) writeDocs(path, id string, docs []atif.Document) int {
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
	inputs, err := e.expand([]string{path})
	if err != nil {
		return nil, nil, err
	}
	records, err := loadAllWith(e, inputs, repair)
	return inputs, records, err
}
