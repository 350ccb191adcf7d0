package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
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
func (r *Record) AppendJSON(b []byte) (out []byte, err error) {
	start := len(b)
	defer func() {
		// A payload's MarshalJSON (for example inside a message's Extra
		// map) may panic; encoding must not take the caller down.
		if p := recover(); p != nil {
			out, err = b[:start], fmt.Errorf("%w: panic while encoding: %v", ErrEncode, p)
		}
	}()
	kind := r.Kind()
	if kind == "" || IsNilPayload(r.Payload) {
		return b, fmt.Errorf("%w: record has no payload", ErrEncode)
	}
	b, err = r.appendHead(b, kind)
	if err == nil {
		b, err = appendBody(b, kind, r.Payload)
	}
	if err != nil {
		return b[:start], err
	}
	return append(b, '}'), nil
}

// appendHead appends the record's opening brace and every field before
// the payload.
func (r *Record) appendHead(b []byte, kind Kind) ([]byte, error) {
	b = append(b, `{"schema_version":`...)
	b = strconv.AppendInt(b, int64(r.SchemaVersion), 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"run_id":`...)
	b = appendString(b, r.RunID)
	b = append(b, `,"parent_run_id":`...)
	b = appendString(b, r.ParentRunID)
	b = append(b, `,"depth":`...)
	b = strconv.AppendInt(b, int64(r.Depth), 10)
	b = append(b, `,"recorded_at":"`...)
	at := len(b)
	b = r.RecordedAt.UTC().AppendFormat(b, time.RFC3339Nano)
	if b[at+4] != '-' {
		// RFC 3339 has four-digit years only; no reader could read
		// this one back.
		return b, fmt.Errorf("%w: recorded_at %v has a year outside 0-9999", ErrEncode, r.RecordedAt)
	}
	b = append(b, `","kind":`...)
	return appendString(b, string(kind)), nil
}

// appendBody appends the record's payload field, if it has one.
func appendBody(b []byte, kind Kind, p Payload) ([]byte, error) {
	if u, ok := p.(*Unknown); ok {
		return appendUnknownBody(b, kind, u)
	}
	b = append(b, `,"payload":`...)
	b, err := appendPayload(b, p)
	if err != nil {
		return b, fmt.Errorf("%w: %s payload: %w", ErrEncode, kind, err)
	}
	return b, nil
}

// appendUnknownBody appends the payload bytes of a record of an unknown
// kind on one line, or nothing when it has none.
func appendUnknownBody(b []byte, kind Kind, u *Unknown) ([]byte, error) {
	if len(u.Body) == 0 {
		return b, nil
	}
	b = append(b, `,"payload":`...)
	if bytes.IndexByte(u.Body, '\n') < 0 {
		if !json.Valid(u.Body) {
			return b, fmt.Errorf("%w: unknown %q payload is not valid JSON", ErrEncode, kind)
		}
		return append(b, u.Body...), nil
	}
	// Indented JSON, built in code rather than read from a line: its
	// newlines would end the record's line early.
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, u.Body); err != nil {
		return b, fmt.Errorf("%w: unknown %q payload is not valid JSON", ErrEncode, kind)
	}
	return buf.Bytes(), nil
}

