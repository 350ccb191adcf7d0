package recorder

import (
	"encoding/json"
	"fmt"
	"unsafe"
)

// SetMaxLine lowers a Reader's line limit so tests need no huge inputs.
func SetMaxLine(r *Reader, n int) { r.lines.Max = n }

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

// MayHoldSecret is the built-in redactor's one-pass pre-scan.
func MayHoldSecret(s string) bool {
	return firstSecret(s) >= 0 || len(ruleSpans(s, ruleKeywords.scan(s, nil), nil)) > 0
}

// SecretsFound reports whether the full detector, without the pre-scan,
// finds any secret in s.
func SecretsFound(s string) bool {
	return len(secretSpans(s, 0, nil)) > 0 || len(ruleSpans(s, ruleKeywords.scanPlainly(s), nil)) > 0
}

// RedactFromStart redacts s with the full detector, without the pre-scan
// and starting at index 0.
func RedactFromStart(s string) string {
	if spans := ruleSpans(s, ruleKeywords.scanPlainly(s), secretSpans(s, 0, nil)); len(spans) > 0 {
		return replaceSpans(s, spans)
	}
	return s
}

// QueueItemSize is the size of one entry of a Recorder's queue.
const QueueItemSize = unsafe.Sizeof(item{})

// ValidJSON is the recorder's JSON validator, which must agree with
// json.Valid.
func ValidJSON(b []byte) bool { return validJSON(b) }
