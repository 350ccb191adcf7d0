package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
)

var exportCmd = &command{
	name:    "export",
	args:    "FILE",
	summary: "convert a trajectory to ATIF JSON or OpenAI-style messages JSONL",
	details: `Export converts the runs in FILE, or in the files of a directory FILE read
together, to another format:

  atif    one ATIF (Agent Trajectory Interchange Format) document per root
          run, with the runs it started embedded as subagent trajectories.
          Each document is validated before it is written.
  openai  one OpenAI-style chat conversation per run, as JSON Lines with one
          message per line.

Without -o, the one root run in FILE (or the run named by --run) is written
to standard output. With -o DIR, every root run (or the one named) is
written to its own file in DIR: <run id>.trajectory.json for ATIF,
<run id>.messages.jsonl for OpenAI messages. Characters other than
letters, digits, '.', '-' and '_' become '_', and names longer than 200
bytes are cut and end in a hash of the run id; when two runs would share a
name (ignoring case), the later one gets a suffix -2, -3, … and a warning
names both. Files are created with mode 0600 (DIR with 0700 if missing),
names never leave DIR, the input file is never overwritten, and the paths
written are printed.`,
	examples: `  # the one root run of a file as an ATIF document
  lookout export --format atif trajectory.jsonl > run.trajectory.json

  # every root run into out/, one file each
  lookout export --format atif -o out trajectory.jsonl

  # one child run's conversation as OpenAI-style messages
  lookout export --format openai --run run-2 trajectory.jsonl`,
	minArgs: 1,
	maxArgs: 1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		var (
			format = fs.String("format", "", "output format: atif or openai (required)")
			dir    = fs.String("o", "", "write one file per run into `DIR` instead of standard output")
			runID  = fs.String("run", "", "export only the run with this `ID`")
			agent  atif.Options
			conv   = fs.String("conversation", "", "export the conversation with this `ID` (atif only): all its turns in one document")
			chain  = fs.Bool("chain", false, "with --conversation and -o DIR, one document per turn, linked by continued_trajectory_ref")
		)
		fs.StringVar(&agent.AgentName, "agent-name", "", "write `NAME` as the ATIF agent.name (default: the recorded agent name)")
		fs.StringVar(&agent.AgentVersion, "agent-version", "", "write `VERSION` as the ATIF agent.version (default: the recorded version)")
		fs.StringVar(&agent.ModelName, "agent-model", "", "write `MODEL` as the ATIF agent.model_name (default: the recorded model)")
		return func(_ context.Context, e *env, files []string) int {
			if *format != "atif" && *format != "openai" {
				return e.badUsage("--format must be atif or openai, not %q", *format)
			}
			x := &exporter{env: e, format: *format, dir: *dir, runID: *runID, agent: agent}
			if *conv != "" || *chain {
				return x.exportConversation(files[0], *conv, *chain)
			}
			return x.export(files[0])
		}
	},
}

type exporter struct {
	*env
	format string
	dir    string
	runID  string
	// agent holds the agent's name, version and model given on the
	// command line.
	agent atif.Options
}

// atifOptions are the options of the ATIF export of run id.
func (x *exporter) atifOptions(id string) *atif.Options {
	o := x.agent
	o.RunID = id
	return &o
}

// export exports the runs of path, a file or a directory whose files are
// read together.
func (x *exporter) export(path string) int {
	inputs, records, err := loadPath(x.env, path)
	if err != nil {
		return x.failErr(err)
	}
	runs, err := x.runs(path, records)
	if err != nil {
		return x.fail("%v", err)
	}
	if x.dir == "" {
		return x.toStdout(path, records, runs)
	}
	names := fileNames(runs)
	if id, ok := x.overwritesInput(inputs, runs, names); ok {
		return x.fail("export %s: run %s: writing %s would overwrite the input file; choose another -o DIR",
			path, id, filepath.Join(x.dir, names.byRun[id]+x.extension()))
	}
	return x.toDir(path, records, runs, names)
}

// runs returns the runs to export from the file at path: the one --run
// names, or else every root run, of which standard output takes only one.
func (x *exporter) runs(path string, records []recorder.Record) ([]string, error) {
	runs := atif.RootRuns(records)
	if x.runID != "" {
		if !hasRun(records, x.runID) {
			return nil, fmt.Errorf("export %s: no run %q in the file", path, x.runID)
		}
		runs = []string{x.runID}
	}
	switch {
	case len(runs) == 0:
		return nil, fmt.Errorf("export %s: no runs to export", path)
	case x.dir == "" && len(runs) > 1:
		return nil, fmt.Errorf("export %s: %d root runs (%s); pick one with --run or write them all with -o DIR",
			path, len(runs), strings.Join(runs, ", "))
	}
	return runs, nil
}

// toStdout writes the runs to standard output.
func (x *exporter) toStdout(path string, records []recorder.Record, runs []string) int {
	for _, id := range runs {
		data, err := x.encode(records, id)
		if err != nil {
			return x.fail("export %s: run %s: %v", path, id, err)
		}
		if _, err := x.stdout.Write(data); err != nil {
			return x.fail("write: %v", err)
		}
	}
	return exitOK
}

