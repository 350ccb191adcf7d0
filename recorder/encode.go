package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"
	"unsafe"
)

// encoder writes records as JSON, byte for byte as encoding/json writes
// the record types with their struct tags and HTML escaping off, without
// reflection. Values whose shape it does not know (a custom Payload, the
// multimodal parts and log probabilities of a message, map values of
// other types than JSON's own) go through encoding/json.
//
// Every field of an object, and every element of an array, is appended
// with a comma before it; closing the object or the array turns the first
// comma into its opening bracket. A field left out then needs no care
// from the next one.
//
// An encoder that remembers, as a FileSink's does, keeps the envelope of
// the last record and the last assessment recorded or injected, which the
// records of a run share, to copy them rather than encode them again. The
// zero encoder is ready to use and remembers nothing but the second of
// the last stamp. An encoder is not safe for concurrent use.
type encoder struct {
	err       error // the first error of the payload being written
	remembers bool

	// The head of the last record, in an encoder that remembers, up to
	// the second of its stamp: its opening up to the last digit of its
	// seq, to envelopeAt; the fields of its run's envelope, from
	// ,"run_id": to the opening quote of recorded_at, to stampAt; the
	// stamp up to its second, when stampOK. The run's next record has the
	// next seq, whose digits are the last's counted on by one, and the
	// same envelope. lastHead is empty until the first.
	lastHead            []byte
	envelopeAt, stampAt int
	seq                 uint64
	version             int
	runID, parentRunID  string
	depth               int

	// The UTC second of the last stamp, as RFC 3339 writes it up to the
	// seconds, when stampOK: at the end of lastHead in an encoder that
	// remembers, in stamp in one that does not.
	second  int64
	stamp   [len("2006-01-02T15:04:05")]byte
	stampOK bool

	// The last assessment written, as an assessment record's markdown or
	// an injected message's content, and its JSON string, nil until the
	// first: Lookout records an assessment, then injects it into call
	// after call.
	assessment     string
	assessmentJSON []byte

	// The arguments of the tool calls of the last message written with
	// tool calls (a model_response's, most often), when it had at most
	// maxRememberedCalls, and their JSON strings end to end in callsJSON,
	// each ending at its callEnds: the tool_started record of each call
	// carries them again.
	callArgs  []string
	callEnds  []int
	callsJSON []byte

	// The limits of the last run_started written, but for the deadline,
	// when limitsOK, and limitsJSON the fields they write: those before
	// the deadline up to limitsSplit, and those after it. A program's
	// runs share their limits.
	limitsOf    limitCounts
	limitsJSON  []byte
	limitsSplit int
	limitsOK    bool
}

// limitCounts are a run's limits but for the deadline.
type limitCounts struct {
	timeout                                time.Duration
	maxTokens, maxToolCalls, maxModelCalls int64
}

// fail keeps err as the payload's error, unless it has one.
func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// appendRecord appends r's JSON encoding to b; see Record.AppendJSON.
func (e *encoder) appendRecord(b []byte, r *Record) ([]byte, error) {
	start := len(b)
	kind := r.Kind()
	if kind == "" || IsNilPayload(r.Payload) {
		return b, fmt.Errorf("%w: record has no payload", ErrEncode)
	}
	b, err := e.head(b, r)
	if err == nil {
		b, err = e.body(b, kind, r.Payload)
	}
	if err != nil {
		return b[:start], err
	}
	return append(b, '}'), nil
}

