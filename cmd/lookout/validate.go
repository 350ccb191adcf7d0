package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/lookout-go/lookout/internal/jsonl"
	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/atif"
)

// maxProblemsShown bounds the problems printed per file; the count stays
// exact.
const maxProblemsShown = 100

var validateCmd = &command{
	name:    "validate",
	args:    "FILE...",
	summary: "check a trajectory (JSON Lines records or ATIF) and name every problem",
	details: `Validate checks each FILE and prints one line per file: valid, or the number
of problems followed by each problem on its own line.

A file is read as ATIF when its first JSON value is an object whose
schema_version starts with "ATIF-" (or that has steps and no kind); it is
then checked against the ATIF rules and problems are named by JSON path,
such as steps[3].observation.results[0].source_call_id. Local image and
audio files it refers to must exist next to it.

One JSON document of another kind, such as a gemini-cli session or an
OpenHands event log, is refused as not a trajectory, with its likely
origin, rather than read line by line.

Any other file is read as JSON Lines of Lookout records. Problems are named
by line: a line that does not decode, a schema_version newer than this
build reads, a last line torn by a crash, an empty run_id, a run whose seq
repeats, does not start at 0 or has gaps (lost records), and a run whose
records disagree about its parent or depth.

The exit status is 1 when any file is invalid, and 3 when any cannot be
read.`,
	examples: `  # check one file
  lookout validate trajectory.jsonl

  # check every trajectory under runs/, compressed or not
  lookout validate runs/

  # the invalid files, with jq
  lookout validate --json runs/ | jq -r '.files[] | select(.valid | not) | .file'`,
	minArgs: 1,
	maxArgs: -1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) int {
		asJSON := fs.Bool("json", false, "print the verdicts as one JSON object")
		return func(_ context.Context, e *env, args []string) int {
			files, err := e.expand(args)
			if err != nil {
				return e.failErr(err)
			}
			out := validateOutput{Valid: true, Files: []verdict{}}
			status := exitOK
			for i, path := range files {
				v, code := check(e, path)
				e.progress.step("validating files", i+1, len(files))
				status = max(status, code)
				out.Valid = out.Valid && v.Valid
				out.Files = append(out.Files, v)
				if !*asJSON {
					v.writeText(e.stdout)
				}
			}
			if *asJSON {
				if err := writeJSON(e.stdout, out); err != nil {
					return e.fail("write: %v", err)
				}
			}
			return status
		}
	},
}

// validateOutput is the JSON shape of validate --json. Fields may be
// added; none is renamed or removed.
type validateOutput struct {
	Valid bool      `json:"valid"` // every file was read and is valid
	Files []verdict `json:"files"` // one per file, in the order read
}

// verdict is what validation made of one file.
type verdict struct {
	File string `json:"file"`
	// Format is "jsonl" or "atif", and empty when the file could not be
	// read.
	Format string `json:"format,omitempty"`
	Valid  bool   `json:"valid"`
	// Description is what the file holds, as the text output says it:
	// "trajectory (15 records, 2 runs)".
	Description string `json:"description,omitempty"`
	// Problems are the problems found, the first maxProblemsKept of them;
	// empty when the file is valid.
	Problems []string `json:"problems"`
	// ProblemCount counts every problem found, those Problems leaves out
	// included.
	ProblemCount int `json:"problem_count"`
	// Error says why the file could not be read; the file is then not
	// valid and has no problems.
	Error string `json:"error,omitempty"`
}

// check validates the file at path and returns its verdict and exit
// status. A file that cannot be read is reported on stderr.
func check(e *env, path string) (verdict, int) {
	v := verdict{File: path, Problems: []string{}}
	in, err := e.open(path)
	if err != nil {
		err = fmt.Errorf("read %s: %w", path, err)
		v.Error = err.Error()
		return v, e.failErr(err)
	}
	defer in.close()
	var problems []string
	var total int
	if in.foreign != "" {
		err = fmt.Errorf("read %s: %w", path, foreignError(in.foreign))
		v.Error = err.Error()
		return v, e.failErr(err)
	}
	if in.format == formatATIF {
		v.Format = "atif"
		v.Description, problems, err = validateATIF(in)
		total = len(problems)
		problems = problems[:min(total, maxProblemsKept)]
	} else {
		v.Format = "jsonl"
		v.Description, problems, total, err = validateJSONL(in.r)
	}
	if err != nil {
		err = fmt.Errorf("read %s: %w", path, err)
		v.Format, v.Description, v.Error = "", "", err.Error()
		return v, e.failErr(err)
	}
	v.Valid = total == 0
	if !v.Valid {
		v.Problems, v.ProblemCount = problems, total
		return v, exitProblems
	}
	return v, exitOK
}

