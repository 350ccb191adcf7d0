package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	return w.record(r)
}

func (w *wireRecord) record(r *Record) error {
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
		p = &Unknown{Name: w.Kind, Body: w.Payload}
	} else if len(w.Payload) > 0 && !bytes.Equal(w.Payload, []byte("null")) {
		if err := json.Unmarshal(w.Payload, p); err != nil {
			return fmt.Errorf("%w: %s payload: %w", ErrMalformed, w.Kind, err)
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
// any state, when the slow path must decide. The payload is captured as
// raw bytes (a copy) and validated later by whoever decodes it.
func scanEnvelope(data []byte, w *wireRecord) bool {
	s := scanner{data: data}
	s.ws()
	if !s.byte('{') {
		return false
	}
	s.ws()
	if s.byte('}') {
		return s.end()
	}
	for {
		s.ws()
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.ws()
		if !s.byte(':') {
			return false
		}
		s.ws()
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
			w.Payload = append(json.RawMessage(nil), s.data[start:s.i]...)
		default:
			return false
		}
		s.ws()
		if s.byte('}') {
			return s.end()
		}
		if !s.byte(',') {
			return false
		}
	}
}

type scanner struct {
	data []byte
	i    int
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
