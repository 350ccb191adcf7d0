package session

import (
	"errors"
	"fmt"
)

// ErrUnknownSlice is returned by [Store.Restore] when a snapshot names a
// slice the store has not opened.
var ErrUnknownSlice = errors.New("session: unknown slice")

// ErrNewerVersion is returned by [Store.Restore] when a snapshot was written
// by a newer version of Lookout than this one.
var ErrNewerVersion = errors.New("session: snapshot from a newer version")

// ErrCorruptSnapshot is returned by [Store.Restore] when the bytes are not a
// snapshot, or a slice's entries do not decode into its Go type.
var ErrCorruptSnapshot = errors.New("session: corrupt snapshot")

// SnapshotVersionError reports a snapshot whose schema version is newer than
// [SchemaVersion]. It unwraps to [ErrNewerVersion].
type SnapshotVersionError struct {
	Got       int // version found in the snapshot
	Supported int // newest version this package reads
}

func (e *SnapshotVersionError) Error() string {
	return fmt.Sprintf("session: snapshot schema version %d is newer than the supported version %d; upgrade Lookout to restore it", e.Got, e.Supported)
}

func (e *SnapshotVersionError) Unwrap() error { return ErrNewerVersion }

// SliceError reports a problem with one named slice of a snapshot. It
// unwraps to [ErrUnknownSlice] or [ErrCorruptSnapshot].
type SliceError struct {
	Name string
	Err  error
}

func (e *SliceError) Error() string {
	return fmt.Sprintf("session: slice %q: %v", e.Name, e.Err)
}

func (e *SliceError) Unwrap() error { return e.Err }
