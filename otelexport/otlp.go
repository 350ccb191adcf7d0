package otelexport

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/lookout-go/lookout/recorder"
)

// DefaultMaxEvents bounds the events of one span when Options.MaxEvents
// or SinkOptions.MaxEvents is zero.
const DefaultMaxEvents = 1000

// Options tune the offline export. A nil *Options and the zero value mean
// the defaults. The functions only read them, so one value may be shared
// by concurrent exports.
type Options struct {
	// Resource describes where the spans come from. Nil means a resource
	// whose only attribute is service.name "lookout", so that the output
	// depends on the records alone.
	Resource *resource.Resource

	// MaxEvents bounds the events of one span (assessments, budget and
	// extension records of a run); later ones are counted as dropped.
	// Zero means DefaultMaxEvents, negative means no bound.
	MaxEvents int

	// RunID picks the run to export, with the runs below it. Empty means
	// every run.
	RunID string

	// ToolContent exports tool calls' arguments and results, as recorded
	// (redacted and cut by the Recorder), in gen_ai.tool.call.arguments
	// and gen_ai.tool.call.result. The conventions warn that they may hold
	// sensitive data; by default they are left out.
	ToolContent bool
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.Resource == nil {
		v.Resource = resource.NewSchemaless(semconv.ServiceName("lookout"))
	}
	if v.MaxEvents == 0 {
		v.MaxEvents = DefaultMaxEvents
	}
	return v
}

// Spans returns the spans of records, which hold runs in the order a
// Recorder writes them (a run's records in seq order, a parent's
// run_started before its children's), as recorder.Read returns a file.
// A span whose closing record is missing ends as IncompleteType says.
// The spans come grouped by trace, the traces in the order their first
// record appears, each trace's spans by start time, then end time
// (latest first, so a parent comes before a child that starts with it),
// then span id. With Options.RunID set, only that run and the runs below
// it are returned, with the ids a whole export gives them; a RunID not
// in records is an error wrapping ErrUnknownRun.
func Spans(records []recorder.Record, opts *Options) ([]sdktrace.ReadOnlySpan, error) {
	stubs, err := spanStubs(records, opts)
	if err != nil {
		return nil, err
	}
	out := make([]sdktrace.ReadOnlySpan, len(stubs))
	for i := range stubs {
		out[i] = stubs[i].Snapshot()
	}
	return out, nil
}

// spanStubs is Spans before the snapshot.
func spanStubs(records []recorder.Record, opts *Options) ([]tracetest.SpanStub, error) {
	o := opts.withDefaults()
	ex, err := build(records, &o, false)
	return ex.stubs, err
}

// export is what records give: their spans, ordered as Spans says, and,
// when asked for, the metrics of each run tree, in the order of the
// traces.
type export struct {
	stubs []tracetest.SpanStub
	trees []*treeMetrics
}

// build builds the spans of records, and their metrics when metrics is
// set, for the runs o.RunID picks.
func build(records []recorder.Record, o *Options, metrics bool) (export, error) {
	keep, ancestors, err := subtree(records, o.RunID)
	if err != nil {
		return export{}, err
	}
	var ex export
	order := map[trace.TraceID]int{}
	runOf := map[trace.SpanID]string{}
	b := newBuilder(o, func(s *tracetest.SpanStub) { ex.stubs = append(ex.stubs, *s) })
	if metrics {
		b.measure = func(s *tracetest.SpanStub, p *recorder.ModelResponse) {
			if keep == nil || keep[runOfSpan(*s, runOf)] {
				ex.trees[order[s.SpanContext.TraceID()]].add(measure(s, p))
			}
		}
	}
	for i := range records {
		r := &records[i]
		if !wanted(r, keep, ancestors) {
			continue
		}
		// The trace is numbered at its first record, not its first
		// ended span.
		st := b.run(r)
		if _, ok := order[st.span.SpanContext.TraceID()]; !ok {
			order[st.span.SpanContext.TraceID()] = len(order)
			ex.trees = append(ex.trees, newTreeMetrics())
		}
		runOf[st.span.SpanContext.SpanID()] = r.RunID
		b.add(r)
	}
	b.finish()
	ex.stubs = slices.DeleteFunc(ex.stubs, func(s tracetest.SpanStub) bool {
		return keep != nil && !keep[runOfSpan(s, runOf)]
	})
	sortSpans(ex.stubs, order)
	return ex, nil
}

