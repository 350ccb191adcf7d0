package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// decodeRecord decodes one record. The envelope is read by a small scanner
// that understands the shape this package writes; anything it does not
// expect (escapes in envelope strings, unknown fields, unusual numbers)
// falls back to encoding/json, which stays the reference.
func decodeRecord(data []byte, r *Record) error {
	var w wireRecord
	if !scanEnvelope(data, &w) {
		w = wireRecord{}
		if err := json.Unmarshal(data, &w); err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
	}
	return w.record(r, true)
}

// record turns the envelope into a Record, decoding the payload. With fast
// set, common payloads are tried without reflection first.
func (w *wireRecord) record(r *Record, fast bool) error {
	if w.SchemaVersion > SchemaVersion {
		return &VersionError{Seen: w.SchemaVersion, Supported: SchemaVersion}
	}
	if w.SchemaVersion < 0 {
		return fmt.Errorf("%w: negative schema_version %d", ErrMalformed, w.SchemaVersion)
	}
	if w.Kind == "" {
		return fmt.Errorf("%w: missing kind", ErrMalformed)
	}
	p := newPayload(w.Kind)
	if p == nil {
		if len(w.Payload) > 0 && !json.Valid(w.Payload) {
			return fmt.Errorf("%w: %s payload is not valid JSON", ErrMalformed, w.Kind)
		}
		p = &Unknown{Name: w.Kind, Body: append(json.RawMessage(nil), w.Payload...)}
	} else if len(w.Payload) > 0 && !bytes.Equal(w.Payload, []byte("null")) {
		if !fast || !decodeFlatPayload(w.Payload, p) {
			p = newPayload(w.Kind) // drop anything the fast path half-filled
			if err := json.Unmarshal(w.Payload, p); err != nil {
				return fmt.Errorf("%w: %s payload: %w", ErrMalformed, w.Kind, err)
			}
		}
	}
	*r = Record{
		SchemaVersion: w.SchemaVersion,
		Seq:           w.Seq,
		RunID:         w.RunID,
		ParentRunID:   w.ParentRunID,
		Depth:         w.Depth,
		RecordedAt:    w.RecordedAt,
		Payload:       p,
	}
	return nil
}

// scanEnvelope fills w from data when data is an object whose fields are
// all envelope fields with plain values. It reports false, leaving w in
// any state, when the slow path must decide. The payload is captured as a
// slice of data and validated later by whoever decodes it.
func scanEnvelope(data []byte, w *wireRecord) bool {
	s := scanner{data: data}
	for {
		key, done, ok := s.nextKey()
		if done {
			return ok
		}
		switch string(key) {
		case "schema_version":
			n, ok := s.int()
			if !ok || n > 1<<31 {
				return false
			}
			w.SchemaVersion = int(n)
		case "seq":
			n, ok := s.int()
			if !ok || n < 0 {
				return false
			}
			w.Seq = uint64(n)
		case "depth":
			n, ok := s.int()
			if !ok || n > 1<<31 {
				return false
			}
			w.Depth = int(n)
		case "run_id":
			v, ok := s.plainString()
			if !ok {
				return false
			}
			w.RunID = string(v)
		case "parent_run_id":
			v, ok := s.plainString()
			if !ok {
				return false
			}
			w.ParentRunID = string(v)
		case "kind":
			v, ok := s.plainString()
			if !ok {
				return false
			}
			w.Kind = Kind(v)
		case "recorded_at":
			start := s.i
			if _, ok := s.plainString(); !ok {
				return false
			}
			// time.Time's own decoder, for exactly encoding/json's rules.
			if err := w.RecordedAt.UnmarshalJSON(s.data[start:s.i]); err != nil {
				return false
			}
		case "payload":
			start := s.i
			if !s.skipValue(0) {
				return false
			}
			w.Payload = s.data[start:s.i] // copied later if kept
		default:
			return false
		}
	}
}

type scanner struct {
	data []byte
	i    int
	// inObject is set once nextKey has read an object's '{'.
	inObject bool
}

// nextKey reads up to the value of the next field of the object s is
// in, starting it at the first call, and returns the field's key, which
// must be a plain string. done is true when there is no field to read:
// at the object's end, when ok says whether data ends there too, or at
// anything unexpected, when ok is false.
func (s *scanner) nextKey() (key []byte, done, ok bool) {
	s.ws()
	if !s.inObject {
		s.inObject = true
		if !s.byte('{') {
			return nil, true, false
		}
		s.ws()
		if s.byte('}') {
			return nil, true, s.end()
		}
	} else {
		if s.byte('}') {
			return nil, true, s.end()
		}
		if !s.byte(',') {
			return nil, true, false
		}
		s.ws()
	}
	if key, ok = s.plainString(); !ok {
		return nil, true, false
	}
	s.ws()
	if !s.byte(':') {
		return nil, true, false
	}
	s.ws()
	return key, false, true
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) byte(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.data)
}

// plainString reads a string with no escapes, no control characters and
// valid UTF-8, returning its contents.
func (s *scanner) plainString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			v := s.data[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				return nil, false
			}
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	return nil, false
}