// toDir writes each run to its file in the output directory and prints
// the file's path, warning when a run's file is named apart because
// another run has its name.
func (x *exporter) toDir(path string, records []recorder.Record, runs []string, names runNames) int {
	for _, id := range runs {
		if other, ok := names.takenBy[id]; ok {
			x.warn("export %s: run %s is written as %s, since run %s has its file name", path, id, names.byRun[id], other)
		}
		written, err := x.write(records, id, names.byRun[id])
		if err != nil {
			return x.fail("export %s: run %s: %v", path, id, err)
		}
		fmt.Fprintln(x.stdout, written)
	}
	return exitOK
}

// encode returns the run in the output format, ATIF validated.
func (x *exporter) encode(records []recorder.Record, id string) ([]byte, error) {
	if x.format == "openai" {
		msgs, err := messages.FromRecords(records, &messages.Options{RunID: id})
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := messages.Write(&buf, msgs); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	t, err := atif.FromRecords(records, x.atifOptions(id))
	if err != nil {
		return nil, err
	}
	data, err := atif.Encode(t)
	if err != nil {
		return nil, err
	}
	if problems := atif.Validate(data); problems != nil {
		return nil, &atif.ValidationError{Problems: problems}
	}
	return append(data, '\n'), nil
}

// write puts one run's output in x.dir, in the file named after name, and
// returns the path written. ATIF goes through atif.WriteFile, which
// validates and checks the path.
func (x *exporter) write(records []recorder.Record, id, name string) (string, error) {
	if x.format == "atif" {
		t, err := atif.FromRecords(records, x.atifOptions(id))
		if err != nil {
			return "", err
		}
		return atif.WriteFile(x.dir, name+x.extension(), t)
	}
	data, err := x.encode(records, id)
	if err != nil {
		return "", err
	}
	return writeInside(x.dir, name+x.extension(), data)
}

// extension is what the file names of the output format end in.
func (x *exporter) extension() string {
	if x.format == "atif" {
		return ".trajectory.json"
	}
	return ".messages.jsonl"
}

// overwritesInput returns the run whose file in x.dir is one of the input
// files, which the export would otherwise replace: an ATIF file exported
// into its own folder has the name its run's export gets.
func (x *exporter) overwritesInput(inputs []string, runs []string, names runNames) (string, bool) {
	for _, input := range inputs {
		if id, ok := x.overwrites(input, runs, names); ok {
			return id, true
		}
	}
	return "", false
}

// overwrites returns the run whose file in x.dir is input.
func (x *exporter) overwrites(input string, runs []string, names runNames) (string, bool) {
	if input == stdinName {
		return "", false
	}
	in, err := os.Stat(input)
	if err != nil {
		return "", false
	}
	for _, id := range runs {
		out, err := os.Stat(filepath.Join(x.dir, names.byRun[id]+x.extension()))
		if err == nil && os.SameFile(in, out) {
			return id, true
		}
	}
	return "", false
}

// runNames are the file names of the runs one export writes.
type runNames struct {
	byRun   map[string]string // run id to file name, without its extension
	takenBy map[string]string // run id to the earlier run whose name it could not have
}

// fileNames gives each run a file name of its own: fileName of its id, or,
// when an earlier run of runs already has that name (ignoring case, for
// file systems that do), that name with the first free suffix -2, -3, ….
func fileNames(runs []string) runNames {
	names := runNames{byRun: map[string]string{}, takenBy: map[string]string{}}
	owner := map[string]string{} // lower-case name to the run that has it
	for _, id := range runs {
		base := fileName(id)
		name := base
		for n := 2; owner[strings.ToLower(name)] != ""; n++ {
			name = base + "-" + strconv.Itoa(n)
		}
		if name != base {
			names.takenBy[id] = owner[strings.ToLower(base)]
		}
		owner[strings.ToLower(name)] = id
		names.byRun[id] = name
	}
	return names
}

// writeInside writes data to the file name inside dir, created 0600 (dir
// 0700 if missing), through an os.Root so that the write cannot leave dir.
func writeInside(dir, name string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	return filepath.Join(dir, name), f.Close()
}

// maxNameBytes bounds a file name made from a run id, leaving room for a
// suffix and the extension within the 255 bytes file systems allow.
const maxNameBytes = 200

// fileName turns a run id into a file name: letters, digits, '.', '-' and
// '_' are kept, anything else becomes '_', and a name of dots only is
// prefixed with "run". A name longer than maxNameBytes is cut and ends in
// '-' and 16 hex digits of the id's SHA-256, so that ids that differ only
// past the cut keep different names.
func fileName(id string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, id)
	if strings.Trim(name, ".") == "" {
		name = "run" + name
	}
	if len(name) > maxNameBytes {
		sum := sha256.Sum256([]byte(id))
		name = name[:maxNameBytes-17] + "-" + hex.EncodeToString(sum[:8])
	}
	return name
}

func hasRun(records []recorder.Record, id string) bool {
	for i := range records {
		if records[i].RunID == id {
			return true
		}
	}
	return false
}
