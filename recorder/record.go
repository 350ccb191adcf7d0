package recorder

import (
	"encoding/json"
	"time"
)

// SchemaVersion is the record schema version this package writes, and the
// newest it reads. Records without a schema_version read as version 0 and
// are accepted; records with a larger version are rejected with a
// *VersionError.
const SchemaVersion = 1

// Record is one entry of a run's trajectory.
//
// On disk a record is one JSON object:
//
//	{"schema_version":1,"seq":0,"run_id":"…","parent_run_id":"","depth":0,
//	 "recorded_at":"2025-01-02T03:04:05.000000006Z","kind":"tool_ended","payload":{…}}
//
// The payload is nested under "payload" and its shape depends on "kind".
//
// A Record is a plain value and is not safe for concurrent mutation; once
// written to a sink it is treated as immutable. The zero Record has no
// payload and encodes with an empty kind, which readers reject.
type Record struct {
	SchemaVersion int       // version the record was written with; 0 means "written before versioning"
	Seq           uint64    // position in its run, dense from 0
	RunID         string    // the run the record belongs to
	ParentRunID   string    // the run that started this one, or ""
	Depth         int       // 0 for a top-level run, parent depth + 1 for a child
	RecordedAt    time.Time // when the recorder stamped it (encoded in UTC)
	Payload       Payload   // kind-specific body; see Kind
}

// Kind returns the kind of the record's payload, or "" when it has none.
func (r *Record) Kind() Kind {
	if r.Payload == nil {
		return ""
	}
	return r.Payload.Kind()
}

// MarshalJSON encodes the record as one JSON object with no trailing
// newline. It is AppendJSON into a fresh slice.
func (r Record) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(nil)
}

// AppendJSON appends the record's JSON encoding to b and returns the
// extended slice. The encoding has no trailing newline and does not escape
// HTML characters, so markdown and XML-ish tags stay readable. It fails
// with an error wrapping ErrEncode when the payload cannot be encoded or
// RecordedAt falls outside the years 0 to 9999, which RFC 3339 cannot
// write; b is then returned unchanged.
func (r *Record) AppendJSON(b []byte) ([]byte, error) {
	var e encoder
	return e.appendRecord(b, r)
}

// wireRecord is the decoding shape of a record.
type wireRecord struct {
	SchemaVersion int             `json:"schema_version"`
	Seq           uint64          `json:"seq"`
	RunID         string          `json:"run_id"`
	ParentRunID   string          `json:"parent_run_id"`
	Depth         int             `json:"depth"`
	RecordedAt    time.Time       `json:"recorded_at"`
	Kind          Kind            `json:"kind"`
	Payload       json.RawMessage `json:"payload"`
}

// UnmarshalJSON decodes one record. A missing schema_version reads as 0. A
// version newer than SchemaVersion fails with a *VersionError; a missing
// kind or a payload that does not fit its kind fails with an error wrapping
// ErrMalformed. An unknown kind decodes as *Unknown holding the payload
// bytes unchanged.
func (r *Record) UnmarshalJSON(data []byte) error {
	return decodeRecord(data, r)
}
