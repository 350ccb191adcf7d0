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
	if err := w.checkEnvelope(); err != nil {
		return err
	}
	p, err := w.payload(fast)
	if err != nil {
		return err
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

// checkEnvelope reports an envelope this version cannot read: a newer
// schema version, a negative one, or no kind.
func (w *wireRecord) checkEnvelope() error {
	if w.SchemaVersion > SchemaVersion {
		return &VersionError{Seen: w.SchemaVersion, Supported: SchemaVersion}
	}
	if w.SchemaVersion < 0 {
		return fmt.Errorf("%w: negative schema_version %d", ErrMalformed, w.SchemaVersion)
	}
	if w.Kind == "" {
		return fmt.Errorf("%w: missing kind", ErrMalformed)
	}
	return nil
}

// payload decodes the payload of the envelope's kind. A kind this version
// does not know keeps its body, which must still be valid JSON, as an
// Unknown; a missing or null payload leaves the kind's zero payload.
func (w *wireRecord) payload(fast bool) (Payload, error) {
	p := newPayload(w.Kind)
	if p == nil {
		return w.unknown()
	}
	if len(w.Payload) == 0 || bytes.Equal(w.Payload, []byte("null")) {
		return p, nil
	}
	if fast && decodeFlatPayload(w.Payload, p) {
		return p, nil
	}
	// A fresh payload drops anything the fast path half-filled.
	return w.decodeJSON()
}

// unknown keeps the payload of a kind this version does not know as an
// Unknown, checking it is valid JSON.
func (w *wireRecord) unknown() (Payload, error) {
	if len(w.Payload) > 0 && !validJSON(w.Payload) {
		return nil, fmt.Errorf("%w: %s payload is not valid JSON", ErrMalformed, w.Kind)
	}
	return &Unknown{Name: w.Kind, Body: append(json.RawMessage(nil), w.Payload...)}, nil
}

// decodeJSON decodes the payload into a new payload of the envelope's
// kind with encoding/json.
func (w *wireRecord) decodeJSON() (Payload, error) {
	p := newPayload(w.Kind)
	if err := json.Unmarshal(w.Payload, p); err != nil {
		return nil, fmt.Errorf("%w: %s payload: %w", ErrMalformed, w.Kind, err)
	}
	if rs, ok := p.(*RunStarted); ok {
		rs.takeMetadataParentToolCall()
	}
	return p, nil
}

// metadataParentToolCall is the metadata key under which files written
// before RunStarted had ParentToolCallID hold the parent's tool call.
const metadataParentToolCall = "parent_tool_call_id"

// takeMetadataParentToolCall moves the parent's tool call id of a
// run_started written by an older version from its metadata into
// ParentToolCallID, when that field is empty, so that readers find it in
// one place. Metadata loses the key, and is nil when nothing else is left.
func (p *RunStarted) takeMetadataParentToolCall() {
	id, ok := p.Metadata[metadataParentToolCall]
	if !ok || p.ParentToolCallID != "" {
		return
	}
	p.ParentToolCallID = id
	delete(p.Metadata, metadataParentToolCall)
	if len(p.Metadata) == 0 {
		p.Metadata = nil
	}
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
		if !s.envelopeField(w, key) {
			return false
		}
	}
}

// envelopeField reads the value of the envelope field key into w. It
// reports false for a field the envelope does not have, or a value that is
// not plain.
func (s *scanner) envelopeField(w *wireRecord, key []byte) bool {
	if dst := w.stringField(key); dst != nil {
		return s.plainField(dst)
	}
	if dst := w.intField(key); dst != nil {
		return s.smallInt(dst)
	}
	switch string(key) {
	case "seq":
		return s.uintField(&w.Seq)
	case "recorded_at":
		return s.timeField(&w.RecordedAt)
	case "payload":
		return s.rawValue(&w.Payload)
	}
	return false
}

// stringField returns the envelope's string field named key, or nil.
func (w *wireRecord) stringField(key []byte) *string {
	switch string(key) {
	case "run_id":
		return &w.RunID
	case "parent_run_id":
		return &w.ParentRunID
	case "kind":
		return (*string)(&w.Kind)
	}
	return nil
}

// intField returns the envelope's int field named key, or nil.
func (w *wireRecord) intField(key []byte) *int {
	switch string(key) {
	case "schema_version":
		return &w.SchemaVersion
	case "depth":
		return &w.Depth
	}
	return nil
}

// smallInt reads an integer of at most 1<<31 into dst.
func (s *scanner) smallInt(dst *int) bool {
	n, ok := s.int()
	if !ok || n > 1<<31 {
		return false
	}
	*dst = int(n)
	return true
}

// uintField reads a non-negative integer into dst.
func (s *scanner) uintField(dst *uint64) bool {
	n, ok := s.int()
	if !ok || n < 0 {
		return false
	}
	*dst = uint64(n)
	return true
}

