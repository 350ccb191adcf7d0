package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"
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
// the last record and the content of the last injected message, which the
// records of a run share, to copy them rather than encode them again. The
// zero encoder is ready to use and remembers nothing but the second of
// the last stamp. An encoder is not safe for concurrent use.
type encoder struct {
	err       error // the first error of the payload being written
	remembers bool

	// The run of the last record and its envelope, from ,"run_id": to
	// the opening quote of recorded_at; envelope is nil until the first.
	runID, parentRunID string
	depth              int
	envelope           []byte

	// The UTC second of the last stamp, as RFC 3339 writes it up to the
	// seconds, when stampOK.
	second  int64
	stamp   [len("2006-01-02T15:04:05")]byte
	stampOK bool

	// The content of the last injected message written and its JSON
	// string, nil until the first: Lookout injects the same assessment
	// into call after call.
	injectedText string
	injectedJSON []byte
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
	if r.SchemaVersion == 1 {
		b = append(b, `{"schema_version":1,"seq":`...)
	} else {
		b = appendInt(append(b, `{"schema_version":`...), int64(r.SchemaVersion))
		b = append(b, `,"seq":`...)
	}
	b = appendUint(b, r.Seq)
	switch {
	case !e.remembers:
		b = appendEnvelope(b, r)
	case e.envelope == nil || r.RunID != e.runID || r.ParentRunID != e.parentRunID || r.Depth != e.depth:
		e.runID, e.parentRunID, e.depth = r.RunID, r.ParentRunID, r.Depth
		e.envelope = appendEnvelope(e.envelope[:0], r)
		fallthrough
	default:
		b = append(b, e.envelope...)
	}
	return e.time(b, r.RecordedAt)
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
			return b, fmt.Errorf("%w: recorded_at %v has a year outside 0-9999", ErrEncode, t)
		}
		time.Unix(sec, 0).UTC().AppendFormat(e.stamp[:0], "2006-01-02T15:04:05")
		e.second, e.stampOK = sec, true
	}
	b = append(b, e.stamp[:]...)
	if ns := t.Nanosecond(); ns != 0 {
		b = appendFraction(b, ns)
	}
	return append(b, 'Z'), nil
}

// appendFraction appends '.' and ns, a count of nanoseconds from 1 to
// 999999999, as nine digits less their trailing zeros.
func appendFraction(b []byte, ns int) []byte {
	ms, us, rest := ns/1e6*3, ns/1e3%1e3*3, ns%1e3*3
	t := digitTriples[:3000]
	b = append(b, '.', t[ms], t[ms+1], t[ms+2], t[us], t[us+1], t[us+2], t[rest], t[rest+1], t[rest+2])
	n := len(b)
	for b[n-1] == '0' {
		n--
	}
	return b[:n]
}