// wanted reports whether r goes into the spans: a record with a payload,
// of a run of the subtree asked for or above it, or of any run when keep
// is nil.
func wanted(r *recorder.Record, keep, ancestors map[string]bool) bool {
	return !recorder.IsNilPayload(r.Payload) && (keep == nil || keep[r.RunID] || ancestors[r.RunID])
}

// sortSpans orders spans by trace, in the order of order, then by start,
// the longer first, and by span id.
func sortSpans(stubs []tracetest.SpanStub, order map[trace.TraceID]int) {
	slices.SortStableFunc(stubs, func(x, y tracetest.SpanStub) int {
		xs, ys := x.SpanContext.SpanID(), y.SpanContext.SpanID()
		return cmp.Or(
			cmp.Compare(order[x.SpanContext.TraceID()], order[y.SpanContext.TraceID()]),
			x.StartTime.Compare(y.StartTime),
			y.EndTime.Compare(x.EndTime),
			bytes.Compare(xs[:], ys[:]),
		)
	})
}

// runOfSpan returns the run a span belongs to: the run of an invoke_agent
// span, the run of its parent span for a call.
func runOfSpan(s tracetest.SpanStub, runOf map[trace.SpanID]string) string {
	if id, ok := runOf[s.SpanContext.SpanID()]; ok {
		return id
	}
	return runOf[s.Parent.SpanID()]
}

// subtree returns the ids of run id and the runs below it, and of the
// runs above it, whose records give the trace id and parents; both are nil
// for every run when id is empty.
func subtree(records []recorder.Record, id string) (keep, ancestors map[string]bool, err error) {
	if id == "" {
		return nil, nil, nil
	}
	keep, parent := below(records, id)
	if !keep[id] {
		return nil, nil, fmt.Errorf("%w: %q", ErrUnknownRun, id)
	}
	ancestors = map[string]bool{}
	for p := parent[id]; p != "" && !ancestors[p]; p = parent[p] {
		ancestors[p] = true
	}
	return keep, ancestors, nil
}

// below returns the ids of run id and the runs below it that records
// hold, a parent's records before its children's, and the parent of each
// run.
func below(records []recorder.Record, id string) (keep map[string]bool, parent map[string]string) {
	keep = map[string]bool{}
	parent = map[string]string{}
	for i := range records {
		r := &records[i]
		if _, ok := parent[r.RunID]; !ok {
			parent[r.RunID] = r.ParentRunID
		}
		if r.RunID == id || keep[r.ParentRunID] {
			keep[r.RunID] = true
		}
	}
	return keep, parent
}

// Requests returns the spans of records (see Spans) as OTLP export
// requests, one per trace, that is one per root run, in the order of
// Spans. Each holds one ResourceSpans with one ScopeSpans.
func Requests(records []recorder.Record, opts *Options) ([]*coltracepb.ExportTraceServiceRequest, error) {
	stubs, err := spanStubs(records, opts)
	if err != nil {
		return nil, err
	}
	var reqs []*coltracepb.ExportTraceServiceRequest
	var spans *tracepb.ScopeSpans
	for i := range stubs {
		s := &stubs[i]
		if i == 0 || s.SpanContext.TraceID() != stubs[i-1].SpanContext.TraceID() {
			spans = &tracepb.ScopeSpans{
				Scope:     &commonpb.InstrumentationScope{Name: s.InstrumentationScope.Name, Version: s.InstrumentationScope.Version},
				SchemaUrl: s.InstrumentationScope.SchemaURL,
			}
			reqs = append(reqs, &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
				Resource:   &resourcepb.Resource{Attributes: keyValues(s.Resource.Attributes())},
				ScopeSpans: []*tracepb.ScopeSpans{spans},
				SchemaUrl:  s.Resource.SchemaURL(),
			}}})
		}
		spans.Spans = append(spans.Spans, protoSpan(s))
	}
	return reqs, nil
}

