package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lookout-go/lookout/otelexport"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
	"github.com/lookout-go/lookout/recorder/messages"
)

var exportCmd = &command{
	name:    "export",
	args:    "FILE",
	summary: "convert a trajectory to ATIF JSON, OpenAI-style messages JSONL or OTLP JSON",
	details: `Export converts the runs in FILE, or in the files of a directory FILE read
together, to another format:

  atif    one ATIF (Agent Trajectory Interchange Format) document per root
          run, with the runs it started embedded as subagent trajectories.
          Each document is validated before it is written.
  openai  one OpenAI-style chat conversation per run, as JSON Lines with one
          message per line.
  otlp    OpenTelemetry spans in the OTLP JSON encoding, following the GenAI
          semantic conventions: one export request per root run, holding
          its runs, model calls and tool calls, one request per line, as
          the OpenTelemetry Collector's OTLP JSON file receiver reads it.
          Ids derive from run ids, so exporting twice gives the same bytes.
  otlp-metrics
          the GenAI client metrics (token usage and operation duration) of
          the model calls, in the same encoding: one export request per
          root run that made a model call. An OTLP file holds one signal,
          so metrics go to a file of their own.

Without -o, the one root run in FILE (or the run named by --run) is
written to standard output; for otlp and otlp-metrics, every root run is.
With -o DIR, every root run (or the one named) is written to its own file
in DIR, and for openai each run under it too, since a conversation holds
one run: <run id>.trajectory.json for ATIF, <run id>.messages.jsonl for
OpenAI messages, <run id>.otlp.json for OTLP, <run id>.metrics.otlp.json
for OTLP metrics. Characters other than letters, digits, '.', '-' and '_'
become '_', and names longer than 200 bytes are cut and end in a hash of
the run id; when two runs would share a name (ignoring case), the later
one gets a suffix -2, -3, … and a warning names both. Files are created
with mode 0600 (DIR with 0700 if missing), names never leave DIR, the
input file is never overwritten, a run's file that is there and not a
regular file (a symbolic link, a FIFO, a device) is refused, and the paths
written are printed.`,
	examples: `  # the one root run of a file as an ATIF document
  lookout export --format atif trajectory.jsonl > run.trajectory.json

  # every root run into out/, one file each
  lookout export --format atif -o out trajectory.jsonl

  # one child run's conversation as OpenAI-style messages
  lookout export --format openai --run run-2 trajectory.jsonl

  # every run as OpenTelemetry spans, for the Collector's file receiver
  lookout export --format otlp trajectory.jsonl > traces.otlp.json

  # and their GenAI client metrics, to a file of their own
  lookout export --format otlp-metrics trajectory.jsonl > metrics.otlp.json`,
	minArgs: 1,
	maxArgs: 1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		var (
			format = fs.String("format", "", "output format: atif, openai, otlp or otlp-metrics (required)")
			dir    = fs.String("o", "", "write one file per run into `DIR` instead of standard output")
			runID  = fs.String("run", "", "export only the run with this `ID`")
			repair = fs.Bool("repair", false, "import an ATIF FILE that breaks the ATIF rules as well as possible instead of refusing it")
			agent  atif.Options
			conv   = fs.String("conversation", "", "export the conversation with this `ID` (atif only): all its turns in one document")
			chain  = fs.Bool("chain", false, "with --conversation and -o DIR, one document per turn, linked by continued_trajectory_ref")
			media  = fs.String("media", "", "with --format atif and -o DIR, `MODE` copy writes the local image and audio files the records name, found next to FILE, with each document; skip leaves them out (default: as recorded; a run whose files are missing is not written)")
		)
		fs.StringVar(&agent.AgentName, "agent-name", "", "write `NAME` as the ATIF agent.name (default: the recorded agent name)")
		fs.StringVar(&agent.AgentVersion, "agent-version", "", "write `VERSION` as the ATIF agent.version (default: the recorded version)")
		fs.StringVar(&agent.ModelName, "agent-model", "", "write `MODEL` as the ATIF agent.model_name (default: the recorded model)")
		return func(_ context.Context, e *env, files []string) int {
			if *format != "atif" && *format != "openai" && !isOTLP(*format) {
				return e.badUsage("--format must be atif, openai, otlp or otlp-metrics, not %q", *format)
			}
			if *media != "" && *media != "copy" && *media != "skip" {
				return e.badUsage("--media must be copy or skip, not %q", *media)
			}
			x := &exporter{env: e, format: *format, dir: *dir, runID: *runID, repair: *repair, agent: agent, media: *media}
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
	repair bool // import an invalid ATIF input as well as possible
	// agent holds the agent's name, version and model given on the
	// command line.
	agent atif.Options
	// media is --media: "copy", "skip" or "" (as recorded), and
	// mediaFrom the folder of the input, where local media are found.
	media, mediaFrom string
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
	x.mediaFrom = path
	if !isDir(path) {
		x.mediaFrom = filepath.Dir(path)
	}
	inputs, records, err := loadPath(x.env, path, x.repair)
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
	if x.format == "openai" && x.dir != "" {
		runs = withSubRuns(records, runs)
	}
	return runs, x.checkRuns(path, runs)
}

// withSubRuns returns the runs and, after each, the runs under it, in
// the order their records first appear: an OpenAI conversation holds one
// run, so a query's sub-agent runs get files of their own.
func withSubRuns(records []recorder.Record, runs []string) []string {
	var all []string
	for _, id := range runs {
		in := treeOf(records, id)
		all = append(all, id)
		delete(in, id)
		for _, r := range records {
			if in[r.RunID] {
				delete(in, r.RunID)
				all = append(all, r.RunID)
			}
		}
	}
	return all
}

// checkRuns reports an export of no runs, or of several root runs to
// standard output in a format that holds one.
func (x *exporter) checkRuns(path string, runs []string) error {
	switch {
	case len(runs) == 0:
		return fmt.Errorf("export %s: no runs to export", path)
	case x.dir == "" && len(runs) > 1 && !isOTLP(x.format):
		return fmt.Errorf("export %s: %d root runs (%s); pick one with --run or write them all with -o DIR",
			path, len(runs), strings.Join(runs, ", "))
	}
	return nil
}

// toStdout writes the runs to standard output.
func (x *exporter) toStdout(path string, records []recorder.Record, runs []string) int {
	if isOTLP(x.format) && x.runID == "" {
		return x.allOTLP(path, records)
	}
	for _, id := range runs {
		data, err := x.encode(records, id)
		if err != nil {
			return x.fail("export %s: run %s: %v", path, id, err)
		}
		if code := x.writeStdout(data); code != exitOK {
			return code
		}
	}
	return exitOK
}

// allOTLP writes every root run as OTLP to standard output, a line each,
// in one pass over the records rather than one per run.
func (x *exporter) allOTLP(path string, records []recorder.Record) int {
	var buf bytes.Buffer
	if err := writeOTLP(x.format, &buf, records, nil); err != nil {
		return x.fail("export %s: %v", path, err)
	}
	return x.writeStdout(buf.Bytes())
}

// toDir writes each run to its file in the output directory and prints
// the file's path, warning when a run's file is named apart because
// another run has its name. Every file is made and checked before any is
// written (see prepareAll), and a failed write removes the files already
// written, so the export writes all or nothing; but for the runs whose
// local media files are missing, which are left out and reported, the
// others written.
func (x *exporter) toDir(path string, records []recorder.Record, runs []string, names runNames) int {
	for _, id := range runs {
		if other, ok := names.takenBy[id]; ok {
			x.warn("export %s: run %s is written as %s, since run %s has its file name", path, id, names.byRun[id], other)
		}
	}
	files, missing, err := x.prepareAll(records, runs, names)
	if err != nil {
		return x.fail("export %s: %v; nothing was written", path, err)
	}
	written, err := writeAll(files)
	if err != nil {
		return x.fail("export %s: %v; nothing was written", path, err)
	}
	for _, w := range written {
		fmt.Fprintln(x.stdout, w)
	}
	for _, m := range missing {
		x.warn("export %s: %v; not written (--media copy or skip writes it)", path, m)
	}
	if len(missing) > 0 {
		return exitProblems
	}
	return exitOK
}

// encode returns the run in the output format, ATIF validated.
func (x *exporter) encode(records []recorder.Record, id string) ([]byte, error) {
	switch x.format {
	case "otlp", "otlp-metrics":
		var buf bytes.Buffer
		err := writeOTLP(x.format, &buf, records, &otelexport.Options{RunID: id})
		return buf.Bytes(), err
	case "openai":
		return encodeMessages(records, id)
	}
	return x.encodeATIF(records, id)
}

// isOTLP reports whether format is one of the OTLP formats, which write
// every root run to standard output.
func isOTLP(format string) bool { return format == "otlp" || format == "otlp-metrics" }

// writeOTLP writes the traces, or for otlp-metrics the metrics, of the
// records as OTLP JSON lines.
func writeOTLP(format string, w io.Writer, records []recorder.Record, opts *otelexport.Options) error {
	if format == "otlp-metrics" {
		return otelexport.WriteMetricsJSON(w, records, opts)
	}
	return otelexport.WriteJSON(w, records, opts)
}

// encodeMessages returns run id as OpenAI-style messages, a line each.
func encodeMessages(records []recorder.Record, id string) ([]byte, error) {
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

// encodeATIF returns run id as a validated ATIF document and a newline.
func (x *exporter) encodeATIF(records []recorder.Record, id string) ([]byte, error) {
	t, err := atif.FromRecords(records, x.atifOptions(id))
	if err != nil {
		return nil, err
	}
	if err := needsNoMedia(t); err != nil {
		return nil, err
	}
	data, err := encodeValid(t)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// extension is what the file names of the output format end in.
func (x *exporter) extension() string {
	switch x.format {
	case "atif":
		return ".trajectory.json"
	case "otlp":
		return ".otlp.json"
	case "otlp-metrics":
		return ".metrics.otlp.json"
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

// maxNameBytes bounds a file name made from a run id, leaving room for a
// suffix and the extension within the 255 bytes file systems allow.
const maxNameBytes = 200

// fileName turns a run id into a file name: letters, digits, '.', '-' and
// '_' are kept, anything else becomes '_', and a name of dots only is
// prefixed with "run". A name longer than maxNameBytes is cut and ends in
// '-' and 16 hex digits of the id's SHA-256, so that ids that differ only
// past the cut keep different names.
func fileName(id string) string {
	name := strings.Map(fileRune, id)
	if strings.Trim(name, ".") == "" {
		name = "run" + name
	}
	if len(name) > maxNameBytes {
		sum := sha256.Sum256([]byte(id))
		name = name[:maxNameBytes-17] + "-" + hex.EncodeToString(sum[:8])
	}
	return name
}

// fileRune is r where a file name made from a run id keeps it, else '_'.
func fileRune(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
		return r
	}
	return '_'
}

func hasRun(records []recorder.Record, id string) bool {
	for i := range records {
		if records[i].RunID == id {
			return true
		}
	}
	return false
}