// digitTriples holds the three decimal digits of each number from 0 to
// 999.
var digitTriples = func() string {
	b := make([]byte, 0, 3000)
	for i := range 1000 {
		b = append(b, byte('0'+i/100), byte('0'+i/10%10), byte('0'+i%10))
	}
	return string(b)
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
		return appendToolStarted(append(b, `","kind":"tool_started","payload":`...), t)
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
		return appendAssessment(append(b, `","kind":"assessment","payload":`...), t)
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

// appendToolStarted encodes a tool_started payload.
func appendToolStarted(b []byte, t *ToolStarted) []byte {
	start := len(b)
	b = appendNonEmptyField(b, `,"call_id":`, t.CallID)
	b = appendStringField(b, `,"name":`, t.Name)
	b = appendNonEmptyField(b, `,"arguments":`, t.Arguments)
	b = appendNonZeroField(b, `,"arguments_bytes":`, int64(t.ArgumentsBytes))
	b = appendTrueField(b, `,"arguments_truncated":true`, t.ArgumentsTruncated)
	b = appendIntField(b, `,"call_index":`, int64(t.CallIndex))
	b = appendNonEmptyField(b, `,"mcp_server":`, t.MCPServer)
	b = appendNonEmptyField(b, `,"mcp_tool":`, t.MCPTool)
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

// appendAssessment encodes an assessment payload.
func appendAssessment(b []byte, t *AssessmentRecord) []byte {
	start := len(b)
	b = appendStringField(b, `,"markdown":`, t.Markdown)
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
		b = e.injectedContent(append(b, `,"content":`...), m.Content)
		b = appendNonZeroField(b, `,"after_call_index":`, int64(m.AfterCallIndex))
		b = closeObject(b, msg)
	}
	return closeArray(b, start)
}

// injectedContent appends the content of an injected message as a JSON
// string, copied when it is the content of the last one.
func (e *encoder) injectedContent(b []byte, content string) []byte {
	if e.injectedJSON != nil && content == e.injectedText {
		return append(b, e.injectedJSON...)
	}
	start := len(b)
	b = appendString(b, content)
	if e.remembers && len(content) <= maxRememberedInjected {
		e.injectedText, e.injectedJSON = content, append(e.injectedJSON[:0], b[start:]...)
	}
	return b
}

// maxRememberedInjected is the longest injected content an encoder
// remembers: one huge message does not stay in memory for good.
const maxRememberedInjected = 16 << 10

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

// limits appends a run's limits as a JSON object.
func (e *encoder) limits(b []byte, l *RunLimits) []byte {
	start := len(b)
	b = appendNonZeroField(b, `,"timeout_ns":`, int64(l.Timeout))
	if !l.Deadline.IsZero() {
		b = append(b, `,"deadline":"`...)
		at, err := l.Deadline.AppendText(b)
		if err != nil {
			e.fail(err)
			return b
		}
		b = append(at, '"')
	}
	b = appendNonZeroField(b, `,"max_tokens":`, l.MaxTokens)
	b = appendNonZeroField(b, `,"max_tool_calls":`, l.MaxToolCalls)
	b = appendNonZeroField(b, `,"max_model_calls":`, l.MaxModelCalls)
	return closeObject(b, start)
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

// message appends m as encoding/json writes a *schema.Message.
func (e *encoder) message(b []byte, m *schema.Message) []byte {
	start := len(b)
	b = appendStringField(b, `,"role":`, string(m.Role))
	b = appendStringField(b, `,"content":`, m.Content)
	if len(m.MultiContent) > 0 {
		b = e.reflected(append(b, `,"multi_content":`...), m.MultiContent)
	}
	if len(m.UserInputMultiContent) > 0 {
		b = e.reflected(append(b, `,"user_input_multi_content":`...), m.UserInputMultiContent)
	}
	if len(m.AssistantGenMultiContent) > 0 {
		b = e.reflected(append(b, `,"assistant_output_multi_content":`...), m.AssistantGenMultiContent)
	}
	b = appendNonEmptyField(b, `,"name":`, m.Name)
	if len(m.ToolCalls) > 0 {
		b = e.toolCalls(append(b, `,"tool_calls":`...), m.ToolCalls)
	}
	b = appendNonEmptyField(b, `,"tool_call_id":`, m.ToolCallID)
	b = appendNonEmptyField(b, `,"tool_name":`, m.ToolName)
	if m.ResponseMeta != nil {
		b = e.responseMeta(append(b, `,"response_meta":`...), m.ResponseMeta)
	}
	b = appendNonEmptyField(b, `,"reasoning_content":`, m.ReasoningContent)
	if len(m.Extra) > 0 {
		b = e.anyMap(append(b, `,"extra":`...), m.Extra)
	}
	return closeObject(b, start)
}

// toolCalls appends a message's tool calls as a JSON array.
func (e *encoder) toolCalls(b []byte, calls []schema.ToolCall) []byte {
	start := len(b)
	for i := range calls {
		c := &calls[i]
		b = append(b, ',')
		call := len(b)
		if c.Index != nil {
			b = appendIntField(b, `,"index":`, int64(*c.Index))
		}
		b = appendStringField(b, `,"id":`, c.ID)
		b = appendStringField(b, `,"type":`, c.Type)
		b = append(b, `,"function":`...)
		fn := len(b)
		b = appendNonEmptyField(b, `,"name":`, c.Function.Name)
		b = appendNonEmptyField(b, `,"arguments":`, c.Function.Arguments)
		b = closeObject(b, fn)
		if len(c.Extra) > 0 {
			b = e.anyMap(append(b, `,"extra":`...), c.Extra)
		}
		b = closeObject(b, call)
	}
	return closeArray(b, start)
}

// responseMeta appends a message's response metadata as a JSON object.
func (e *encoder) responseMeta(b []byte, m *schema.ResponseMeta) []byte {
	start := len(b)
	b = appendNonEmptyField(b, `,"finish_reason":`, m.FinishReason)
	if u := m.Usage; u != nil {
		b = append(b, `,"usage":`...)
		usage := len(b)
		b = appendIntField(b, `,"prompt_tokens":`, int64(u.PromptTokens))
		b = appendIntField(b, `,"prompt_token_details":{"cached_tokens":`, int64(u.PromptTokenDetails.CachedTokens))
		b = appendIntField(b, `,"cache_write_tokens":`, int64(u.PromptTokenDetails.CacheWriteTokens))
		b = appendIntField(b, `},"completion_tokens":`, int64(u.CompletionTokens))
		b = appendIntField(b, `,"total_tokens":`, int64(u.TotalTokens))
		b = append(b, `,"completion_token_details":`...)
		details := len(b)
		b = appendNonZeroField(b, `,"reasoning_tokens":`, int64(u.CompletionTokensDetails.ReasoningTokens))
		b = closeObject(b, details)
		b = closeObject(b, usage)
	}
	if m.LogProbs != nil {
		b = e.reflected(append(b, `,"logprobs":`...), m.LogProbs)
	}
	return closeObject(b, start)
}

// extras appends an Extras field unless it is empty.
func (e *encoder) extras(b []byte, x Extras) []byte {
	if len(x) == 0 {
		return b
	}
	return e.anyMap(append(b, `,"extra":`...), x)
}

// anyMap appends m as a JSON object with its keys sorted, as
// encoding/json writes maps.
func (e *encoder) anyMap(b []byte, m map[string]any) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	start := len(b)
	if len(m) == 1 {
		for k, v := range m {
			b = append(appendString(append(b, ','), k), ':')
			b = e.anyValue(b, v)
		}
		return closeObject(b, start)
	}
	var room [8]string
	keys := room[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(appendString(append(b, ','), k), ':')
		b = e.anyValue(b, m[k])
	}
	return closeObject(b, start)
}

// anyValue appends v, a value of a map[string]any, as encoding/json
// writes it: JSON's own types directly, any other through encoding/json.
func (e *encoder) anyValue(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, t)
	case bool:
		return strconv.AppendBool(b, t)
	case float64:
		return e.float(b, t)
	case int:
		return appendInt(b, int64(t))
	case int64:
		return appendInt(b, t)
	case map[string]any:
		return e.anyMap(b, t)
	case []any:
		if t == nil {
			return append(b, "null"...)
		}
		start := len(b)
		for _, x := range t {
			b = e.anyValue(append(b, ','), x)
		}
		return closeArray(b, start)
	}
	return e.reflected(b, v)
}