// WriteJSON writes the spans of records (see Spans) in the OTLP JSON
// encoding, as the OpenTelemetry Collector's OTLP JSON file receiver
// reads it: one ExportTraceServiceRequest per trace, one per line. The
// same records and options always give the same bytes.
func WriteJSON(w io.Writer, records []recorder.Record, opts *Options) error {
	reqs, err := Requests(records, opts)
	if err != nil {
		return err
	}
	for _, req := range reqs {
		line, err := MarshalJSON(req)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSON encodes one request in the OTLP JSON encoding, on one line
// without a trailing newline. It is the Protobuf JSON mapping with OTLP's
// two differences: trace and span ids are hex strings, not base64, and
// enums are numbers. 64-bit integers are strings, as the mapping has them.
// Fields come in the order of the protobuf definition and there is no
// insignificant whitespace, so the output depends on the request alone.
func MarshalJSON(req *coltracepb.ExportTraceServiceRequest) ([]byte, error) {
	return marshalJSON(req)
}

// marshalJSON is MarshalJSON for any request: traces or metrics.
func marshalJSON(req proto.Message) ([]byte, error) {
	data, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("otelexport: encoding request: %w", err)
	}
	// protojson adds whitespace at random, to keep its output from being
	// relied on byte for byte; compacting takes it out.
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := json.Compact(&buf, data); err != nil {
		return nil, fmt.Errorf("otelexport: encoding request: %w", err)
	}
	return hexIDs(buf.Bytes())
}

// idSuffix ends every id key of a request with the start of its value.
var idSuffix = []byte(`Id":"`)

// idKeys are the id keys of a request, quoted.
var idKeys = [][]byte{[]byte(`"traceId"`), []byte(`"spanId"`), []byte(`"parentSpanId"`)}

// hexIDs rewrites the base64 ids of a compact protojson request as hex. A
// key follows '{' or ','; inside a string value every quote is escaped,
// so no value can hold a key.
func hexIDs(in []byte) ([]byte, error) {
	out := make([]byte, 0, len(in))
	for {
		i := bytes.Index(in, idSuffix)
		if i < 0 {
			return append(out, in...), nil
		}
		end := i + len(idSuffix)
		if !isIDKey(in[:i+len(`Id"`)]) {
			out, in = append(out, in[:end]...), in[end:]
			continue
		}
		n := bytes.IndexByte(in[end:], '"')
		if n < 0 {
			return nil, fmt.Errorf("otelexport: encoding request: unterminated id")
		}
		raw, err := base64.StdEncoding.AppendDecode(nil, in[end:end+n])
		if err != nil {
			return nil, fmt.Errorf("otelexport: encoding request: id %q: %w", in[end:end+n], err)
		}
		out = hex.AppendEncode(append(out, in[:end]...), raw)
		in = in[end+n:]
	}
}

// isIDKey reports whether b ends in an id key that follows '{' or ','.
func isIDKey(b []byte) bool {
	for _, k := range idKeys {
		if bytes.HasSuffix(b, k) && len(b) > len(k) && (b[len(b)-len(k)-1] == '{' || b[len(b)-len(k)-1] == ',') {
			return true
		}
	}
	return false
}

// UnmarshalJSON decodes one request in the OTLP JSON encoding, as
// MarshalJSON writes it and the Collector reads it: hex ids, enums as
// numbers or names. An id that is not hex of its length (16 bytes for a
// trace, 8 for a span) is an error.
func UnmarshalJSON(line []byte) (*coltracepb.ExportTraceServiceRequest, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("otelexport: decoding request: %w", err)
	}
	if err := rewriteIDs(v, hexToBase64); err != nil {
		return nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("otelexport: decoding request: %w", err)
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := protojson.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("otelexport: decoding request: %w", err)
	}
	return &req, nil
}

