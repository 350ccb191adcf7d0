package recorder

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Typed errors in this package unwrap to one of them, so
// callers test with errors.Is and read detail with errors.As.
var (
	// ErrNewerVersion reports a record written with a schema version newer
	// than this package supports. See VersionError.
	ErrNewerVersion = errors.New("recorder: record schema version is newer than supported")

	// ErrMalformed reports a record whose JSON does not have the record
	// shape: not an object, a missing kind, or a payload that does not fit
	// its kind.
	ErrMalformed = errors.New("recorder: malformed record")

	// ErrEncode reports a record that could not be encoded as JSON.
	ErrEncode = errors.New("recorder: cannot encode record")

	// ErrSinkFailed reports that a sink did not accept a record. See
	// SinkError.
	ErrSinkFailed = errors.New("recorder: sink failed")

	// ErrSinkPanicked reports a sink whose Write panicked. The recorder
	// recovers the panic and treats it as a failed write.
	ErrSinkPanicked = errors.New("recorder: sink panicked")

	// ErrRedactorPanicked reports a Redactor that panicked. The record is
	// dropped rather than written unredacted.
	ErrRedactorPanicked = errors.New("recorder: redactor panicked")

	// ErrClockPanicked reports an Options.Clock that panicked. The record
	// it was to stamp is dropped, as for a failed write.
	ErrClockPanicked = errors.New("recorder: clock panicked")

	// ErrClosed is returned by a sink's Write and Flush after Close, and
	// by Recorder.Flush after Recorder.Close; a record emitted after
	// Recorder.Close is lost with a *SinkError wrapping it.
	ErrClosed = errors.New("recorder: sink closed")

	// ErrQueueFull reports a record lost because the Recorder's queue was
	// full (see Options.Block); the *SinkError of the record wraps it.
	ErrQueueFull = errors.New("recorder: sink queue full, record dropped")

	// ErrLineTooLong reports a JSONL line longer than the reader accepts.
	ErrLineTooLong = errors.New("recorder: line too long")
)

// VersionError reports a record whose schema version is newer than
// SchemaVersion. It unwraps to ErrNewerVersion.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type VersionError struct {
	Seen      int // the record's schema_version
	Supported int // the newest version this package reads (SchemaVersion)
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("recorder: record schema version %d is newer than supported version %d; upgrade the reader", e.Seen, e.Supported)
}

// Unwrap returns ErrNewerVersion.
func (e *VersionError) Unwrap() error { return ErrNewerVersion }

// SinkError reports a record that did not reach the sink: the sink failed
// (or panicked), a Redactor panicked, or the record held JSON nested
// deeper than MaxBodyDepth (ErrEncode). It unwraps to both ErrSinkFailed
// and the underlying error, so errors.Is holds for either.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type SinkError struct {
	RunID string
	Seq   uint64
	Kind  Kind
	Err   error // the sink's error, or one wrapping ErrRedactorPanicked, ErrClockPanicked or ErrEncode
}

func (e *SinkError) Error() string {
	return fmt.Sprintf("recorder: sink failed on run %s seq %d (%s): %v", e.RunID, e.Seq, e.Kind, e.Err)
}

// Unwrap returns ErrSinkFailed and the sink's error.
func (e *SinkError) Unwrap() []error { return []error{ErrSinkFailed, e.Err} }

// LineError reports a JSONL line the reader could not decode. Line is
// 1-based; Offset is the byte offset where the line starts. It unwraps to
// the decoding error, which matches ErrMalformed, ErrNewerVersion or
// ErrLineTooLong.
// It is plain data: safe to read from many goroutines, not to modify
// concurrently.
type LineError struct {
	Line   int
	Offset int64
	Err    error
}

// Error names the line and what is wrong with it, said once: the
// package's prefix of a decoding error of its own is left out.
func (e *LineError) Error() string {
	msg := fmt.Sprint(e.Err)
	return fmt.Sprintf("recorder: line %d (offset %d): %s", e.Line, e.Offset, strings.TrimPrefix(msg, "recorder: "))
}

// Unwrap returns the decoding error.
func (e *LineError) Unwrap() error { return e.Err }