// appendStringMap appends m as a JSON object with its keys sorted, as
// encoding/json writes maps.
func appendStringMap(b []byte, m map[string]string) []byte {
	var room [8]string
	keys := room[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	start := len(b)
	for _, k := range keys {
		b = append(appendString(append(b, ','), k), ':')
		b = appendString(b, m[k])
	}
	return closeObject(b, start)
}

// raw appends a JSON text given whole (a tool's parameter schema, an
// extension body) compacted, as encoding/json writes a json.RawMessage.
func (e *encoder) raw(b []byte, v json.RawMessage) []byte {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, v); err != nil {
		e.fail(err)
		return b
	}
	return buf.Bytes()
}

// floatField appends key, given whole, and f.
func (e *encoder) floatField(b []byte, key string, f float64) []byte {
	return e.float(append(b, key...), f)
}

// nonZeroFloatField is floatField for a field left out when zero.
func (e *encoder) nonZeroFloatField(b []byte, key string, f float64) []byte {
	if f == 0 {
		return b
	}
	return e.floatField(b, key, f)
}

// float appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form only for very small and
// very large magnitudes, with a one-digit exponent not padded. NaN and the
// infinities have no JSON form and fail the payload.
func (e *encoder) float(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.fail(fmt.Errorf("json: unsupported value: %v", f))
		return b
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		// e-07 is written e-7.
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// reflectEncoder reuses an encoding/json encoder and its buffer for the
// values the encoder does not write itself.
type reflectEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var reflectEncoders = sync.Pool{New: func() any {
	e := new(reflectEncoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// reflected appends v as encoding/json writes it, with HTML escaping off.
// A MarshalJSON method that panics fails the payload: encoding must not
// take the caller down.
func (e *encoder) reflected(b []byte, v any) (out []byte) {
	r := reflectEncoders.Get().(*reflectEncoder)
	defer func() {
		if p := recover(); p != nil {
			e.fail(fmt.Errorf("panic while encoding: %v", p))
			out = b
			return
		}
		reflectEncoders.Put(r)
	}()
	r.buf.Reset()
	if err := r.enc.Encode(v); err != nil {
		e.fail(err)
		return b
	}
	// Encode ends with a newline that the record must not carry.
	return append(b, bytes.TrimSuffix(r.buf.Bytes(), []byte{'\n'})...)
}

// digitPairs holds the two decimal digits of each number from 0 to 99.
const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" + "60616263646566676869" +
	"70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// appendUint appends u in decimal.
func appendUint(b []byte, u uint64) []byte {
	switch {
	case u < 10:
		return append(b, byte('0'+u))
	case u < 100:
		return append(b, digitPairs[u*2], digitPairs[u*2+1])
	case u < 1000:
		d := u % 100 * 2
		return append(b, byte('0'+u/100), digitPairs[d], digitPairs[d+1])
	case u < 10000:
		c, d := u/100*2, u%100*2
		return append(b, digitPairs[c], digitPairs[c+1], digitPairs[d], digitPairs[d+1])
	}
	return appendLongUint(b, u)
}

// appendLongUint is appendUint for any u.
func appendLongUint(b []byte, u uint64) []byte {
	var digits [20]byte
	i := len(digits)
	for u >= 100 {
		pair := u % 100 * 2
		u /= 100
		i -= 2
		digits[i], digits[i+1] = digitPairs[pair], digitPairs[pair+1]
	}
	if u >= 10 {
		i -= 2
		digits[i], digits[i+1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		i--
		digits[i] = byte('0' + u)
	}
	return append(b, digits[i:]...)
}

// appendInt appends v in decimal.
func appendInt(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u
	}
	return appendUint(b, u)
}

// closeObject makes the fields appended to b from start, each with a
// comma before it, a JSON object: the first comma opens it.
func closeObject(b []byte, start int) []byte {
	if len(b) == start {
		return append(b, "{}"...)
	}
	b[start] = '{'
	return append(b, '}')
}

// closeArray makes the elements appended to b from start, each with a
// comma before it, a JSON array: the first comma opens it.
func closeArray(b []byte, start int) []byte {
	if len(b) == start {
		return append(b, "[]"...)
	}
	b[start] = '['
	return append(b, ']')
}

// The field helpers below take a field's key given whole, from the comma
// before it to the colon after it, and are small enough to be inlined:
// copying a constant key then takes no call.

// appendStringField appends key and v as a JSON string.
func appendStringField(b []byte, key, v string) []byte {
	return appendString(append(b, key...), v)
}

// appendIntField appends key and v.
func appendIntField(b []byte, key string, v int64) []byte {
	return appendInt(append(b, key...), v)
}

// appendBoolField appends key and v.
func appendBoolField(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(append(b, key...), v)
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

// appendTrueField appends field, given whole with its value true, when
// set is true: a boolean left out when false.
func appendTrueField(b []byte, field string, set bool) []byte {
	if !set {
		return b
	}
	return append(b, field...)
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

// plainByte is true for the bytes a JSON string holds as they are: ASCII
// but for control characters, '"' and '\'.
var plainByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = asciiEscapes[c] == ""
	}
	return t
}()

// appendString appends s as a JSON string. It escapes what JSON requires
// plus U+2028 and U+2029 (as encoding/json does), replaces invalid UTF-8
// with U+FFFD, and leaves HTML characters alone.
func appendString(b []byte, s string) []byte {
	i := plainRun(s, 0)
	if i == len(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return appendEscaped(b, s, i)
}

// appendEscaped is appendString for s whose byte at i, and none before,
// is not a plainByte.
func appendEscaped(b []byte, s string, i int) []byte {
	b = append(b, '"')
	start := 0
	for ; i < len(s); i = plainRun(s, i) {
		esc, size := escapeAt(s, i)
		if esc != "" {
			b = append(append(b, s[start:i]...), esc...)
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Masks of the bytes of a word: each byte 0x01, and each byte 0x80.
const (
	eachByte = 0x0101010101010101
	highBits = 0x8080808080808080
)

// plainRun returns the index of the first byte of s, from i on, that is
// not a plainByte, or len(s). It looks at eight bytes at a time while
// none of them needs a closer look, and at the last eight of a string at
// least that long at once.
func plainRun(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if !plainWord(s[i : i+8]) {
			return plainBytes(s, i)
		}
	}
	if i < len(s) && len(s) >= 8 && plainWord(s[len(s)-8:]) {
		return len(s)
	}
	return plainBytes(s, i)
}

// plainBytes returns the index of the first byte of s, from i on, that is
// not a plainByte, or len(s), looking at one byte at a time.
func plainBytes(s string, i int) int {
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	return i
}

// plainWord reports whether the eight bytes of w are plainBytes.
func plainWord(w string) bool {
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	// A byte's high bit is set in one of these when the byte is below
	// 0x20, is '"' or '\', or is not ASCII; borrows can only flag a
	// byte above one that is.
	return (x|(x-eachByte*0x20)|((x^eachByte*'"')-eachByte)|((x^eachByte*'\\')-eachByte))&highBits == 0
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