// writeText writes the verdict of a file that was read: valid, or the
// problems, at most maxProblemsShown of them.
func (v *verdict) writeText(w io.Writer) {
	if v.Error != "" {
		return
	}
	if v.Valid {
		fmt.Fprintf(w, "%s: valid %s\n", v.File, v.Description)
		return
	}
	fmt.Fprintf(w, "%s: invalid %s: %s\n", v.File, v.Description, count(v.ProblemCount, "problem", "problems"))
	for i, p := range v.Problems {
		if i == maxProblemsShown {
			break
		}
		fmt.Fprintf(w, "  %s\n", p)
	}
	if shown := min(len(v.Problems), maxProblemsShown); v.ProblemCount > shown {
		fmt.Fprintf(w, "  … and %d more\n", v.ProblemCount-shown)
	}
}

func validateATIF(in *input) (string, []string, error) {
	data, err := io.ReadAll(in.r)
	if err != nil {
		return "", nil, err
	}
	found := atif.ValidateIn(in.mediaDir(), data, nil)
	if len(found) > 0 {
		problems := make([]string, len(found))
		for i, p := range found {
			problems[i] = p.String()
		}
		return "ATIF trajectory", problems, nil
	}
	t, err := atif.Decode(data)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("ATIF trajectory (%s, %s, %s)",
		versionOf(t), count(len(t.Steps), "step", "steps"), count(len(t.SubagentTrajectories), "subagent trajectory", "subagent trajectories")), nil, nil
}

func versionOf(t *atif.Trajectory) string {
	if t.SchemaVersion == "" {
		return "no schema_version"
	}
	return t.SchemaVersion
}

// runCheck is what validation remembers of one run.
type runCheck struct {
	id        string
	firstLine int
	parent    string
	depth     int
	seqLines  map[uint64]int // seq to the line that holds it
}

// validateJSONL checks the records r holds and returns what the file
// holds, the first maxProblemsKept problems and how many there are.
func validateJSONL(r io.Reader) (string, []string, int, error) {
	c := jsonlCheck{runs: map[string]*runCheck{}}
	if err := c.readAll(newLineReader(r)); err != nil {
		return "", nil, 0, err
	}
	c.finish()
	return fmt.Sprintf("trajectory (%s, %s)", count(c.records, "record", "records"), count(len(c.runs), "run", "runs")), c.problems, c.found, nil
}

// readAll checks every line that lines reads. A line too long to read is
// a problem of the file and the check goes on; another read error ends
// it.
func (c *jsonlCheck) readAll(lines *lineReader) error {
	for {
		text, n, terminated, err := lines.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, recorder.ErrLineTooLong) {
			c.add("line %d: %v", n, err)
			continue
		}
		if err != nil {
			return err
		}
		c.line(text, n, terminated)
	}
}

// finish adds the problems that only the whole file shows: the seq
// problems of each run, and that there are no records at all.
func (c *jsonlCheck) finish() {
	for _, rc := range c.order {
		for _, p := range seqProblems(rc) {
			c.add("%s", p)
		}
	}
	if c.records == 0 && c.found == 0 {
		c.add("no records")
	}
}

// jsonlCheck gathers what validateJSONL finds: the problems, each run by
// id and in the order first seen, and how many records decoded.
type jsonlCheck struct {
	problems []string // the first maxProblemsKept
	found    int      // every problem
	runs     map[string]*runCheck
	order    []*runCheck
	records  int
}

// maxProblemsKept bounds the problems a file's check keeps, so that a file
// of garbage is checked in bounded memory; the rest are only counted.
const maxProblemsKept = 1000

func (c *jsonlCheck) add(format string, args ...any) {
	c.found++
	if len(c.problems) < maxProblemsKept {
		c.problems = append(c.problems, fmt.Sprintf(format, args...))
	}
}