// hexToBase64 turns id, the value of key in OTLP JSON, from hex into the
// base64 of the Protobuf JSON mapping. It fails when id is not hex of
// the key's length.
func hexToBase64(key, id string) (string, error) {
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != idLen[key] {
		return "", fmt.Errorf("otelexport: %s %q is not %d bytes in hex", key, id, idLen[key])
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}

// idLen are the JSON keys of a request's trace and span ids, with the
// ids' lengths in bytes.
var idLen = map[string]int{"traceId": 16, "spanId": 8, "parentSpanId": 8}

// rewriteIDs replaces every id of a decoded request by what rewrite makes
// of it. An empty id (no parent) is left alone.
func rewriteIDs(v any, rewrite func(key, id string) (string, error)) error {
	switch t := v.(type) {
	case map[string]any:
		return rewriteObject(t, rewrite)
	case []any:
		for _, e := range t {
			if err := rewriteIDs(e, rewrite); err != nil {
				return err
			}
		}
	}
	return nil
}

// rewriteObject rewrites the ids of a decoded object: its own and those
// of the values it holds.
func rewriteObject(m map[string]any, rewrite func(key, id string) (string, error)) error {
	for k, e := range m {
		var err error
		if s, ok := e.(string); ok && idLen[k] != 0 {
			err = rewriteID(m, k, s, rewrite)
		} else {
			err = rewriteIDs(e, rewrite)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rewriteID replaces id, the value of key in m, by what rewrite makes of
// it, unless it is empty.
func rewriteID(m map[string]any, key, id string, rewrite func(key, id string) (string, error)) error {
	if id == "" {
		return nil
	}
	out, err := rewrite(key, id)
	if err != nil {
		return err
	}
	m[key] = out
	return nil
}

// protoSpan converts a span as the SDK's OTLP exporters do, so that a
// span exported offline and the same span exported live are equal.
func protoSpan(s *tracetest.SpanStub) *tracepb.Span {
	tid, sid := s.SpanContext.TraceID(), s.SpanContext.SpanID()
	p := &tracepb.Span{
		TraceId:            tid[:],
		SpanId:             sid[:],
		Name:               s.Name,
		Kind:               tracepb.Span_SpanKind(s.SpanKind),
		StartTimeUnixNano:  unixNano(s.StartTime.UnixNano()),
		EndTimeUnixNano:    unixNano(s.EndTime.UnixNano()),
		Attributes:         keyValues(s.Attributes),
		DroppedEventsCount: uint32(min(int64(s.DroppedEvents), math.MaxUint32)),
		Status:             &tracepb.Status{Code: statusCode(s.Status.Code), Message: s.Status.Description},
		Flags:              uint32(s.SpanContext.TraceFlags()) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK),
	}
	if parent := s.Parent.SpanID(); parent.IsValid() {
		p.ParentSpanId = parent[:]
	}
	for _, e := range s.Events {
		p.Events = append(p.Events, &tracepb.Span_Event{Name: e.Name, TimeUnixNano: unixNano(e.Time.UnixNano()), Attributes: keyValues(e.Attributes)})
	}
	return p
}

func unixNano(n int64) uint64 { return uint64(max(0, n)) }

func statusCode(c codes.Code) tracepb.Status_StatusCode {
	switch c {
	case codes.Error:
		return tracepb.Status_STATUS_CODE_ERROR
	case codes.Ok:
		return tracepb.Status_STATUS_CODE_OK
	}
	return tracepb.Status_STATUS_CODE_UNSET
}

func keyValues(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)}
	}
	return out
}

func anyValue(v attribute.Value) *commonpb.AnyValue {
	if a := scalarValue(v); a != nil {
		return a
	}
	if a := sliceValue(v); a != nil {
		return a
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "INVALID"}}
}

// scalarValue converts a bool, int, float or string value, and returns
// nil for any other.
func scalarValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	}
	return nil
}

// sliceValue converts a slice value to an array, and returns nil for any
// other value.
func sliceValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), attribute.StringValue)
	}
	return nil
}

func array[T any](vs []T, value func(T) attribute.Value) *commonpb.AnyValue {
	out := make([]*commonpb.AnyValue, len(vs))
	for i, v := range vs {
		out[i] = anyValue(value(v))
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: out}}}
}
