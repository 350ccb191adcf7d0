package messages

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrNoRootRun reports records with no run to export: none without a
	// parent, or none with the id that was asked for.
	ErrNoRootRun = errors.New("messages: no such run in records")

	// ErrAmbiguousRoot reports records holding several runs without a
	// parent when no run was picked. Returned as *AmbiguousRootError.
	ErrAmbiguousRoot = errors.New("messages: several root runs in records")

	// ErrMalformed reports a JSONL line that is not a chat message.
	// Returned as *LineError.
	ErrMalformed = errors.New("messages: malformed message")
)

// AmbiguousRootError lists the root runs found when the caller did not
// pick one. It unwraps to ErrAmbiguousRoot. Like LineError it is
// immutable once returned and safe for concurrent use.
type AmbiguousRootError struct {
	RunIDs []string
}

func (e *AmbiguousRootError) Error() string {
	return fmt.Sprintf("messages: %d root runs in records (%s); pick one with Options.RunID",
		len(e.RunIDs), strings.Join(e.RunIDs, ", "))
}

func (e *AmbiguousRootError) Unwrap() error { return ErrAmbiguousRoot }

// LineError reports the 1-based line of a JSONL stream that could not be
// read as a message. It unwraps to ErrMalformed and the decoding error.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("messages: line %d: %v", e.Line, e.Err)
}

func (e *LineError) Unwrap() []error { return []error{ErrMalformed, e.Err} }