// head appends the record's opening brace and every field before its
// kind, up to the last digit of recorded_at.
func (e *encoder) head(b []byte, r *Record) ([]byte, error) {
	if !e.remembers {
		return e.time(appendEnvelope(appendOpening(b, r), r), r.RecordedAt)
	}
	if !e.sameRun(r) || r.Seq != e.seq+1 || r.Seq == 0 || !countOn(e.lastHead[:e.envelopeAt]) {
		e.runID, e.parentRunID, e.depth, e.version = r.RunID, r.ParentRunID, r.Depth, r.SchemaVersion
		e.lastHead = appendOpening(e.lastHead[:0], r)
		e.envelopeAt = len(e.lastHead)
		e.lastHead = appendEnvelope(e.lastHead, r)
		e.stampAt, e.stampOK = len(e.lastHead), false
	}
	e.seq = r.Seq
	t := r.RecordedAt
	if sec := t.Unix(); !e.stampOK || sec != e.second {
		if sec < firstRFC3339Second || sec >= pastRFC3339Second {
			e.lastHead = e.lastHead[:0]
			return b, yearError(t)
		}
		e.lastHead = appendSecond(e.lastHead[:e.stampAt], sec)
		e.second, e.stampOK = sec, true
	}
	return appendNanoZ(append(b, e.lastHead...), t.Nanosecond()), nil
}

// sameRun reports whether r has the run, and the schema version, of the
// head e remembers, lastHead.
func (e *encoder) sameRun(r *Record) bool {
	return len(e.lastHead) > 0 && sameString(r.RunID, e.runID) && sameString(r.ParentRunID, e.parentRunID) &&
		r.Depth == e.depth && r.SchemaVersion == e.version
}

// sameString reports whether a and b are equal, at once when they are
// the same string, as a run's records share their run's ids.
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// appendOpening appends the record's opening brace, its schema version
// and its seq.
func appendOpening(b []byte, r *Record) []byte {
	if r.SchemaVersion == 1 {
		b = append(b, `{"schema_version":1,"seq":`...)
	} else {
		b = appendInt(append(b, `{"schema_version":`...), int64(r.SchemaVersion))
		b = append(b, `,"seq":`...)
	}
	return appendUint(b, r.Seq)
}

// countOn counts the number whose digits end b, after a byte that is not
// a digit, on by one in place, and reports whether it could: it cannot
// when every digit is a nine, as the number then takes one more digit.
func countOn(b []byte) bool {
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c == '9':
			b[i] = '0'
		case c >= '0' && c <= '8':
			b[i]++
			return true
		default:
			return false
		}
	}
	return false
}

// appendEnvelope appends the fields of r's envelope from ,"run_id": to
// the opening quote of recorded_at.
func appendEnvelope(b []byte, r *Record) []byte {
	b = appendString(append(b, `,"run_id":`...), r.RunID)
	b = appendString(append(b, `,"parent_run_id":`...), r.ParentRunID)
	b = appendInt(append(b, `,"depth":`...), int64(r.Depth))
	return append(b, `,"recorded_at":"`...)
}

// The UTC seconds, since the Unix epoch, of the first instant of the year
// 0 and of the year 10000: RFC 3339 writes the years between.
var (
	firstRFC3339Second = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	pastRFC3339Second  = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
)

// time appends t in UTC as time.RFC3339Nano writes it. A year RFC 3339
// cannot write is an error: no reader could read it back.
func (e *encoder) time(b []byte, t time.Time) ([]byte, error) {
	sec := t.Unix()
	if !e.stampOK || sec != e.second {
		if sec < firstRFC3339Second || sec >= pastRFC3339Second {
			return b, yearError(t)
		}
		appendSecond(e.stamp[:0], sec)
		e.second, e.stampOK = sec, true
	}
	return appendNanoZ(append(b, e.stamp[:]...), t.Nanosecond()), nil
}

// yearError is the error of a record whose time t has a year RFC 3339
// cannot write.
func yearError(t time.Time) error {
	return fmt.Errorf("%w: recorded_at %v has a year outside 0-9999", ErrEncode, t)
}

// appendUTC appends t in UTC as time.RFC3339Nano writes it, or reports
// false, appending nothing, for a year outside 0-9999.
func appendUTC(b []byte, t time.Time) ([]byte, bool) {
	sec := t.Unix()
	if sec < firstRFC3339Second || sec >= pastRFC3339Second {
		return b, false
	}
	return appendNanoZ(appendSecond(b, sec), t.Nanosecond()), true
}

