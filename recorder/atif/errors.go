package atif

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInvalid reports a document that breaks the ATIF rules. Validation
	// failures are returned as *ValidationError, which unwraps to it.
	ErrInvalid = errors.New("atif: invalid trajectory")

	// ErrMalformed reports bytes that cannot be decoded into a Trajectory at
	// all: broken JSON, or a JSON type that does not fit the Go type.
	ErrMalformed = errors.New("atif: malformed trajectory")

	// ErrUnsafePath reports a file name or directory that would make a write
	// land outside its target directory. Returned as *PathError.
	ErrUnsafePath = errors.New("atif: path escapes the target directory")

	// ErrNoRootRun reports records that hold no run without a parent, so
	// there is nothing to export as the root trajectory.
	ErrNoRootRun = errors.New("atif: no root run in records")

	// ErrAmbiguousRoot reports records holding several runs without a
	// parent when no run was picked. Returned as *AmbiguousRootError.
	ErrAmbiguousRoot = errors.New("atif: several root runs in records")
)

// ValidationError carries every problem found in one document. It unwraps
// to ErrInvalid, so errors.Is(err, atif.ErrInvalid) holds. Like the other
// error types here it is immutable once returned and safe for concurrent
// use.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	switch len(e.Problems) {
	case 0:
		return ErrInvalid.Error()
	case 1:
		return "atif: invalid trajectory: " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "atif: invalid trajectory: %d problems", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("; ")
		b.WriteString(p.String())
	}
	return b.String()
}

func (e *ValidationError) Unwrap() error { return ErrInvalid }

// PathError names a write target that was refused because it escapes its
// directory. It unwraps to ErrUnsafePath.
type PathError struct {
	Dir    string // the target directory
	Name   string // the name that was asked for
	Reason string // why it was refused
}

func (e *PathError) Error() string {
	return fmt.Sprintf("atif: refusing to write %q under %q: %s", e.Name, e.Dir, e.Reason)
}

func (e *PathError) Unwrap() error { return ErrUnsafePath }

// AmbiguousRootError lists the root runs found when the caller did not
// pick one. It unwraps to ErrAmbiguousRoot.
type AmbiguousRootError struct {
	RunIDs []string
}

func (e *AmbiguousRootError) Error() string {
	return fmt.Sprintf("atif: %d root runs in records (%s); pick one with Options.RunID",
		len(e.RunIDs), strings.Join(e.RunIDs, ", "))
}

func (e *AmbiguousRootError) Unwrap() error { return ErrAmbiguousRoot }
