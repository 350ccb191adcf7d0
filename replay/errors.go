package replay

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrDiverged is what every *[DivergenceError] unwraps to.
	ErrDiverged = errors.New("replay: the run left the recording")
	// ErrEmpty says a trajectory holds no model call to replay.
	ErrEmpty = errors.New("replay: the recording holds no model call")

	errNoModel = errors.New("replay: record mode needs Options.Live, the model to record")
)

// DivergenceError reports the first point where a replayed run left its
// recording. The cassette keeps the first one: every later call returns
// it again, and [Cassette.Err] returns it. It unwraps to [ErrDiverged].
//
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type DivergenceError struct {
	// Path is the cassette's file, or "" for records given in memory.
	Path string
	// RunID is the recorded run, and Agent its agent.
	RunID string
	Agent string
	// ModelCall is the model call of the run, counting from 1, or 0 when
	// the divergence is at a tool call; -1 when no recorded run matches.
	ModelCall int
	// Seq is the recorded seq of that model call's request (or of the
	// tool call's start), where the recording should be opened.
	Seq uint64
	// Reason says what differs.
	Reason string
	// Message is the index of the first differing input message, counting
	// from 0 and leaving out Lookout's injected messages, or -1.
	Message int
	// ToolCallIndex is the recorded call index of the tool call whose
	// result or arguments differ, or -1.
	ToolCallIndex int
	// Diff shows the first differing message, or the tools, line by
	// line: "- " recorded, "+ " live.
	Diff string
}

// Error writes the report: where the run left the recording, the diff,
// and the command that opens the recording.
func (e *DivergenceError) Error() string {
	var b strings.Builder
	b.WriteString("replay: the run left the recording")
	e.writeRun(&b)
	e.writePlace(&b)
	b.WriteString(": " + e.Reason)
	if e.Diff != "" {
		b.WriteString("\n" + strings.TrimSuffix(e.Diff, "\n"))
	}
	if cmd := e.Inspect(); cmd != "" {
		b.WriteString("\nOpen the recording there: " + cmd)
	}
	return b.String()
}

// writeRun writes the run and agent that left the recording, those of
// them known.
func (e *DivergenceError) writeRun(b *strings.Builder) {
	if e.RunID == "" {
		if e.Agent != "" {
			fmt.Fprintf(b, " in agent %s", e.Agent)
		}
		return
	}
	fmt.Fprintf(b, " in run %s", e.RunID)
	if e.Agent != "" {
		fmt.Fprintf(b, " (agent %s)", e.Agent)
	}
}

// writePlace writes the model call, or the seq in the run, where the run
// left the recording, when it is known.
func (e *DivergenceError) writePlace(b *strings.Builder) {
	if e.ModelCall > 0 {
		fmt.Fprintf(b, " at model call %d (seq %d)", e.ModelCall, e.Seq)
	} else if e.RunID != "" {
		fmt.Fprintf(b, " at seq %d", e.Seq)
	}
}

// Inspect returns the lookout command that opens the recording where the
// run left it (its run, and the records around the seq), or "" when the
// cassette was not read from a file.
func (e *DivergenceError) Inspect() string {
	if e.Path == "" {
		return ""
	}
	path := e.Path
	if strings.ContainsAny(path, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		path = "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
	}
	if e.RunID == "" {
		return "lookout inspect " + path
	}
	return fmt.Sprintf("lookout inspect --run %s --seq %d %s", e.RunID, e.Seq, path)
}

// Unwrap returns ErrDiverged.
func (e *DivergenceError) Unwrap() error { return ErrDiverged }