// int reads an integer in JSON's grammar (no fraction or exponent).
func (s *scanner) int() (int64, bool) {
	neg := s.byte('-')
	start := s.i
	var n int64
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		if n > (1<<62)/10 {
			return 0, false
		}
		n = n*10 + int64(s.data[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.data[start] == '0') {
		return 0, false
	}
	if s.i < len(s.data) {
		switch s.data[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// skipValue moves past one JSON value, checking only its structure; the
// payload decoder (or json.Valid for unknown kinds) checks the rest.
func (s *scanner) skipValue(depth int) bool {
	if depth > 1000 {
		return false
	}
	if s.i >= len(s.data) {
		return false
	}
	switch s.data[s.i] {
	case '{', '[':
		closeBy := byte('}')
		if s.data[s.i] == '[' {
			closeBy = ']'
		}
		s.i++
		for {
			s.ws()
			if s.i >= len(s.data) {
				return false
			}
			c := s.data[s.i]
			switch {
			case c == closeBy:
				s.i++
				return true
			case c == ',' || c == ':':
				s.i++
			default:
				if !s.skipValue(depth + 1) {
					return false
				}
			}
		}
	case '"':
		s.i++
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case '\\':
				s.i += 2
			case '"':
				s.i++
				return true
			default:
				s.i++
			}
		}
		return false
	default:
		start := s.i
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r', ':':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}

// decodeFlatPayload decodes the payloads that make up most of a trajectory
// (tool calls and budget events) without reflection. It reports false,
// leaving p in any state, when the payload has anything it does not expect;
// encoding/json then decodes it from scratch.
func decodeFlatPayload(data []byte, p Payload) bool {
	var set func(key []byte, s *scanner) bool
	switch t := p.(type) {
	case *ToolStarted:
		set = func(key []byte, s *scanner) bool {
			switch string(key) {
			case "call_id":
				return s.str(&t.CallID)
			case "name":
				return s.str(&t.Name)
			case "arguments":
				return s.str(&t.Arguments)
			case "arguments_bytes":
				return s.intField(&t.ArgumentsBytes)
			case "arguments_truncated":
				return s.boolean(&t.ArgumentsTruncated)
			case "call_index":
				return s.intField(&t.CallIndex)
			}
			return false
		}
	case *ToolEnded:
		set = func(key []byte, s *scanner) bool {
			switch string(key) {
			case "call_id":
				return s.str(&t.CallID)
			case "name":
				return s.str(&t.Name)
			case "result":
				return s.str(&t.Result)
			case "result_bytes":
				return s.intField(&t.ResultBytes)
			case "truncated":
				return s.boolean(&t.Truncated)
			case "is_error":
				return s.boolean(&t.IsError)
			case "error":
				return s.str(&t.Error)
			case "duration_ns":
				n, ok := s.int()
				t.Duration = time.Duration(n)
				return ok
			case "call_index":
				return s.intField(&t.CallIndex)
			}
			return false
		}
	case *BudgetRecord:
		set = func(key []byte, s *scanner) bool {
			switch string(key) {
			case "event":
				var v string
				ok := s.str(&v)
				t.Event = BudgetEvent(v)
				return ok
			case "resource":
				return s.str(&t.Resource)
			case "amount":
				n, ok := s.int()
				t.Amount = n
				return ok
			case "used":
				n, ok := s.int()
				t.Used = n
				return ok
			case "limit":
				n, ok := s.int()
				t.Limit = n
				return ok
			}
			return false
		}
	default:
		return false
	}
	s := scanner{data: data}
	for {
		key, done, ok := s.nextKey()
		if done {
			return ok
		}
		if !set(key, &s) {
			return false
		}
	}
}

func (s *scanner) intField(dst *int) bool {
	n, ok := s.int()
	if !ok || n > 1<<31 || n < -(1<<31) {
		return false
	}
	*dst = int(n)
	return true
}

func (s *scanner) boolean(dst *bool) bool {
	rest := s.data[s.i:]
	switch {
	case bytes.HasPrefix(rest, []byte("true")):
		*dst = true
		s.i += 4
	case bytes.HasPrefix(rest, []byte("false")):
		*dst = false
		s.i += 5
	default:
		return false
	}
	// A literal must end here, as in "true}" but not "truex".
	return s.i == len(s.data) || !isAlnum(s.data[s.i])
}

// str reads a JSON string, unescaping it as encoding/json does. Strings
// with \u escapes are left to encoding/json.
func (s *scanner) str(dst *string) bool {
	if !s.byte('"') {
		return false
	}
	start := s.i
	// The common case: nothing to unescape.
	for s.i < len(s.data) {
		c := s.data[s.i]
		if c == '"' {
			v := s.data[start:s.i]
			if !utf8.Valid(v) {
				return false
			}
			*dst = string(v)
			s.i++
			return true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return false
		}
		s.i++
	}
	buf := make([]byte, 0, s.i-start+16)
	buf = append(buf, s.data[start:s.i]...)
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return false
			}
			*dst = string(buf)
			s.i++
			return true
		case c < 0x20:
			return false
		case c != '\\':
			buf = append(buf, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.data) {
			return false
		}
		switch s.data[s.i+1] {
		case '"', '\\', '/':
			buf = append(buf, s.data[s.i+1])
		case 'n':
			buf = append(buf, '\n')
		case 't':
			buf = append(buf, '\t')
		case 'r':
			buf = append(buf, '\r')
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		default:
			return false
		}
		s.i += 2
	}
	return false
}
