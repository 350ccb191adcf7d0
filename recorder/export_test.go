package recorder

import (
	"encoding/json"
	"fmt"
)

// SetMaxLine lowers a Reader's line limit so tests need no huge inputs.
func SetMaxLine(r *Reader, n int) { r.maxLine = n }

// DecodeWithEncodingJSON decodes a record without the envelope scanner, the
// reference the scanner must agree with.
func DecodeWithEncodingJSON(data []byte, r *Record) error {
	var w wireRecord
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return w.record(r, false)
}

// ScanEnvelope reports whether the fast envelope scanner accepts data.
func ScanEnvelope(data []byte) bool {
	var w wireRecord
	return scanEnvelope(data, &w)
}