// appendNanoZ appends what RFC3339Nano writes after the seconds of a
// time in UTC with ns nanoseconds: the fraction, if not zero, and Z.
func appendNanoZ(b []byte, ns int) []byte {
	if ns != 0 {
		b = appendFraction(b, ns)
	}
	return append(b, 'Z')
}

// appendSecond appends the UTC second sec, since the Unix epoch, of a
// year from 0 to 9999, as time.RFC3339 writes it up to the seconds
// (2006-01-02T15:04:05). The date is the proleptic Gregorian calendar's,
// as the time package's, from the count of days by the arithmetic of
// Howard Hinnant's civil_from_days.
func appendSecond(b []byte, sec int64) []byte {
	days, clock := sec/86400, sec%86400
	if clock < 0 {
		days, clock = days-1, clock+86400
	}
	// Days since -0400-03-01, which starts a 400-year era: the years 0
	// to 9999 have no negative count.
	z := days + 719468 + 146097
	era, doe := z/146097-1, z%146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100) // from March 1st
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	year := yoe + era*400
	if month > 12 {
		month -= 12
		year++
	}
	t := &digitTriples
	hi, lo, mo, d := t[year/100], t[year%100], t[month], t[day]
	h, mi, s := t[clock/3600], t[clock/60%60], t[clock%60]
	return append(b,
		hi[1], hi[2], lo[1], lo[2], '-', mo[1], mo[2], '-', d[1], d[2],
		'T', h[1], h[2], ':', mi[1], mi[2], ':', s[1], s[2])
}

// appendFraction appends '.' and ns, a count of nanoseconds from 1 to
// 999999999, as nine digits less their trailing zeros.
func appendFraction(b []byte, ns int) []byte {
	// Unsigned, and each triple's number below 1000 as the compiler can
	// tell: no index is checked.
	u := uint32(ns)
	ms, us, rest := &digitTriples[u/1e6%1000], &digitTriples[u/1e3%1000], &digitTriples[u%1000]
	b = append(b, '.', ms[0], ms[1], ms[2], us[0], us[1], us[2], rest[0], rest[1], rest[2])
	n := len(b)
	for b[n-1] == '0' {
		n--
	}
	return b[:n]
}

// digitTriples holds the three decimal digits of each number from 0 to
// 999.
var digitTriples = func() (t [1000][3]byte) {
	for i := range t {
		t[i] = [3]byte{byte('0' + i/100), byte('0' + i/10%10), byte('0' + i%10)}
	}
	return t
}()