// payloadEncoder reuses an encoder and its buffer across records.
type payloadEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var payloadEncoders = sync.Pool{New: func() any {
	e := new(payloadEncoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

func appendPayload(b []byte, p Payload) ([]byte, error) {
	if out, ok := appendFlatPayload(b, p); ok {
		return out, nil
	}
	e := payloadEncoders.Get().(*payloadEncoder)
	defer payloadEncoders.Put(e)
	e.buf.Reset()
	if err := e.enc.Encode(p); err != nil {
		return b, err
	}
	// Encode ends with a newline that the record must not carry.
	return append(b, bytes.TrimSuffix(e.buf.Bytes(), []byte{'\n'})...), nil
}

// appendFlatPayload encodes the payloads that make up most of a trajectory
// (tool calls and budget events) without reflection, byte for byte as
// encoding/json would with their struct tags. It reports false for other
// payloads.
func appendFlatPayload(b []byte, p Payload) ([]byte, bool) {
	switch t := p.(type) {
	case *ToolStarted:
		return appendToolStarted(b, t), true
	case *ToolEnded:
		if t.Parts != nil || t.Extra != nil {
			return b, false
		}
		return appendToolEnded(b, t), true
	case *BudgetRecord:
		return appendBudget(b, t), true
	}
	return b, false
}

// appendToolStarted encodes a tool_started payload.
func appendToolStarted(b []byte, t *ToolStarted) []byte {
	b = appendCallStart(b, t.CallID, t.Name)
	b = appendNonEmptyField(b, `,"arguments":`, t.Arguments)
	b = appendNonZeroField(b, `,"arguments_bytes":`, int64(t.ArgumentsBytes))
	b = appendTrueField(b, `,"arguments_truncated":true`, t.ArgumentsTruncated)
	b = appendIntField(b, `,"call_index":`, int64(t.CallIndex))
	b = appendNonEmptyField(b, `,"mcp_server":`, t.MCPServer)
	b = appendNonEmptyField(b, `,"mcp_tool":`, t.MCPTool)
	return append(b, '}')
}

// appendToolEnded encodes a tool_ended payload that has no parts and no
// extra.
func appendToolEnded(b []byte, t *ToolEnded) []byte {
	b = appendCallStart(b, t.CallID, t.Name)
	b = appendNonEmptyField(b, `,"result":`, t.Result)
	b = appendNonZeroField(b, `,"result_bytes":`, int64(t.ResultBytes))
	b = appendTrueField(b, `,"truncated":true`, t.Truncated)
	b = appendTrueField(b, `,"is_error":true`, t.IsError)
	b = appendNonEmptyField(b, `,"error":`, t.Error)
	b = appendNonZeroField(b, `,"duration_ns":`, int64(t.Duration))
	b = appendIntField(b, `,"call_index":`, int64(t.CallIndex))
	return append(b, '}')
}

// appendBudget encodes a budget payload.
func appendBudget(b []byte, t *BudgetRecord) []byte {
	b = appendStringField(b, `{"event":`, string(t.Event))
	b = appendStringField(b, `,"resource":`, t.Resource)
	b = appendIntField(b, `,"amount":`, t.Amount)
	b = appendIntField(b, `,"used":`, t.Used)
	b = appendIntField(b, `,"limit":`, t.Limit)
	return append(b, '}')
}

// appendCallStart opens a tool call's object with its call_id, left out
// when empty, and its name.
func appendCallStart(b []byte, callID, name string) []byte {
	b = append(b, '{')
	if callID != "" {
		b = appendStringField(b, `"call_id":`, callID)
		b = append(b, ',')
	}
	return appendStringField(b, `"name":`, name)
}

// appendStringField appends key, given with its quotes and colon, and v
// as a JSON string.
func appendStringField(b []byte, key, v string) []byte {
	return appendString(append(b, key...), v)
}

// appendIntField appends key, given with its quotes and colon, and v.
func appendIntField(b []byte, key string, v int64) []byte {
	return strconv.AppendInt(append(b, key...), v, 10)
}

// appendNonEmptyField is appendStringField for a field left out when
// empty.
func appendNonEmptyField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendStringField(b, key, v)
}

// appendNonZeroField is appendIntField for a field left out when zero.
func appendNonZeroField(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return appendIntField(b, key, v)
}

// appendTrueField appends field, given whole, when set is true: a boolean
// left out when false.
func appendTrueField(b []byte, field string, set bool) []byte {
	if !set {
		return b
	}
	return append(b, field...)
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

// asciiEscapes holds, for each ASCII byte, how a JSON string writes it, or
// "" for a byte written as is.
var asciiEscapes = func() (t [utf8.RuneSelf]string) {
	const hexDigits = "0123456789abcdef"
	for c := range byte(0x20) {
		t[c] = `\u00` + string(hexDigits[c>>4]) + string(hexDigits[c&0xf])
	}
	t['"'], t['\\'] = `\"`, `\\`
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = `\b`, `\f`, `\n`, `\r`, `\t`
	return t
}()

// appendString appends s as a JSON string. It escapes what JSON requires
// plus U+2028 and U+2029 (as encoding/json does), replaces invalid UTF-8
// with U+FFFD, and leaves HTML characters alone.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && asciiEscapes[c] == "" {
			i++
			continue
		}
		esc, size := escapeAt(s, i)
		i += size
		if esc != "" {
			b = append(append(b, s[start:i-size]...), esc...)
			start = i
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// escapeAt returns how a JSON string writes the character at s[i], or ""
// when it is written as is, and the character's width in s.
func escapeAt(s string, i int) (string, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiEscapes[c], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return `\ufffd`, 1
	case r == '\u2028':
		return `\u2028`, size
	case r == '\u2029':
		return `\u2029`, size
	}
	return "", size
}