// plainField reads a plain string (see plainString) into dst.
func (s *scanner) plainField(dst *string) bool {
	v, ok := s.plainString()
	if !ok {
		return false
	}
	*dst = string(v)
	return true
}

// timeField reads a plain string into dst with time.Time's own decoder, for
// exactly encoding/json's rules.
func (s *scanner) timeField(dst *time.Time) bool {
	start := s.i
	if _, ok := s.plainString(); !ok {
		return false
	}
	return dst.UnmarshalJSON(s.data[start:s.i]) == nil
}

// rawValue points dst at the next value in data, checking only its
// structure. The bytes are shared with data and copied later if kept.
func (s *scanner) rawValue(dst *json.RawMessage) bool {
	start := s.i
	if !s.skipValue(0) {
		return false
	}
	*dst = s.data[start:s.i]
	return true
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
	if done, ok := s.fieldStart(); done {
		return nil, true, ok
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

// fieldStart reads up to the next field's key: past the object's '{' at
// the first call, past the ',' after the previous field at later ones.
// done and ok are as nextKey's.
func (s *scanner) fieldStart() (done, ok bool) {
	first := !s.inObject
	s.inObject = true
	if first && !s.byte('{') {
		return true, false
	}
	s.ws()
	if s.byte('}') {
		return true, s.end()
	}
	if !first && !s.byte(',') {
		return true, false
	}
	s.ws()
	return false, true
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

// byte moves past c if it comes next, and reports whether it did.
func (s *scanner) byte(c byte) bool {
	if s.at(c) {
		s.i++
		return true
	}
	return false
}

// at reports whether c comes next.
func (s *scanner) at(c byte) bool {
	return s.i < len(s.data) && s.data[s.i] == c
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
	start, ascii := s.plainRun()
	v := s.data[start:s.i]
	if !s.byte('"') || !ascii && !utf8.Valid(v) {
		return nil, false
	}
	return v, true
}

// plainRun moves past the bytes of a string that read as they are: up to
// a quote, a backslash, a control character or the end of data. It
// returns where they start and whether they are all ASCII.
func (s *scanner) plainRun() (start int, ascii bool) {
	start, ascii = s.i, true
	i := start
	for ; i < len(s.data); i++ {
		c := s.data[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	s.i = i
	return start, ascii
}

// int reads an integer in JSON's grammar (no fraction or exponent).
func (s *scanner) int() (int64, bool) {
	neg := s.byte('-')
	start := s.i
	n, ok := s.digits()
	if !ok || !s.integerEnds(start) {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// digits reads a run of decimal digits, failing before the value could
// overflow an int64.
func (s *scanner) digits() (int64, bool) {
	var n int64
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		if n > (1<<62)/10 {
			return 0, false
		}
		n = n*10 + int64(s.data[s.i]-'0')
		s.i++
	}
	return n, true
}

// integerEnds reports whether the digits from start to s.i make a whole
// JSON integer: at least one digit, no leading zero, and no fraction or
// exponent after them.
func (s *scanner) integerEnds(start int) bool {
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.data[start] == '0') {
		return false
	}
	if s.i == len(s.data) {
		return true
	}
	switch s.data[s.i] {
	case '.', 'e', 'E':
		return false
	}
	return true
}

// skipValue moves past one JSON value, checking only its structure; the
// payload decoder (or json.Valid for unknown kinds) checks the rest.
func (s *scanner) skipValue(depth int) bool {
	if depth > 1000 || s.i >= len(s.data) {
		return false
	}
	switch s.data[s.i] {
	case '{':
		return s.skipContainer('}', depth)
	case '[':
		return s.skipContainer(']', depth)
	case '"':
		return s.skipString()
	}
	return s.skipLiteral()
}

// skipContainer moves past an object or array from its opening byte to
// closeBy, skipping the values in it at depth+1. Commas and colons are
// only stepped over: their order is the payload decoder's to check.
func (s *scanner) skipContainer(closeBy byte, depth int) bool {
	s.i++
	for s.ws(); !s.byte(closeBy); s.ws() {
		if !s.skipItem(depth) {
			return false
		}
	}
	return true
}

// skipItem moves past a comma, a colon or a value at depth+1 inside a
// container at depth.
func (s *scanner) skipItem(depth int) bool {
	if s.byte(',') || s.byte(':') {
		return true
	}
	return s.skipValue(depth + 1)
}

// skipString moves past a string from its opening quote, stepping over
// escape sequences whole.
func (s *scanner) skipString() bool {
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
}

// skipLiteral moves past a number, true, false or null: the bytes up to
// whatever may follow a value. It reports false when there are none.
func (s *scanner) skipLiteral() bool {
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

// decodeFlatPayload decodes the payloads that make up most of a trajectory
// (tool calls and budget events) without reflection. It reports false,
// leaving p in any state, when the payload has anything it does not expect;
// encoding/json then decodes it from scratch.
func decodeFlatPayload(data []byte, p Payload) bool {
	switch p.(type) {
	case *ToolStarted, *ToolEnded, *BudgetRecord:
	default:
		return false
	}
	s := scanner{data: data}
	for {
		key, done, ok := s.nextKey()
		if done {
			return ok
		}
		if !s.flatField(p, key) {
			return false
		}
	}
}

// flatField reads the value of the field key into p, one of the payloads
// decodeFlatPayload handles. It reports false for a field it does not
// know or a value it cannot read.
func (s *scanner) flatField(p Payload, key []byte) bool {
	switch t := p.(type) {
	case *ToolStarted:
		return s.toolStartedField(t, key)
	case *ToolEnded:
		return s.toolEndedField(t, key)
	case *BudgetRecord:
		return s.budgetField(t, key)
	}
	return false
}

func (s *scanner) toolStartedField(t *ToolStarted, key []byte) bool {
	if dst := t.stringField(key); dst != nil {
		return s.str(dst)
	}
	switch string(key) {
	case "arguments_bytes":
		return s.intField(&t.ArgumentsBytes)
	case "arguments_truncated":
		return s.boolean(&t.ArgumentsTruncated)
	case "control":
		return s.boolean(&t.Control)
	case "call_index":
		return s.intField(&t.CallIndex)
	}
	return false
}

// stringField returns the string field of t named key, or nil.
func (t *ToolStarted) stringField(key []byte) *string {
	switch string(key) {
	case "call_id":
		return &t.CallID
	case "name":
		return &t.Name
	case "arguments":
		return &t.Arguments
	case "mcp_server":
		return &t.MCPServer
	case "mcp_tool":
		return &t.MCPTool
	}
	return nil
}

func (s *scanner) toolEndedField(t *ToolEnded, key []byte) bool {
	if dst := t.stringField(key); dst != nil {
		return s.str(dst)
	}
	if dst := t.flagField(key); dst != nil {
		return s.boolean(dst)
	}
	switch string(key) {
	case "result_bytes":
		return s.intField(&t.ResultBytes)
	case "duration_ns":
		return s.int64Field((*int64)(&t.Duration))
	case "call_index":
		return s.intField(&t.CallIndex)
	}
	return false
}

// stringField returns the string field of t named key, or nil.
func (t *ToolEnded) stringField(key []byte) *string {
	switch string(key) {
	case "call_id":
		return &t.CallID
	case "name":
		return &t.Name
	case "result":
		return &t.Result
	case "error":
		return &t.Error
	}
	return nil
}

// flagField returns the bool field of t named key, or nil.
func (t *ToolEnded) flagField(key []byte) *bool {
	switch string(key) {
	case "truncated":
		return &t.Truncated
	case "is_error":
		return &t.IsError
	}
	return nil
}

func (s *scanner) budgetField(t *BudgetRecord, key []byte) bool {
	switch string(key) {
	case "event":
		return s.str((*string)(&t.Event))
	case "resource":
		return s.str(&t.Resource)
	case "amount":
		return s.int64Field(&t.Amount)
	case "used":
		return s.int64Field(&t.Used)
	case "limit":
		return s.int64Field(&t.Limit)
	}
	return false
}

func (s *scanner) int64Field(dst *int64) bool {
	n, ok := s.int()
	*dst = n
	return ok
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
	start, ascii := s.plainRun()
	if s.at('\\') {
		return s.escapedStr(dst, start)
	}
	v := s.data[start:s.i]
	if !s.byte('"') || !ascii && !utf8.Valid(v) {
		return false
	}
	*dst = string(v)
	return true
}

// escapedStr reads the rest of a string that started at start from its
// first backslash at s.i, unescaping it into a copy.
func (s *scanner) escapedStr(dst *string, start int) bool {
	buf := make([]byte, 0, s.i-start+16)
	buf = append(buf, s.data[start:s.i]...)
	for s.at('\\') {
		c, ok := s.escape()
		if !ok {
			return false
		}
		from, _ := s.plainRun()
		buf = append(append(buf, c), s.data[from:s.i]...)
	}
	if !s.byte('"') || !utf8.Valid(buf) {
		return false
	}
	*dst = string(buf)
	return true
}

// escape moves past the two-byte escape at s.i and returns the byte it
// stands for. It reports false for any other escape.
func (s *scanner) escape() (byte, bool) {
	if s.i+1 >= len(s.data) || unescaped[s.data[s.i+1]] == 0 {
		return 0, false
	}
	c := unescaped[s.data[s.i+1]]
	s.i += 2
	return c, true
}

// unescaped maps the byte after a backslash to the byte its escape stands
// for. It is 0 for the rest, \u among them, which encoding/json decodes.
var unescaped = [256]byte{
	'"':  '"',
	'\\': '\\',
	'/':  '/',
	'n':  '\n',
	't':  '\t',
	'r':  '\r',
	'b':  '\b',
	'f':  '\f',
}