// body appends the record's kind field and its payload field, if it has
// one.
func (e *encoder) body(b []byte, kind Kind, p Payload) ([]byte, error) {
	if u, ok := p.(*Unknown); ok {
		b = appendString(append(b, `","kind":`...), string(kind))
		return appendUnknownBody(b, kind, u)
	}
	e.err = nil
	b = e.payload(b, kind, p)
	if err := e.err; err != nil {
		e.err = nil
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
		if !validJSON(u.Body) {
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

// payload appends the record's kind field, and p, whose kind it is, as
// its payload field.
func (e *encoder) payload(b []byte, kind Kind, p Payload) []byte {
	switch t := p.(type) {
	case *ToolStarted:
		return e.toolStarted(append(b, `","kind":"tool_started","payload":`...), t)
	case *ToolEnded:
		return e.toolEnded(append(b, `","kind":"tool_ended","payload":`...), t)
	case *BudgetRecord:
		return appendBudget(append(b, `","kind":"budget","payload":`...), t)
	case *ModelRequest:
		return e.modelRequest(append(b, `","kind":"model_request","payload":`...), t)
	case *ModelResponse:
		return e.modelResponse(append(b, `","kind":"model_response","payload":`...), t)
	case *Message:
		return e.messagePayload(append(b, `","kind":"message","payload":`...), t)
	case *AssessmentRecord:
		return e.assessmentRecord(append(b, `","kind":"assessment","payload":`...), t)
	case *RunStarted:
		return e.runStarted(append(b, `","kind":"run_started","payload":`...), t)
	case *RunEnded:
		return e.runEnded(append(b, `","kind":"run_ended","payload":`...), t)
	case *Extension:
		return e.extension(append(b, `","kind":"extension","payload":`...), t)
	}
	b = appendString(append(b, `","kind":`...), string(kind))
	return e.reflected(append(b, `,"payload":`...), p)
}

// toolStarted encodes a tool_started payload.
func (e *encoder) toolStarted(b []byte, t *ToolStarted) []byte {
	start := len(b)
	b = appendNonEmptyField(b, `,"call_id":`, t.CallID)
	b = appendStringField(b, `,"name":`, t.Name)
	if t.Arguments != "" {
		b = e.callArguments(append(b, `,"arguments":`...), t.Arguments)
	}
	b = appendNonZeroField(b, `,"arguments_bytes":`, int64(t.ArgumentsBytes))
	b = appendTrueField(b, `,"arguments_truncated":true`, t.ArgumentsTruncated)
	b = appendIntField(b, `,"call_index":`, int64(t.CallIndex))
	b = appendNonEmptyField(b, `,"mcp_server":`, t.MCPServer)
	b = appendNonEmptyField(b, `,"mcp_tool":`, t.MCPTool)
	b = appendTrueField(b, `,"control":true`, t.Control)
	return closeObject(b, start)
}

// toolEnded encodes a tool_ended payload.
func (e *encoder) toolEnded(b []byte, t *ToolEnded) []byte {
	start := len(b)
	b = appendNonEmptyField(b, `,"call_id":`, t.CallID)
	b = appendStringField(b, `,"name":`, t.Name)
	b = appendNonEmptyField(b, `,"result":`, t.Result)
	b = appendNonZeroField(b, `,"result_bytes":`, int64(t.ResultBytes))
	b = appendTrueField(b, `,"truncated":true`, t.Truncated)
	b = appendTrueField(b, `,"is_error":true`, t.IsError)
	b = appendNonEmptyField(b, `,"error":`, t.Error)
	b = appendNonZeroField(b, `,"duration_ns":`, int64(t.Duration))
	b = appendIntField(b, `,"call_index":`, int64(t.CallIndex))
	if len(t.Parts) > 0 {
		b = e.parts(append(b, `,"parts":`...), t.Parts)
	}
	b = e.extras(b, t.Extra)
	return closeObject(b, start)
}

// parts appends a tool result's parts as a JSON array.
func (e *encoder) parts(b []byte, parts []Part) []byte {
	start := len(b)
	for i := range parts {
		p := &parts[i]
		b = append(b, ',')
		part := len(b)
		b = appendStringField(b, `,"type":`, string(p.Type))
		b = appendNonEmptyField(b, `,"text":`, p.Text)
		if p.Media != nil {
			b = e.media(append(b, `,"media":`...), p.Media)
		}
		b = closeObject(b, part)
	}
	return closeArray(b, start)
}

// media appends a part's image or audio file as a JSON object.
func (e *encoder) media(b []byte, m *Media) []byte {
	start := len(b)
	b = appendStringField(b, `,"mime_type":`, m.MIMEType)
	if len(m.Data) > 0 {
		b = append(b, `,"data":"`...)
		b = append(base64.StdEncoding.AppendEncode(b, m.Data), '"')
	}
	b = appendNonEmptyField(b, `,"url":`, m.URL)
	b = appendNonEmptyField(b, `,"sha256":`, m.SHA256)
	b = appendNonZeroField(b, `,"size":`, m.Size)
	b = e.nonZeroFloatField(b, `,"duration_sec":`, m.DurationSec)
	return closeObject(b, start)
}

// appendBudget encodes a budget payload.
func appendBudget(b []byte, t *BudgetRecord) []byte {
	start := len(b)
	b = appendStringField(b, `,"event":`, string(t.Event))
	b = appendStringField(b, `,"resource":`, t.Resource)
	b = appendIntField(b, `,"amount":`, t.Amount)
	b = appendIntField(b, `,"used":`, t.Used)
	b = appendIntField(b, `,"limit":`, t.Limit)
	return closeObject(b, start)
}

// assessmentRecord encodes an assessment payload.
func (e *encoder) assessmentRecord(b []byte, t *AssessmentRecord) []byte {
	start := len(b)
	b = e.assessmentText(append(b, `,"markdown":`...), t.Markdown)
	b = appendIntField(b, `,"after_call_index":`, int64(t.AfterCallIndex))
	if len(t.Observers) > 0 {
		b = append(b, `,"observers":`...)
		list := len(b)
		for _, o := range t.Observers {
			b = append(b, ',')
			note := len(b)
			b = appendStringField(b, `,"name":`, o.Name)
			b = appendNonEmptyField(b, `,"severity":`, o.Severity)
			b = closeObject(b, note)
		}
		b = closeArray(b, list)
	}
	return closeObject(b, start)
}

// modelRequest encodes a model_request payload.
func (e *encoder) modelRequest(b []byte, t *ModelRequest) []byte {
	start := len(b)
	b = appendNonEmptyField(b, `,"model":`, t.Model)
	b = appendIntField(b, `,"message_count":`, int64(t.MessageCount))
	if len(t.Tools) > 0 {
		b = append(b, `,"tools":`...)
		list := len(b)
		for _, name := range t.Tools {
			b = appendString(append(b, ','), name)
		}
		b = closeArray(b, list)
	}
	if len(t.ToolDefinitions) > 0 {
		b = e.toolDefinitions(append(b, `,"tool_definitions":`...), t.ToolDefinitions)
	}
	b = appendTrueField(b, `,"tools_withheld":true`, t.ToolsWithheld)
	b = appendTrueField(b, `,"stream":true`, t.Stream)
	if t.Injected != nil {
		b = e.injected(append(b, `,"injected":`...), t.Injected)
	}
	return closeObject(b, start)
}

// toolDefinitions appends the definitions of a request's tools as a JSON
// array.
func (e *encoder) toolDefinitions(b []byte, defs []ToolDefinition) []byte {
	start := len(b)
	for i := range defs {
		d := &defs[i]
		b = append(b, ',')
		def := len(b)
		b = appendStringField(b, `,"name":`, d.Name)
		b = appendNonEmptyField(b, `,"description":`, d.Description)
		if len(d.Parameters) > 0 {
			b = e.raw(append(b, `,"parameters":`...), d.Parameters)
		}
		b = closeObject(b, def)
	}
	return closeArray(b, start)
}

// injected appends a request's injected messages as a JSON array.
func (e *encoder) injected(b []byte, injected []InjectedMessage) []byte {
	start := len(b)
	for i := range injected {
		m := &injected[i]
		b = append(b, ',')
		msg := len(b)
		b = appendStringField(b, `,"kind":`, m.Kind)
		b = appendStringField(b, `,"role":`, m.Role)
		b = e.assessmentText(append(b, `,"content":`...), m.Content)
		b = appendNonZeroField(b, `,"after_call_index":`, int64(m.AfterCallIndex))
		b = closeObject(b, msg)
	}
	return closeArray(b, start)
}

// assessmentText appends the markdown of an assessment record, or the
// content of an injected message, as a JSON string, copied when it is the
// last of either written.
func (e *encoder) assessmentText(b []byte, text string) []byte {
	if e.assessmentJSON != nil && text == e.assessment {
		return append(b, e.assessmentJSON...)
	}
	start := len(b)
	b = appendString(b, text)
	if e.remembers && len(text) <= maxRememberedText {
		e.assessment, e.assessmentJSON = text, append(e.assessmentJSON[:0], b[start:]...)
	}
	return b
}

// callArguments appends a tool call's arguments as a JSON string, copied
// when they are those of a call of the last message written with tool
// calls.
func (e *encoder) callArguments(b []byte, args string) []byte {
	from := 0
	for i, a := range e.callArgs {
		if a == args {
			return append(b, e.callsJSON[from:e.callEnds[i]]...)
		}
		from = e.callEnds[i]
	}
	return appendString(b, args)
}

// rememberCalls forgets the tool calls remembered, and reports whether
// those of the message being written, calls of them, are to be
// remembered.
func (e *encoder) rememberCalls(calls int) bool {
	e.callArgs, e.callEnds, e.callsJSON = e.callArgs[:0], e.callEnds[:0], e.callsJSON[:0]
	return e.remembers && calls <= maxRememberedCalls
}

// rememberCall remembers the arguments of a tool call of the message
// being written, and their JSON string, unless that would take the JSON
// remembered past maxRememberedText bytes.
func (e *encoder) rememberCall(args string, json []byte) {
	if len(e.callsJSON)+len(json) <= maxRememberedText {
		e.callsJSON = append(e.callsJSON, json...)
		e.callArgs = append(e.callArgs, args)
		e.callEnds = append(e.callEnds, len(e.callsJSON))
	}
}

// maxRememberedCalls is the most tool calls of a model_response an
// encoder remembers.
const maxRememberedCalls = 16

// maxRememberedText is the longest assessment, and the longest tool
// calls' arguments together, that an encoder remembers: one huge message
// does not stay in memory for good.
const maxRememberedText = 16 << 10

// modelResponse encodes a model_response payload.
func (e *encoder) modelResponse(b []byte, t *ModelResponse) []byte {
	start := len(b)
	if t.Message != nil {
		b = e.message(append(b, `,"message":`...), t.Message)
	}
	b = appendUsage(append(b, `,"usage":`...), &t.Usage)
	b = appendBoolField(b, `,"usage_reported":`, t.UsageReported)
	b = appendNonEmptyField(b, `,"finish_reason":`, t.FinishReason)
	b = appendNonZeroField(b, `,"latency_ns":`, int64(t.Latency))
	b = e.extras(b, t.Extra)
	b = appendNonEmptyField(b, `,"model":`, t.Model)
	b = appendNonEmptyField(b, `,"provider":`, t.Provider)
	b = e.nonZeroFloatField(b, `,"cost_usd":`, t.CostUSD)
	b = appendNonEmptyField(b, `,"error":`, t.Error)
	return closeObject(b, start)
}

// appendUsage appends a model call's token usage as a JSON object.
func appendUsage(b []byte, u *TokenUsage) []byte {
	start := len(b)
	b = appendIntField(b, `,"prompt_tokens":`, u.PromptTokens)
	b = appendIntField(b, `,"completion_tokens":`, u.CompletionTokens)
	b = appendIntField(b, `,"total_tokens":`, u.TotalTokens)
	b = appendNonZeroField(b, `,"cached_tokens":`, u.CachedTokens)
	b = appendNonZeroField(b, `,"cache_write_tokens":`, u.CacheWriteTokens)
	b = appendNonZeroField(b, `,"reasoning_tokens":`, u.ReasoningTokens)
	return closeObject(b, start)
}

// messagePayload encodes a message payload.
func (e *encoder) messagePayload(b []byte, t *Message) []byte {
	start := len(b)
	if t.Message != nil {
		b = e.message(append(b, `,"message":`...), t.Message)
	}
	b = e.extras(b, t.Extra)
	b = appendNonEmptyField(b, `,"origin":`, string(t.Origin))
	return closeObject(b, start)
}

// runStarted encodes a run_started payload.
func (e *encoder) runStarted(b []byte, t *RunStarted) []byte {
	start := len(b)
	b = appendNonEmptyField(b, `,"agent_name":`, t.AgentName)
	b = appendNonEmptyField(b, `,"agent_version":`, t.AgentVersion)
	b = appendNonEmptyField(b, `,"agent_model":`, t.AgentModel)
	b = appendNonEmptyField(b, `,"conversation_id":`, t.ConversationID)
	b = appendNonZeroField(b, `,"turn":`, int64(t.Turn))
	b = appendNonEmptyField(b, `,"parent_tool_call_id":`, t.ParentToolCallID)
	b = e.limits(append(b, `,"limits":`...), &t.Limits)
	if t.Thresholds != nil {
		b = append(b, `,"thresholds":`...)
		th := len(b)
		b = e.floatField(b, `,"caution_at":`, t.Thresholds.CautionAt)
		b = e.floatField(b, `,"warning_at":`, t.Thresholds.WarningAt)
		b = closeObject(b, th)
	}
	if len(t.Metadata) > 0 {
		b = appendStringMap(append(b, `,"metadata":`...), t.Metadata)
	}
	b = e.extras(b, t.Extra)
	return closeObject(b, start)
}

// limits appends a run's limits as a JSON object, copying what the last
// run's limits wrote when they were the same but for the deadline.
func (e *encoder) limits(b []byte, l *RunLimits) []byte {
	start := len(b)
	counts := limitCounts{l.Timeout, l.MaxTokens, l.MaxToolCalls, l.MaxModelCalls}
	same := e.limitsOK && counts == e.limitsOf
	if same {
		b = append(b, e.limitsJSON[:e.limitsSplit]...)
	} else {
		b = appendNonZeroField(b, `,"timeout_ns":`, int64(l.Timeout))
	}
	split := len(b)
	if !l.Deadline.IsZero() {
		b = append(b, `,"deadline":"`...)
		at, err := appendDeadline(b, l.Deadline)
		if err != nil {
			e.fail(err)
			return b
		}
		b = append(at, '"')
	}
	if same {
		b = append(b, e.limitsJSON[e.limitsSplit:]...)
		return closeObject(b, start)
	}
	after := len(b)
	b = appendNonZeroField(b, `,"max_tokens":`, l.MaxTokens)
	b = appendNonZeroField(b, `,"max_tool_calls":`, l.MaxToolCalls)
	b = appendNonZeroField(b, `,"max_model_calls":`, l.MaxModelCalls)
	if e.remembers {
		e.limitsJSON = append(append(e.limitsJSON[:0], b[start:split]...), b[after:]...)
		e.limitsOf, e.limitsSplit, e.limitsOK = counts, split-start, true
	}
	return closeObject(b, start)
}

// appendDeadline appends d as time.Time.AppendText does: RFC 3339 with
// the nanoseconds, in d's location, an offset of zero as Z.
func appendDeadline(b []byte, d time.Time) ([]byte, error) {
	if _, offset := d.Zone(); offset == 0 {
		if out, ok := appendUTC(b, d); ok {
			return out, nil
		}
	}
	return d.AppendText(b)
}

// runEnded encodes a run_ended payload.
func (e *encoder) runEnded(b []byte, t *RunEnded) []byte {
	start := len(b)
	b = appendStringField(b, `,"outcome":`, string(t.Outcome))
	b = appendNonEmptyField(b, `,"error":`, t.Error)
	b = appendNonEmptyField(b, `,"stop_reason":`, t.StopReason)
	u := &t.Usage
	b = append(b, `,"usage":`...)
	usage := len(b)
	b = appendIntField(b, `,"prompt_tokens":`, u.PromptTokens)
	b = appendIntField(b, `,"completion_tokens":`, u.CompletionTokens)
	b = appendIntField(b, `,"total_tokens":`, u.TotalTokens)
	b = appendNonZeroField(b, `,"cached_tokens":`, u.CachedTokens)
	b = appendNonZeroField(b, `,"cache_write_tokens":`, u.CacheWriteTokens)
	b = appendNonZeroField(b, `,"reasoning_tokens":`, u.ReasoningTokens)
	b = e.nonZeroFloatField(b, `,"cost_usd":`, u.CostUSD)
	b = appendIntField(b, `,"tool_calls":`, u.ToolCalls)
	b = appendIntField(b, `,"model_calls":`, u.ModelCalls)
	b = closeObject(b, usage)
	return closeObject(b, start)
}

// extension encodes an extension payload.
func (e *encoder) extension(b []byte, t *Extension) []byte {
	start := len(b)
	b = appendStringField(b, `,"name":`, t.Name)
	if len(t.Body) > 0 {
		b = e.raw(append(b, `,"body":`...), t.Body)
	}
	return closeObject(b, start)
}