// line checks line n, text. A line that does not decode is a problem, and
// an unterminated one that is not even JSON is a torn last line.
func (c *jsonlCheck) line(text []byte, n int, terminated bool) {
	if len(bytes.TrimSpace(text)) == 0 {
		return
	}
	var rec recorder.Record
	if err := rec.UnmarshalJSON(text); err != nil {
		if !terminated && !json.Valid(text) {
			c.add("line %d: torn last line: %d bytes without a newline that are not a whole record (a write cut short)", n, len(text))
		} else {
			c.add("line %d: %v", n, err)
		}
		return
	}
	c.records++
	c.record(rec, n)
}

// record checks a record, on line n, against the earlier records of its
// run: the same parent and depth, and a seq of its own.
func (c *jsonlCheck) record(rec recorder.Record, n int) {
	if rec.RunID == "" {
		c.add("line %d: empty run_id", n)
	}
	rc, ok := c.runs[rec.RunID]
	if !ok {
		rc = &runCheck{id: rec.RunID, firstLine: n, parent: rec.ParentRunID, depth: rec.Depth, seqLines: map[uint64]int{}}
		c.runs[rec.RunID] = rc
		c.order = append(c.order, rc)
	}
	if rec.ParentRunID != rc.parent {
		c.add("line %d: run %s: parent_run_id %q differs from %q on line %d", n, rec.RunID, rec.ParentRunID, rc.parent, rc.firstLine)
	}
	if rec.Depth != rc.depth {
		c.add("line %d: run %s: depth %d differs from %d on line %d", n, rec.RunID, rec.Depth, rc.depth, rc.firstLine)
	}
	if prev, dup := rc.seqLines[rec.Seq]; dup {
		c.add("line %d: run %s: seq %d repeats line %d", n, rec.RunID, rec.Seq, prev)
	} else {
		rc.seqLines[rec.Seq] = n
	}
}

// lineReader splits JSON Lines as recorder.Reader does, but tells the
// caller each line's number, which validation needs for good lines too.
// Lines longer than recorder.MaxLineBytes are skipped and reported.
type lineReader struct {
	lines *jsonl.Lines
	line  int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{lines: jsonl.New(r, recorder.MaxLineBytes)}
}

// next returns the next line without its newline (and without a "\r"
// before it), its 1-based number, and whether a newline ended it. At the
// end it returns io.EOF; a line too long returns an error wrapping
// recorder.ErrLineTooLong.
func (l *lineReader) next() (text []byte, n int, terminated bool, err error) {
	text, _, terminated, tooLong, err := l.lines.Next()
	if err := endOf(text, tooLong, err); err != nil {
		return nil, l.line, false, err
	}
	l.line++
	if tooLong {
		return nil, l.line, terminated, fmt.Errorf("%w (more than %d bytes)", recorder.ErrLineTooLong, recorder.MaxLineBytes)
	}
	return bytes.TrimSuffix(text, []byte{'\r'}), l.line, terminated, nil
}

// endOf returns the error that ends reading, given what Next returned:
// err when it is not io.EOF, io.EOF when no line is left, and nil while
// there is one.
func endOf(text []byte, tooLong bool, err error) error {
	if err == nil || !errors.Is(err, io.EOF) {
		return err
	}
	if len(text) == 0 && !tooLong {
		return io.EOF
	}
	return nil
}

// seqProblems checks that a run's seqs are 0, 1, 2, … with no gaps.
func seqProblems(rc *runCheck) []string {
	seqs := slices.Sorted(maps.Keys(rc.seqLines))
	var out []string
	if len(seqs) > 0 && seqs[0] != 0 {
		out = append(out, fmt.Sprintf("run %s: seq starts at %d, not 0 (line %d)", rc.id, seqs[0], rc.seqLines[seqs[0]]))
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i]-seqs[i-1] > 1 {
			out = append(out, missingSeqs(rc.id, seqs[i-1], seqs[i]))
		}
	}
	return out
}

// missingSeqs describes the seqs of run id missing between prev and next.
func missingSeqs(id string, prev, next uint64) string {
	if gap := next - prev; gap != 2 {
		return fmt.Sprintf("run %s: seq %d to %d are missing (%d lost records)", id, prev+1, next-1, gap-1)
	}
	return fmt.Sprintf("run %s: seq %d is missing (a lost record)", id, prev+1)
}

// count writes n with the noun for one or for many.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
